#pragma once
// The kernels' side of precision: mixed (mixed_spmv.cuh): a row of a float32 twin's slice, the
// MixedRows reader the ELL-slice kernels are templated on (FullRows in ell_slice.cuh reads the
// float64 matrix), and the twin of such a format. For .cu files only.

#include <cuda_runtime.h>

#include <memory>

#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/mixed_spmv.cuh"

namespace fvmmini::cuda {

/// sum_k double(val[k]) * x[column k] over the L entries of lane `row` in a slice: columns row +
/// offset when the slice is narrow, else the float64 format's; all loads issued before the first use.
template <int L>
__device__ inline double mixed_row_fixed(const float* __restrict__ val, const short* __restrict__ off,
                                         const int* __restrict__ col, long long base, int stride, int row, bool narrow,
                                         const double* __restrict__ x) {
  int c[L];
  float v[L];
  if (narrow) {
#pragma unroll
    for (int k = 0; k < L; ++k) {
      const short o = __ldcs(off + base + static_cast<long long>(k) * stride);
      c[k] = o == narrow_padding ? -1 : row + o;
    }
  } else {
#pragma unroll
    for (int k = 0; k < L; ++k) c[k] = __ldcs(col + base + static_cast<long long>(k) * stride);
  }
#pragma unroll
  for (int k = 0; k < L; ++k) v[k] = __ldcs(val + base + static_cast<long long>(k) * stride);
  double sum = 0.0;
#pragma unroll
  for (int k = 0; k < L; ++k)
    if (c[k] >= 0) sum += static_cast<double>(v[k]) * __ldg(x + c[k]);
  return sum;
}

/// The same for a run-time length (as slice_row in ell_slice.cuh).
__device__ inline double mixed_row(const float* __restrict__ val, const short* __restrict__ off,
                                   const int* __restrict__ col, long long base, int stride, int length, int row,
                                   bool narrow, const double* __restrict__ x) {
  switch (length) {
    case 0: return 0.0;
    case 1: return mixed_row_fixed<1>(val, off, col, base, stride, row, narrow, x);
    case 2: return mixed_row_fixed<2>(val, off, col, base, stride, row, narrow, x);
    case 3: return mixed_row_fixed<3>(val, off, col, base, stride, row, narrow, x);
    case 4: return mixed_row_fixed<4>(val, off, col, base, stride, row, narrow, x);
    case 5: return mixed_row_fixed<5>(val, off, col, base, stride, row, narrow, x);
    case 6: return mixed_row_fixed<6>(val, off, col, base, stride, row, narrow, x);
    case 7: return mixed_row_fixed<7>(val, off, col, base, stride, row, narrow, x);
    case 8: return mixed_row_fixed<8>(val, off, col, base, stride, row, narrow, x);
    default: break;
  }
  double sum = 0.0;
#pragma unroll 4
  for (int k = 0; k < length; ++k) {
    const long long i = base + static_cast<long long>(k) * stride;
    int c;
    if (narrow) {
      const short o = __ldcs(off + i);
      c = o == narrow_padding ? -1 : row + o;
    } else {
      c = __ldcs(col + i);
    }
    const float v = __ldcs(val + i);
    if (c >= 0) sum += static_cast<double>(v) * __ldg(x + c);
  }
  return sum;
}

/// The float32 twin's entries, for the kernels templated on how a row is read (FullRows: float64).
struct MixedRows {
  /// Staircase's interleaved kernel with the dot product and a prefetched slice took 46 registers
  /// (one 1024-thread block per SM); without the prefetch, 32 and no spills.
  static constexpr bool kTightWithDot = true;
  const float* __restrict__ val;
  const short* __restrict__ off;
  const int* __restrict__ col;
  const unsigned char* __restrict__ narrow;  ///< per slice
  __device__ double sum(long long base, int stride, int length, int row, long long slice,
                        const double* __restrict__ x) const {
    return mixed_row(val, off, col, base, stride, length, row, narrow[slice] != 0, x);
  }
};

/// The rows of a twin's entries.
inline MixedRows mixed_rows(const MixedEntries& e) { return {e.values(), e.offsets(), e.columns(), e.narrow()}; }

/// The float32 twin of an ELL-slice device format Device: Device::run<kDot>(MixedRows, ...) runs
/// Device's own kernels on the twin's entries, and Device::narrow(matrix) says which slices store
/// 16-bit offsets.
template <class Device>
class EllMixedSpmv final : public MixedSpmv {
 public:
  template <class Matrix>
  EllMixedSpmv(Device& full, const Matrix& matrix)
      : full_(full),
        entries_(full.narrow(matrix), full.device_columns(), full.device_values(),
                 static_cast<std::size_t>(full.stored_entries())) {}

  int dot_partial_count() const override { return full_.dot_partial_count(); }
  void apply(const double* x, double* y, cudaStream_t stream) override {
    full_.template run<false>(mixed_rows(entries_), x, y, nullptr, stream);
  }
  void apply_with_dot(const double* x, double* y, double* partials, cudaStream_t stream) override {
    full_.template run<true>(mixed_rows(entries_), x, y, partials, stream);
  }
  void refresh(cudaStream_t stream) override { entries_.refresh(stream); }
  std::size_t footprint_bytes() const override { return entries_.bytes(); }
  double narrow_fraction() const override { return entries_.narrow_fraction(); }

 private:
  Device& full_;
  MixedEntries entries_;
};

/// The usual `make_twins`: Device from the format struct Matrix, and its EllMixedSpmv.
template <class Device, class Matrix>
DeviceFormatUnit::Twins make_twins(const Matrix& matrix) {
  auto full = std::make_unique<Device>(matrix);
  auto mixed = std::make_unique<EllMixedSpmv<Device>>(*full, matrix);
  return {std::move(full), std::move(mixed)};
}

}  // namespace fvmmini::cuda
