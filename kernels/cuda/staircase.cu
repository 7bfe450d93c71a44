// "staircase": Staircase SELL (Wikberg 2025, 4.3.4-4.3.5), in one of two launch modes on the same layout.
//
// groups (Wikberg 2025): one launch per group g, on its own stream: step_blocks[g] blocks of sh
// threads, thread t of block b handles row row_ptr[g] + b*sh + t and reads step_lengths[g] entries at
// step_ptr[g] + b*step_lengths[g]*sh + k*sh + t (a block takes several slices when a group has more
// than a few waves of them). The index arrays stay on the host; a group with no blocks launches
// nothing.
//
// interleaved (the default): one launch over the slices of every group. With row lengths that vary
// from cell to cell each group's rows span the whole Cuthill-McKee order, and the rows of one group
// are a sparse sample of every stretch of the mesh; group kernels running side by side (or one
// after the other) gather x for the same cells at different times, so each sector of x is fetched
// again and again (on a polyhedral-like 200^3 matrix: 60 % of copy bandwidth, against
// SELL-C-sigma's 83 %). Here slices are visited in the order of their place in the mesh, the
// position of their middle row before the grouping (StaircaseMatrix::slice_position), and each
// block takes interleaved_block_threads / sh consecutive visits: one block sums the rows of one
// stretch of the mesh in every group, so the x sectors it gathers are shared in its L1 (87 %). This
// trades Wikberg's (2025) host-side index for a small device table: per visited slice its first row,
// first entry and length (16 bytes a slice of sh rows). Each row is summed exactly as in the groups
// mode (same slots, same order), so y is bit-identical between the modes.

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/ell_slice.cuh"
#include "kernels/cuda/mixed_rows.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/formats/staircase_matrix.hpp"

