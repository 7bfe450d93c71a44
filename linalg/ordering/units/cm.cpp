// "cm": Cuthill-McKee from a pseudo-peripheral node.

#include "linalg/ordering/ordering_unit.hpp"
#include "linalg/ordering/orderings.hpp"

namespace fvmmini {

const OrderingUnit& ordering_unit_cm() {
  static const OrderingUnit unit{
      .name = "cm",
      .summary = "Cuthill-McKee (bandwidth-reducing breadth-first order)",
      .make = [](const LduAddressing& a, std::uint64_t) { return cuthill_mckee(a); },
  };
  return unit;
}

}  // namespace fvmmini
