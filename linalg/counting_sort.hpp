#pragma once
// A sequence stably sorted by a small key (a row's length, a node's degree, a row's colour): the
// counting sort on every thread that the orderings and the builders share.

#include <omp.h>

#include <cstdint>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/parallel.hpp"

namespace fvmmini {

/// item(0), ..., item(n - 1) sorted by key(item) in [0, n_keys), ties in sequence order. Each
/// thread counts its own contiguous share of the sequence; the bins are numbered key-major, then
/// thread, so equal keys keep their order. n_keys counters a thread, so it runs on one thread
/// where the threads' counters would outnumber the items (a hub's degree, a dense row's length).
template <class Item, class Key>
std::vector<label> counting_sort(label n, label n_keys, const Item& item, const Key& key) {
  std::vector<label> sorted(n);
  if (n == 0) return sorted;
  std::vector<std::int64_t> offset;  // [thread * n_keys + key]
#pragma omp parallel if (n >= min_parallel_rows && std::int64_t{n_keys} * omp_get_max_threads() <= n)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
#pragma omp single
    offset.assign(static_cast<std::size_t>(nt) * n_keys, 0);
    const auto first = static_cast<label>(std::int64_t{n} * t / nt);
    const auto last = static_cast<label>(std::int64_t{n} * (t + 1) / nt);
    std::int64_t* mine = offset.data() + static_cast<std::int64_t>(t) * n_keys;
    for (label k = first; k < last; ++k) ++mine[key(item(k))];
#pragma omp barrier
#pragma omp single
    {
      std::int64_t running = 0;
      for (label b = 0; b < n_keys; ++b)
        for (int u = 0; u < nt; ++u) {
          std::int64_t& o = offset[static_cast<std::size_t>(u) * n_keys + b];
          const std::int64_t count = o;
          o = running;
          running += count;
        }
    }
    for (label k = first; k < last; ++k) {
      const label i = item(k);
      sorted[mine[key(i)]++] = i;
    }
  }
  return sorted;
}

}  // namespace fvmmini