namespace fvmmini::cuda {

namespace {

/// Threads of an interleaved block (1024 / sh slices each): measured on the polyhedral-like 200^3
/// matrix (H200), 256 threads gave 84.7 % of copy bandwidth, 1024 gave 85.4 %.
constexpr int interleaved_block_threads = 1024;

/// One group; blockDim.x = sh. Block b handles slices b, b + gridDim.x, ... of the group's `slices`
/// (a bounded grid keeps the fused dot product's partials few); with partials, block b writes
/// partials[b] (pre-offset per group).
/// Rows: FullRows (float64) or MixedRows (the float32 twin); slice_start: the group's first slice
/// in the groups' slice numbering.
template <bool kDot, class Rows>
__global__ void __launch_bounds__(1024)
    staircase_spmv_kernel(int length, int slices, int row_start, long long step_start, long long slice_start,
                          int n_rows, Rows rows, const double* __restrict__ x, double* __restrict__ y,
                          double* __restrict__ partials) {
  const int sh = blockDim.x;
  double dot = 0.0;
  for (int b = blockIdx.x; b < slices; b += gridDim.x) {
    const long long base = step_start + static_cast<long long>(b) * length * sh + threadIdx.x;
    const int row = row_start + b * sh + threadIdx.x;
    // --- y_row = sum_k val[k] x[col[k]]; padding entries (col -1) and padding rows add nothing
    const double sum = rows.sum(base, sh, length, row, slice_start + b, x);
    if (row < n_rows) {
      y[row] = sum;
      if constexpr (kDot) dot += sum * x[row];
    }
  }
  if constexpr (kDot) write_block_partials<1>(Sums<1>{{dot}}, partials, gridDim.x, blockIdx.x);
}

/// One slice as the interleaved kernel visits it.
struct alignas(16) VisitedSlice {
  long long entry_start;  ///< step_ptr[g] + s * step_lengths[g] * sh: the slot of its row 0, entry 0
  int row_start;          ///< row_ptr[g] + s * sh
  int length;             ///< step_lengths[g]
};

/// Every group at once; blockDim.x = m * sh: warp-aligned part w = threadIdx.x / sh of block b
/// handles visited slice c * m + w for c = b, b + gridDim.x, ... (every block has at least one).
/// Consecutive visits are slices of different groups at the same stretch of the CM order, so one
/// block's parts gather the same x sectors and share them in L1. The next chunk's table entry is
/// loaded before the current slice is summed (not with the dot product on the float32 twin, whose
/// registers it would push to one block per SM, and not for several vectors, whose sums take more). With partials, block b writes partials[b].
/// Rows: FullRows or MixedRows, its slices numbered in visit order. K > 1: K vectors interleaved by
/// row (x[i * K + j]), vector j's partials at j * gridDim.x.
template <bool kDot, class Rows, int K = 1>
__global__ void __launch_bounds__(1024)
    staircase_interleaved_kernel(int n_visits, int n_rows, int sh, const VisitedSlice* __restrict__ visits, Rows rows,
                                 const double* __restrict__ x, double* __restrict__ y, double* __restrict__ partials) {
  const int m = blockDim.x / sh;
  const int part = threadIdx.x / sh;
  const int lane = threadIdx.x - part * sh;
  Sums<K> dot{};
  int v = blockIdx.x * m + part;
  const int step = gridDim.x * m;
  // --- the next slice's entry loaded before this one is summed, unless the registers are tight
  constexpr bool prefetch = !(kDot && Rows::kTightWithDot) && K == 1;
  VisitedSlice next{};
  if (prefetch && v < n_visits) next = visits[v];
  for (; v < n_visits; v += step) {
    const VisitedSlice slice = prefetch ? next : visits[v];
    if (prefetch && v + step < n_visits) next = visits[v + step];
    const int row = slice.row_start + lane;
    // --- y_row = sum_k val[k] x[col[k]]; padding entries (col -1) and padding rows add nothing
    double sum[K];
    row_sums<K>(rows, slice.entry_start + lane, sh, slice.length, row, v, x, sum);
    if (row < n_rows)
#pragma unroll
      for (int j = 0; j < K; ++j) {
        y[static_cast<long long>(row) * K + j] = sum[j];
        if constexpr (kDot) dot.v[j] += sum[j] * x[static_cast<long long>(row) * K + j];
      }
  }
  if constexpr (kDot) write_block_partials<K>(dot, partials, gridDim.x, blockIdx.x);
}

/// The blocks of one group launch over `slices` slices: one per slice, at most
/// spmv_max_threads / sh (a few waves of the device; a constant, so the dot partials do not
/// depend on the device).
int bounded_grid(int slices, int slice_height) {
  return std::min(slices, std::max(1, spmv_max_threads / slice_height));
}

/// The row of lane `lane` of a slice whose first row is first_row (-1: a padding row).
int lane_row(int first_row, int lane, label n_rows) { return first_row + lane < n_rows ? first_row + lane : -1; }

void check_slice_height(int slice_height) {
  if (slice_height <= 0 || slice_height % 32 != 0 || slice_height > 1024)
    throw CudaError("staircase: slice height must be a positive multiple of 32, at most 1024");
}

/// The launch mode "groups": one launch per group, each on its own stream.
class StaircaseDevice final : public DeviceSpmv {
 public:
  explicit StaircaseDevice(const StaircaseMatrix& a)
      : StaircaseDevice(a, DeviceBuffer<int>(std::span<const int>(a.col)),
                        DeviceBuffer<double>(std::span<const double>(a.values))) {}
  /// Over arrays already on the device, laid out by a's index (a may be its shape alone).
  StaircaseDevice(const StaircaseMatrix& a, DeviceBuffer<int> col, DeviceBuffer<double> values)
      : n_rows_(a.n_rows),
        slice_height_(a.slice_height),
        index_(a.index),
        col_(std::move(col)),
        val_(std::move(values)),
        fork_(true) {
    check_slice_height(slice_height_);
    const label n_groups = index_.n_groups();
    partial_offset_.assign(n_groups + 1, 0);
    for (label g = 0; g < n_groups; ++g) partial_offset_[g + 1] = partial_offset_[g] + grid(g);
    streams_.reserve(n_groups);
    joins_.reserve(n_groups);
    for (label g = 0; g < n_groups; ++g) {
      streams_.emplace_back();
      joins_.emplace_back(true);
    }
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override { return col_.bytes() + val_.bytes(); }
  std::string format_name() const override { return "staircase"; }
  int dot_partial_count() const override { return std::max(1, partial_offset_.back()); }

  void apply(const double* x, double* y, cudaStream_t stream) override { run<false>(rows(), x, y, nullptr, stream); }
  void apply_with_dot(const double* x, double* y, double* partials, cudaStream_t stream) override {
    run<true>(rows(), x, y, partials, stream);
  }
  void upload_values(std::span<const double> values) override { val_.upload(values); }
  double* device_values() override { return val_.data(); }
  const int* device_columns() const { return col_.data(); }

  /// The columns of the float32 twin, its slices numbered groups in order (the kernel's
  /// slice_start + b).
  NarrowColumns narrow(const StaircaseMatrix& a) const {
    std::vector<EllSlice> slices;
    std::vector<int> first_row;
    for (label g = 0; g < index_.n_groups(); ++g)
      for (label b = 0; b < index_.step_blocks[g]; ++b) {
        slices.push_back({index_.step_ptr[g] + static_cast<std::int64_t>(b) * index_.step_lengths[g] * slice_height_,
                          slice_height_, index_.step_lengths[g]});
        first_row.push_back(index_.row_ptr[g] + b * slice_height_);
      }
    return narrow_columns(a.col, slices, [&](std::size_t s, int t) { return lane_row(first_row[s], t, n_rows_); });
  }

  /// The SpMV with rows read as Rows reads them (FullRows: this matrix; MixedRows: its twin).
  template <bool kDot, class Rows>
  void run(Rows rows, const double* x, double* y, double* partials, cudaStream_t stream) {
    // --- a matrix with no slices still owes the caller one (zero) partial
    if (kDot && partial_offset_.back() == 0) FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double), stream));
    // --- fork: every group stream waits for the work already queued on the caller's stream
    fork_.record(stream);
    long long slice_start = 0;
    for (label g = 0; g < index_.n_groups(); ++g) {
      const int slices = index_.step_blocks[g];
      slice_start += slices;
      if (slices == 0) continue;
      cudaStream_t s = streams_[g].get();
      FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(s, fork_.get(), 0));
      staircase_spmv_kernel<kDot><<<grid(g), slice_height_, 0, s>>>(
          index_.step_lengths[g], slices, index_.row_ptr[g], index_.step_ptr[g], slice_start - slices, n_rows_, rows,
          x, y, kDot ? partials + partial_offset_[g] : nullptr);
      FVMMINI_CUDA_CHECK_LAUNCH(staircase_spmv_kernel);
      // --- join: the caller's stream continues once every group is done
      joins_[g].record(s);
      FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(stream, joins_[g].get(), 0));
    }
  }

 private:
  /// Blocks of group g: one per slice, at most spmv_max_threads / sh (a few waves of the device).
  int grid(label g) const { return bounded_grid(index_.step_blocks[g], slice_height_); }
  FullRows rows() const { return {col_.data(), val_.data()}; }

  label n_rows_;
  int slice_height_;
  StaircaseIndex index_;  ///< host-side, as Wikberg (2025) keeps it
  std::vector<int> partial_offset_;
  DeviceBuffer<int> col_;
  DeviceBuffer<double> val_;
  Event fork_;
  std::vector<Stream> streams_;
  std::vector<Event> joins_;
};

