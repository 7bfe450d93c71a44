#include "solvers/distributed/cuda/device_ranks.hpp"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/block_vectors.hpp"
#include "solvers/distributed/cuda/halo_device.cuh"
#include "solvers/distributed/cuda/rank_transport.cuh"

namespace fvmmini::cuda {

namespace {

/// send[k] = the source's value k.
__global__ void pack_kernel(HaloSource source, long long n, double* __restrict__ send) {
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<long long>(gridDim.x) * blockDim.x)
    send[k] = halo_source_value(source, k);
}

/// y[row K + j] += coefficients[f] recv[f K + j] over the faces f of each row on an interface
/// (recv: what arrived), a thread a row adding its faces in face order (as the reference operator
/// adds them); with x, per-block partials of x_j . (what it added to y_j), summed on their own: y's
/// new value less its old one would lose the share's digits wherever y is much larger than what
/// was added.
template <int K>
__global__ void __launch_bounds__(reduce_block)
    couple_kernel(int n, const int* __restrict__ rows, const int* __restrict__ start, const int* __restrict__ faces,
                  const double* __restrict__ coefficients, HaloArrival arrival, double* __restrict__ y,
                  const double* __restrict__ x, double* __restrict__ partials) {
  // this thread's first row, its faces' span and its first face's coefficient read while the halo
  // travels (every listed row has a face): after the wait, only the values received
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  int row = 0, begin = 0, end = 0, face = 0;
  double coefficient = 0.0;
  if (first < n) {
    row = rows[first];
    begin = start[first];
    end = start[first + 1];
    face = faces[begin];
    coefficient = coefficients[face];
  }
  const double* recv = halo_values(arrival);
  Sums<K> s{};
  for (int i = first; i < n; i += gridDim.x * blockDim.x) {
    if (i != first) {
      row = rows[i];
      begin = start[i];
      end = start[i + 1];
      face = faces[begin];
      coefficient = coefficients[face];
    }
    const long long at = static_cast<long long>(row) * K;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      double sum = y[at + j];
      const double head = coefficient * __ldcg(recv + static_cast<long long>(face) * K + j);
      sum += head;
      double added = head;
      for (int k = begin + 1; k < end; ++k) {
        const double term = coefficients[faces[k]] * __ldcg(recv + static_cast<long long>(faces[k]) * K + j);
        sum += term;
        added += term;
      }
      if (x) s.v[j] += x[at + j] * added;
      y[at + j] = sum;
    }
  }
  done_with_halo(arrival);
  if (x) write_block_partials<K>(s, partials, gridDim.x, blockIdx.x);
}

/// local[j] = the total of value j's count partials, plus the couplings' more_count (one block,
/// fixed order).
template <int K>
__global__ void __launch_bounds__(1024) totals_kernel(const double* __restrict__ partials, int count,
                                                      const double* __restrict__ more, int more_count,
                                                      double* __restrict__ local) {
  Sums<K> s = reduce_partials<K>(partials, count);
  if (more_count > 0) {
    __syncthreads();  // block_sum's shared memory again: warp 0 has read the first sum's first
    const Sums<K> m = reduce_partials<K>(more, more_count);
#pragma unroll
    for (int j = 0; j < K; ++j) s.v[j] += m.v[j];
  }
  if (threadIdx.x == 0)
#pragma unroll
    for (int j = 0; j < K; ++j) local[j] = s.v[j];
}

/// MPI with host staging: the halo through HaloExchange's host buffers, the totals through
/// Communicator::gather. The host waits for the device before each send.
class MpiTransport final : public RankTransport {
 public:
  MpiTransport(const Communicator& comm, const HaloPattern& pattern)
      : comm_(comm), pattern_(pattern), halo_(comm, pattern.neighbours, counts(pattern), counts(pattern)),
        send_(std::max<std::size_t>(pattern.total(), 1)) {}

  bool capturable() const override { return false; }

  void start(const HaloSource& source, double* /*recv*/, cudaStream_t stream) override {
    enqueue_pack(source, static_cast<long long>(pattern_.total()), send_.data(), stream);
    const double* send = send_.data();
    for (std::size_t i = 0; i < pattern_.neighbours.size(); ++i) {
      std::span<double> host = halo_.send_buffer(i);
      FVMMINI_CUDA_CHECK(cudaMemcpyAsync(host.data(), send + pattern_.offsets[i], host.size_bytes(),
                                         cudaMemcpyDeviceToHost, stream));
    }
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
    halo_.start();
  }

  void finish(double* recv, cudaStream_t stream) override {
    halo_.finish();
    for (std::size_t i = 0; i < pattern_.neighbours.size(); ++i) {
      const std::span<const double> host = halo_.received(i);
      FVMMINI_CUDA_CHECK(cudaMemcpyAsync(recv + pattern_.offsets[i], host.data(), host.size_bytes(),
                                         cudaMemcpyHostToDevice, stream));
    }
    // the host buffers are refilled by the next start, after a synchronisation: the copies are done by then
  }

