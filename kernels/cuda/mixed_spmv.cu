#include "kernels/cuda/mixed_spmv.cuh"

#include <cstdlib>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini::cuda {

namespace {

__global__ void to_float_kernel(long long n, const double* __restrict__ in, float* __restrict__ out) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = static_cast<float>(in[i]);
}

}  // namespace

NarrowColumns narrow_columns(std::span<const int> col, std::span<const EllSlice> slices,
                             const std::function<int(std::size_t slice, int lane)>& row_of) {
  NarrowColumns out;
  out.offsets.assign(col.size(), 0);
  out.narrow.assign(slices.size(), 0);
  for (std::size_t s = 0; s < slices.size(); ++s) {
    const EllSlice& slice = slices[s];
    const std::int64_t entries = static_cast<std::int64_t>(slice.lanes) * slice.length;
    out.entries += entries;
    bool fits = true;
    for (int t = 0; t < slice.lanes && fits; ++t) {
      const int row = row_of(s, t);
      for (int k = 0; k < slice.length && fits; ++k) {
        const int c = col[slice.entry_start + static_cast<std::int64_t>(k) * slice.lanes + t];
        if (c >= 0) fits = row >= 0 && std::abs(static_cast<long long>(c) - row) <= SHRT_MAX;
      }
    }
    if (!fits) continue;
    out.narrow[s] = 1;
    out.narrow_entries += entries;
    for (int t = 0; t < slice.lanes; ++t) {
      const int row = row_of(s, t);
      for (int k = 0; k < slice.length; ++k) {
        const std::int64_t slot = slice.entry_start + static_cast<std::int64_t>(k) * slice.lanes + t;
        out.offsets[slot] = col[slot] >= 0 ? static_cast<short>(col[slot] - row) : narrow_padding;
      }
    }
  }
  return out;
}

MixedEntries::MixedEntries(const NarrowColumns& columns, const int* col, const double* source_values,
                           std::size_t slots)
    : values_(slots),
      offsets_(std::span<const short>(columns.offsets)),
      narrow_(std::span<const unsigned char>(columns.narrow)),
      col_(col),
      source_(source_values),
      narrow_fraction_(columns.entries > 0 ? static_cast<double>(columns.narrow_entries) / columns.entries : 0.0) {
  if (columns.offsets.size() != slots) throw CudaError("MixedEntries: offsets and values differ in length");
  refresh(nullptr);
  FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
}

void MixedEntries::refresh(cudaStream_t stream) {
  const auto n = static_cast<long long>(values_.size());
  if (n == 0) return;
  to_float_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, source_, values_.data());
  FVMMINI_CUDA_CHECK_LAUNCH(to_float_kernel);
}

}  // namespace fvmmini::cuda
