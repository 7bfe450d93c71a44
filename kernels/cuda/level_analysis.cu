#include "kernels/cuda/level_analysis.cuh"

#include <cooperative_groups.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini::cuda {

namespace {

namespace cg = cooperative_groups;

constexpr int analysis_block = 256;
constexpr int max_batch = 256;  ///< peeling launches queued between two looks at the progress

__device__ inline int rank_of(const int* rank, int i) { return rank ? rank[i] : i; }

/// queue[tail++] = row, one atomic per group of threads appending together.
__device__ inline void append(int* queue, int* tail, int row) {
  cg::coalesced_group g = cg::coalesced_threads();
  int base = 0;
  if (g.thread_rank() == 0) base = atomicAdd(tail, static_cast<int>(g.size()));
  base = g.shfl(base, 0);
  queue[base + g.thread_rank()] = row;
}

/// Each row's count of earlier and later neighbours; the rows with no earlier one are level 0.
__global__ void __launch_bounds__(analysis_block)
    peel_start(int n, const int* __restrict__ row_ptr, const int* __restrict__ col, const int* __restrict__ rank,
               int* __restrict__ remaining, int* __restrict__ lower_count, int* __restrict__ upper_count,
               int* __restrict__ level, int* queue, int* tail) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int ri = rank_of(rank, i);
    int lower = 0, upper = 0;
    for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      const int j = col[e];
      if (j == i) continue;
      if (rank_of(rank, j) < ri) ++lower;
      else ++upper;
    }
    remaining[i] = lower;
    lower_count[i] = lower;
    upper_count[i] = upper;
    if (lower == 0) {
      level[i] = 0;
      append(queue, tail, i);
    }
  }
}

__global__ void close_first_level(int* level_start, const int* tail) {
  level_start[0] = 0;
  level_start[1] = *tail;
}

/// Level l is queue[level_start[l] .. level_start[l + 1]): each of its rows releases its later
/// neighbours; one whose last earlier neighbour this was joins level l + 1. The last block to
/// finish closes level l + 1.
__global__ void __launch_bounds__(analysis_block)
    peel_level(int l, const int* __restrict__ row_ptr, const int* __restrict__ col, const int* __restrict__ rank,
               int* remaining, int* __restrict__ level, int* queue, int* level_start, int* tail, int* done) {
  const int begin = level_start[l], end = level_start[l + 1];
  for (int k = begin + blockIdx.x * blockDim.x + threadIdx.x; k < end; k += gridDim.x * blockDim.x) {
    const int i = queue[k];
    const int ri = rank_of(rank, i);
    for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      const int j = col[e];
      if (j != i && rank_of(rank, j) > ri && atomicSub(remaining + j, 1) == 1) {
        level[j] = l + 1;
        append(queue, tail, j);
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(done, 1) == static_cast<int>(gridDim.x) - 1) {
      level_start[l + 2] = atomicAdd(tail, 0);
      *done = 0;
    }
  }
}

__global__ void iota_kernel(int n, int* __restrict__ v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[i] = i;
}

/// key[p] = level of the row at rank p.
__global__ void gather_levels(int n, const int* __restrict__ order, const int* __restrict__ level, int* __restrict__ key) {
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) key[p] = level[order[p]];
}

/// On the rows sorted by level: each level's widest row of either triangle (the lanes of one
/// level in a warp send one atomic, and only when it would raise the width) and whether any row
/// sits away from its own position.
__global__ void __launch_bounds__(analysis_block)
    level_widths(int n, const int* __restrict__ sorted_level, const int* __restrict__ rows,
                 const int* __restrict__ lower_count, const int* __restrict__ upper_count, int* lower_width,
                 int* upper_width, int* moved) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const bool in = p < n;
  const int lv = in ? sorted_level[p] : -1;
  const int i = in ? rows[p] : -1;
  const unsigned same = __match_any_sync(0xffffffffu, lv);
  const int lo = __reduce_max_sync(same, in ? lower_count[i] : 0);
  const int up = __reduce_max_sync(same, in ? upper_count[i] : 0);
  if (in && (threadIdx.x & 31) == __ffs(same) - 1) {
    if (lo > *reinterpret_cast<volatile int*>(lower_width + lv)) atomicMax(lower_width + lv, lo);
    if (up > *reinterpret_cast<volatile int*>(upper_width + lv)) atomicMax(upper_width + lv, up);
  }
  if (__any_sync(0xffffffffu, in && i != p) && (threadIdx.x & 31) == 0) atomicOr(moved, 1);
}

