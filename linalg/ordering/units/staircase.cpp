// "staircase": the Staircase SELL ordering (Wikberg 2025, 4.3.1): Cuthill-McKee from a minimally
// connected node, then the rows grouped by length.

#include "linalg/ordering/ordering_unit.hpp"
#include "linalg/ordering/orderings.hpp"

namespace fvmmini {

const OrderingUnit& ordering_unit_staircase() {
  static const OrderingUnit unit{
      .name = "staircase",
      .summary = "Cuthill-McKee from a minimally connected node, rows grouped by length (Staircase SELL)",
      .make = [](const LduAddressing& a, std::uint64_t) { return staircase_ordering(a); },
      .before_grouping = [](const LduAddressing& a) { return cuthill_mckee(a, CmStart::min_degree); },
  };
  return unit;
}

}  // namespace fvmmini