  void all_gather(const double* local, double* gathered, int k, cudaStream_t stream) override {
    double values[max_totals];
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(values, local, sizeof(double) * k, cudaMemcpyDeviceToHost, stream));
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> all = comm_.gather(std::span<const double>(values, static_cast<std::size_t>(k)));
    const int ranks = comm_.size();
    staged_.resize(all.size());
    for (int r = 0; r < ranks; ++r)
      for (int j = 0; j < k; ++j) staged_[static_cast<std::size_t>(j) * ranks + r] = all[static_cast<std::size_t>(r) * k + j];
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(gathered, staged_.data(), staged_.size() * sizeof(double),
                                       cudaMemcpyHostToDevice, stream));
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));  // staged_ is reused by the next call
  }

  void gather_rows(const double* local, double* gathered, std::size_t count, cudaStream_t stream) override {
    staged_.resize(count);
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(staged_.data(), local, sizeof(double) * count, cudaMemcpyDeviceToHost, stream));
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> all = comm_.gather(std::span<const double>(staged_));
    staged_ = all;
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(gathered, staged_.data(), staged_.size() * sizeof(double),
                                       cudaMemcpyHostToDevice, stream));
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  static std::vector<std::size_t> counts(const HaloPattern& p) {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i < p.neighbours.size(); ++i) c.push_back(p.count(i));
    return c;
  }
  const Communicator& comm_;
  HaloPattern pattern_;
  HaloExchange halo_;
  DeviceBuffer<double> send_;  ///< the source's values, packed
  std::vector<double> staged_;
};

}  // namespace

void enqueue_pack(const HaloSource& source, long long count, double* send, cudaStream_t stream) {
  if (count == 0) return;
  pack_kernel<<<vector_grid(count), reduce_block, 0, stream>>>(source, count, send);
  FVMMINI_CUDA_CHECK_LAUNCH(pack_kernel);
}

std::unique_ptr<RankTransport> make_transport(Transport transport, const Communicator& comm, const HaloPattern& pattern) {
  if (transport == Transport::nccl) return make_nccl_transport(comm, pattern);
  if (transport == Transport::ipc) return make_ipc_transport(comm, pattern);
  return std::make_unique<MpiTransport>(comm, pattern);
}

namespace {

/// A value that names this rank's GPU among all ranks': its host and the device's UUID.
long long gpu_identity() {
  int device = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  FVMMINI_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string id = std::string(host) + "/" + std::string(prop.uuid.bytes, sizeof prop.uuid.bytes);
  return static_cast<long long>(std::hash<std::string>{}(id));
}

}  // namespace

void select_device(int node_rank) {
  int count = 0;
  FVMMINI_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count < 1) throw CudaError("select_device: no CUDA device");
  FVMMINI_CUDA_CHECK(cudaSetDevice(node_rank % count));
}

bool ranks_share_a_gpu(const Communicator& comm) {
  std::vector<long long> ids = comm.gather(gpu_identity());
  std::sort(ids.begin(), ids.end());
  return std::adjacent_find(ids.begin(), ids.end()) != ids.end();
}

Transport resolve_transport(Transport asked, const Communicator& comm) {
  if (asked == Transport::mpi) return asked;
  const bool shared = ranks_share_a_gpu(comm);
  if (asked == Transport::automatic) {
    // --- ipc where it maps (measured 0.5 to 7 % faster than nccl a step or an iteration on 4 H100s
    //     and 4 H200s), else nccl, else mpi
    if (shared) return Transport::mpi;
    if (ranks_on_one_host(comm) && ipc_maps_every_rank(comm)) return Transport::ipc;
    return nccl_built() ? Transport::nccl : Transport::mpi;
  }
  if (asked == Transport::ipc) {
    if (shared) throw SolverError("transport ipc: two ranks run on the same GPU (ipc needs one GPU a rank); use mpi");
    if (!ranks_on_one_host(comm))
      throw SolverError("transport ipc: the ranks run on more than one host (CUDA IPC maps GPU memory within a "
                        "host); use nccl or mpi");
    return asked;
  }
  if (!nccl_built())
    throw SolverError("transport nccl: this build has no NCCL (it was not found at configure time); use mpi");
  if (shared) throw SolverError("transport nccl: two ranks run on the same GPU (NCCL needs one GPU a rank); use mpi");
  return asked;
}

