#include "kernels/cuda/level_analysis.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"
#include "kernels/cuda/sync_free.cuh"

namespace fvmmini::cuda {

namespace {

namespace cg = cooperative_groups;

constexpr int analysis_block = 256;
constexpr unsigned full_warp = 0xffffffffu;
/// The waits' longest sleep (sync_free.cuh). Natural order's resident rows nearly all wait at
/// once: 1024 ns made its analysis twice as slow; 128 ns measured 10 % faster there (11.2-11.4
/// against 12.4-12.7 ms, 200³ box, H100) and the same on CM, not yet adopted.
constexpr unsigned analysis_backoff_ns = 256;

__device__ inline int rank_of(const int* rank, int i) { return rank ? rank[i] : i; }

/// What the level kernel reads and writes.
struct LevelPass {
  int n;
  const int* row_ptr;
  const int* col;
  const int* order;  ///< rows by rank; null for index order
  const int* rank;   ///< rank by row; null for index order
  int* level;        ///< per row: -1 until its level is published
  int* lower;        ///< per row: earlier neighbours
  int* upper;        ///< per row: later neighbours
  int* state;        ///< [0] the largest level, zero on entry; [1], [2] the tickets
};

/// Each row's level, 1 + the largest level of its earlier neighbours (0 without one), and its
/// counts of earlier and later neighbours. A thread per row, blocks in rank order by ticket: a
/// thread waits for its earlier neighbours' levels (sync_free.cuh), so the whole analysis is one
/// launch whose time is the longest dependency chain, not a barrier per level. Each row publishes
/// its level as soon as it has it (gathering a warp's rows first, to take chains inside the warp
/// through shuffles, made every row wait for its warp's slowest: 4 to 16 times slower on H200).
/// `Batch`: neighbours waited for together (the smallest of 4, 8, 16 holding the widest row).
template <int Batch>
__global__ void __launch_bounds__(analysis_block) level_rows(LevelPass p) {
  __shared__ int block_max;
  if (threadIdx.x == 0) block_max = 0;
  const int q = take_ticket(p.state + 1) * analysis_block + static_cast<int>(threadIdx.x);
  if (q < p.n) {
    const int i = p.order ? p.order[q] : q;
    int lower = 0, upper = 0, l = 0;
    const int end = p.row_ptr[i + 1];
    for (int e0 = p.row_ptr[i]; e0 < end; e0 += Batch) {
      int earlier[Batch], v[Batch];
      unsigned pending = 0;
#pragma unroll
      for (int b = 0; b < Batch; ++b) {
        earlier[b] = 0;
        v[b] = 0;
        if (e0 + b >= end) continue;
        const int j = p.col[e0 + b];
        if (j == i) continue;
        if (rank_of(p.rank, j) < q) {
          earlier[b] = j;
          pending |= 1u << b;
          ++lower;
        } else {
          ++upper;
        }
      }
#pragma unroll
      for (int b = 0; b < Batch; ++b)
        if (pending >> b & 1u) v[b] = load_relaxed(p.level + earlier[b]);
      const unsigned neighbours = pending;
      wait_all<analysis_backoff_ns>(p.level, earlier, v, pending);
#pragma unroll
      for (int b = 0; b < Batch; ++b)
        if (neighbours >> b & 1u) l = max(l, v[b] + 1);
    }
    publish(p.level + i, l);
    p.lower[i] = lower;
    p.upper[i] = upper;
    atomicMax_block(&block_max, l);
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(p.state, block_max);
  release_ticket(p.state + 1);
}

/// key[p] and rows[p]: the level and the row at rank p; *unsorted set when the levels fall
/// somewhere along the ranks (the rows then need the sort).
__global__ void __launch_bounds__(analysis_block)
    rank_levels(int n, const int* __restrict__ order, const int* __restrict__ level, int* __restrict__ key,
                int* __restrict__ rows, int* unsorted) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  bool falls = false;
  if (p < n) {
    const int i = order ? order[p] : p;
    const int l = level[i];
    key[p] = l;
    rows[p] = i;
    falls = p > 0 && level[order ? order[p - 1] : p - 1] > l;
  }
  if (__any_sync(full_warp, falls) && (threadIdx.x & 31) == 0) atomicOr(unsorted, 1);
}

/// From the rows sorted by level: where each level starts, and the widest row of each triangle per
/// level (widths[2l], widths[2l + 1]; zero on entry).
__global__ void __launch_bounds__(analysis_block)
    level_bounds(int n, const int* __restrict__ sorted_level, const int* __restrict__ rows,
                 const int* __restrict__ lower, const int* __restrict__ upper, int* __restrict__ level_start,
                 int* __restrict__ widths) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int l = sorted_level[p];
  if (p == 0 || sorted_level[p - 1] != l) level_start[l] = p;
  if (p == n - 1) level_start[l + 1] = n;
  const int i = rows[p];
  const cg::coalesced_group same_level = cg::labeled_partition(cg::coalesced_threads(), l);
  const int lower_width = cg::reduce(same_level, lower[i], cg::greater<int>());
  const int upper_width = cg::reduce(same_level, upper[i], cg::greater<int>());
  // an atomic only where the width grows: a level of millions of rows would otherwise queue an
  // atomic per warp on one address (a stale read costs one atomic more, never a wrong width)
  if (same_level.thread_rank() == 0) {
    if (lower_width > *static_cast<volatile int*>(widths + 2 * l)) atomicMax(widths + 2 * l, lower_width);
    if (upper_width > *static_cast<volatile int*>(widths + 2 * l + 1)) atomicMax(widths + 2 * l + 1, upper_width);
  }
}

/// position[rows[p]] = p, and whether any row sits away from its own position.
__global__ void __launch_bounds__(analysis_block)
    place_rows(int n, const int* __restrict__ rows, int* __restrict__ position, int* moved) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = p < n ? rows[p] : p;
  if (__any_sync(full_warp, i != p) && (threadIdx.x & 31) == 0) atomicOr(moved, 1);
  if (p < n) position[i] = p;
}

