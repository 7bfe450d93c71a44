#pragma once
// The ranks of a run and what they do together. A process started by an MPI launcher (mpirun,
// mpiexec) in a build with MPI runs as one rank of MPI_COMM_WORLD; any other process is one rank
// alone, with every collective a no-op, so the serial path pays nothing. The bottom layer: it
// includes no other. Plain C++ interface (no MPI types).

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fvmmini {

class Communicator {
 public:
  /// The ranks this process runs with (one alone until a CommSession started MPI).
  static const Communicator& world();
  /// One rank alone, whatever the process is.
  static const Communicator& serial();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  bool distributed() const { return size_ > 1; }
  /// This rank's place among the ranks on its host (0 alone): which of the host's GPUs it takes.
  int node_rank() const { return node_rank_; }

  /// Each value summed over the ranks, in place. Deterministic: every rank's values are gathered
  /// and added in rank order, so every rank and every run with this many ranks gets the same bits.
  void sum(std::span<double> values) const;
  double sum(double value) const;
  long long sum(long long value) const;
  double max(double value) const;
  long long max(long long value) const;
  bool any(bool value) const;
  bool all(bool value) const { return !any(!value); }
  /// Every rank's value, in rank order, on every rank.
  std::vector<double> gather(double value) const;
  std::vector<long long> gather(long long value) const;
  /// Every rank's values (each rank the same count), rank r's from r * values.size().
  std::vector<double> gather(std::span<const double> values) const;

  /// Personalised exchange (set-up data): to[r] goes to rank r; returns from[r], what rank r sent
  /// to this rank (this rank's own entry is kept). Collective; `to` has one entry per rank.
  std::vector<std::vector<double>> all_to_all(const std::vector<std::vector<double>>& to) const;
  /// root's bytes on every rank (resized to root's length).
  void broadcast(std::vector<std::byte>& bytes, int root = 0) const;
  /// root's text on every rank.
  void broadcast(std::string& text, int root = 0) const;
  /// Point to point, blocking, for set-up data (a mesh piece): the length travels first.
  /// @throws std::invalid_argument for this rank itself or one that is not in the run
  void send(int to, std::span<const std::byte> bytes) const;
  std::vector<std::byte> receive(int from) const;
  void barrier() const;
  /// Ends every rank of the run with this exit status (MPI_Abort); a serial process exits.
  [[noreturn]] void abort(int status) const;

 private:
  Communicator(int rank, int size, bool mpi, int node_rank = 0)
      : rank_(rank), size_(size), node_rank_(node_rank), mpi_(mpi) {}
  static Communicator& world_storage();
  /// @throws std::invalid_argument unless `rank` is another rank of this communicator
  void check_other_rank(int rank, const char* what) const;
  friend class CommSession;
  int rank_ = 0;
  int size_ = 1;
  int node_rank_ = 0;
  bool mpi_ = false;
};

/// MPI's lifetime for main(): starts MPI when an MPI launcher started this process (its
/// environment says so) and the build has MPI, and finalises it at the end. Without a launcher
/// nothing starts (a plain run stays serial and starts as fast as before).
class CommSession {
 public:
  CommSession(int& argc, char**& argv);
  ~CommSession();
  CommSession(const CommSession&) = delete;
  CommSession& operator=(const CommSession&) = delete;
  /// Whether this build can run several ranks.
  static bool mpi_built();
  /// Whether the environment names an MPI launcher (OpenMPI's, PMI's or PMIx's variables).
  static bool launched_by_mpi();

 private:
  bool started_ = false;
};

/// One halo exchange pattern, set up once and run many times: with each neighbour rank i, send
/// send_size[i] doubles and receive recv_size[i]. start() posts the receives and sends of what the
/// send buffers hold; finish() waits for them all. Work may go on between the two (overlap).
class HaloExchange {
 public:
  HaloExchange(const Communicator& comm, std::vector<int> neighbours, std::span<const std::size_t> send_size,
               std::span<const std::size_t> recv_size);
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  std::size_t neighbour_count() const { return neighbours_.size(); }
  int neighbour(std::size_t i) const { return neighbours_[i]; }
  std::span<double> send_buffer(std::size_t i) { return send_[i]; }
  std::span<const double> received(std::size_t i) const { return recv_[i]; }
  void start();
  void finish();

 private:
  const Communicator& comm_;
  std::vector<int> neighbours_;
  std::vector<std::vector<double>> send_, recv_;
  struct Requests;
  std::unique_ptr<Requests> requests_;
  bool pending_ = false;
};

}  // namespace fvmmini
