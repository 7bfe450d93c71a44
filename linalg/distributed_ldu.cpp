#include "linalg/distributed_ldu.hpp"

#include <map>
#include <stdexcept>

namespace fvmmini {

DistributedLdu distribute_ldu(const LduMatrix& whole, std::span<const int> row_part, int part) {
  const label n = whole.n_rows();
  if (static_cast<label>(row_part.size()) != n)
    throw std::invalid_argument("distribute_ldu: one part per row of the matrix");
  require_symmetric(whole, "distribute_ldu (a processor interface holds one coefficient a face)");
  std::vector<label> local_row(static_cast<std::size_t>(n), -1);
  label rows = 0;
  for (label i = 0; i < n; ++i)
    if (row_part[i] == part) local_row[i] = rows++;

  auto addressing = std::make_shared<LduAddressing>();
  addressing->n_rows = rows;
  DistributedLdu d;
  d.local.diag.reserve(static_cast<std::size_t>(rows));
  for (label i = 0; i < n; ++i)
    if (row_part[i] == part) {
      d.local.diag.push_back(whole.diag[i]);
      d.global_rows.push_back(i);
    }
  std::map<int, ProcessorInterface> across;
  const auto& lower = whole.lower_addr();
  const auto& upper = whole.upper_addr();
  for (std::size_t f = 0; f < lower.size(); ++f) {
    const int a = row_part[lower[f]], b = row_part[upper[f]];
    if (a == part && b == part) {  // sorted by (lower, upper) in the local numbering too
      addressing->lower.push_back(local_row[lower[f]]);
      addressing->upper.push_back(local_row[upper[f]]);
      d.local.upper.push_back(whole.upper[f]);
    } else if (a == part || b == part) {
      ProcessorInterface& i = across[a == part ? b : a];
      i.neighbour_rank = a == part ? b : a;
      i.face_cells.push_back(local_row[a == part ? lower[f] : upper[f]]);
      i.coefficients.push_back(whole.upper[f]);
    }
  }
  d.local.addressing = std::move(addressing);
  for (auto& [rank, interface] : across) d.interfaces.push_back(std::move(interface));
  return d;
}

std::vector<ProcessorInterface> in_operator_rows(const std::vector<ProcessorInterface>& interfaces,
                                                 const Permutation& permutation) {
  std::vector<ProcessorInterface> mapped = interfaces;
  if (permutation.is_identity()) return mapped;
  for (auto& i : mapped)
    for (label& row : i.face_cells)
      if (row >= 0 && row < static_cast<label>(permutation.old_to_new.size())) row = permutation.old_to_new[row];
  return mapped;
}

}  // namespace fvmmini
