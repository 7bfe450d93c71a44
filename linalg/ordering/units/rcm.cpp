// "rcm": reverse Cuthill-McKee (George & Liu).

#include "linalg/ordering/ordering_unit.hpp"
#include "linalg/ordering/orderings.hpp"

namespace fvmmini {

const OrderingUnit& ordering_unit_rcm() {
  static const OrderingUnit unit{
      .name = "rcm",
      .summary = "reverse Cuthill-McKee",
      .make = [](const LduAddressing& a, std::uint64_t) { return reverse_cuthill_mckee(a); },
  };
  return unit;
}

}  // namespace fvmmini
