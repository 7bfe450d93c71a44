// Communicator, CommSession and HaloExchange in a build without MPI: one rank alone, every
// collective a no-op; a process started by an MPI launcher is told this build cannot run ranks.

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "comm/communicator.hpp"

namespace fvmmini {

void Communicator::sum(std::span<double>) const {}
double Communicator::sum(double value) const { return value; }
long long Communicator::sum(long long value) const { return value; }
double Communicator::max(double value) const { return value; }
long long Communicator::max(long long value) const { return value; }
bool Communicator::any(bool value) const { return value; }
std::vector<double> Communicator::gather(double value) const { return {value}; }
std::vector<long long> Communicator::gather(long long value) const { return {value}; }
std::vector<double> Communicator::gather(std::span<const double> values) const { return {values.begin(), values.end()}; }
std::vector<std::vector<double>> Communicator::all_to_all(const std::vector<std::vector<double>>& to) const {
  if (to.size() != 1) throw std::invalid_argument("all_to_all: one entry per rank (1) needed");
  return to;
}
void Communicator::broadcast(std::vector<std::byte>&, int) const {}
void Communicator::send(int to, std::span<const std::byte>) const { check_other_rank(to, "send"); }
std::vector<std::byte> Communicator::receive(int from) const {
  check_other_rank(from, "receive");
  return {};
}
void Communicator::barrier() const {}
void Communicator::abort(int status) const { std::exit(status); }

bool CommSession::mpi_built() { return false; }

CommSession::CommSession(int&, char**&) {}
CommSession::~CommSession() = default;

struct HaloExchange::Requests {};

HaloExchange::HaloExchange(const Communicator& comm, std::vector<int> neighbours,
                           std::span<const std::size_t> send_size, std::span<const std::size_t> recv_size)
    : comm_(comm), neighbours_(std::move(neighbours)) {
  if (send_size.size() != neighbours_.size() || recv_size.size() != neighbours_.size())
    throw std::invalid_argument("HaloExchange: one send and one receive size per neighbour");
  if (!neighbours_.empty())
    throw std::invalid_argument("HaloExchange: neighbour rank " + std::to_string(neighbours_[0]) +
                                " in a build without MPI (one rank)");
}

HaloExchange::~HaloExchange() = default;
void HaloExchange::start() {}
void HaloExchange::finish() {}

}  // namespace fvmmini