/// Each row's entries of both triangles into its level's ELL blocks, ascending columns, padded
/// as the host does (lower: its first lower neighbour, or itself; upper: itself; face -1); the
/// columns as positions.
__global__ void __launch_bounds__(analysis_block)
    fill_triangles(int n, const int* __restrict__ sorted_level, const int* __restrict__ rows,
                   const int* __restrict__ position, const int* __restrict__ level_ptr,
                   const int* __restrict__ row_ptr, const int* __restrict__ col, const int* __restrict__ face,
                   const int* __restrict__ rank, const long long* __restrict__ lower_offset,
                   const int* __restrict__ lower_width, const long long* __restrict__ upper_offset,
                   const int* __restrict__ upper_width, int* __restrict__ lower_col, int* __restrict__ lower_face,
                   int* __restrict__ upper_col, int* __restrict__ upper_face) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int i = rows[p];
  const int l = sorted_level[p];
  const int first = level_ptr[l], size = level_ptr[l + 1] - first, r = p - first;
  const int ri = rank_of(rank, i);
  int kl = 0, ku = 0, pad = -1;
  for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
    const int j = col[e];
    if (j == i) continue;
    if (rank_of(rank, j) < ri) {
      if (pad < 0) pad = position[j];
      const long long s = lower_offset[l] + static_cast<long long>(kl++) * size + r;
      lower_col[s] = position[j];
      lower_face[s] = face[e];
    } else {
      const long long s = upper_offset[l] + static_cast<long long>(ku++) * size + r;
      upper_col[s] = position[j];
      upper_face[s] = face[e];
    }
  }
  if (pad < 0) pad = p;
  for (; kl < lower_width[l]; ++kl) {
    const long long s = lower_offset[l] + static_cast<long long>(kl) * size + r;
    lower_col[s] = pad;
    lower_face[s] = -1;
  }
  for (; ku < upper_width[l]; ++ku) {
    const long long s = upper_offset[l] + static_cast<long long>(ku) * size + r;
    upper_col[s] = p;
    upper_face[s] = -1;
  }
}

