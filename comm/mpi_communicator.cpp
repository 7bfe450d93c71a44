// Communicator, CommSession and HaloExchange on MPI (MPI_COMM_WORLD). Every MPI call is checked:
// errors return (MPI_ERRORS_RETURN) and become a std::runtime_error naming the call.

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "comm/communicator.hpp"

namespace fvmmini {

namespace {

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

#define FVMMINI_MPI(call) check(call, #call)

constexpr int halo_tag = 71;
constexpr int bytes_tag = 72;

template <class T>
T all_reduce(T value, MPI_Datatype type, MPI_Op op) {
  T result{};
  FVMMINI_MPI(MPI_Allreduce(&value, &result, 1, type, op, MPI_COMM_WORLD));
  return result;
}

template <class T>
std::vector<T> gather_all(T value, MPI_Datatype type, int size) {
  std::vector<T> all(static_cast<std::size_t>(size));
  FVMMINI_MPI(MPI_Allgather(&value, 1, type, all.data(), 1, type, MPI_COMM_WORLD));
  return all;
}

}  // namespace

std::vector<double> Communicator::gather(std::span<const double> values) const {
  if (!mpi_) return {values.begin(), values.end()};
  const auto n = values.size();
  std::vector<double> all(n * static_cast<std::size_t>(size_));
  if (n > 0)
    FVMMINI_MPI(MPI_Allgather(values.data(), static_cast<int>(n), MPI_DOUBLE, all.data(), static_cast<int>(n),
                              MPI_DOUBLE, MPI_COMM_WORLD));
  return all;
}

std::vector<std::vector<double>> Communicator::all_to_all(const std::vector<std::vector<double>>& to) const {
  if (to.size() != static_cast<std::size_t>(size_))
    throw std::invalid_argument("all_to_all: " + std::to_string(to.size()) + " entries for " + std::to_string(size_) +
                                " ranks");
  if (!mpi_) return to;
  std::vector<int> send_counts(size_), recv_counts(size_), send_offsets(size_ + 1, 0), recv_offsets(size_ + 1, 0);
  for (int r = 0; r < size_; ++r) send_counts[r] = static_cast<int>(to[r].size());
  FVMMINI_MPI(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size_; ++r) {
    send_offsets[r + 1] = send_offsets[r] + send_counts[r];
    recv_offsets[r + 1] = recv_offsets[r] + recv_counts[r];
  }
  std::vector<double> send(static_cast<std::size_t>(send_offsets[size_])), recv(static_cast<std::size_t>(recv_offsets[size_]));
  for (int r = 0; r < size_; ++r) std::copy(to[r].begin(), to[r].end(), send.begin() + send_offsets[r]);
  FVMMINI_MPI(MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_DOUBLE, recv.data(),
                            recv_counts.data(), recv_offsets.data(), MPI_DOUBLE, MPI_COMM_WORLD));
  std::vector<std::vector<double>> from(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) from[r].assign(recv.begin() + recv_offsets[r], recv.begin() + recv_offsets[r + 1]);
  return from;
}

void Communicator::sum(std::span<double> values) const {
  if (!mpi_ || values.empty()) return;
  const auto n = values.size();
  const std::vector<double> all = gather(std::span<const double>(values));
  for (std::size_t k = 0; k < n; ++k) {
    double total = 0.0;
    for (int r = 0; r < size_; ++r) total += all[static_cast<std::size_t>(r) * n + k];
    values[k] = total;
  }
}

double Communicator::sum(double value) const {
  sum(std::span<double>(&value, 1));
  return value;
}

long long Communicator::sum(long long value) const {
  return mpi_ ? all_reduce(value, MPI_LONG_LONG, MPI_SUM) : value;  // integers: exact in any order
}

double Communicator::max(double value) const { return mpi_ ? all_reduce(value, MPI_DOUBLE, MPI_MAX) : value; }

long long Communicator::max(long long value) const {
  return mpi_ ? all_reduce(value, MPI_LONG_LONG, MPI_MAX) : value;
}

bool Communicator::any(bool value) const { return mpi_ ? all_reduce(value ? 1 : 0, MPI_INT, MPI_LOR) != 0 : value; }

std::vector<double> Communicator::gather(double value) const {
  if (!mpi_) return {value};
  return gather_all(value, MPI_DOUBLE, size_);
}

std::vector<long long> Communicator::gather(long long value) const {
  if (!mpi_) return {value};
  return gather_all(value, MPI_LONG_LONG, size_);
}

void Communicator::broadcast(std::vector<std::byte>& bytes, int root) const {
  if (!mpi_) return;
  long long length = static_cast<long long>(bytes.size());
  FVMMINI_MPI(MPI_Bcast(&length, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD));
  bytes.resize(static_cast<std::size_t>(length));
  // in pieces below INT_MAX bytes: MPI counts are int
  constexpr long long piece = 1LL << 30;
  for (long long at = 0; at < length; at += piece)
    FVMMINI_MPI(MPI_Bcast(bytes.data() + at, static_cast<int>(std::min(piece, length - at)), MPI_BYTE, root,
                          MPI_COMM_WORLD));
}

