#include "kernels/cuda/level_analysis.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini::cuda {

namespace {

namespace cg = cooperative_groups;

constexpr int analysis_block = 256;
constexpr int peel_block = 512;  ///< threads per block of the peeling kernel, and the size up to which a level is small

__device__ inline int rank_of(const int* rank, int i) { return rank ? rank[i] : i; }
__device__ inline int load_volatile(const int* p) { return *reinterpret_cast<const volatile int*>(p); }

/// Per level: its rows and the widest row of each triangle.
struct LevelTally {
  int size, lower_width, upper_width;
};

/// What the peeling kernel reads and writes.
struct Peel {
  int n;
  const int* row_ptr;
  const int* col;
  const int* rank;
  int* remaining;    ///< per row: earlier neighbours not yet peeled
  int* lower_count;  ///< per row
  int* upper_count;  ///< per row
  int* level;        ///< per row
  int* queue;        ///< the rows, level after level, in the order they came free
  LevelTally* tally;  ///< levels + 2; entry l is final once level l - 1 is peeled
  int* level_start;   ///< levels + 1
  int* state;         ///< [0] levels, [1] rows placed (a run of small levels leaves them here too)
};

/// Row `i` joins level `l` at queue[first + ...] (one atomic per group of threads joining
/// together, which also raise the level's widths).
__device__ inline void join(const Peel& p, int l, int first, int i) {
  cg::coalesced_group g = cg::coalesced_threads();
  const int lower = cg::reduce(g, p.lower_count[i], cg::greater<int>());
  const int upper = cg::reduce(g, p.upper_count[i], cg::greater<int>());
  int base = 0;
  if (g.thread_rank() == 0) {
    base = atomicAdd(&p.tally[l].size, static_cast<int>(g.size()));
    atomicMax(&p.tally[l].lower_width, lower);
    atomicMax(&p.tally[l].upper_width, upper);
  }
  base = g.shfl(base, 0);
  p.level[i] = l;
  p.queue[first + base + g.thread_rank()] = i;
}

/// Row i of level l releases its later neighbours; one whose last earlier neighbour it was joins
/// level l + 1, which starts at queue[next].
/// The atomics of a batch of entries are all sent before any answer is awaited: a level's time is
/// its chain of memory round trips.
__device__ inline void release(const Peel& p, int l, int i, int next) {
  constexpr int batch = 8;
  const int ri = rank_of(p.rank, i);
  const int end = p.row_ptr[i + 1];
  for (int e0 = p.row_ptr[i]; e0 < end; e0 += batch) {
    int freed[batch];
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      freed[b] = -1;
      if (e0 + b < end) {
        const int j = p.col[e0 + b];
        if (j != i && rank_of(p.rank, j) > ri && atomicSub(p.remaining + j, 1) == 1) freed[b] = j;
      }
    }
#pragma unroll
    for (int b = 0; b < batch; ++b)
      if (freed[b] >= 0) join(p, l + 1, next, freed[b]);
  }
}

/// Each row's count of earlier and later neighbours; the rows with no earlier one join level 0.
/// Tally entries 0 and 1 must be zero on entry.
__global__ void __launch_bounds__(analysis_block) peel_start(Peel p) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += gridDim.x * blockDim.x) {
    const int ri = rank_of(p.rank, i);
    int lower = 0, upper = 0;
    for (int e = p.row_ptr[i]; e < p.row_ptr[i + 1]; ++e) {
      const int j = p.col[e];
      if (j == i) continue;
      if (rank_of(p.rank, j) < ri) ++lower;
      else ++upper;
    }
    p.remaining[i] = lower;
    p.lower_count[i] = lower;
    p.upper_count[i] = upper;
    if (lower == 0) join(p, 0, 0, i);
  }
}

/// The levels after level 0 in one launch (cooperative), with a grid barrier between levels; a
/// level of at most a block's rows, and the small ones after it, are peeled by block 0 alone with
/// block barriers (the others wait at the next grid barrier). A small grid keeps the barrier
/// cheap: a level's rows are few against the device's threads.
__global__ void __launch_bounds__(peel_block) peel_levels(Peel p) {
  cg::grid_group grid = cg::this_grid();
  const int tid = static_cast<int>(grid.thread_rank()), threads = static_cast<int>(grid.size());
  int l = 0, start = 0;
  for (;;) {
    const int size = load_volatile(&p.tally[l].size);
    if (tid == 0) p.level_start[l] = start;
    if (size == 0) break;
    if (size <= peel_block) {
      if (blockIdx.x == 0) {
        for (int s = size;;) {
          if (threadIdx.x == 0) {
            p.level_start[l] = start;
            p.tally[l + 2] = LevelTally{0, 0, 0};
          }
          if (threadIdx.x < s) release(p, l, p.queue[start + threadIdx.x], start + s);
          __syncthreads();
          start += s;
          ++l;
          s = load_volatile(&p.tally[l].size);
          if (s == 0 || s > peel_block) break;
        }
        if (threadIdx.x == 0) {
          p.state[0] = l;
          p.state[1] = start;
        }
      }
      grid.sync();
      l = load_volatile(&p.state[0]);
      start = load_volatile(&p.state[1]);
    } else {
      if (tid == 0) p.tally[l + 2] = LevelTally{0, 0, 0};
      for (int k = tid; k < size; k += threads) release(p, l, p.queue[start + k], start + size);
      grid.sync();
      start += size;
      ++l;
    }
  }
  if (tid == 0) {
    p.state[0] = l;
    p.state[1] = start;
  }
}

__global__ void iota_kernel(int n, int* __restrict__ v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[i] = i;
}

/// key[p] = level of the row at rank p.
__global__ void gather_levels(int n, const int* __restrict__ order, const int* __restrict__ level, int* __restrict__ key) {
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) key[p] = level[order[p]];
}