/// A triangle's blocks from its widths: offsets, and col, face and value allocated.
void lay_out(DeviceTrianglePart& part, const std::vector<int>& level_ptr, cudaStream_t s) {
  const int levels = static_cast<int>(part.width.size());
  part.offset.assign(levels + 1, 0);
  for (int l = 0; l < levels; ++l)
    part.offset[l + 1] = part.offset[l] + static_cast<long long>(part.width[l]) * (level_ptr[l + 1] - level_ptr[l]);
  part.offset_device = DeviceBuffer<long long>(part.offset.size());
  part.width_device = DeviceBuffer<int>(part.width.size());
  part.offset_device.upload(std::span<const long long>(part.offset), s);  // the host vectors outlive the stream's use
  part.width_device.upload(std::span<const int>(part.width), s);
  part.col = DeviceBuffer<int>(part.slots());
  part.face = DeviceBuffer<int>(part.slots());
  part.value = DeviceBuffer<double>(part.slots());
}

/// CUB's scratch for sorting n pairs on keys of end_bit bits.
std::size_t sort_bytes(int n, int end_bit) {
  std::size_t bytes = 0;
  FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const int*>(nullptr),
                                                     static_cast<int*>(nullptr), static_cast<const int*>(nullptr),
                                                     static_cast<int*>(nullptr), n, 0, end_bit));
  return std::max<std::size_t>(bytes, 1);
}

constexpr int state_ints = 5;  ///< [0] the largest level, [1], [2] the tickets, [3] unsorted, [4] moved

/// The state's place in the workspace: after the widths (2 n) and the level starts (n + 1).
int* state_of(LevelWorkspace& w) { return w.bounds.data() + 3 * static_cast<std::size_t>(w.n) + 1; }

}  // namespace

LevelWorkspace::LevelWorkspace(int n_rows) : n(n_rows) {
  if (n == 0) return;
  const std::size_t rows = static_cast<std::size_t>(n);
  level = DeviceBuffer<int>(rows);
  counts = DeviceBuffer<int>(2 * rows);
  bounds = DeviceBuffer<int>(3 * rows + 1 + state_ints);
  for (int k = 0; k < 2; ++k) {
    sorted_level[k] = DeviceBuffer<int>(rows);
    sorted_rows[k] = DeviceBuffer<int>(rows);
  }
  sort_temp = DeviceBuffer<char>(sort_bytes(n, 31));
}

