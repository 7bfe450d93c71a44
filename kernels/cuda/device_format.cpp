// Format name -> device upload: the CUDA format units listed in kernels/cuda/CMakeLists.txt.

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_matrix.hpp"

namespace fvmmini::cuda {

// declarations of device_format_<file>() and listed_device_formats()
#include "device_formats.inc"

const std::vector<std::string>& device_format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const DeviceFormatUnit* unit : listed_device_formats()) out.push_back(unit->name);
    return out;
  }();
  return names;
}

DeviceMatrix make_device_matrix(const std::string& format, const StoredFormat& stored,
                                const FormatParameters& parameters) {
  for (const DeviceFormatUnit* unit : listed_device_formats())
    if (unit->name == format) return DeviceMatrix(unit->make(stored, parameters));
  throw std::invalid_argument(fmt::format("format '{}' is not available on the cuda backend (cuda formats: {})",
                                          format, fmt::join(device_format_names(), ", ")));
}

DeviceMatrix make_device_matrix(const PreparedFormat& prepared) {
  return make_device_matrix(prepared.format_name, prepared.format, prepared.parameters);
}

}  // namespace fvmmini::cuda
