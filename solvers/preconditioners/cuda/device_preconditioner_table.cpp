#include "solvers/preconditioners/cuda/device_preconditioner.hpp"

#include <vector>

#include "base/unit_twins.hpp"

namespace fvmmini::cuda {

// The units listed in solvers/CMakeLists.txt (FVMMINI_CUDA_PRECONDITIONERS): declarations of
// device_preconditioner_<file>() and listed_device_preconditioners(); their files' names.
#include "cuda_preconditioner_files.inc"
#include "device_preconditioners.inc"

const DevicePreconditionerUnit& find_device_preconditioner(const std::string& name) {
  return find_twin(listed_device_preconditioners(), cuda_preconditioner_files(), name,
                   "solvers/preconditioners/units/cuda/", "preconditioner");
}

}  // namespace fvmmini::cuda