void Communicator::send(int to, std::span<const std::byte> bytes) const {
  check_other_rank(to, "send");
  long long length = static_cast<long long>(bytes.size());
  FVMMINI_MPI(MPI_Send(&length, 1, MPI_LONG_LONG, to, bytes_tag, MPI_COMM_WORLD));
  constexpr long long piece = 1LL << 30;
  for (long long at = 0; at < length; at += piece)
    FVMMINI_MPI(MPI_Send(bytes.data() + at, static_cast<int>(std::min(piece, length - at)), MPI_BYTE, to, bytes_tag,
                         MPI_COMM_WORLD));
}

std::vector<std::byte> Communicator::receive(int from) const {
  check_other_rank(from, "receive");
  long long length = 0;
  FVMMINI_MPI(MPI_Recv(&length, 1, MPI_LONG_LONG, from, bytes_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  std::vector<std::byte> bytes(static_cast<std::size_t>(length));
  constexpr long long piece = 1LL << 30;
  for (long long at = 0; at < length; at += piece)
    FVMMINI_MPI(MPI_Recv(bytes.data() + at, static_cast<int>(std::min(piece, length - at)), MPI_BYTE, from,
                         bytes_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  return bytes;
}

void Communicator::barrier() const {
  if (mpi_) FVMMINI_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

void Communicator::abort(int status) const {
  if (mpi_) MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);
}

// --- CommSession

bool CommSession::mpi_built() { return true; }

CommSession::CommSession(int& argc, char**& argv) {
  int initialised = 0;
  FVMMINI_MPI(MPI_Initialized(&initialised));
  if (initialised || !launched_by_mpi()) return;
  FVMMINI_MPI(MPI_Init(&argc, &argv));
  started_ = true;
  FVMMINI_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank = 0, size = 1;
  FVMMINI_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  FVMMINI_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  // --- the ranks sharing this host (its memory), to give each its own GPU
  MPI_Comm host = MPI_COMM_NULL;
  int node_rank = 0;
  FVMMINI_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host));
  FVMMINI_MPI(MPI_Comm_rank(host, &node_rank));
  FVMMINI_MPI(MPI_Comm_free(&host));
  Communicator::world_storage() = Communicator(rank, size, true, node_rank);
}

CommSession::~CommSession() {
  if (!started_) return;
  Communicator::world_storage() = Communicator(0, 1, false);
  MPI_Finalize();  // at exit: an error here has nobody left to report to
}

// --- HaloExchange

struct HaloExchange::Requests {
  std::vector<MPI_Request> all;
};

HaloExchange::HaloExchange(const Communicator& comm, std::vector<int> neighbours,
                           std::span<const std::size_t> send_size, std::span<const std::size_t> recv_size)
    : comm_(comm), neighbours_(std::move(neighbours)), requests_(std::make_unique<Requests>()) {
  if (send_size.size() != neighbours_.size() || recv_size.size() != neighbours_.size())
    throw std::invalid_argument("HaloExchange: one send and one receive size per neighbour");
  for (std::size_t i = 0; i < neighbours_.size(); ++i) {
    if (neighbours_[i] < 0 || neighbours_[i] >= comm_.size() || neighbours_[i] == comm_.rank())
      throw std::invalid_argument("HaloExchange: neighbour rank " + std::to_string(neighbours_[i]) +
                                  " is not another rank of " + std::to_string(comm_.size()));
    send_.emplace_back(send_size[i]);
    recv_.emplace_back(recv_size[i]);
  }
  requests_->all.assign(2 * neighbours_.size(), MPI_REQUEST_NULL);
}

HaloExchange::~HaloExchange() {
  if (pending_) MPI_Waitall(static_cast<int>(requests_->all.size()), requests_->all.data(), MPI_STATUSES_IGNORE);
}

void HaloExchange::start() {
  if (pending_) throw std::logic_error("HaloExchange::start: the last exchange is not finished");
  if (neighbours_.empty()) return;  // no MPI call: a rank alone may not have started MPI
  const std::size_t n = neighbours_.size();
  for (std::size_t i = 0; i < n; ++i)
    FVMMINI_MPI(MPI_Irecv(recv_[i].data(), static_cast<int>(recv_[i].size()), MPI_DOUBLE, neighbours_[i], halo_tag,
                          MPI_COMM_WORLD, &requests_->all[i]));
  for (std::size_t i = 0; i < n; ++i)
    FVMMINI_MPI(MPI_Isend(send_[i].data(), static_cast<int>(send_[i].size()), MPI_DOUBLE, neighbours_[i], halo_tag,
                          MPI_COMM_WORLD, &requests_->all[n + i]));
  pending_ = true;
}

void HaloExchange::finish() {
  if (!pending_) return;
  pending_ = false;
  FVMMINI_MPI(MPI_Waitall(static_cast<int>(requests_->all.size()), requests_->all.data(), MPI_STATUSES_IGNORE));
}

}  // namespace fvmmini
