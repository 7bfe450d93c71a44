#include "solvers/preconditioners/triangular/cuda/factor_pattern.cuh"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "kernels/cuda/cuda_check.cuh"

namespace fvmmini::cuda {

namespace {

static_assert(std::is_same_v<label, int>, "a label is the device's int");

constexpr int pattern_block = 256;

int grid_for(long long units) { return static_cast<int>((units + pattern_block - 1) / pattern_block); }

__device__ inline int renumbered(const int* old_to_new, int i) { return old_to_new ? old_to_new[i] : i; }

/// Each row's entries: 1 (its diagonal) on entry, then one per face end.
__global__ void __launch_bounds__(pattern_block)
    count_entries(int faces, const int* __restrict__ lower, const int* __restrict__ upper,
                  const int* __restrict__ old_to_new, int* __restrict__ count) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= faces) return;
  atomicAdd(count + renumbered(old_to_new, lower[f]), 1);
  atomicAdd(count + renumbered(old_to_new, upper[f]), 1);
}

/// count[i] = 1 for the rows, 0 past them (the scan's last element becomes the entry count).
__global__ void __launch_bounds__(pattern_block) one_per_row(int n, int* __restrict__ count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) count[i] = i < n ? 1 : 0;
}

/// Each row's diagonal in its first slot; next[i] the slot after it.
__global__ void __launch_bounds__(pattern_block)
    place_diagonal(int n, const int* __restrict__ row_ptr, int* __restrict__ next, int* __restrict__ col,
                   int* __restrict__ face) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int s = row_ptr[i];
  col[s] = i;
  face[s] = -1;
  next[i] = s + 1;
}

/// Each face in both its rows, in slots taken in any order (sort_rows orders them).
__global__ void __launch_bounds__(pattern_block)
    place_faces(int faces, const int* __restrict__ lower, const int* __restrict__ upper,
                const int* __restrict__ old_to_new, int* __restrict__ next, int* __restrict__ col,
                int* __restrict__ face) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= faces) return;
  const int l = renumbered(old_to_new, lower[f]), u = renumbered(old_to_new, upper[f]);
  const int sl = atomicAdd(next + l, 1), su = atomicAdd(next + u, 1);
  col[sl] = u;
  face[sl] = f;
  col[su] = l;
  face[su] = f;
}

/// Each row's entries by (column, face), insertion-sorted in place (rows are short), and the
/// widest row's off-diagonal count into *widest (zero on entry).
__global__ void __launch_bounds__(pattern_block)
    sort_rows(int n, const int* __restrict__ row_ptr, int* __restrict__ col, int* __restrict__ face,
              int* __restrict__ widest) {
  __shared__ int block_widest;
  if (threadIdx.x == 0) block_widest = 0;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int begin = row_ptr[i], end = row_ptr[i + 1];
    for (int e = begin + 1; e < end; ++e) {
      const int c = col[e], f = face[e];
      int k = e;
      for (; k > begin && (col[k - 1] > c || (col[k - 1] == c && face[k - 1] > f)); --k) {
        col[k] = col[k - 1];
        face[k] = face[k - 1];
      }
      col[k] = c;
      face[k] = f;
    }
    atomicMax_block(&block_widest, end - begin - 1);
  }
  __syncthreads();
  if (threadIdx.x == 0 && block_widest > 0) atomicMax(widest, block_widest);
}

/// rank[order[k]] = k.
__global__ void __launch_bounds__(pattern_block) invert_order(int n, const int* __restrict__ order, int* __restrict__ rank) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) rank[order[k]] = k;
}

}  // namespace

DevicePattern device_factor_pattern(const LduAddressing& a, const Permutation& op, cudaStream_t stream) {
  if (op.size() != a.n_rows) throw std::invalid_argument("device_factor_pattern: a numbering for another row count");
  const DeviceBuffer<int> lower(std::span<const int>(a.lower)), upper(std::span<const int>(a.upper));
  DeviceBuffer<int> old_to_new;
  if (!op.is_identity()) old_to_new = DeviceBuffer<int>(std::span<const int>(op.old_to_new));
  return device_factor_pattern(a.n_rows, a.n_faces(), lower.data(), upper.data(),
                               old_to_new.size() > 0 ? old_to_new.data() : nullptr, stream);
}

