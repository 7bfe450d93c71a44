// Format name -> device upload: the CUDA format units listed in kernels/cuda/CMakeLists.txt.

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_matrix.hpp"

namespace fvmmini::cuda {

// declarations of device_format_<file>() and listed_device_formats(); cuda_format_files()
#include "device_formats.inc"
#include "cuda_format_files.inc"

const std::vector<std::string>& device_format_names() {
  static const std::vector<std::string> names = [] {
    // --- a unit's file bears its format's name: a CPU-only build lists the cuda formats by file
    std::vector<std::string> out;
    const auto& units = listed_device_formats();
    for (std::size_t i = 0; i < units.size(); ++i) {
      std::string file = units[i]->name;
      std::replace(file.begin(), file.end(), '-', '_');
      if (file != cuda_format_files().at(i))
        throw std::logic_error(fmt::format("kernels/cuda/{}.cu implements format '{}': name the file {}.cu",
                                           cuda_format_files()[i], units[i]->name, file));
      out.push_back(units[i]->name);
    }
    return out;
  }();
  return names;
}

std::vector<std::string> mixed_format_names() {
  std::vector<std::string> out;
  for (const DeviceFormatUnit* unit : listed_device_formats())
    if (unit->make_twins) out.push_back(unit->name);
  return out;
}

const DeviceFormatUnit& find_device_format(const std::string& format) {
  for (const DeviceFormatUnit* unit : listed_device_formats())
    if (unit->name == format) return *unit;
  throw std::invalid_argument(fmt::format("format '{}' is not available on the cuda backend (cuda formats: {})",
                                          format, fmt::join(device_format_names(), ", ")));
}

DeviceMatrix make_device_matrix(const std::string& format, const StoredFormat& stored,
                                const FormatParameters& parameters, bool mixed) {
  const DeviceFormatUnit& unit = find_device_format(format);
  if (!mixed) return DeviceMatrix(unit.make(stored, parameters));
  if (!unit.make_twins)
    throw std::invalid_argument(fmt::format("precision mixed: format '{}' has no mixed-precision kernel (formats with "
                                            "one: {})",
                                            format, fmt::join(mixed_format_names(), ", ")));
  DeviceFormatUnit::Twins twins = unit.make_twins(stored, parameters);
  return DeviceMatrix(std::move(twins.full), std::move(twins.mixed));
}

}  // namespace fvmmini::cuda
