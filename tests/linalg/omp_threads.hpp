#pragma once
// The OpenMP thread count for one scope (tests that compare results across thread counts).

#include <omp.h>

namespace fvmmini::test {

class Threads {
 public:
  explicit Threads(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(saved_); }
  Threads(const Threads&) = delete;
  Threads& operator=(const Threads&) = delete;

 private:
  int saved_;
};

}  // namespace fvmmini::test