DevicePattern device_factor_pattern(int n, int faces, const int* lower, const int* upper, const int* o2n,
                                    cudaStream_t stream) {
  DevicePattern p;
  p.n_rows = n;
  p.row_ptr = DeviceBuffer<int>(static_cast<std::size_t>(n) + 1);
  // --- each row's count, then their starts (an exclusive scan over n + 1: the last is the total)
  DeviceBuffer<int> count(static_cast<std::size_t>(n) + 1);
  one_per_row<<<grid_for(n + 1LL), pattern_block, 0, stream>>>(n, count.data());
  FVMMINI_CUDA_CHECK_LAUNCH(one_per_row);
  if (faces > 0) {
    count_entries<<<grid_for(faces), pattern_block, 0, stream>>>(faces, lower, upper, o2n, count.data());
    FVMMINI_CUDA_CHECK_LAUNCH(count_entries);
  }
  std::size_t scan_bytes = 0;
  FVMMINI_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, count.data(), p.row_ptr.data(), n + 1, stream));
  DeviceBuffer<char> scan_temp(std::max<std::size_t>(scan_bytes, 1));
  FVMMINI_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(scan_temp.data(), scan_bytes, count.data(), p.row_ptr.data(), n + 1, stream));
  const std::size_t entries = static_cast<std::size_t>(n) + 2 * static_cast<std::size_t>(faces);
  p.col = DeviceBuffer<int>(entries);
  p.face = DeviceBuffer<int>(entries);
  if (n == 0) return p;
  // column -1 until placed: a slot left unplaced is a column no row has
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(p.col.data(), 0xff, p.col.bytes(), stream));
  // --- the entries placed (count is spent: it holds each row's next slot), then sorted
  place_diagonal<<<grid_for(n), pattern_block, 0, stream>>>(n, p.row_ptr.data(), count.data(), p.col.data(),
                                                            p.face.data());
  FVMMINI_CUDA_CHECK_LAUNCH(place_diagonal);
  if (faces > 0) {
    place_faces<<<grid_for(faces), pattern_block, 0, stream>>>(faces, lower, upper, o2n, count.data(),
                                                               p.col.data(), p.face.data());
    FVMMINI_CUDA_CHECK_LAUNCH(place_faces);
  }
  int* widest = count.data() + n;  // the scan has read it
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(widest, 0, sizeof(int), stream));
  sort_rows<<<grid_for(n), pattern_block, 0, stream>>>(n, p.row_ptr.data(), p.col.data(), p.face.data(), widest);
  FVMMINI_CUDA_CHECK_LAUNCH(sort_rows);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(&p.widest, widest, sizeof(int), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  return p;
}

FactorPattern download(const DevicePattern& p) {
  FactorPattern host;
  host.row_ptr.resize(p.row_ptr.size());
  host.col.resize(p.col.size());
  host.face.resize(p.face.size());
  p.row_ptr.download(std::span<int>(host.row_ptr));
  p.col.download(std::span<int>(host.col));
  p.face.download(std::span<int>(host.face));
  return host;
}

void set_schedule_order(DevicePattern& p, std::span<const label> order, cudaStream_t stream) {
  if (static_cast<int>(order.size()) != p.n_rows) throw std::invalid_argument("set_schedule_order: an order for another row count");
  p.order = DeviceBuffer<int>();
  p.rank = DeviceBuffer<int>();
  if (std::is_sorted(order.begin(), order.end())) return;  // the analysis takes index order
  set_schedule_order(p, DeviceBuffer<int>(order), stream);
}

void set_schedule_order(DevicePattern& p, DeviceBuffer<int> order, cudaStream_t stream) {
  if (static_cast<int>(order.size()) != p.n_rows) throw std::invalid_argument("set_schedule_order: an order for another row count");
  p.order = std::move(order);
  p.rank = DeviceBuffer<int>(p.order.size());
  if (p.n_rows == 0) return;
  invert_order<<<grid_for(p.n_rows), pattern_block, 0, stream>>>(p.n_rows, p.order.data(), p.rank.data());
  FVMMINI_CUDA_CHECK_LAUNCH(invert_order);
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace fvmmini::cuda
