#include "kernels/cuda/device_rows.cuh"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"

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

}  // namespace

DeviceRowPattern device_row_pattern(int n, int faces, const int* lower, const int* upper, const int* o2n,
                                    cudaStream_t stream) {
  DeviceRowPattern p;
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

namespace {

/// The unit of `format`, which must place rows.
const DeviceFormatUnit& placing_unit(const std::string& format) {
  const DeviceFormatUnit& unit = find_device_format(format);
  if (!unit.place_rows || !unit.make_placed)
    throw std::invalid_argument("format '" + format + "': its CUDA unit does not build its arrays on the device");
  return unit;
}

template <class T, class A>
std::span<const T> whole(const std::vector<T, A>& v) {
  return {v.data(), v.size()};
}

/// The LDU's addressing and op on the device, and the rows' pattern from them.
struct UploadedRows {
  UploadedRows(const LduAddressing& a, const Permutation& op, cudaStream_t stream)
      : lower(whole(a.lower)), new_to_old(whole(op.new_to_old)) {
    if (op.size() != a.n_rows) throw std::invalid_argument("build_on_device: a numbering for another row count");
    const DeviceBuffer<int> upper(whole(a.upper)), old_to_new(whole(op.old_to_new));
    pattern = device_row_pattern(a.n_rows, a.n_faces(), lower.data(), upper.data(), old_to_new.data(), stream);
  }
  DeviceBuffer<int> lower, new_to_old;
  DeviceRowPattern pattern;
};

void size_map(DeviceSlotMap& map, const LduAddressing& a) {
  map.diag = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(a.n_rows));
  map.upper = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(a.n_faces()));
  map.lower = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(a.n_faces()));
}

}  // namespace

bool places_rows_on_device(const std::string& format) {
  for (const std::string& name : device_format_names())
    if (name == format) return static_cast<bool>(find_device_format(format).place_rows);
  return false;
}

DeviceMatrix build_on_device(const std::string& format, const StoredFormat& shape, const FormatParameters& parameters,
                             const LduMatrix& matrix, const Permutation& op, DeviceSlotMap& map) {
  const DeviceFormatUnit& unit = placing_unit(format);
  const Stream stream;
  const UploadedRows uploaded(*matrix.addressing, op, stream.get());
  const DeviceBuffer<double> diag(whole(matrix.diag)), upper(whole(matrix.upper));
  DeviceBuffer<double> lower;
  if (!matrix.symmetric()) lower = DeviceBuffer<double>(whole(matrix.lower));
  size_map(map, *matrix.addressing);
  // --- the arrays padded (column -1, value 0), then every row placed
  const auto entries = static_cast<std::size_t>(shape.figures().stored_entries);
  DeviceBuffer<int> col(entries);
  DeviceBuffer<double> values(entries);
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(col.data(), 0xff, col.bytes(), stream.get()));
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(values.data(), 0, values.bytes(), stream.get()));
  const DeviceRows rows{&uploaded.pattern, uploaded.lower.data(), uploaded.new_to_old.data(), diag.data(),
                        upper.data(),      lower.size() > 0 ? lower.data() : nullptr};
  unit.place_rows(shape, rows, col.data(), values.data(), map, stream.get());
  stream.synchronize();
  return DeviceMatrix(unit.make_placed(shape, parameters, std::move(col), std::move(values)));
}

DeviceSlotMap slots_on_device(const std::string& format, const StoredFormat& shape, const LduAddressing& addressing,
                              const Permutation& op) {
  const DeviceFormatUnit& unit = placing_unit(format);
  const Stream stream;
  const UploadedRows uploaded(addressing, op, stream.get());
  DeviceSlotMap map;
  size_map(map, addressing);
  const DeviceRows rows{&uploaded.pattern, uploaded.lower.data(), uploaded.new_to_old.data()};
  unit.place_rows(shape, rows, nullptr, nullptr, map, stream.get());
  stream.synchronize();
  return map;
}

}  // namespace fvmmini::cuda