/// Each row's entries of both triangles into its level's ELL blocks, ascending columns, padded
/// as the host does (lower: its first lower neighbour, or itself; upper: itself; face -1).
__global__ void __launch_bounds__(analysis_block)
    fill_triangles(int n, const int* __restrict__ sorted_level, const int* __restrict__ rows,
                   const int* __restrict__ level_ptr, const int* __restrict__ row_ptr, const int* __restrict__ col,
                   const int* __restrict__ face, const int* __restrict__ rank, const long long* __restrict__ lower_offset,
                   const int* __restrict__ lower_width, const long long* __restrict__ upper_offset,
                   const int* __restrict__ upper_width, int* __restrict__ lower_col, int* __restrict__ lower_face,
                   int* __restrict__ upper_col, int* __restrict__ upper_face) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int i = rows[p], l = sorted_level[p];
  const int first = level_ptr[l], size = level_ptr[l + 1] - first, r = p - first;
  const int ri = rank_of(rank, i);
  int kl = 0, ku = 0, pad = -1;
  for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
    const int j = col[e];
    if (j == i) continue;
    if (rank_of(rank, j) < ri) {
      if (pad < 0) pad = j;
      const long long s = lower_offset[l] + static_cast<long long>(kl++) * size + r;
      lower_col[s] = j;
      lower_face[s] = face[e];
    } else {
      const long long s = upper_offset[l] + static_cast<long long>(ku++) * size + r;
      upper_col[s] = j;
      upper_face[s] = face[e];
    }
  }
  if (pad < 0) pad = i;
  for (; kl < lower_width[l]; ++kl) {
    const long long s = lower_offset[l] + static_cast<long long>(kl) * size + r;
    lower_col[s] = pad;
    lower_face[s] = -1;
  }
  for (; ku < upper_width[l]; ++ku) {
    const long long s = upper_offset[l] + static_cast<long long>(ku) * size + r;
    upper_col[s] = i;
    upper_face[s] = -1;
  }
}

void lay_out(DeviceTrianglePart& part, const std::vector<int>& level_ptr, std::vector<int> width, cudaStream_t s) {
  const int levels = static_cast<int>(width.size());
  part.offset.assign(levels + 1, 0);
  for (int l = 0; l < levels; ++l)
    part.offset[l + 1] = part.offset[l] + static_cast<long long>(width[l]) * (level_ptr[l + 1] - level_ptr[l]);
  part.width = std::move(width);
  part.offset_device = DeviceBuffer<long long>(part.offset.size());
  part.width_device = DeviceBuffer<int>(part.width.size());
  part.offset_device.upload(std::span<const long long>(part.offset), s);  // the host vectors outlive the stream's use
  part.width_device.upload(std::span<const int>(part.width), s);
  part.col = DeviceBuffer<int>(part.slots());
  part.face = DeviceBuffer<int>(part.slots());
  part.value = DeviceBuffer<double>(part.slots());
}

int peeling_grid() {
  int device = 0, sms = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  FVMMINI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return 4 * sms;
}

}  // namespace

