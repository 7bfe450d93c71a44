#include "solvers/distributed/distributed_operator.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace fvmmini {

namespace {

std::vector<int> neighbour_ranks(const std::vector<ProcessorInterface>& interfaces) {
  std::vector<int> ranks;
  for (const auto& i : interfaces) ranks.push_back(i.neighbour_rank);
  return ranks;
}

std::vector<std::size_t> face_counts(const std::vector<ProcessorInterface>& interfaces) {
  std::vector<std::size_t> counts;
  for (const auto& i : interfaces) counts.push_back(i.face_cells.size());
  return counts;
}

}  // namespace

DistributedOperator::DistributedOperator(const HostOperator& local, std::span<const label> old_to_new,
                                         const std::vector<ProcessorInterface>& interfaces, const Communicator& comm)
    : local_(local),
      comm_(comm),
      halo_(comm, neighbour_ranks(interfaces), face_counts(interfaces), face_counts(interfaces)) {
  const label n = local.n_rows();
  if (!old_to_new.empty() && static_cast<label>(old_to_new.size()) != n)
    throw std::invalid_argument("DistributedOperator: the ordering does not have one entry per row");
  for (const auto& i : interfaces) {
    if (i.coefficients.size() != i.face_cells.size())
      throw std::invalid_argument(fmt::format("DistributedOperator: interface to rank {}: {} faces, {} coefficients",
                                              i.neighbour_rank, i.face_cells.size(), i.coefficients.size()));
    Interface mine;
    mine.coefficients = i.coefficients;
    for (label row : i.face_cells) {
      if (row < 0 || row >= n)
        throw std::invalid_argument(fmt::format("DistributedOperator: interface to rank {}: face cell {} is not a "
                                                "row of the {} local rows", i.neighbour_rank, row, n));
      mine.rows.push_back(old_to_new.empty() ? row : old_to_new[row]);
    }
    interfaces_.push_back(std::move(mine));
  }
}

void DistributedOperator::start_exchange(std::span<const double> x) const {
  for (std::size_t i = 0; i < interfaces_.size(); ++i) {
    const auto& rows = interfaces_[i].rows;
    std::span<double> send = halo_.send_buffer(i);
    for (std::size_t k = 0; k < rows.size(); ++k) send[k] = x[rows[k]];
  }
  halo_.start();
}

double DistributedOperator::finish_exchange(std::span<const double> x, std::span<double> y) const {
  halo_.finish();
  double dot = 0.0;
  for (std::size_t i = 0; i < interfaces_.size(); ++i) {
    const auto& [rows, coefficients] = interfaces_[i];
    const std::span<const double> across = halo_.received(i);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const double coupling = coefficients[k] * across[k];
      y[rows[k]] += coupling;
      dot += x[rows[k]] * coupling;
    }
  }
  return dot;
}

void DistributedOperator::multiply(std::span<const double> x, std::span<double> y) const {
  start_exchange(x);
  if (!overlap_) halo_.finish();
  local_.multiply(x, y);  // the local rows while the halo travels
  finish_exchange(x, y);
}

double DistributedOperator::multiply_dot(std::span<const double> x, std::span<double> y) const {
  start_exchange(x);
  if (!overlap_) halo_.finish();
  const double dot = local_.multiply_dot(x, y);
  return dot + finish_exchange(x, y);
}

void DistributedOperator::refresh_values(const LduMatrix&) {
  throw std::logic_error("DistributedOperator::refresh_values: refresh the local block's operator, then "
                         "refresh_interfaces");
}

void DistributedOperator::refresh_interfaces(const std::vector<ProcessorInterface>& interfaces) {
  if (interfaces.size() != interfaces_.size())
    throw std::invalid_argument("DistributedOperator::refresh_interfaces: another set of interfaces");
  for (std::size_t i = 0; i < interfaces.size(); ++i) {
    if (interfaces[i].coefficients.size() != interfaces_[i].coefficients.size())
      throw std::invalid_argument("DistributedOperator::refresh_interfaces: another set of faces");
    interfaces_[i].coefficients = interfaces[i].coefficients;
  }
}

void DistributedOperator::exchange_halo(std::span<const double> x) const {
  start_exchange(x);
  halo_.finish();
}

std::size_t DistributedOperator::interface_faces() const {
  std::size_t faces = 0;
  for (const auto& i : interfaces_) faces += i.rows.size();
  return faces;
}

}  // namespace fvmmini
