// "none": the mesh's own numbering.

#include "linalg/ordering/ordering_unit.hpp"

namespace fvmmini {

const OrderingUnit& ordering_unit_none() {
  static const OrderingUnit unit{
      .name = "none",
      .summary = "the mesh's own numbering",
      .make = [](const LduAddressing& a, std::uint64_t) { return Permutation::identity(a.n_rows); },
      .identity = true,
  };
  return unit;
}

}  // namespace fvmmini
