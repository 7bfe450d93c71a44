// RankTransport through CUDA IPC, for ranks of one host with a GPU each: every exchange exports
// one device block of this rank's (a flag per rank, then two inbox slots) that every other rank
// maps, and a kernel gathers each part from its source (the halo's face cells) straight into its
// receiver's inbox (over NVLink), then raises the receiver's flag; the receiver's kernel that
// reads the values (the halo's couplings, or a copy out) waits for its flags and reads its inbox.
// No NCCL call and no host in the loop: a halo is two small kernels, captured in the CG's graphs.
//
// An exchange counts its rounds on the device (a graph replays the same kernels), and the round's
// parity picks the slot. A rank writes round e into slot e % 2 only after it received everyone's
// round e - 1, which each sends after reading its own round e - 2 from that slot.

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "linalg/solver_settings.hpp"
#include "solvers/distributed/cuda/halo_device.cuh"
#include "solvers/distributed/cuda/rank_transport.cuh"

namespace fvmmini::cuda {

namespace {

using Flag = HaloFlag;
constexpr int exchange_block = 256;

/// Every rank's device block `mine` mapped here through CUDA IPC (this rank's own at its rank,
/// nullptr where a map failed); collective. `failure` names the first map that failed here. A
/// device that cannot share its memory says so in its broadcast instead of a handle, so that
/// every rank goes on to learn it and transport auto can take another transport.
std::vector<void*> map_every_rank(const Communicator& comm, void* mine, std::string& failure) {
  cudaIpcMemHandle_t handle{};
  const cudaError_t shared = cudaIpcGetMemHandle(&handle, mine);
  if (shared != cudaSuccess) {
    cudaGetLastError();
    failure = "rank " + std::to_string(comm.rank()) + " cannot share its GPU memory (" + cudaGetErrorString(shared) + ")";
  }
  std::vector<void*> maps(comm.size(), nullptr);
  for (int r = 0; r < comm.size(); ++r) {
    std::vector<std::byte> bytes(sizeof handle + 1);  // the handle, then whether it is one
    std::memcpy(bytes.data(), &handle, sizeof handle);
    bytes.back() = std::byte{shared == cudaSuccess};
    comm.broadcast(bytes, r);
    if (r == comm.rank()) {
      maps[r] = mine;
      continue;
    }
    cudaIpcMemHandle_t theirs{};
    std::memcpy(&theirs, bytes.data(), sizeof theirs);
    const cudaError_t opened = bytes.back() == std::byte{1}
                                   ? cudaIpcOpenMemHandle(&maps[r], theirs, cudaIpcMemLazyEnablePeerAccess)
                                   : cudaErrorNotSupported;
    if (opened != cudaSuccess) {
      cudaGetLastError();
      maps[r] = nullptr;
      if (failure.empty())
        failure = "rank " + std::to_string(comm.rank()) + " cannot map rank " + std::to_string(r) + "'s GPU memory (" +
                  cudaGetErrorString(opened) + ")";
    }
  }
  return maps;
}

/// Closes the maps of map_every_rank (this rank's own block is not a map).
void unmap_every_rank(const Communicator& comm, const std::vector<void*>& maps) {
  for (int r = 0; r < static_cast<int>(maps.size()); ++r)
    if (r != comm.rank() && maps[r]) cudaIpcCloseMemHandle(maps[r]);
}

/// One peer's part of an exchange as this rank sees it: what it sends there.
struct Route {
  double* to;             ///< the part's place in the peer's slot 0 (peer memory)
  long long to_slot;      ///< the peer's slot size (doubles)
  Flag* raise;            ///< this rank's flag in the peer's block (peer memory)
  long long send_at;      ///< where the part starts among the source's values
  long long count;        ///< values each way (the peers' parts match: both list the same faces)
};

/// Writes route y's part of the source's values into the peer's inbox (slot of this round), then,
/// once every block of the route has written, raises this rank's flag there to the round's
/// number + 1. count >= 0 overrides the routes' counts (the sums: as many as the call has).
__global__ void put_kernel(const Route* __restrict__ routes, HaloSource source, long long count,
                           const Flag* __restrict__ round, unsigned int* __restrict__ written) {
  const Route r = routes[blockIdx.y];
  const long long n = count >= 0 ? count : r.count;
  const Flag e = *reinterpret_cast<const volatile Flag*>(round);
  double* to = r.to + static_cast<long long>(e & 1) * r.to_slot;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<long long>(gridDim.x) * blockDim.x)
    to[k] = halo_source_value(source, r.send_at + k);
  __threadfence_system();  // this thread's writes reach the peer before the flag (the reduction sample's pattern)
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(&written[blockIdx.y], 1u) == gridDim.x - 1) {
    written[blockIdx.y] = 0;
    __threadfence_system();
    ::cuda::atomic_ref<Flag, ::cuda::thread_scope_system>(*r.raise).store(e + 1, ::cuda::memory_order_release);
  }
}

