#include "linalg/formats/staircase_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

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

StaircaseMatrix build_staircase(const CsrMatrix& csr, int slice_height, double alpha) {
  const label n = csr.n_rows;
  validate_staircase_parameters(n, slice_height, alpha);
  auto length = [&](label i) { return static_cast<label>(csr.row_ptr[i + 1] - csr.row_ptr[i]); };

  // --- h[i] = rows with i nonzeros
  std::vector<label> histogram;
  for (label i = 0; i < n; ++i) {
    const label len = length(i);
    if (len >= static_cast<label>(histogram.size())) histogram.resize(len + 1, 0);
    ++histogram[len];
  }

  StaircaseMatrix m;
  m.n_rows = n;
  m.slice_height = slice_height;
  m.alpha = alpha;
  m.n_nonzeros = csr.nnz();
  m.index = staircase_index(histogram, n, slice_height, alpha);

  // --- several groups take the rows grouped (non-decreasing length); one takes them in any order
  if (m.index.n_groups() > 1)
    for (label i = 1; i < n; ++i)
      if (length(i) < length(i - 1))
        throw std::invalid_argument(fmt::format(
            "staircase: rows must be ordered by non-decreasing length (row {} has {} nonzeros, row {} has {}); "
            "use the staircase ordering or group_by_row_length",
            i - 1, length(i - 1), i, length(i)));

  // --- Algorithm 4: entry k of local row j of group g goes to step_ptr[g] + (j/sh)*L*sh + k*sh + j%sh
  const auto& idx = m.index;
  m.col.assign(idx.val_size(), padding_column);
  m.values.assign(idx.val_size(), 0.0);
  m.value_slot.resize(csr.nnz());
  const std::int64_t sh = slice_height;
  for (label g = 0; g < idx.n_groups(); ++g) {
    const std::int64_t L = idx.step_lengths[g];
#pragma omp parallel for schedule(static)
    for (label row = idx.row_ptr[g]; row < idx.row_ptr[g + 1]; ++row) {
      const std::int64_t j = row - idx.row_ptr[g];
      place_row_column_major(csr, row, idx.step_ptr[g] + (j / sh) * L * sh + j % sh, sh, m);
    }
  }
  return m;
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
