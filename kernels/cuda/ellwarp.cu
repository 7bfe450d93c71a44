// "ellwarp": ELL-WARP (Wong, Kuhl & Darve; linalg/formats/ellwarp_matrix.hpp), one warp per
// slice. K1: lane l sums the row at position slice_row + l (the paper's Listing 2). K2: the t
// lanes of a row sum its interleaved entries and a __shfl_down_sync tree folds them into the
// row's first lane, which writes y (Listing 3, with shuffles in place of its shared memory). The
// result goes to y[row_order[p]], or to y[p] when the rows are in place (the "r" variant).
//
// Each warp reads one 16-byte record per slice (first slot, first row, width, log2 t), from a
// table in visit order: the order of EllWarpMatrix::slice_position when the matrix has it, else
// storage order (the paper's). With row lengths that vary from cell to cell, each length's rows
// are spread over the whole mesh, so storage order sweeps x once per length; visiting the slices
// by their place in the mesh, a block of ellwarp_block threads takes consecutive visits and so
// sums one stretch of the mesh in every length, and the x sectors its warps gather are shared in
// L1 (what took the Staircase kernel from 60 to 87 % of copy bandwidth on the polyhedral-like
// 200^3 matrix: kernels/cuda/README.md). Block size and one-wave grid as that kernel's. Every row
// is summed the same way whatever the visit order: y does not depend on it, the dot partials do.

#include <algorithm>
#include <bit>
#include <memory>
#include <numeric>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/ell_slice.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/formats/ellwarp_matrix.hpp"

namespace fvmmini::cuda {

namespace {

constexpr int ellwarp_block = 1024;  ///< threads a block: 32 warps, 32 consecutive visits
constexpr int warp = EllWarpMatrix::warp_size;
constexpr int lanes_bits = 3;  ///< low bits of Visit::shape holding log2 t (t <= 32)

/// One slice as a warp visits it.
struct alignas(16) Visit {
  long long start;  ///< slice_ptr[s]: the slot of lane 0, entry 0
  int first_row;    ///< slice_row[s]: the sorted position of the slice's row 0
  int shape;        ///< width << lanes_bits | log2(t): entries per lane, lanes per row
};

/// Warp w of block b handles visits b * m + w, then + gridDim.x * m, ... (m warps a block); the
/// next visit's record is loaded before the current slice is summed. kLanes: 1 for K1 (t = 1,
/// no reduction), 0 for K2 (t from the record). kInPlace: y[p] (row_order not read). With
/// partials, block b writes partials[b] (sum of x_row y_row).
template <int kLanes, bool kInPlace, bool kDot>
__global__ void __launch_bounds__(ellwarp_block)
    ellwarp_kernel(int n_visits, int n_rows, const Visit* __restrict__ visits, const int* __restrict__ row_order,
                   const int* __restrict__ col, const double* __restrict__ val, const double* __restrict__ x,
                   double* __restrict__ y, double* __restrict__ partials) {
  constexpr int warps = ellwarp_block / warp;
  const int lane = threadIdx.x % warp;
  double dot = 0.0;
  int v = blockIdx.x * warps + threadIdx.x / warp;
  const int step = gridDim.x * warps;
  Visit next{};
  if (v < n_visits) next = visits[v];
  // --- v is the same for the whole warp: every lane runs the same iterations and shuffles
  for (; v < n_visits; v += step) {
    const Visit slice = next;
    if (v + step < n_visits) next = visits[v + step];
    const int width = slice.shape >> lanes_bits;
    const int log2t = kLanes == 1 ? 0 : (slice.shape & ((1 << lanes_bits) - 1));
    // --- the lane's partial sum: its entries k = 0 .. width-1 at start + k * 32 + lane
    double sum = slice_row(val, col, slice.start + lane, warp, width, x);
    if constexpr (kLanes != 1) {
      // --- y_row = sum over the row's t adjacent lanes (fixed tree, into the first lane)
      const int t = 1 << log2t;
      for (int offset = t / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, t);
    }
    const int p = slice.first_row + (lane >> log2t);
    // --- lanes past the last real row (last slice only) hold padding and write nothing
    if ((lane & ((1 << log2t) - 1)) == 0 && p < n_rows) {
      const int row = kInPlace ? p : row_order[p];
      y[row] = sum;
      if constexpr (kDot) dot += sum * x[row];
    }
  }
  if constexpr (kDot) write_block_partials<1>(Sums<1>{{dot}}, partials, gridDim.x, blockIdx.x);
}

/// The slices' records in visit order (see the file comment).
std::vector<Visit> visit_order(const EllWarpMatrix& a) {
  std::vector<label> order(a.n_slices);
  std::iota(order.begin(), order.end(), 0);
  if (a.slice_position.size() == order.size())
    std::stable_sort(order.begin(), order.end(),
                     [&](label l, label r) { return a.slice_position[l] < a.slice_position[r]; });
  std::vector<Visit> visits(order.size());
  for (std::size_t v = 0; v < order.size(); ++v) {
    const label s = order[v];
    const int t = a.threads_per_row[s];
    const int log2t = std::countr_zero(static_cast<unsigned>(t));
    if (t < 1 || t > warp || (1 << log2t) != t) throw CudaError("ellwarp: threads per row must be 1, 2, 4, .. 32");
    if (a.slice_width(s) >= (1 << (31 - lanes_bits))) throw CudaError("ellwarp: a slice wider than 2^28 entries");
    visits[v] = Visit{a.slice_ptr[s], a.slice_row[s], (a.slice_width(s) << lanes_bits) | log2t};
  }
  return visits;
}

class EllWarpDevice final : public FusedDotSpmv<EllWarpDevice> {
  friend class FusedDotSpmv<EllWarpDevice>;