DeviceLevels analyse_levels(const DevicePattern& pattern, cudaStream_t stream) {
  const int n = pattern.n_rows;
  DeviceLevels out;
  if (n == 0) {
    out.level_ptr = {0};
    return out;
  }
  const int* order = pattern.order.size() > 0 ? pattern.order.data() : nullptr;
  const int* rank = pattern.rank.size() > 0 ? pattern.rank.data() : nullptr;
  const int grid = (n + analysis_block - 1) / analysis_block;

  // --- one workspace: per row remaining, lower/upper counts, level, queue; level starts; scalars
  const std::size_t starts = static_cast<std::size_t>(n) + max_batch + 2;
  DeviceBuffer<int> work(5 * static_cast<std::size_t>(n) + starts + 3);
  int* remaining = work.data();
  int* lower_count = remaining + n;
  int* upper_count = lower_count + n;
  int* level = upper_count + n;
  int* queue = level + n;
  int* level_start = queue + n;
  int* tail = level_start + starts;
  int* done = tail + 1;
  int* moved = done + 1;
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(tail, 0, 3 * sizeof(int), stream));

  // --- the levels by peeling: level 0, then a launch per level, queued in growing batches
  peel_start<<<vector_grid(n), analysis_block, 0, stream>>>(n, pattern.row_ptr.data(), pattern.col.data(), rank,
                                                            remaining, lower_count, upper_count, level, queue, tail);
  FVMMINI_CUDA_CHECK_LAUNCH(peel_start);
  close_first_level<<<1, 1, 0, stream>>>(level_start, tail);
  FVMMINI_CUDA_CHECK_LAUNCH(close_first_level);
  const int peel_grid = peeling_grid();
  int peeled = 0, placed = 0;
  for (int batch = 4; placed < n; batch = std::min(2 * batch, max_batch)) {
    if (peeled > n) throw std::logic_error("level analysis: the rows do not all come free (a cycle in the schedule)");
    for (int k = 0; k < batch; ++k, ++peeled) {
      peel_level<<<peel_grid, analysis_block, 0, stream>>>(peeled, pattern.row_ptr.data(), pattern.col.data(), rank,
                                                           remaining, level, queue, level_start, tail, done);
      FVMMINI_CUDA_CHECK_LAUNCH(peel_level);
    }
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(&placed, tail, sizeof(int), cudaMemcpyDeviceToHost, stream));
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  // level_start is final up to the level after the last peeled one, and ends at n
  std::vector<int> start(peeled + 2);
  FVMMINI_CUDA_CHECK(cudaMemcpy(start.data(), level_start, start.size() * sizeof(int), cudaMemcpyDeviceToHost));
  const int levels = static_cast<int>(std::find(start.begin() + 1, start.end(), n) - start.begin());
  out.level_ptr.assign(start.begin(), start.begin() + levels + 1);
  out.level_ptr_device = DeviceBuffer<int>(levels + 1);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(out.level_ptr_device.data(), level_start, (levels + 1) * sizeof(int),
                                     cudaMemcpyDeviceToDevice, stream));

  // --- the rows by level, ties by rank (a stable sort of the rows in rank order); the keys and
  // the rank-ordered rows reuse remaining and queue, both spent
  int* sorted_level = remaining;
  int* key = queue;
  DeviceBuffer<int> ranked(order ? 0 : n);
  out.rows = DeviceBuffer<int>(n);
  if (order) {
    gather_levels<<<vector_grid(n), reduce_block, 0, stream>>>(n, order, level, key);
    FVMMINI_CUDA_CHECK_LAUNCH(gather_levels);
  } else {
    iota_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, ranked.data());
    FVMMINI_CUDA_CHECK_LAUNCH(iota_kernel);
  }
  const int* keys_in = order ? key : level;
  const int* rows_in = order ? order : ranked.data();
  int end_bit = 1;
  while (end_bit < 31 && (1 << end_bit) < levels) ++end_bit;
  std::size_t temp_bytes = 0;
  FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, sorted_level, rows_in,
                                                     out.rows.data(), n, 0, end_bit, stream));
  DeviceBuffer<char> temp(std::max<std::size_t>(temp_bytes, 1));
  FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in, sorted_level, rows_in,
                                                     out.rows.data(), n, 0, end_bit, stream));

  // --- widths: to the host, where the blocks are laid out
  DeviceBuffer<int> widths(2 * static_cast<std::size_t>(levels));
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(widths.data(), 0, widths.bytes(), stream));
  level_widths<<<grid, analysis_block, 0, stream>>>(n, sorted_level, out.rows.data(), lower_count, upper_count,
                                                     widths.data(), widths.data() + levels, moved);
  FVMMINI_CUDA_CHECK_LAUNCH(level_widths);
  std::vector<int> width(2 * static_cast<std::size_t>(levels));
  int is_moved = 0;
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(width.data(), widths.data(), widths.bytes(), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(&is_moved, moved, sizeof(int), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  lay_out(out.lower, out.level_ptr, {width.begin(), width.begin() + levels}, stream);
  lay_out(out.upper, out.level_ptr, {width.begin() + levels, width.end()}, stream);

  // --- the triangles' addressing
  fill_triangles<<<grid, analysis_block, 0, stream>>>(
      n, sorted_level, out.rows.data(), out.level_ptr_device.data(), pattern.row_ptr.data(), pattern.col.data(),
      pattern.face.data(), rank, out.lower.offset_device.data(), out.lower.width_device.data(),
      out.upper.offset_device.data(), out.upper.width_device.data(), out.lower.col.data(), out.lower.face.data(),
      out.upper.col.data(), out.upper.face.data());
  FVMMINI_CUDA_CHECK_LAUNCH(fill_triangles);
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!is_moved) out.rows = DeviceBuffer<int>();
  return out;
}

}  // namespace fvmmini::cuda
