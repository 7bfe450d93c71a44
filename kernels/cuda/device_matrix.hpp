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
class MixedSpmv;

class DeviceMatrix {
 public:
  /// @param[in] mixed the float32 twin of spmv (precision: mixed), or null
  explicit DeviceMatrix(std::unique_ptr<DeviceSpmv> spmv, std::unique_ptr<MixedSpmv> mixed = nullptr);
  DeviceMatrix(DeviceMatrix&&) noexcept;
  DeviceMatrix& operator=(DeviceMatrix&&) noexcept;
  ~DeviceMatrix();

  label n_rows() const;
  /// Entries stored on the device, padding included.
  std::int64_t stored_entries() const;
  /// Device bytes of the format (values, indices, offsets, library work buffers), its float32
  /// twin's included.
  std::size_t footprint_bytes() const;
  std::string format_name() const;

  /// y = A x, host to host: uploads x, poisons the device y with NaN, runs, downloads y.
  void multiply(std::span<const double> x, std::span<double> y);
  /// y = A x as multiply(), through the SpMV with the fused dot product (the one CG uses): returns
  /// its partial sums of x_i y_i (dot_partial_count of the format; empty when it does not fuse one).
  std::vector<double> multiply_with_dot(std::span<const double> x, std::span<double> y);
  /// The most vectors multiply_block takes (1: the format has no multi-vector SpMV).
  int max_block() const;
  /// Y = A X for k vectors interleaved by row (x[i * k + j]), the matrix read once, host to host
  /// as multiply(); with_dot: through the SpMV that also sums each x_j . y_j (the format must fuse
  /// the dot product), returning its partials (vector j's dot_partial_count() from j times that).
  /// @throws CudaError for k outside [1, max_block()]
  std::vector<double> multiply_block(int k, std::span<const double> x, std::span<double> y, bool with_dot = false);
  /// y = A_float32 x through the float32 twin, host to host, as multiply(); the twin must exist.
  void multiply_mixed(std::span<const double> x, std::span<double> y);
  /// New values in the host format's value layout (the twin's follow); nothing else moves.
  void upload_values(std::span<const double> values);

  /// The device-side object (for the CUDA library's own solvers and timers).
  DeviceSpmv& spmv() { return *spmv_; }
  /// The float32 twin (precision: mixed); null when the matrix has none.
  MixedSpmv* mixed() { return mixed_.get(); }
  /// Share of the twin's stored entries whose column is a 16-bit offset (0 without a twin).
  double narrow_fraction() const;

 private:
  std::unique_ptr<DeviceSpmv> spmv_;
  std::unique_ptr<MixedSpmv> mixed_;  ///< refers to *spmv_: declared after it, destroyed before it
};

/// The formats with a CUDA kernel, in the order of the CUDA unit list.
const std::vector<std::string>& device_format_names();

/// The formats with a float32 twin (precision: mixed), in the order of the CUDA unit list.
std::vector<std::string> mixed_format_names();

/// Upload a built format struct of the format unit `format` to the device, with its float32 twin
/// when `mixed`.
/// @throws std::invalid_argument for a format with no CUDA kernel ("not available on the cuda
///         backend"), or with no mixed-precision kernel when mixed
DeviceMatrix make_device_matrix(const std::string& format, const StoredFormat& stored,
                                const FormatParameters& parameters, bool mixed = false);


}  // namespace fvmmini::cuda
