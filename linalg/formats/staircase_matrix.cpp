#include "linalg/formats/staircase_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "linalg/ordering/matrix_statistics.hpp"

namespace fvmmini {

void validate_staircase_parameters(label n_rows, int slice_height, double alpha) {
  if (slice_height <= 0 || slice_height % 32 != 0 || slice_height > 1024)
    throw std::invalid_argument(fmt::format(
        "staircase: slice_height must be a positive multiple of 32 and at most 1024 (got {})", slice_height));
  if (n_rows >= slice_height) {
    const double lowest = static_cast<double>(slice_height) / n_rows;
    if (!(alpha >= lowest && alpha <= 1.0))
      throw std::invalid_argument(fmt::format(
          "staircase: alpha must lie in [slice_height/rows, 1] = [{:.6g}, 1] for this matrix ({} rows, slice_height "
          "{}); got {}",
          lowest, n_rows, slice_height, alpha));
  } else if (!(alpha > 0.0 && alpha <= 1.0)) {
    throw std::invalid_argument(fmt::format(
        "staircase: alpha must lie in (0, 1] for this matrix ({} rows, fewer than slice_height {}: one padded "
        "group); got {}",
        n_rows, slice_height, alpha));
  }
}

StaircaseIndex staircase_index(const std::vector<label>& histogram, label n_rows, int slice_height, double alpha) {
  validate_staircase_parameters(n_rows, slice_height, alpha);
  std::vector<std::int64_t> h(histogram.begin(), histogram.end());
  if (h.empty()) h.push_back(0);
  if (std::accumulate(h.begin(), h.end(), std::int64_t{0}) != n_rows)
    throw std::invalid_argument(fmt::format("staircase: row-length histogram counts {} rows, the matrix has {}",
                                            std::accumulate(h.begin(), h.end(), std::int64_t{0}), n_rows));
  if (n_rows > 0 && h.back() == 0)
    throw std::invalid_argument("staircase: the row-length histogram must end at the longest row (last bin empty)");
  const auto mnz = static_cast<label>(h.size()) - 1;
  const std::int64_t sh = slice_height;

  StaircaseIndex idx;
  std::int64_t val_size = 0;
  idx.step_ptr.push_back(0);
  idx.row_ptr.push_back(0);
  for (label i = 0; i < mnz; ++i) {
    const std::int64_t num_blocks = h[i] / sh;
    if (static_cast<double>(h[i]) / n_rows < alpha || num_blocks == 0) {
      // --- too few rows: merge into the next group, h[i+1] += h[i]
      h[i + 1] += h[i];
      h[i] = 0;
      continue;
    }
    // --- keep sh*floor(h[i]/sh) rows, pass the leftover rows on to group i+1
    h[i + 1] += h[i] - sh * num_blocks;
    h[i] = sh * num_blocks;
    val_size += i * h[i];
    idx.step_blocks.push_back(static_cast<label>(num_blocks));
    idx.step_lengths.push_back(i);
    idx.step_ptr.push_back(val_size);
    idx.row_ptr.push_back(static_cast<label>(idx.row_ptr.back() + h[i]));
  }
  // --- the last group takes the rest, padded to whole slices: ceil(h[mnz]/sh)
  const std::int64_t last_blocks = (h[mnz] + sh - 1) / sh;
  idx.step_blocks.push_back(static_cast<label>(last_blocks));
  idx.step_lengths.push_back(mnz);
  val_size += mnz * sh * last_blocks;
  idx.step_ptr.push_back(val_size);
  idx.row_ptr.push_back(n_rows);
  return idx;
}

namespace {

/// The struct with its index and no arrays, for rows of these lengths: several groups take the
/// rows grouped (non-decreasing length); one takes them in any order.
template <class Length>
StaircaseMatrix staircase_shape_of(label n, int slice_height, double alpha, std::int64_t nnz, const Length& length) {
  validate_staircase_parameters(n, slice_height, alpha);
  StaircaseMatrix m;
  m.n_rows = n;
  m.slice_height = slice_height;
  m.alpha = alpha;
  m.n_nonzeros = nnz;
  m.index = staircase_index(row_length_stats(n, length).histogram, n, slice_height, alpha);
  if (m.index.n_groups() > 1) {
    label first_shorter = n;
#pragma omp parallel for schedule(static) reduction(min : first_shorter)
    for (label i = 1; i < n; ++i)
      if (length(i) < length(i - 1)) first_shorter = std::min(first_shorter, i);
    if (first_shorter < n)
      throw std::invalid_argument(fmt::format(
          "staircase: rows must be ordered by non-decreasing length (row {} has {} nonzeros, row {} has {}); "
          "use the staircase ordering or group_by_row_length",
          first_shorter - 1, length(first_shorter - 1), first_shorter, length(first_shorter)));
  }
  return m;
}

/// The shape with col and values sized and padded (-1, 0).
template <class Length>
StaircaseMatrix staircase_shell(label n, int slice_height, double alpha, std::int64_t nnz, const Length& length) {
  StaircaseMatrix m = staircase_shape_of(n, slice_height, alpha, nnz, length);
  m.col.assign(m.index.val_size(), padding_column);
  m.values.assign(m.index.val_size(), 0.0);
  return m;
}

/// Algorithm 4: the slot of entry 0 of row `row` of group g (entry k at + k * sh).
std::int64_t first_slot(const StaircaseIndex& idx, std::int64_t sh, label g, label row) {
  const std::int64_t j = row - idx.row_ptr[g];
  return idx.step_ptr[g] + (j / sh) * idx.step_lengths[g] * sh + j % sh;
}

}  // namespace

StaircaseMatrix build_staircase(const CsrMatrix& csr, int slice_height, double alpha) {
  StaircaseMatrix m = staircase_shell(csr.n_rows, slice_height, alpha, csr.nnz(), [&](label i) {
    return static_cast<label>(csr.row_ptr[i + 1] - csr.row_ptr[i]);
  });
  const auto& idx = m.index;
  m.value_slot.resize(csr.nnz());
  for (label g = 0; g < idx.n_groups(); ++g) {
#pragma omp parallel for schedule(static)
    for (label row = idx.row_ptr[g]; row < idx.row_ptr[g + 1]; ++row)
      place_row_column_major(csr, row, first_slot(idx, slice_height, g, row), slice_height, m);
  }
  return m;
}

StaircaseMatrix build_staircase(const PermutedRows& rows, int slice_height, double alpha, LduToCsrMap& map) {
  const Permutation& p = rows.permutation();
  StaircaseMatrix m = staircase_shell(rows.n_rows(), slice_height, alpha, rows.nnz(),
                                      [&](label i) { return rows.length(p.new_to_old[i]); });
  const auto& idx = m.index;
  rows.size_map(map);
  // --- mesh row by mesh row, as permuted_csr: the faces and coefficients read in sequence
#pragma omp parallel
  {
    std::vector<PermutedRows::Entry> row;
#pragma omp for schedule(static)
    for (label c = 0; c < m.n_rows; ++c) {
      const label i = p.old_to_new[c];
      const auto g = static_cast<label>(std::upper_bound(idx.row_ptr.begin(), idx.row_ptr.end(), i) -
                                        idx.row_ptr.begin()) - 1;
      std::int64_t slot = first_slot(idx, slice_height, g, i);
      rows.entries(c, row);
      for (const PermutedRows::Entry& e : row) {
        m.col[slot] = e.column;
        m.values[slot] = rows.coefficient(c, e);
        PermutedRows::slot(map, c, e) = slot;
        slot += slice_height;
      }
    }
  }
  return m;
}

StaircaseMatrix staircase_shape(std::span<const label> row_lengths, std::int64_t nnz, int slice_height, double alpha) {
  return staircase_shape_of(static_cast<label>(row_lengths.size()), slice_height, alpha, nnz,
                            [&](label i) { return row_lengths[i]; });
}

std::vector<label> staircase_slice_positions(const StaircaseMatrix& m, std::span<const label> row_position) {
  if (static_cast<label>(row_position.size()) != m.n_rows)
    throw std::invalid_argument(fmt::format("staircase: {} row positions for {} rows", row_position.size(), m.n_rows));
  const auto& idx = m.index;
  std::vector<label> positions;
  for (label g = 0; g < idx.n_groups(); ++g)
    for (label s = 0; s < idx.step_blocks[g]; ++s) {
      // --- the middle of the slice's real rows (a slice of padding rows only takes the last row)
      const label first = idx.row_ptr[g] + s * m.slice_height;
      const label last = std::min(first + m.slice_height, m.n_rows) - 1;
      const label middle = first <= last ? first + (last - first) / 2 : m.n_rows - 1;
      positions.push_back(row_position[middle]);
    }
  return positions;
}

}  // namespace fvmmini
