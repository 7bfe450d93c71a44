#include "linalg/formats/dia_matrix.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>
#include <string>

namespace fvmmini {

namespace {

/// seen[d + n - 1] = 1 for every offset d holding an entry: O(n + nnz), no per-row sets. A flag is
/// tested before it is stored, so the few flags of a structured matrix stay shared in every
/// core's cache instead of bouncing between writers.
std::vector<unsigned char> mark_diagonals(const CsrMatrix& csr) {
  const label n = csr.n_rows;
  std::vector<unsigned char> seen(n > 0 ? 2 * static_cast<std::size_t>(n) - 1 : 0, 0);
  label bad_row = std::numeric_limits<label>::max();
#pragma omp parallel for schedule(static) reduction(min : bad_row)
  for (label i = 0; i < n; ++i) {
    label previous = -1;
    for (auto s = csr.row_ptr[i]; s < csr.row_ptr[i + 1]; ++s) {
      const label c = csr.col[s];
      if (c <= previous || c >= n) {  // also keeps the flag index in range
        bad_row = std::min(bad_row, i);
        break;
      }
      previous = c;
      std::atomic_ref<unsigned char> flag(seen[static_cast<std::size_t>(c) + static_cast<std::size_t>(n - 1 - i)]);
      if (flag.load(std::memory_order_relaxed) == 0) flag.store(1, std::memory_order_relaxed);
    }
  }
  if (bad_row != std::numeric_limits<label>::max())
    throw std::invalid_argument("dia: the columns of row " + std::to_string(bad_row) +
                                " are not strictly ascending within 0 .. " + std::to_string(n - 1));
  return seen;
}

std::int64_t count_marked(const std::vector<unsigned char>& seen) {
  std::int64_t count = 0;
  const auto size = static_cast<std::int64_t>(seen.size());
#pragma omp parallel for schedule(static) reduction(+ : count)
  for (std::int64_t d = 0; d < size; ++d) count += seen[d];
  return count;
}

}  // namespace

std::int64_t count_diagonals(const CsrMatrix& csr) { return count_marked(mark_diagonals(csr)); }

DiaMatrix build_dia(const CsrMatrix& csr, int max_diagonals) {
  if (max_diagonals < 1)
    throw std::invalid_argument("dia: maxDiagonals must be >= 1 (got " + std::to_string(max_diagonals) + ")");
  DiaMatrix m;
  const label n = csr.n_rows;
  m.n_rows = n;
  m.n_nonzeros = csr.nnz();

  // --- the distinct offsets first: a renumbered or unstructured mesh is refused before any allocation
  const std::vector<unsigned char> seen = mark_diagonals(csr);
  const std::int64_t count = count_marked(seen);
  if (count > max_diagonals)
    throw std::invalid_argument("dia needs a structured mesh in natural ordering (ordering: none): this matrix has " +
                                std::to_string(count) + " distinct diagonals, more than maxDiagonals = " +
                                std::to_string(max_diagonals));
  m.offsets.reserve(count);
  for (std::size_t f = 0; f < seen.size(); ++f)
    if (seen[f]) m.offsets.push_back(static_cast<int>(static_cast<std::int64_t>(f) - (n - 1)));

  // --- entry (i, i + offsets[k]) goes to slot k * n + i; columns ascend, so a row meets its
  //     diagonals in ascending order and one forward walk over offsets finds each k
  m.values.assign(static_cast<std::size_t>(count) * static_cast<std::size_t>(n), 0.0);
  m.value_slot.resize(csr.nnz());
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) {
    int k = 0;
    for (auto s = csr.row_ptr[i]; s < csr.row_ptr[i + 1]; ++s) {
      const int d = csr.col[s] - i;
      while (m.offsets[k] != d) ++k;
      const std::int64_t slot = static_cast<std::int64_t>(k) * n + i;
      m.values[slot] = csr.values[s];
      m.value_slot[s] = slot;
    }
  }
  return m;
}

}  // namespace fvmmini