/// The launch mode "interleaved": one launch on the caller's stream over the slices of every
/// group, in the visit order of the table.
class StaircaseInterleavedDevice final : public DeviceSpmv {
 public:
  explicit StaircaseInterleavedDevice(const StaircaseMatrix& a)
      : StaircaseInterleavedDevice(a, DeviceBuffer<int>(std::span<const int>(a.col)),
                                   DeviceBuffer<double>(std::span<const double>(a.values))) {}
  /// Over arrays already on the device, laid out by a's index (a may be its shape alone).
  StaircaseInterleavedDevice(const StaircaseMatrix& a, DeviceBuffer<int> col, DeviceBuffer<double> values)
      : n_rows_(a.n_rows),
        slice_height_(a.slice_height),
        col_(std::move(col)),
        val_(std::move(values)) {
    check_slice_height(slice_height_);
    const std::vector<VisitedSlice> visits = visit_order(a);
    n_visits_ = static_cast<int>(visits.size());
    per_block_ = std::max(1, interleaved_block_threads / slice_height_);
    // --- one wave (launch_grid.cuh): on the polyhedral-like 128^3 matrix 82.1 % of copy bandwidth
    // against 78.1 % for 1024 blocks (3.9 waves)
    grid_ = one_wave_grid(staircase_interleaved_kernel<true, FullRows>, per_block_ * slice_height_,
                          (n_visits_ + per_block_ - 1) / per_block_);
    visits_ = DeviceBuffer<VisitedSlice>(std::span<const VisitedSlice>(visits));
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override { return visits_.bytes() + col_.bytes() + val_.bytes(); }
  std::string format_name() const override { return "staircase"; }
  int dot_partial_count() const override { return std::max(1, grid_); }

  void apply(const double* x, double* y, cudaStream_t stream) override { run<false>(rows(), x, y, nullptr, stream); }
  void apply_with_dot(const double* x, double* y, double* partials, cudaStream_t stream) override {
    run<true>(rows(), x, y, partials, stream);
  }
  int max_block() const override { return max_ell_block; }
  void apply_block(int k, const double* x, double* y, double* partials, cudaStream_t stream) override {
    if (!run_block(k, partials != nullptr, [&]<bool kDot, int K>() { run<kDot, FullRows, K>(rows(), x, y, partials, stream); }))
      DeviceSpmv::apply_block(k, x, y, partials, stream);
  }
  void upload_values(std::span<const double> values) override { val_.upload(values); }
  double* device_values() override { return val_.data(); }
  const int* device_columns() const { return col_.data(); }

  /// The columns of the float32 twin, its slices numbered in visit order.
  NarrowColumns narrow(const StaircaseMatrix& a) const {
    const std::vector<VisitedSlice> visits = visit_order(a);
    std::vector<EllSlice> slices;
    for (const VisitedSlice& v : visits) slices.push_back({v.entry_start, slice_height_, v.length});
    return narrow_columns(a.col, slices, [&](std::size_t v, int t) { return lane_row(visits[v].row_start, t, n_rows_); });
  }

  /// The SpMV with rows read as Rows reads them (FullRows: this matrix; MixedRows: its twin), on K
  /// vectors interleaved by row.
  template <bool kDot, class Rows, int K = 1>
  void run(Rows rows, const double* x, double* y, double* partials, cudaStream_t stream) {
    if (n_visits_ == 0) {
      // --- a matrix with no slices still owes the caller one (zero) partial per vector
      if constexpr (kDot) FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, K * sizeof(double), stream));
      return;
    }
    staircase_interleaved_kernel<kDot, Rows, K><<<grid_, per_block_ * slice_height_, 0, stream>>>(
        n_visits_, n_rows_, slice_height_, visits_.data(), rows, x, y, partials);
    FVMMINI_CUDA_CHECK_LAUNCH(staircase_interleaved_kernel);
  }

  /// Every slice of every group, in order of its place in the mesh (see below).
  static std::vector<VisitedSlice> visit_order(const StaircaseMatrix& a);

 private:
  FullRows rows() const { return {col_.data(), val_.data()}; }

  label n_rows_;
  int slice_height_;
  int n_visits_ = 0;
  int grid_ = 0;
  int per_block_ = 1;                  ///< visited slices per block
  DeviceBuffer<VisitedSlice> visits_;  ///< the visit order (Wikberg 2025 keeps the index on the host)
  DeviceBuffer<int> col_;
  DeviceBuffer<double> val_;
};