/// Copies part y of what arrived (at[y], count[y] values, or `count` where >= 0) to out[] (at the
/// part's place, or transposed: out[k * parts + y], the sums' value-major layout).
__global__ void copy_out_kernel(HaloArrival arrival, const long long* __restrict__ at,
                                const long long* __restrict__ counts, long long count, bool transpose,
                                double* __restrict__ out) {
  const long long n = count >= 0 ? count : counts[blockIdx.y];  // loaded while the values travel
  const long long start = at[blockIdx.y];
  const double* from = halo_values(arrival);
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<long long>(gridDim.x) * blockDim.x)
    out[transpose ? k * gridDim.y + blockIdx.y : start + k] = __ldcg(from + start + k);
  done_with_halo(arrival);
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

/// One exchange's exported block (flags, two slots) and this rank's maps of every other rank's.
class PeerExchange {
 public:
  /// parts[p]: {peer rank, this rank's send offset, its receive offset, count}; slot: this rank's
  /// slot size. Collective: every rank makes its exchanges in the same order.
  struct Part {
    int peer;
    long long send_at, receive_at, count;
  };
  PeerExchange(const Communicator& comm, const std::vector<Part>& parts, long long slot)
      : comm_(comm), slot_(std::max(slot, 1LL)), parts_(parts.size()) {
    const int ranks = comm.size();
    block_ = DeviceBuffer<Flag>(static_cast<std::size_t>(ranks) + 2 * static_cast<std::size_t>(slot_));
    FVMMINI_CUDA_CHECK(cudaMemset(block_.data(), 0, block_.bytes()));
    counters_ = DeviceBuffer<unsigned int>(parts.size() + 1);
    FVMMINI_CUDA_CHECK(cudaMemset(counters_.data(), 0, counters_.bytes()));
    round_ = DeviceBuffer<Flag>(1);
    FVMMINI_CUDA_CHECK(cudaMemset(round_.data(), 0, round_.bytes()));
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // zeroed before a peer can map it and raise a flag
    // --- every rank's block mapped here
    std::string failure;  // a map that failed: every rank learns it below and stops alike
    maps_ = map_every_rank(comm, block_.data(), failure);
    if (comm.any(!failure.empty())) {
      unmap_every_rank(comm_, maps_);
      comm.barrier();  // every map closed before any block is freed
      throw SolverError("transport ipc: " + (failure.empty() ? std::string("another rank cannot map a GPU's memory") : failure) +
                        ": the GPUs need peer access (NVLink or PCIe peer-to-peer); use nccl");
    }
    // --- where this rank's parts land: each peer's slot size and receive offset for this rank
    std::vector<std::vector<double>> to(ranks), from;
    for (const Part& p : parts) {
      if (!to[p.peer].empty()) throw std::logic_error("PeerExchange: two parts for rank " + std::to_string(p.peer));
      to[p.peer] = {static_cast<double>(p.receive_at), static_cast<double>(slot_)};
    }
    from = comm.all_to_all(to);
    std::vector<Route> routes;
    std::vector<int> senders;
    std::vector<long long> receive_at, counts;
    for (const Part& p : parts) {
      if (from[p.peer].size() != 2)
        throw std::logic_error("PeerExchange: rank " + std::to_string(p.peer) + " does not list rank " +
                               std::to_string(comm.rank()) + " among its parts");
      const auto at = static_cast<long long>(from[p.peer][0]), their_slot = static_cast<long long>(from[p.peer][1]);
      Flag* theirs = static_cast<Flag*>(maps_[p.peer]);
      routes.push_back({reinterpret_cast<double*>(theirs + ranks) + at, their_slot, theirs + comm.rank(), p.send_at,
                        p.count});
      senders.push_back(p.peer);
      receive_at.push_back(p.receive_at);
      counts.push_back(p.count);
      longest_ = std::max(longest_, p.count);
    }
    routes_ = DeviceBuffer<Route>(std::span<const Route>(routes));
    senders_ = DeviceBuffer<int>(std::span<const int>(senders));
    receive_at_ = DeviceBuffer<long long>(std::span<const long long>(receive_at));
    counts_ = DeviceBuffer<long long>(std::span<const long long>(counts));
  }

