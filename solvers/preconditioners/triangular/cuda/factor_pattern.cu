#include "solvers/preconditioners/triangular/cuda/factor_pattern.cuh"

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
  static_cast<DeviceRowPattern&>(p) = device_row_pattern(n, faces, lower, upper, o2n, stream);
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