/// Every slice of every group, in order of its place in the mesh: slice_position when the matrix
/// has it, else the relative position in its group, (s + 0.5) / n_g (compared exactly: (2s + 1)
/// n_h against (2t + 1) n_g, below 2^53 for any int row count); ties by group.
std::vector<VisitedSlice> StaircaseInterleavedDevice::visit_order(const StaircaseMatrix& a) {
  const StaircaseIndex& index = a.index;
  const int sh = a.slice_height;
  struct Key {
    label group;
    label slice;
    label position;  ///< a.slice_position of the slice, when known
  };
  std::vector<Key> keys;
  for (label g = 0; g < index.n_groups(); ++g)
    for (label s = 0; s < index.step_blocks[g]; ++s) keys.push_back({g, s, 0});
  if (a.slice_position.size() == keys.size()) {
    for (std::size_t v = 0; v < keys.size(); ++v) keys[v].position = a.slice_position[v];
    std::stable_sort(keys.begin(), keys.end(), [](const Key& l, const Key& r) { return l.position < r.position; });
  } else {
    const auto blocks = [&](label g) { return static_cast<long long>(index.step_blocks[g]); };
    std::sort(keys.begin(), keys.end(), [&](const Key& l, const Key& r) {
      const long long lhs = (2LL * l.slice + 1) * blocks(r.group);
      const long long rhs = (2LL * r.slice + 1) * blocks(l.group);
      return lhs != rhs ? lhs < rhs : l.group < r.group;
    });
  }
  // --- the slice's first slot and first row, as the groups kernel computes them for block s
  std::vector<VisitedSlice> visits(keys.size());
  for (std::size_t v = 0; v < keys.size(); ++v) {
    const label g = keys[v].group;
    const label s = keys[v].slice;
    const int length = index.step_lengths[g];
    visits[v] = {static_cast<long long>(index.step_ptr[g]) + static_cast<long long>(s) * length * sh,
                 index.row_ptr[g] + s * sh, length};
  }
  return visits;
}

/// The groups' index on the device, for place_rows_kernel.
struct DeviceIndex {
  int n_groups;
  const int* row_ptr;         ///< n_groups + 1
  const long long* step_ptr;  ///< n_groups + 1
  const int* step_lengths;    ///< n_groups
};

