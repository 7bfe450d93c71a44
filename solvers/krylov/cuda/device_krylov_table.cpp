#include "solvers/krylov/cuda/device_krylov.hpp"

#include <vector>

#include "base/unit_twins.hpp"

namespace fvmmini::cuda {

// The units listed in solvers/CMakeLists.txt (FVMMINI_CUDA_KRYLOV): declarations of
// device_krylov_<file>() and listed_device_krylovs(); their files' names.
#include "cuda_krylov_files.inc"
#include "device_krylovs.inc"

const DeviceKrylovUnit& find_device_krylov(const std::string& name) {
  return find_twin(listed_device_krylovs(), cuda_krylov_files(), name, "solvers/krylov/units/cuda/", "solver");
}

}  // namespace fvmmini::cuda
