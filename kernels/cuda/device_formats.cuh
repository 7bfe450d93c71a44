#pragma once
// A format's CUDA implementation as a unit: the name of the format unit it implements
// (registry/format_units/) and the upload of its host struct. Each <format>.cu defines
// `const DeviceFormatUnit& device_format_<file>()`; the list in kernels/cuda/CMakeLists.txt is
// the registry (device_format.cpp reads it).

#include <functional>
#include <memory>
#include <string>

#include "kernels/cuda/cuda_error.hpp"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_rows.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "linalg/formats/format_parameters.hpp"
#include "linalg/formats/stored_format.hpp"

namespace fvmmini::cuda {

struct DeviceFormatUnit {
  /// A float64 SpMV and its float32 twin (precision: mixed), which refers to it.
  struct Twins {
    std::unique_ptr<DeviceSpmv> full;
    std::unique_ptr<MixedSpmv> mixed;
  };

  std::string name;  ///< the format unit's name, as in case files
  /// Upload the struct the format unit built, with its resolved parameters.
  std::function<std::unique_ptr<DeviceSpmv>(const StoredFormat& format, const FormatParameters& parameters)> make;
  /// The same with the float32 twin; null: the format has no mixed-precision kernel.
  std::function<Twins(const StoredFormat& format, const FormatParameters& parameters)> make_twins{};
  /// Place P A P^T's rows into the arrays of `shape` on the device (the format unit's build_shape:
  /// its index, no arrays): col and values hold its stored entries, padding preset (column -1,
  /// value 0), both null where the rows carry no coefficients; every LDU coefficient's slot into
  /// map (sized). Queued on `stream`. null: the format's arrays are built on the host only.
  std::function<void(const StoredFormat& shape, const DeviceRows& rows, int* col, double* values, DeviceSlotMap& map,
                     cudaStream_t stream)>
      place_rows{};
  /// The SpMV over the arrays place_rows filled, taken over.
  std::function<std::unique_ptr<DeviceSpmv>(const StoredFormat& shape, const FormatParameters& parameters,
                                            DeviceBuffer<int> col, DeviceBuffer<double> values)>
      make_placed{};
};

/// The unit of `format`. @throws std::invalid_argument as make_device_matrix does for a format with no CUDA kernel
const DeviceFormatUnit& find_device_format(const std::string& format);

/// The usual `make`: construct Device from the format struct Matrix (no parameters read).
template <class Device, class Matrix>
std::unique_ptr<DeviceSpmv> upload_as(const StoredFormat& format, const FormatParameters&) {
  return std::make_unique<Device>(format.as<Matrix>());
}

/// "csr" from arrays already on the device (a level GAMG builds there): row offsets (n_rows + 1)
/// and sorted columns another object owns and keeps past the SpMV (levels of several matrices on
/// one pattern share them), and the values, taken over.
std::unique_ptr<DeviceSpmv> make_device_csr(int n_rows, const int* row_ptr, const int* col,
                                            DeviceBuffer<double> values);

}  // namespace fvmmini::cuda
