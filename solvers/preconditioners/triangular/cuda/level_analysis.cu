#include "solvers/preconditioners/triangular/cuda/level_analysis.cuh"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"
#include "solvers/preconditioners/triangular/cuda/sync_free.cuh"

namespace fvmmini::cuda {

namespace {

constexpr int analysis_block = 256;
constexpr unsigned full_warp = 0xffffffffu;
/// The waits' longest sleep (sync_free.cuh). Natural order's resident rows nearly all wait at
/// once: 1024 ns made its analysis twice as slow, 128 ns 10 % faster than 256 (11.2-11.4 against
/// 12.4-12.7 ms, 200³ box, H100; the same on CM). Shorter trades: no sleep made CM 10 % faster
/// and the box's natural order 14 % slower (H200, docs/bench/issue10-bars-h200/analysis-backoff.md).
constexpr unsigned analysis_backoff_ns = 128;

__device__ inline int rank_of(const int* rank, int i) { return rank ? rank[i] : i; }

/// What the level kernel reads and writes.
struct LevelPass {
  int n;
  const int* row_ptr;
  const int* col;
  const int* order;  ///< rows by rank; null for index order
  const int* rank;   ///< rank by row; null for index order
  int* level;        ///< per row: -1 until its level is published
  int* lower;        ///< per rank: its row's earlier neighbours
  int* upper;        ///< per rank: its row's later neighbours
  int* key;          ///< per rank: its row's level (the sort's key)
  int* rows;         ///< per rank: its row
  int* state;        ///< [0] the largest level, [3] set where a level falls along the ranks (both zero
                     ///< on entry); [1], [2] the tickets
};

/// Each row's level, 1 + the largest level of its earlier neighbours (0 without one); by rank, its
/// counts of earlier and later neighbours, its level and row (the sort's input), and whether a
/// level falls along the ranks (then the sort is needed). A thread per row, blocks in rank order
/// by ticket: a thread waits for its earlier neighbours' levels (sync_free.cuh), so the whole
/// analysis is one launch whose time is the longest dependency chain, not a barrier per level. Each row publishes
/// its level as soon as it has it (gathering a warp's rows first, to take chains inside the warp
/// through shuffles, made every row wait for its warp's slowest: 4 to 16 times slower on H200).
/// `Batch`: a row's entries loaded and waited for together, 4, 8 or 16 by the widest row. A round's
/// wait comes before the next round's loads, so each round lengthens the chain; a larger batch's
/// registers leave fewer rows resident, and the window of resident ranks bounds the analysis even
/// on CM. Polyhedral-like 200³ (7 to 19 entries), CM, H100: 16 17.2 ms; 24 and 32 (2 blocks a
/// multiprocessor, not 4) 23.9 and 29.5 ms; 8 and 4 (3 and 5 rounds) 41.7 and 38.4 ms. Box (7
/// entries), CM: 8 0.85 ms, 4 1.24 ms. Capping the registers (launch bounds of 8 or 5 blocks, some
/// spilled) to hold more rows was slower on every order: box natural 13.4 against 11.0 ms.
/// `Rule` LevelRule::colour: the smallest colour none of its earlier neighbours has instead of the
/// level (the greedy colouring, visiting the rows by rank).
template <int Batch, LevelRule Rule>
__global__ void __launch_bounds__(analysis_block) level_rows(LevelPass p) {
  __shared__ int block_max, unsorted;
  __shared__ int by_rank[analysis_block];  // the block's levels, by rank
  if (threadIdx.x == 0) block_max = unsorted = 0;
  const int q = take_ticket(p.state + 1) * analysis_block + static_cast<int>(threadIdx.x);
  if (q < p.n) {
    const int i = p.order ? p.order[q] : q;
    int lower = 0, upper = 0, l = 0;
    unsigned long long taken = 0;  // LevelRule::colour: the colours below 64 its neighbours have
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
        if (neighbours >> b & 1u) {
          if constexpr (Rule == LevelRule::colour) taken |= v[b] < 64 ? 1ull << v[b] : 0ull;
          else l = max(l, v[b] + 1);
        }
    }
    if constexpr (Rule == LevelRule::colour) {
      l = __ffsll(static_cast<long long>(~taken)) - 1;
      if (~taken == 0ull)  // 64 earlier neighbours or more, colours 0 to 63 all taken: count on
        for (l = 64;; ++l) {
          bool free = true;
          for (int e = p.row_ptr[i]; e < end && free; ++e) {
            const int j = p.col[e];
            free = j == i || rank_of(p.rank, j) > q || load_relaxed(p.level + j) != l;
          }
          if (free) break;
        }
    }
    publish(p.level + i, l);
    p.lower[q] = lower;
    p.upper[q] = upper;
    p.key[q] = l;
    p.rows[q] = i;
    by_rank[threadIdx.x] = l;
    atomicMax_block(&block_max, l);
  }
  __syncthreads();
  // --- do the levels fall anywhere along the ranks? (then the rows need sorting by level)
  if (q < p.n && q > 0) {
    int before;
    if (threadIdx.x > 0) {
      before = by_rank[threadIdx.x - 1];
    } else {  // the previous block's last row: an earlier rank, so published or about to be
      const int j = p.order ? p.order[q - 1] : q - 1;
      before = load_relaxed(p.level + j);
      for (Backoff<analysis_backoff_ns> backoff; is_unset(before); before = load_relaxed(p.level + j)) backoff();
    }
    if (before > by_rank[threadIdx.x]) atomicOr(&unsorted, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMax(p.state, block_max);
    if (unsorted) atomicOr(p.state + 3, 1);
  }
  release_ticket(p.state + 1);
}

/// f(level_rows<Batch, Rule>), the batch picked by the widest row's off-diagonal entries.
template <LevelRule Rule = LevelRule::chain, class F>
void with_level_kernel(int widest, F&& f) {
  if (widest <= 4) f(level_rows<4, Rule>);
  else if (widest <= 8) f(level_rows<8, Rule>);
  else f(level_rows<16, Rule>);
}

/// The ranks 0 .. n - 1: the sort's values where the ranks are not the rows already.
__global__ void __launch_bounds__(analysis_block) rank_sequence(int n, int* __restrict__ v) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) v[p] = p;
}

