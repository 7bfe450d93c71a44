#include "solvers/preconditioners/cuda/device_preconditioner.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "base/unit_twins.hpp"

namespace fvmmini::cuda {

// The units listed in solvers/CMakeLists.txt (FVMMINI_CUDA_PRECONDITIONERS): declarations of
// device_preconditioner_<file>() and listed_device_preconditioners(); their files' names.
#include "cuda_preconditioner_files.inc"
#include "device_preconditioners.inc"

void DevicePreconditioner::apply_block(int k, const double*, double*, const int*, CUstream_st*) {
  throw std::logic_error("this preconditioner takes one vector at a time on the device, not " + std::to_string(k));
}

const DevicePreconditionerUnit& find_device_preconditioner(const std::string& name) {
  return find_twin(listed_device_preconditioners(), cuda_preconditioner_files(), name,
                   "solvers/preconditioners/units/cuda/", "preconditioner");
}

}  // namespace fvmmini::cuda
