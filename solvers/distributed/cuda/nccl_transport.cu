// RankTransport on NCCL (built where NCCL was found): one NCCL communicator over the run's ranks,
// made from a unique id that rank 0 broadcasts through MPI, and shared by every transport alive
// (the solvers', GAMG's levels', the flow step's ghosts): each communicator costs about a second
// to make and connect, and they would all serve the same ranks. The halo's sends and receives are one
// NCCL group on a side stream, forked from and joined to the solver's stream by events, so the
// local product runs meanwhile; the totals are one group of all-gathers on the solver's stream.
// No host round trip, so the CG's iterations are captured in CUDA graphs as on one rank.

#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "linalg/solver_settings.hpp"
#include "solvers/distributed/cuda/device_ranks.hpp"
#include "solvers/distributed/cuda/rank_transport.cuh"

#define FVMMINI_NCCL_CHECK(call)                                                                               \
  do {                                                                                                         \
    const ncclResult_t fvmmini_nccl_ = (call);                                                                 \
    if (fvmmini_nccl_ != ncclSuccess)                                                                          \
      throw ::fvmmini::cuda::CudaError(std::string("NCCL error (") + ncclGetErrorString(fvmmini_nccl_) + ") in " + \
                                       #call + " at " + __FILE__ + ":" + std::to_string(__LINE__));            \
  } while (0)

namespace fvmmini::cuda {

namespace {

/// An NCCL communicator, destroyed with its last user.
struct NcclComm {
  ncclComm_t comm = nullptr;
  ~NcclComm() {
    if (comm) ncclCommDestroy(comm);
  }
};

/// The NCCL communicator over comm's ranks: made (collectively) when no transport on comm holds
/// one. Every rank makes and drops its transports in the same order, so every rank finds one or
/// every rank makes one.
std::shared_ptr<NcclComm> shared_nccl(const Communicator& comm) {
  static std::map<const Communicator*, std::weak_ptr<NcclComm>> alive;
  if (auto held = alive[&comm].lock()) return held;
  ncclUniqueId id{};
  if (comm.is_root()) FVMMINI_NCCL_CHECK(ncclGetUniqueId(&id));
  std::vector<std::byte> bytes(sizeof id);
  std::memcpy(bytes.data(), &id, sizeof id);
  comm.broadcast(bytes);
  std::memcpy(&id, bytes.data(), sizeof id);
  auto made = std::make_shared<NcclComm>();
  FVMMINI_NCCL_CHECK(ncclCommInitRank(&made->comm, comm.size(), id, comm.rank()));
  alive[&comm] = made;
  return made;
}

class NcclTransport final : public RankTransport {
 public:
  NcclTransport(const Communicator& comm, const HaloPattern& pattern)
      : pattern_(pattern), send_(std::max<std::size_t>(pattern.total(), 1)), shared_(shared_nccl(comm)),
        nccl_(shared_->comm) {
    connect(comm.size());
  }

  bool capturable() const override { return true; }

  void start(const HaloSource& source, double* recv, cudaStream_t stream) override {
    enqueue_pack(source, static_cast<long long>(pattern_.total()), send_.data(), stream);
    const double* send = send_.data();
    const cudaStream_t side = side_.fork(stream);
    FVMMINI_NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < pattern_.neighbours.size(); ++i) {
      FVMMINI_NCCL_CHECK(ncclSend(send + pattern_.offsets[i], pattern_.count(i), ncclDouble, pattern_.neighbours[i],
                                  nccl_, side));
      FVMMINI_NCCL_CHECK(ncclRecv(recv + pattern_.offsets[i], pattern_.count(i), ncclDouble, pattern_.neighbours[i],
                                  nccl_, side));
    }
    FVMMINI_NCCL_CHECK(ncclGroupEnd());
    side_.end();
  }

  void finish(double*, cudaStream_t stream) override {
    side_.join(stream);
  }

  void all_gather(const double* local, double* gathered, int k, cudaStream_t stream) override {
    int ranks = 0;
    FVMMINI_NCCL_CHECK(ncclCommCount(nccl_, &ranks));
    FVMMINI_NCCL_CHECK(ncclGroupStart());
    for (int j = 0; j < k; ++j)
      FVMMINI_NCCL_CHECK(ncclAllGather(local + j, gathered + static_cast<std::size_t>(j) * ranks, 1, ncclDouble,
                                       nccl_, stream));
    FVMMINI_NCCL_CHECK(ncclGroupEnd());
  }

  void gather_rows(const double* local, double* gathered, std::size_t count, cudaStream_t stream) override {
    FVMMINI_NCCL_CHECK(ncclAllGather(local, gathered, count, ncclDouble, nccl_, stream));
  }

 private:
  /// One halo and one all-gather at set-up: NCCL connects its peers on their first use, which
  /// would otherwise land in the first solve or step.
  void connect(int ranks) {
    const std::size_t n = std::max<std::size_t>(pattern_.total(), 1);
    DeviceBuffer<double> send(n), recv(n), gathered(static_cast<std::size_t>(ranks));
    FVMMINI_CUDA_CHECK(cudaMemsetAsync(send.data(), 0, n * sizeof(double), side_.get()));
    start({.x = send.data()}, recv.data(), side_.get());
    finish(recv.data(), side_.get());
    all_gather(send.data(), gathered.data(), 1, side_.get());
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(side_.get()));
  }

  HaloPattern pattern_;
  DeviceBuffer<double> send_;  ///< the source's values, packed
  std::shared_ptr<NcclComm> shared_;
  ncclComm_t nccl_ = nullptr;
  SideStream side_;
};

}  // namespace

bool nccl_built() { return true; }

std::unique_ptr<RankTransport> make_nccl_transport(const Communicator& comm, const HaloPattern& pattern) {
  return std::make_unique<NcclTransport>(comm, pattern);
}

}  // namespace fvmmini::cuda