DeviceLevels find_levels(const DevicePattern& pattern, LevelWorkspace& w, cudaStream_t stream) {
  const int n = pattern.n_rows;
  if (w.n != n) throw std::invalid_argument("find_levels: a workspace for another row count");
  if (n > 0 && (w.sorted_level[0].size() == 0 || w.sorted_level[1].size() == 0))
    throw std::invalid_argument("find_levels: a workspace serves one analysis (its schedule moved out)");
  DeviceLevels out;
  if (n == 0) {
    out.level_ptr = {0};
    return out;
  }
  const int* order = pattern.order.size() > 0 ? pattern.order.data() : nullptr;
  const int* rank = pattern.rank.size() > 0 ? pattern.rank.data() : nullptr;
  const std::size_t rows = static_cast<std::size_t>(n);
  LevelPass pass{n, pattern.row_ptr.data(), pattern.col.data(), order, rank, w.level.data(), w.counts.data(),
                 w.counts.data() + n, nullptr};
  int* widths = w.bounds.data();
  int* level_start = widths + 2 * n;
  pass.state = state_of(w);
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(pass.level, 0xff, rows * sizeof(int), stream));
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(pass.state, 0, state_ints * sizeof(int), stream));

  // --- the levels in one launch, then by rank: are they sorted already?
  const int grid = (n + analysis_block - 1) / analysis_block;
  auto levels_with = [&](auto kernel) {
    kernel<<<grid, analysis_block, 0, stream>>>(pass);
    FVMMINI_CUDA_CHECK_LAUNCH(level_rows);
  };
  if (pattern.widest <= 4) levels_with(level_rows<4>);
  else if (pattern.widest <= 8) levels_with(level_rows<8>);
  else levels_with(level_rows<16>);
  rank_levels<<<grid, analysis_block, 0, stream>>>(n, order, pass.level, w.sorted_level[0].data(),
                                                   w.sorted_rows[0].data(), pass.state + 3);
  FVMMINI_CUDA_CHECK_LAUNCH(rank_levels);
  int state[state_ints] = {};
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(state, pass.state, sizeof(state), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int levels = state[0] + 1;

  // --- the rows by level, ties by rank (a stable sort of the rows in rank order)
  int sorted = 0;
  if (state[3]) {
    int end_bit = 1;
    while (end_bit < 31 && (1 << end_bit) < levels) ++end_bit;
    std::size_t temp_bytes = sort_bytes(n, end_bit);
    if (temp_bytes > w.sort_temp.size()) w.sort_temp = DeviceBuffer<char>(temp_bytes);
    temp_bytes = w.sort_temp.size();
    FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(w.sort_temp.data(), temp_bytes, w.sorted_level[0].data(),
                                                       w.sorted_level[1].data(), w.sorted_rows[0].data(),
                                                       w.sorted_rows[1].data(), n, 0, end_bit, stream));
    sorted = 1;
  }
  out.position_level = std::move(w.sorted_level[sorted]);
  out.rows = std::move(w.sorted_rows[sorted]);

  // --- each level's start and widths from the sorted rows, to the host
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(widths, 0, 2 * static_cast<std::size_t>(levels) * sizeof(int), stream));
  level_bounds<<<grid, analysis_block, 0, stream>>>(n, out.position_level.data(), out.rows.data(), pass.lower,
                                                    pass.upper, level_start, widths);
  FVMMINI_CUDA_CHECK_LAUNCH(level_bounds);
  out.level_ptr.resize(levels + 1);
  std::vector<int> width_pairs(2 * static_cast<std::size_t>(levels));
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(out.level_ptr.data(), level_start, (levels + 1) * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(width_pairs.data(), widths, width_pairs.size() * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  out.level_ptr_device = DeviceBuffer<int>(levels + 1);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(out.level_ptr_device.data(), level_start, (levels + 1) * sizeof(int),
                                     cudaMemcpyDeviceToDevice, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  out.lower.width.resize(levels);
  out.upper.width.resize(levels);
  for (int l = 0; l < levels; ++l) {
    out.lower.width[l] = width_pairs[2 * l];
    out.upper.width[l] = width_pairs[2 * l + 1];
  }
  return out;
}

void lay_out_triangles(const DevicePattern& pattern, LevelWorkspace& w, DeviceLevels& out, cudaStream_t stream) {
  const int n = pattern.n_rows;
  if (n == 0) return;
  const int* rank = pattern.rank.size() > 0 ? pattern.rank.data() : nullptr;
  lay_out(out.lower, out.level_ptr, stream);
  lay_out(out.upper, out.level_ptr, stream);
  int* position = w.level.data();  // the levels are spent: the schedule holds them by position
  int* moved = state_of(w) + 4;
  const int grid = (n + analysis_block - 1) / analysis_block;
  place_rows<<<grid, analysis_block, 0, stream>>>(n, out.rows.data(), position, moved);
  FVMMINI_CUDA_CHECK_LAUNCH(place_rows);
  fill_triangles<<<grid, analysis_block, 0, stream>>>(
      n, out.position_level.data(), out.rows.data(), position, out.level_ptr_device.data(), pattern.row_ptr.data(),
      pattern.col.data(), pattern.face.data(), rank, out.lower.offset_device.data(), out.lower.width_device.data(),
      out.upper.offset_device.data(), out.upper.width_device.data(), out.lower.col.data(), out.lower.face.data(),
      out.upper.col.data(), out.upper.face.data());
  FVMMINI_CUDA_CHECK_LAUNCH(fill_triangles);
  int is_moved = 0;
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(&is_moved, moved, sizeof(int), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!is_moved) out.rows = DeviceBuffer<int>();
}

}  // namespace fvmmini::cuda
