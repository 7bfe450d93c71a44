#include "solvers/preconditioners/cuda/device_preconditioner.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini::cuda {

// The units listed in solvers/CMakeLists.txt (FVMMINI_CUDA_PRECONDITIONERS): declarations of
// device_preconditioner_<file>() and listed_device_preconditioners(); their files' names.
#include "cuda_preconditioner_files.inc"
#include "device_preconditioners.inc"

namespace {

/// The twins, checked once: each file is named as its unit (unit_file_name), so that a
/// build without CUDA, which knows the files alone, names the same preconditioners.
const std::vector<const DevicePreconditionerUnit*>& checked_twins() {
  static const std::vector<const DevicePreconditionerUnit*> twins = [] {
    const auto& units = listed_device_preconditioners();
    for (std::size_t i = 0; i < units.size(); ++i)
      if (unit_file_name(units[i]->name) != cuda_preconditioner_files().at(i))
        throw std::logic_error(fmt::format("solvers/preconditioners/units/cuda/{}.cpp implements '{}': name the "
                                           "file {}.cpp",
                                           cuda_preconditioner_files()[i], units[i]->name,
                                           unit_file_name(units[i]->name)));
    return units;
  }();
  return twins;
}

}  // namespace

const DevicePreconditionerUnit& find_device_preconditioner(const std::string& name) {
  std::vector<std::string> known;
  for (const DevicePreconditionerUnit* unit : checked_twins()) {
    if (unit->name == name) return *unit;
    known.push_back(unit->name);
  }
  throw std::invalid_argument(fmt::format("preconditioner '{}' has no cuda implementation (the cuda backend has: {})",
                                          name, fmt::join(known, ", ")));
}

}  // namespace fvmmini::cuda
