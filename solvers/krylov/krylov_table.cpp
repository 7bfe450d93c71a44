#include "solvers/krylov/krylov_table.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvmmini {

// The units listed in solvers/CMakeLists.txt (FVMMINI_KRYLOV_UNITS): declarations of
// krylov_unit_<file>() and listed_krylov_units().
#include "krylov_units.inc"

const std::vector<KrylovUnit>& krylov_table() {
  static const std::vector<KrylovUnit> table = [] {
    std::vector<KrylovUnit> units;
    for (const KrylovUnit* unit : listed_krylov_units()) {
      if (!unit->make) throw std::logic_error(fmt::format("Krylov unit '{}' has no implementation", unit->name));
      for (const KrylovUnit& known : units)
        if (known.name == unit->name) throw std::logic_error(fmt::format("two Krylov units named '{}'", unit->name));
      units.push_back(*unit);
    }
    return units;
  }();
  return table;
}

const KrylovUnit& find_krylov(const std::string& name) {
  for (const KrylovUnit& unit : krylov_table())
    if (unit.name == name) return unit;
  throw std::invalid_argument(fmt::format("unknown solver '{}' (known: {})", name, fmt::join(krylov_names(), ", ")));
}

std::vector<std::string> krylov_names() {
  std::vector<std::string> names;
  for (const KrylovUnit& unit : krylov_table()) names.push_back(unit.name);
  return names;
}

}  // namespace fvmmini
