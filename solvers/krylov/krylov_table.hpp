#pragma once
// The Krylov methods listed in solvers/CMakeLists.txt (FVMMINI_KRYLOV_UNITS), in that order, and
// the questions asked of them by name.

#include <string>
#include <vector>

#include "solvers/krylov/krylov_unit.hpp"

namespace fvmmini {

/// Every unit, checked once: names unique, an implementation each.
const std::vector<KrylovUnit>& krylov_table();

/// The unit of a name. @throws std::invalid_argument for an unknown one, listing the known names
const KrylovUnit& find_krylov(const std::string& name);

/// The units' names, in table order: CG.
std::vector<std::string> krylov_names();

}  // namespace fvmmini