/// position[rows[p]] = p, and whether any row sits away from its own position.
__global__ void __launch_bounds__(analysis_block)
    place_rows(int n, const int* __restrict__ rows, int* __restrict__ position, int* moved) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = p < n ? rows[p] : p;
  if (__any_sync(0xffffffffu, i != p) && (threadIdx.x & 31) == 0) atomicOr(moved, 1);
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

  // --- one workspace: per row remaining, lower/upper counts, level, queue; level starts, tallies
  const std::size_t rows = static_cast<std::size_t>(n);
  DeviceBuffer<int> work(5 * rows + (rows + 1) + 3 * (rows + 2) + 3);
  Peel peel{n, pattern.row_ptr.data(), pattern.col.data(), rank, work.data(), nullptr, nullptr, nullptr, nullptr,
            nullptr, nullptr, nullptr};
  peel.lower_count = peel.remaining + n;
  peel.upper_count = peel.lower_count + n;
  peel.level = peel.upper_count + n;
  peel.queue = peel.level + n;
  peel.level_start = peel.queue + n;
  peel.tally = reinterpret_cast<LevelTally*>(peel.level_start + n + 1);
  peel.state = reinterpret_cast<int*>(peel.tally + n + 2);
  int* moved = peel.state + 2;
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(peel.tally, 0, 2 * sizeof(LevelTally), stream));
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(moved, 0, sizeof(int), stream));
  int device = 0, sms = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  FVMMINI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // a block per two SMs: the barrier's cost grows with the blocks (the 200^3 box's analysis, 598
  // levels: 9.3 ms, against 10.3 ms with a block per SM and 17 ms with a full wave; H200)
  const int peel_blocks = one_wave_grid(peel_levels, peel_block, std::max(1, sms / 2));

  // --- the levels by peeling: level 0, then the rest in one cooperative launch
  peel_start<<<vector_grid(n), analysis_block, 0, stream>>>(peel);
  FVMMINI_CUDA_CHECK_LAUNCH(peel_start);
  launch_cooperative(peel_levels, peel_blocks, peel_block, stream, peel);
  FVMMINI_CUDA_CHECK_LAUNCH(peel_levels);
  int state[2] = {0, 0};
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(state, peel.state, sizeof(state), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int levels = state[0];
  if (state[1] != n) throw std::logic_error("level analysis: the rows do not all come free (a cycle in the schedule)");
  out.level_ptr.resize(levels + 1);
  std::vector<LevelTally> tally(levels);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(out.level_ptr.data(), peel.level_start, (levels + 1) * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(
      cudaMemcpyAsync(tally.data(), peel.tally, levels * sizeof(LevelTally), cudaMemcpyDeviceToHost, stream));
  out.level_ptr_device = DeviceBuffer<int>(levels + 1);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(out.level_ptr_device.data(), peel.level_start, (levels + 1) * sizeof(int),
                                     cudaMemcpyDeviceToDevice, stream));

  // --- the rows by level, ties by rank (a stable sort of the rows in rank order); the keys and
  // the rank-ordered rows reuse remaining and queue, both spent
  int* sorted_level = peel.remaining;
  int* key = peel.queue;
  DeviceBuffer<int> ranked(order ? 0 : n);
  out.rows = DeviceBuffer<int>(n);
  if (order) {
    gather_levels<<<vector_grid(n), reduce_block, 0, stream>>>(n, order, peel.level, key);
    FVMMINI_CUDA_CHECK_LAUNCH(gather_levels);
  } else {
    iota_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, ranked.data());
    FVMMINI_CUDA_CHECK_LAUNCH(iota_kernel);
  }
  const int* keys_in = order ? key : peel.level;
  const int* rows_in = order ? order : ranked.data();
  int end_bit = 1;
  while (end_bit < 31 && (1 << end_bit) < levels) ++end_bit;
  std::size_t temp_bytes = 0;
  FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, sorted_level, rows_in,
                                                     out.rows.data(), n, 0, end_bit, stream));
  DeviceBuffer<char> temp(std::max<std::size_t>(temp_bytes, 1));
  FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in, sorted_level, rows_in,
                                                     out.rows.data(), n, 0, end_bit, stream));

  // --- the blocks laid out from the widths peeling found, then the triangles' addressing
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> lower_width(levels), upper_width(levels);
  for (int l = 0; l < levels; ++l) {
    lower_width[l] = tally[l].lower_width;
    upper_width[l] = tally[l].upper_width;
  }
  lay_out(out.lower, out.level_ptr, std::move(lower_width), stream);
  lay_out(out.upper, out.level_ptr, std::move(upper_width), stream);
  int* position = peel.level;  // spent by the sort
  const int grid = (n + analysis_block - 1) / analysis_block;
  place_rows<<<grid, analysis_block, 0, stream>>>(n, out.rows.data(), position, moved);
  FVMMINI_CUDA_CHECK_LAUNCH(place_rows);
  fill_triangles<<<grid, analysis_block, 0, stream>>>(
      n, sorted_level, out.rows.data(), position, out.level_ptr_device.data(), pattern.row_ptr.data(),
      pattern.col.data(), pattern.face.data(), rank, out.lower.offset_device.data(), out.lower.width_device.data(),
      out.upper.offset_device.data(), out.upper.width_device.data(), out.lower.col.data(), out.lower.face.data(),
      out.upper.col.data(), out.upper.face.data());
  FVMMINI_CUDA_CHECK_LAUNCH(fill_triangles);
  int is_moved = 0;
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(&is_moved, moved, sizeof(int), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!is_moved) out.rows = DeviceBuffer<int>();
  return out;
}

}  // namespace fvmmini::cuda