struct DeviceRanks::Impl {
  Impl(const Communicator& c, Transport t, const std::vector<ProcessorInterface>& interfaces, int n_rows)
      : comm(c), transport(t) {
    if (t != Transport::nccl && t != Transport::mpi && t != Transport::ipc)
      throw std::invalid_argument("DeviceRanks: the transport must be nccl, mpi or ipc (resolve_transport)");
    HaloPattern pattern;
    pattern.offsets.push_back(0);
    std::vector<int> host_rows;
    std::vector<double> host_coefficients;
    for (const auto& i : interfaces) {
      if (i.neighbour_rank < 0 || i.neighbour_rank >= c.size() || i.neighbour_rank == c.rank())
        throw std::invalid_argument("DeviceRanks: interface to rank " + std::to_string(i.neighbour_rank) +
                                    ", not another rank of " + std::to_string(c.size()));
      if (i.coefficients.size() != i.face_cells.size())
        throw std::invalid_argument("DeviceRanks: interface to rank " + std::to_string(i.neighbour_rank) +
                                    ": one coefficient per face needed");
      for (label row : i.face_cells) {
        if (row < 0 || row >= n_rows)
          throw std::invalid_argument("DeviceRanks: interface to rank " + std::to_string(i.neighbour_rank) +
                                      ": face cell " + std::to_string(row) + " is not one of the " +
                                      std::to_string(n_rows) + " rows");
        host_rows.push_back(row);
      }
      host_coefficients.insert(host_coefficients.end(), i.coefficients.begin(), i.coefficients.end());
      pattern.neighbours.push_back(i.neighbour_rank);
      pattern.offsets.push_back(host_rows.size());
      face_counts.push_back(i.face_cells.size());
    }
    faces = host_rows.size();
    rows = DeviceBuffer<int>(std::span<const int>(host_rows));
    // --- the rows on an interface, each with its faces in face order (couple_kernel)
    std::vector<int> order(faces);
    for (std::size_t f = 0; f < faces; ++f) order[f] = static_cast<int>(f);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return host_rows[a] < host_rows[b]; });
    std::vector<int> unique_rows, start{0};
    for (std::size_t k = 0; k < faces; ++k) {
      if (k == 0 || host_rows[order[k]] != host_rows[order[k - 1]]) {
        if (k > 0) start.push_back(static_cast<int>(k));
        unique_rows.push_back(host_rows[order[k]]);
      }
    }
    start.push_back(static_cast<int>(faces));
    if (faces == 0) start = {0};
    coupled_rows = static_cast<int>(unique_rows.size());
    couple_rows = DeviceBuffer<int>(std::span<const int>(unique_rows));
    couple_start = DeviceBuffer<int>(std::span<const int>(start));
    couple_faces = DeviceBuffer<int>(std::span<const int>(order));
    coupling_partials = DeviceBuffer<double>(static_cast<std::size_t>(max_block_vectors) * vector_grid(coupled_rows));
    coefficients = DeviceBuffer<double>(std::span<const double>(host_coefficients));
    recv = DeviceBuffer<double>(std::max<std::size_t>(faces * max_block_vectors, 1));
    local = DeviceBuffer<double>(max_totals);
    gathered = DeviceBuffer<double>(static_cast<std::size_t>(max_totals) * c.size());
    total_rows = c.sum(static_cast<long long>(n_rows));
    this->pattern = pattern;
    links.resize(max_block_vectors + 1);
    links[1] = make_transport(transport, c, pattern);
  }

  /// The transport of a halo `width` doubles a face, made on first use (collective: every rank
  /// asks for the same widths in the same order).
  RankTransport& link(int width) {
    if (width < 1 || width > max_block_vectors)
      throw std::invalid_argument("DeviceRanks: a halo of 1 to " + std::to_string(max_block_vectors) + " vectors");
    if (!links[width]) {
      HaloPattern wide = pattern;
      for (auto& offset : wide.offsets) offset *= width;
      links[width] = make_transport(transport, comm, wide);
    }
    return *links[width];
  }

  const Communicator& comm;
  Transport transport;
  std::size_t faces = 0;
  std::vector<std::size_t> face_counts;  ///< per interface
  long long total_rows = 0;
  DeviceBuffer<int> rows;             ///< the face cells, interface after interface
  int coupled_rows = 0;               ///< distinct rows among them
  DeviceBuffer<int> couple_rows, couple_start, couple_faces;  ///< each such row's faces (CSR-like)
  DeviceBuffer<double> coupling_partials;  ///< finish_halo's share of a dot product
  DeviceBuffer<double> coefficients;  ///< A(row, the row across) at each face
  DeviceBuffer<double> recv;          ///< the neighbours' x across the faces
  DeviceBuffer<double> local;         ///< this rank's totals (gather_totals)
  DeviceBuffer<double> gathered;      ///< every rank's, value-major
  HaloPattern pattern;                ///< one double a face
  bool overlap = true;
  bool arrived = false;               ///< the halo started last has been waited for (no overlap)
  std::vector<std::unique_ptr<RankTransport>> links;  ///< by halo width (1 .. max_block_vectors)
};