  ~PeerExchange() {
    // a peer's kernels may still write here and its maps must close before the memory goes: every
    // rank drops its exchanges in the same order. Unwinding one rank's exception (the run then
    // aborts) skips the barrier, which the other ranks would not reach, and leaves the block.
    cudaDeviceSynchronize();
    unmap_every_rank(comm_, maps_);
    if (std::uncaught_exceptions() > 0) {
      block_.release();
      return;
    }
    comm_.barrier();
  }

  /// Sends the source's values to the peers (their parts) on `stream`; count >= 0: that many a part.
  void put(const HaloSource& source, long long count, cudaStream_t stream) {
    if (parts_ == 0) return;
    put_kernel<<<grid_for(count >= 0 ? count : longest_), exchange_block, 0, stream>>>(
        routes_.data(), source, count, round_.data(), counters_.data());
    FVMMINI_CUDA_CHECK_LAUNCH(put_kernel);
  }

  /// The inbox, for the next kernel on the stream that reads this round (halo_device.cuh).
  HaloArrival arrival() {
    return {.values = reinterpret_cast<const double*>(block_.data() + comm_.size()),
            .slot = slot_,
            .flags = block_.data(),
            .senders = senders_.data(),
            .n_senders = static_cast<int>(parts_),
            .round = round_.data(),
            .finished = counters_.data() + parts_,
            .rank = comm_.rank()};
  }

  /// Waits on `stream` for the peers' parts and copies them to out[] (copy_out_kernel).
  void wait(double* out, long long count, bool transpose, cudaStream_t stream) {
    if (parts_ == 0) return;
    copy_out_kernel<<<grid_for(count >= 0 ? count : longest_), exchange_block, 0, stream>>>(
        arrival(), receive_at_.data(), counts_.data(), count, transpose, out);
    FVMMINI_CUDA_CHECK_LAUNCH(copy_out_kernel);
  }

  std::size_t parts() const { return parts_; }

 private:
  dim3 grid_for(long long n) const {
    const long long blocks = std::clamp<long long>((n + exchange_block - 1) / exchange_block, 1, 256);
    return dim3(static_cast<unsigned int>(blocks), static_cast<unsigned int>(parts_));
  }

  const Communicator& comm_;
  long long slot_;
  std::size_t parts_;
  long long longest_ = 0;
  DeviceBuffer<Flag> block_;            ///< exported: a flag per rank (by sender), then slots 0 and 1
  DeviceBuffer<unsigned int> counters_;  ///< per part: blocks that wrote; then blocks that waited
  DeviceBuffer<Flag> round_;            ///< this exchange's rounds so far
  DeviceBuffer<Route> routes_;
  DeviceBuffer<int> senders_;            ///< each part's peer
  DeviceBuffer<long long> receive_at_, counts_;  ///< each part's place in the slot and its values
  std::vector<void*> maps_;             ///< every rank's block (this rank's own at its rank)
};

