// "colour": the multicolour ordering, each greedy colour one contiguous range of rows.

#include "linalg/ordering/ordering_unit.hpp"
#include "linalg/ordering/orderings.hpp"

namespace fvmmini {

const OrderingUnit& ordering_unit_colour() {
  static const OrderingUnit unit{
      .name = "colour",
      .summary = "multicolour: rows sorted by greedy colour (DIC's levels become the colours)",
      .make = [](const LduAddressing& a, std::uint64_t) { return colour_ordering(a); },
  };
  return unit;
}

}  // namespace fvmmini
