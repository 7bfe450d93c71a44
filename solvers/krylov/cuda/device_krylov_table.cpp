#include "solvers/krylov/cuda/device_krylov.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "solvers/preconditioners/preconditioner_table.hpp"  // unit_file_name

namespace fvmmini::cuda {

// The units listed in solvers/CMakeLists.txt (FVMMINI_CUDA_KRYLOV): declarations of
// device_krylov_<file>() and listed_device_krylovs(); their files' names.
#include "cuda_krylov_files.inc"
#include "device_krylovs.inc"

namespace {

/// The twins, checked once: each file is named as its unit (unit_file_name), so that a build
/// without CUDA, which knows the files alone, names the same methods.
const std::vector<const DeviceKrylovUnit*>& checked_twins() {
  static const std::vector<const DeviceKrylovUnit*> twins = [] {
    const auto& units = listed_device_krylovs();
    for (std::size_t i = 0; i < units.size(); ++i)
      if (unit_file_name(units[i]->name) != cuda_krylov_files().at(i))
        throw std::logic_error(fmt::format("solvers/krylov/units/cuda/{}.cpp implements '{}': name the file {}.cpp",
                                           cuda_krylov_files()[i], units[i]->name, unit_file_name(units[i]->name)));
    return units;
  }();
  return twins;
}

}  // namespace

const DeviceKrylovUnit& find_device_krylov(const std::string& name) {
  std::vector<std::string> known;
  for (const DeviceKrylovUnit* unit : checked_twins()) {
    if (unit->name == name) return *unit;
    known.push_back(unit->name);
  }
  throw std::invalid_argument(
      fmt::format("solver '{}' has no cuda implementation (the cuda backend has: {})", name, fmt::join(known, ", ")));
}

}  // namespace fvmmini::cuda