/// From the levels by position (level by level): where each level starts, and the widest row of
/// each triangle per level (widths[2l], widths[2l + 1]; zero on entry). rank_at: each position's
/// rank, null where positions are ranks (the ranks ran level by level); given, the rows by
/// position are written too (rows[p]). The counts are read by rank, in order where no sort moved them.
/// A block's positions hold a run of consecutive levels: it reduces their widths in shared memory
/// and sends one atomic per level and triangle. (A check and an atomic per warp queued on the same
/// few addresses: this kernel took 0.46 of the CM analysis's 1.23 ms, the analysis now 0.87; 200³
/// box, H100, ncu.)
__global__ void __launch_bounds__(analysis_block)
    level_bounds(int n, const int* __restrict__ position_level, const int* __restrict__ rank_at,
                 const int* __restrict__ order, const int* __restrict__ lower, const int* __restrict__ upper,
                 int* __restrict__ rows, int* __restrict__ level_start, int* __restrict__ widths) {
  __shared__ int block_widths[2 * analysis_block];  // from the block's first level on, as widths
  const int block_first = blockIdx.x * analysis_block;
  const int first_level = position_level[block_first];
  const int span = position_level[min(n, block_first + analysis_block) - 1] - first_level + 1;
  for (int k = threadIdx.x; k < 2 * span; k += analysis_block) block_widths[k] = 0;
  __syncthreads();
  const int p = block_first + static_cast<int>(threadIdx.x);
  if (p < n) {
    const int l = position_level[p];
    if (p == 0 || position_level[p - 1] != l) level_start[l] = p;
    if (p == n - 1) level_start[l + 1] = n;
    const int q = rank_at ? rank_at[p] : p;
    if (rank_at) rows[p] = order ? order[q] : q;
    int lower_width = lower[q], upper_width = upper[q];
    int* slot = block_widths + 2 * (l - first_level);
    // most warps lie within one level: one lane carries the warp's widths
    const unsigned lanes = __activemask();
    const int first = __ffs(lanes) - 1;
    const bool one_level = __all_sync(lanes, l == __shfl_sync(lanes, l, first));
    if (one_level) {
      lower_width = __reduce_max_sync(lanes, lower_width);
      upper_width = __reduce_max_sync(lanes, upper_width);
    }
    if (!one_level || static_cast<int>(threadIdx.x & 31) == first) {
      atomicMax_block(slot, lower_width);
      atomicMax_block(slot + 1, upper_width);
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < 2 * span; k += analysis_block)
    if (block_widths[k] > 0) atomicMax(widths + 2 * first_level + k, block_widths[k]);
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

/// The state's place in the workspace: after the widths (2 n).
int* state_of(LevelWorkspace& w) { return w.bounds.data() + 2 * static_cast<std::size_t>(w.n); }

}  // namespace

LevelWorkspace::LevelWorkspace(int n_rows) : n(n_rows) {
  if (n == 0) return;
  const std::size_t rows = static_cast<std::size_t>(n);
  level = DeviceBuffer<int>(rows);
  counts = DeviceBuffer<int>(2 * rows);
  bounds = DeviceBuffer<int>(2 * rows + state_ints);
  level_ptr = DeviceBuffer<int>(rows + 1);
  for (int k = 0; k < 2; ++k) {
    sorted_level[k] = DeviceBuffer<int>(rows);
    sorted_rows[k] = DeviceBuffer<int>(rows);
  }
  sort_temp = DeviceBuffer<char>(sort_bytes(n, 31));
}

long long level_pass_hops(const FactorPattern& pattern, std::span<const label> order) {
  int device = 0, multiprocessors = 0, blocks = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  FVMMINI_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  with_level_kernel(widest_row(pattern), [&](auto kernel) {
    FVMMINI_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, analysis_block, 0));
  });
  return sync_free_hops(pattern, order, analysis_block, std::max(1, blocks * multiprocessors));
}

