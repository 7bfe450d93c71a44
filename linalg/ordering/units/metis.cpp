// "metis": METIS nested dissection (METIS_NodeND).

#include "linalg/ordering/ordering_unit.hpp"
#include "linalg/ordering/orderings.hpp"

namespace fvmmini {

const OrderingUnit& ordering_unit_metis() {
  static const OrderingUnit unit{
      .name = "metis",
      .summary = "METIS nested dissection",
      .make = [](const LduAddressing& a, std::uint64_t) { return metis_ordering(a); },
  };
  return unit;
}

}  // namespace fvmmini
