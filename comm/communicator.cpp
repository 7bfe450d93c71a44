// What both builds share: the world and serial communicators, the check of a point-to-point
// partner, and whether an MPI launcher started this process (the variables OpenMPI's, PMI's and
// PMIx's launchers set, so that a plain run never starts MPI).

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/communicator.hpp"

namespace fvmmini {

Communicator& Communicator::world_storage() {
  static Communicator world(0, 1, false);
  return world;
}

const Communicator& Communicator::world() { return world_storage(); }

const Communicator& Communicator::serial() {
  static const Communicator alone(0, 1, false);
  return alone;
}

void Communicator::broadcast(std::string& text, int root) const {
  if (size_ == 1) return;
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(text.data()),
                               reinterpret_cast<const std::byte*>(text.data()) + text.size());
  broadcast(bytes, root);
  text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void Communicator::check_other_rank(int rank, const char* what) const {
  if (rank < 0 || rank >= size_ || rank == rank_)
    throw std::invalid_argument(std::string("Communicator::") + what + ": rank " + std::to_string(rank) +
                                " is not another rank of " + std::to_string(size_));
}

bool CommSession::launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(variable)) return true;
  return false;
}

}  // namespace fvmmini
