// "random": a uniformly random permutation from a seeded generator (stress tests).

#include "linalg/ordering/ordering_unit.hpp"
#include "linalg/ordering/orderings.hpp"

namespace fvmmini {

const OrderingUnit& ordering_unit_random() {
  static const OrderingUnit unit{
      .name = "random",
      .summary = "a seeded random permutation (stress tests)",
      .make = [](const LduAddressing& a, std::uint64_t seed) { return random_ordering(a.n_rows, seed); },
  };
  return unit;
}

}  // namespace fvmmini