 public:
  explicit EllWarpDevice(const EllWarpMatrix& a)
      : FusedDotSpmv<EllWarpDevice>(a.values),
        n_rows_(a.n_rows),
        // --- the K2 kernel when asked for, and whenever a slice splits its rows (K1 would be wrong)
        k2_(a.parameters.kernel == EllWarpKernel::k2 ||
            std::any_of(a.threads_per_row.begin(), a.threads_per_row.end(), [](label t) { return t > 1; })),
        in_place_(a.rows_in_place),
        col_(std::span<const int>(a.col)) {
    const std::vector<Visit> visits = visit_order(a);
    n_visits_ = static_cast<int>(visits.size());
    visits_ = DeviceBuffer<Visit>(std::span<const Visit>(visits));
    if (!in_place_) row_order_ = DeviceBuffer<int>(std::span<const int>(a.row_order));
    // --- one wave (launch_grid.cuh) of the kernel that runs
    const int blocks = std::max(1, (n_visits_ + warps_per_block - 1) / warps_per_block);
    grid_ = dispatch<true>([&](auto kernel) { return one_wave_grid(kernel, ellwarp_block, blocks); });
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override {
    return visits_.bytes() + row_order_.bytes() + col_.bytes() + val_.bytes();
  }
  std::string format_name() const override { return "ellwarp"; }
  int dot_partial_count() const override { return grid_; }

 private:
  static constexpr int warps_per_block = ellwarp_block / warp;

  /// f(the kernel instance for this matrix: K1 or K2, rows in place or scattered).
  template <bool kDot, class F>
  int dispatch(F&& f) const {
    if (k2_) return in_place_ ? f(ellwarp_kernel<0, true, kDot>) : f(ellwarp_kernel<0, false, kDot>);
    return in_place_ ? f(ellwarp_kernel<1, true, kDot>) : f(ellwarp_kernel<1, false, kDot>);
  }

  template <bool kDot>
  void launch(const double* x, double* y, double* partials, cudaStream_t stream) {
    if (n_visits_ == 0) {
      // --- no slices, no launch; the partials still sum to the (zero) dot product
      if constexpr (kDot)
        FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double) * dot_partial_count(), stream));
      return;
    }
    dispatch<kDot>([&](auto kernel) {
      kernel<<<grid_, ellwarp_block, 0, stream>>>(n_visits_, n_rows_, visits_.data(), row_order_.data(), col_.data(),
                                                  val_.data(), x, y, partials);
      return 0;
    });
    FVMMINI_CUDA_CHECK_LAUNCH(ellwarp_kernel);
  }

  label n_rows_;
  bool k2_, in_place_;
  int n_visits_ = 0;
  int grid_ = 1;
  DeviceBuffer<Visit> visits_;
  DeviceBuffer<int> row_order_;  ///< empty when the rows are in place
  DeviceBuffer<int> col_;
};

}  // namespace

const DeviceFormatUnit& device_format_ellwarp() {
  static const DeviceFormatUnit unit{"ellwarp", upload_as<EllWarpDevice, EllWarpMatrix>};
  return unit;
}

}  // namespace fvmmini::cuda