DeviceRanks::DeviceRanks(const Communicator& comm, Transport transport,
                         const std::vector<ProcessorInterface>& interfaces, int n_rows)
    : impl_(std::make_unique<Impl>(comm, transport, interfaces, n_rows)) {}

DeviceRanks::~DeviceRanks() = default;

const Communicator& DeviceRanks::communicator() const { return impl_->comm; }
Transport DeviceRanks::transport() const { return impl_->transport; }
bool DeviceRanks::capturable() const { return impl_->links[1]->capturable(); }
long long DeviceRanks::total_rows() const { return impl_->total_rows; }
std::size_t DeviceRanks::interface_faces() const { return impl_->faces; }

void DeviceRanks::start_halo(const double* x, CUstream_st* stream, int width) {
  Impl& m = *impl_;
  RankTransport& link = m.link(width);
  link.start({.x = x, .rows = m.rows.data(), .width = width}, m.recv.data(), stream);
  m.arrived = !m.overlap;
  if (m.arrived) link.finish(m.recv.data(), stream);  // the local product after the halo
}

CouplingDot DeviceRanks::finish_halo(double* y, CUstream_st* stream, int width, const double* dot_with) {
  Impl& m = *impl_;
  const bool arrived = m.arrived;
  m.arrived = false;
  if (m.faces == 0) {
    if (!arrived) m.link(width).finish(m.recv.data(), stream);
    return {};
  }
  const HaloArrival arrival =
      arrived ? HaloArrival{.values = m.recv.data()} : m.link(width).arrival(m.recv.data(), stream);
  const int grid = vector_grid(m.coupled_rows);
  const auto couple = [&]<int K>() {
    couple_kernel<K><<<grid, reduce_block, 0, stream>>>(m.coupled_rows, m.couple_rows.data(), m.couple_start.data(),
                                                        m.couple_faces.data(), m.coefficients.data(), arrival, y,
                                                        dot_with, m.coupling_partials.data());
  };
  static_assert(max_block_vectors == 3, "couple_kernel is instantiated for 1 to 3 vectors");
  switch (width) {
    case 1: couple.operator()<1>(); break;
    case 2: couple.operator()<2>(); break;
    case 3: couple.operator()<3>(); break;
    default: throw std::invalid_argument("DeviceRanks::finish_halo: 1 to 3 vectors");
  }
  FVMMINI_CUDA_CHECK_LAUNCH(couple_kernel);
  if (!dot_with) return {};
  return {m.coupling_partials.data(), grid};
}

const double* DeviceRanks::gather_totals(const double* partials, int count, int k, CUstream_st* stream,
                                         CouplingDot couplings) {
  Impl& m = *impl_;
  const auto totals = [&]<int K>() {
    totals_kernel<K><<<1, 1024, 0, stream>>>(partials, count, couplings.partials, couplings.count, m.local.data());
  };
  switch (k) {
    case 1: totals.operator()<1>(); break;
    case 2: totals.operator()<2>(); break;
    case 3: totals.operator()<3>(); break;
    case 4: totals.operator()<4>(); break;
    case 6: totals.operator()<6>(); break;
    case 9: totals.operator()<9>(); break;
    default: throw std::invalid_argument("DeviceRanks::gather_totals: 1 to 4, 6 or 9 values at once");
  }
  FVMMINI_CUDA_CHECK_LAUNCH(totals_kernel);
  m.links[1]->all_gather(m.local.data(), m.gathered.data(), k, stream);
  return m.gathered.data();
}

void DeviceRanks::set_overlap(bool overlap) { impl_->overlap = overlap; }
bool DeviceRanks::overlap() const { return impl_->overlap; }

void DeviceRanks::all_gather(const double* local, double* gathered, int count, CUstream_st* stream) {
  impl_->links[1]->gather_rows(local, gathered, static_cast<std::size_t>(count), stream);
}

void DeviceRanks::reserve_all_gather(int count) { impl_->links[1]->reserve_rows(static_cast<std::size_t>(count)); }

void DeviceRanks::refresh_coefficients(const std::vector<ProcessorInterface>& interfaces) {
  Impl& m = *impl_;
  if (interfaces.size() != m.face_counts.size())
    throw std::invalid_argument("DeviceRanks::refresh_coefficients: another set of interfaces");
  std::vector<double> host;
  for (std::size_t i = 0; i < interfaces.size(); ++i) {
    if (interfaces[i].coefficients.size() != m.face_counts[i])
      throw std::invalid_argument("DeviceRanks::refresh_coefficients: another set of faces");
    host.insert(host.end(), interfaces[i].coefficients.begin(), interfaces[i].coefficients.end());
  }
  m.coefficients.upload(std::span<const double>(host));
}

}  // namespace fvmmini::cuda