/// Every rank's `count` values to every rank, rank-major (rank r's at r * count).
std::vector<PeerExchange::Part> to_every_rank(int ranks, long long count) {
  std::vector<PeerExchange::Part> parts;
  for (int r = 0; r < ranks; ++r) parts.push_back({r, 0, r * count, count});
  return parts;
}

class IpcTransport final : public RankTransport {
 public:
  IpcTransport(const Communicator& comm, const HaloPattern& pattern)
      : comm_(comm),
        halo_(comm, halo_parts(pattern), static_cast<long long>(pattern.total())),
        sums_(comm, to_every_rank(comm.size(), max_totals), comm.size() * max_totals) {}

  bool capturable() const override { return true; }

  // the halo's writes on a side stream, so that the local product runs meanwhile (as NCCL's)
  void start(const HaloSource& source, double*, cudaStream_t stream) override {
    halo_.put(source, -1, side_.fork(stream));
    side_.end();
  }

  void finish(double* recv, cudaStream_t stream) override {
    side_.join(stream);
    halo_.wait(recv, -1, false, stream);
  }

  // no wait kernel: the kernel that reads the halo waits for it
  HaloArrival arrival(double* recv, cudaStream_t stream) override {
    side_.join(stream);
    if (halo_.parts() == 0) return {.values = recv};
    return halo_.arrival();
  }

  void all_gather(const double* local, double* gathered, int k, cudaStream_t stream) override {
    if (k < 1 || k > max_totals) throw std::invalid_argument("IpcTransport::all_gather: 1 to " + std::to_string(max_totals) + " values");
    sums_.put({.x = local}, k, stream);
    sums_.wait(gathered, k, true, stream);
  }

  void reserve_rows(std::size_t count) override {
    auto& exchange = rows_[count];
    if (!exchange)
      exchange = std::make_unique<PeerExchange>(comm_, to_every_rank(comm_.size(), static_cast<long long>(count)),
                                                comm_.size() * static_cast<long long>(count));
  }

  void gather_rows(const double* local, double* gathered, std::size_t count, cudaStream_t stream) override {
    const auto found = rows_.find(count);
    if (found == rows_.end())
      throw std::logic_error("IpcTransport::gather_rows: " + std::to_string(count) +
                             " rows a rank were not reserved (DeviceRanks::reserve_all_gather)");
    found->second->put({.x = local}, -1, stream);
    found->second->wait(gathered, -1, false, stream);
  }

 private:

  static std::vector<PeerExchange::Part> halo_parts(const HaloPattern& p) {
    std::vector<PeerExchange::Part> parts;
    for (std::size_t i = 0; i < p.neighbours.size(); ++i) {
      const auto at = static_cast<long long>(p.offsets[i]);
      parts.push_back({p.neighbours[i], at, at, static_cast<long long>(p.count(i))});
    }
    return parts;
  }

  const Communicator& comm_;
  PeerExchange halo_, sums_;
  std::map<std::size_t, std::unique_ptr<PeerExchange>> rows_;  ///< by rows a rank
  SideStream side_;
};

}  // namespace

bool ipc_maps_every_rank(const Communicator& comm) {
  DeviceBuffer<double> probe(1);
  std::string failure;
  const std::vector<void*> maps = map_every_rank(comm, probe.data(), failure);
  unmap_every_rank(comm, maps);
  const bool failed = comm.any(!failure.empty());
  comm.barrier();  // every map closed before any probe is freed
  return !failed;
}

bool ranks_on_one_host(const Communicator& comm) {
  const std::vector<long long> hosts = comm.gather(static_cast<long long>(std::hash<std::string>{}(host_name())));
  return std::adjacent_find(hosts.begin(), hosts.end(), std::not_equal_to<>()) == hosts.end();
}

std::unique_ptr<RankTransport> make_ipc_transport(const Communicator& comm, const HaloPattern& pattern) {
  return std::make_unique<IpcTransport>(comm, pattern);
}

}  // namespace fvmmini::cuda
