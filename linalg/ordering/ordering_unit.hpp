#pragma once
// A row ordering as one unit: its name, one line about it, and how it is made from the matrix
// graph. One file per ordering in linalg/ordering/units/ defines one, and the list in
// linalg/CMakeLists.txt is the table (orderings.hpp: ordering_table(), make_ordering). The
// algorithms themselves are in orderings.hpp.

#include <cstdint>
#include <functional>
#include <string>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

struct OrderingUnit {
  std::string name{};     ///< as in case files
  std::string summary{};  ///< one line for --help and the docs
  /// The ordering of the matrix graph; `seed` for the ones that draw at random.
  std::function<Permutation(const LduAddressing&, std::uint64_t seed)> make{};
  /// What it is where the format groups the rows by length itself afterwards (its own second
  /// stage, so only the first is made here); null: make.
  std::function<Permutation(const LduAddressing&)> before_grouping{};
  /// The identity: nothing to make, so nothing worth reusing from an earlier set-up.
  bool identity = false;
};

}  // namespace fvmmini
