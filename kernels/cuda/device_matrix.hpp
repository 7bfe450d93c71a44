#pragma once
// A matrix on the device in one storage format, seen from plain C++ (no CUDA types), and its
// upload from a built format struct.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "linalg/formats/format_parameters.hpp"
#include "linalg/formats/stored_format.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini::cuda {

class DeviceSpmv;

class DeviceMatrix {
 public:
  explicit DeviceMatrix(std::unique_ptr<DeviceSpmv> spmv);
  DeviceMatrix(DeviceMatrix&&) noexcept;
  DeviceMatrix& operator=(DeviceMatrix&&) noexcept;
  ~DeviceMatrix();

  label n_rows() const;
  /// Entries stored on the device, padding included.
  std::int64_t stored_entries() const;
  /// Device bytes of the format (values, indices, offsets, library work buffers).
  std::size_t footprint_bytes() const;
  std::string format_name() const;

  /// y = A x, host to host: uploads x, poisons the device y with NaN, runs, downloads y.
  void multiply(std::span<const double> x, std::span<double> y);
  /// y = A x as multiply(), through the SpMV with the fused dot product (the one CG uses): returns
  /// its partial sums of x_i y_i (dot_partial_count of the format; empty when it does not fuse one).
  std::vector<double> multiply_with_dot(std::span<const double> x, std::span<double> y);
  /// New values in the host format's value layout; nothing else moves.
  void upload_values(std::span<const double> values);

  /// The device-side object (for the CUDA library's own solvers and timers).
  DeviceSpmv& spmv() { return *spmv_; }

 private:
  std::unique_ptr<DeviceSpmv> spmv_;
};

/// The formats with a CUDA kernel, in the order of the CUDA unit list.
const std::vector<std::string>& device_format_names();

/// Upload a built format struct of the format unit `format` to the device.
/// @throws std::invalid_argument for a format with no CUDA kernel ("not available on the cuda backend")
DeviceMatrix make_device_matrix(const std::string& format, const StoredFormat& stored,
                                const FormatParameters& parameters);


}  // namespace fvmmini::cuda