DeviceLevels find_levels(const DevicePattern& pattern, LevelWorkspace& w, cudaStream_t stream, LevelRule rule) {
  const int n = pattern.n_rows;
  if (w.n != n) throw std::invalid_argument("find_levels: a workspace for another row count");
  if (n > 0 && (w.sorted_level[0].size() == 0 || w.sorted_level[1].size() == 0 || w.sorted_rows[0].size() == 0))
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
                 w.counts.data() + n, w.sorted_level[0].data(), w.sorted_rows[0].data(), nullptr};
  int* widths = w.bounds.data();
  pass.state = state_of(w);
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(pass.level, 0xff, rows * sizeof(int), stream));
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(pass.state, 0, state_ints * sizeof(int), stream));

  // --- the levels in one launch, then by rank: are they sorted already?
  const int grid = (n + analysis_block - 1) / analysis_block;
  const auto launch = [&](auto kernel) {
    kernel<<<grid, analysis_block, 0, stream>>>(pass);
    FVMMINI_CUDA_CHECK_LAUNCH(level_rows);
  };
  if (rule == LevelRule::colour) with_level_kernel<LevelRule::colour>(pattern.widest, launch);
  else with_level_kernel(pattern.widest, launch);
  int state[state_ints] = {};
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(state, pass.state, sizeof(state), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int levels = state[0] + 1;

  // --- where the levels fall along the ranks: the ranks by level, ties by rank (a stable sort),
  // the values the ranks themselves (in index order the rows by rank are the ranks)
  const int* rank_at = nullptr;
  int sorted = 0;
  if (state[3]) {
    int end_bit = 1;
    while (end_bit < 31 && (1 << end_bit) < levels) ++end_bit;
    std::size_t temp_bytes = sort_bytes(n, end_bit);
    if (temp_bytes > w.sort_temp.size()) w.sort_temp = DeviceBuffer<char>(temp_bytes);
    temp_bytes = w.sort_temp.size();
    if (order) {
      rank_sequence<<<grid, analysis_block, 0, stream>>>(n, w.sorted_rows[0].data());
      FVMMINI_CUDA_CHECK_LAUNCH(rank_sequence);
    }
    FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(w.sort_temp.data(), temp_bytes, w.sorted_level[0].data(),
                                                       w.sorted_level[1].data(), w.sorted_rows[0].data(),
                                                       w.sorted_rows[1].data(), n, 0, end_bit, stream));
    rank_at = w.sorted_rows[1].data();
    sorted = 1;
  }
  out.position_level = std::move(w.sorted_level[sorted]);
  out.rows = std::move(w.sorted_rows[0]);  // by rank, or by position once level_bounds has written them

  // --- each level's start and widths, to the host
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(widths, 0, 2 * static_cast<std::size_t>(levels) * sizeof(int), stream));
  level_bounds<<<grid, analysis_block, 0, stream>>>(n, out.position_level.data(), rank_at, order, pass.lower,
                                                    pass.upper, out.rows.data(), w.level_ptr.data(), widths);
  FVMMINI_CUDA_CHECK_LAUNCH(level_bounds);
  out.level_ptr.resize(levels + 1);
  std::vector<int> width_pairs(2 * static_cast<std::size_t>(levels));
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(out.level_ptr.data(), w.level_ptr.data(), (levels + 1) * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(width_pairs.data(), widths, width_pairs.size() * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  out.level_ptr_device = std::move(w.level_ptr);  // sized for n + 1 levels; the first levels + 1 hold the starts
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