/// Each row of P A P^T into its slots (Algorithm 4: entry k of row i of group g at first_slot +
/// k sh), as build_staircase(PermutedRows) places it on the host: the entries in the pattern's
/// order (by column, ties by face), the row's coefficient of each face its upper where the row is
/// the face's lower cell. col and values null: the slots alone.
__global__ void place_rows_kernel(int n_rows, int sh, DeviceIndex index, const int* __restrict__ row_ptr,
                                  const int* __restrict__ pattern_col, const int* __restrict__ pattern_face,
                                  DeviceRows rows, int* __restrict__ col, double* __restrict__ values,
                                  long long* __restrict__ diag_slot, long long* __restrict__ upper_slot,
                                  long long* __restrict__ lower_slot) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_rows; i += gridDim.x * blockDim.x) {
    int g = index.n_groups - 1;  // the last group whose first row is at most i (few groups)
    while (index.row_ptr[g] > i) --g;
    const long long j = i - index.row_ptr[g];
    long long slot = index.step_ptr[g] + (j / sh) * index.step_lengths[g] * sh + j % sh;
    const int old = rows.new_to_old[i];
    for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e, slot += sh) {
      const int f = pattern_face[e];
      double value = 0.0;
      if (f < 0) {
        diag_slot[old] = slot;
        if (values) value = rows.diag[old];
      } else if (rows.lower[f] == old) {
        upper_slot[f] = slot;
        if (values) value = rows.upper[f];
      } else {
        lower_slot[f] = slot;
        if (values) value = rows.lower_coeffs ? rows.lower_coeffs[f] : rows.upper[f];
      }
      if (col) col[slot] = pattern_col[e];
      if (values) values[slot] = value;
    }
  }
}

/// The unit's place_rows (DeviceFormatUnit).
void place_staircase_rows(const StoredFormat& shape, const DeviceRows& rows, int* col, double* values,
                          DeviceSlotMap& map, cudaStream_t stream) {
  const StaircaseMatrix& a = shape.as<StaircaseMatrix>();
  if (a.n_rows != rows.pattern->n_rows) throw CudaError("staircase: a shape for another row count");
  if (a.n_rows == 0) return;
  const StaircaseIndex& index = a.index;
  const std::vector<long long> step_ptr(index.step_ptr.begin(), index.step_ptr.end());
  const DeviceBuffer<int> row_ptr(std::span<const int>(index.row_ptr));
  const DeviceBuffer<int> lengths(std::span<const int>(index.step_lengths));
  const DeviceBuffer<long long> steps{std::span<const long long>(step_ptr)};
  const DeviceIndex device_index{index.n_groups(), row_ptr.data(), steps.data(), lengths.data()};
  const DeviceRowPattern& p = *rows.pattern;
  place_rows_kernel<<<vector_grid(a.n_rows), reduce_block, 0, stream>>>(
      a.n_rows, a.slice_height, device_index, p.row_ptr.data(), p.col.data(), p.face.data(), rows, col, values,
      reinterpret_cast<long long*>(map.diag.data()), reinterpret_cast<long long*>(map.upper.data()),
      reinterpret_cast<long long*>(map.lower.data()));
  FVMMINI_CUDA_CHECK_LAUNCH(place_rows_kernel);
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));  // the index's buffers go out of scope
}

}  // namespace

const DeviceFormatUnit& device_format_staircase() {
  static const DeviceFormatUnit unit{
      "staircase",
      [](const StoredFormat& f, const FormatParameters& p) -> std::unique_ptr<DeviceSpmv> {
        // the launch keys are the staircase unit's (registry/format_units/staircase.cpp)
        if (p.word("launch") == "groups") return std::make_unique<StaircaseDevice>(f.as<StaircaseMatrix>());
        return std::make_unique<StaircaseInterleavedDevice>(f.as<StaircaseMatrix>());
      },
      [](const StoredFormat& f, const FormatParameters& p) -> DeviceFormatUnit::Twins {
        if (p.word("launch") == "groups") return make_twins<StaircaseDevice>(f.as<StaircaseMatrix>());
        return make_twins<StaircaseInterleavedDevice>(f.as<StaircaseMatrix>());
      },
      place_staircase_rows,
      [](const StoredFormat& f, const FormatParameters& p, DeviceBuffer<int> col,
         DeviceBuffer<double> values) -> std::unique_ptr<DeviceSpmv> {
        if (p.word("launch") == "groups")
          return std::make_unique<StaircaseDevice>(f.as<StaircaseMatrix>(), std::move(col), std::move(values));
        return std::make_unique<StaircaseInterleavedDevice>(f.as<StaircaseMatrix>(), std::move(col), std::move(values));
      }};
  return unit;
}

}  // namespace fvmmini::cuda
