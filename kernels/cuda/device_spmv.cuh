#pragma once
// A matrix resident on the device in one storage format, and its SpMV. Internal to the CUDA
// library (it speaks cudaStream_t); the rest of the program sees DeviceMatrix.

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <string>

#include "kernels/cuda/device_memory.cuh"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini::cuda {

class DeviceSpmv {
 public:
  virtual ~DeviceSpmv() = default;

  virtual label n_rows() const = 0;
  /// Entries stored, padding included.
  virtual std::int64_t stored_entries() const = 0;
  /// Bytes the format holds on the device (values, indices, offsets, work buffers).
  virtual std::size_t footprint_bytes() const = 0;
  virtual std::string format_name() const = 0;

  /// y = A x on the stream (x, y device pointers of n_rows, in the format's row order).
  virtual void apply(const double* x, double* y, cudaStream_t stream) = 0;

  /// Partial sums that apply_with_dot writes (0: the format does not fuse the dot product).
  virtual int dot_partial_count() const { return 0; }
  /// y = A x, and per-block partial sums of x_i y_i into partials[0 .. dot_partial_count()).
  virtual void apply_with_dot(const double* x, double* y, double* partials, cudaStream_t stream);

  /// The most vectors apply_block takes at once (1: only apply and apply_with_dot).
  virtual int max_block() const { return 1; }
  /// Y = A X for k vectors interleaved by row (X[i * k + j], i in the format's row order), the
  /// matrix read once for all of them; with partials (non-null and the format fusing the dot
  /// product), per-block partial sums of x_j . y_j, vector j's dot_partial_count() of them from
  /// j * dot_partial_count(). k = 1 is apply / apply_with_dot.
  /// @throws CudaError for k outside [1, max_block()]
  virtual void apply_block(int k, const double* x, double* y, double* partials, cudaStream_t stream);

  /// New values in the host struct's value layout (same structure): uploaded, nothing rebuilt.
  virtual void upload_values(std::span<const double> values) = 0;
  /// The device copy of the values, in the host struct's value layout (for updates on the device).
  virtual double* device_values() = 0;
};

/// A matrix's float32 twin (precision: mixed, mixed_spmv.cuh), with which the CG iterates; the
/// float64 matrix it was made from still gives the true residuals.
class MixedSpmv {
 public:
  virtual ~MixedSpmv() = default;
  /// Partial sums apply_with_dot writes (at least 1: every twin fuses the dot product).
  virtual int dot_partial_count() const = 0;
  /// y = A_float32 x on the stream.
  virtual void apply(const double* x, double* y, cudaStream_t stream) = 0;
  /// The same, and per-block partial sums of x_i y_i.
  virtual void apply_with_dot(const double* x, double* y, double* partials, cudaStream_t stream) = 0;
  /// The float32 values from the float64 matrix's device values, on the stream.
  virtual void refresh(cudaStream_t stream) = 0;
  /// Bytes of the twin's own arrays (it reads the float64 matrix's columns where offsets do not fit).
  virtual std::size_t footprint_bytes() const = 0;
  /// Share of the stored entries whose column is a 16-bit offset.
  virtual double narrow_fraction() const = 0;
};

/// What most formats share: the values in one device array, and a Derived::launch<kDot>(x, y,
/// partials, stream) that sums x . y into per-block partials when kDot (Derived befriends this).
template <class Derived>
class FusedDotSpmv : public DeviceSpmv {
 public:
  void apply(const double* x, double* y, cudaStream_t stream) override {
    static_cast<Derived*>(this)->template launch<false>(x, y, nullptr, stream);
  }
  void apply_with_dot(const double* x, double* y, double* partials, cudaStream_t stream) override {
    static_cast<Derived*>(this)->template launch<true>(x, y, partials, stream);
  }
  void upload_values(std::span<const double> values) override { val_.upload(values); }
  double* device_values() override { return val_.data(); }

 protected:
  FusedDotSpmv() = default;
  explicit FusedDotSpmv(std::span<const double> values) : val_(values) {}
  DeviceBuffer<double> val_;  ///< in the host struct's value layout
};

}  // namespace fvmmini::cuda
