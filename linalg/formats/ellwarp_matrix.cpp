#include "linalg/formats/ellwarp_matrix.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>

#include "linalg/counting_sort.hpp"
#include "linalg/parallel.hpp"

namespace fvmmini {

namespace {

constexpr label warp = EllWarpMatrix::warp_size;

label row_length(const CsrMatrix& csr, label i) { return static_cast<label>(csr.row_ptr[i + 1] - csr.row_ptr[i]); }

// The slots of CSR row `row` by ascending column (stable), into the caller's scratch `order`.
void sorted_entries(const CsrMatrix& csr, label row, std::vector<std::int64_t>& order) {
  order.resize(static_cast<std::size_t>(row_length(csr, row)));
  std::iota(order.begin(), order.end(), csr.row_ptr[row]);
  const label* col = csr.col.data();
  std::stable_sort(order.begin(), order.end(), [col](std::int64_t a, std::int64_t b) { return col[a] < col[b]; });
}

// The sorted position of slice s's middle real row (every slice has at least one).
label middle_of_slice(const EllWarpMatrix& m, label s) { return m.slice_row[s] + (m.slice_rows(s) - 1) / 2; }

}  // namespace

const char* ellwarp_kernel_name(EllWarpKernel kernel) { return kernel == EllWarpKernel::k2 ? "k2" : "k1"; }

int ellwarp_threads_per_row(label length, int threshold) {
  int t = 1;
  while (t < warp && (static_cast<std::int64_t>(length) + t - 1) / t > threshold) t *= 2;
  return t;
}

std::vector<label> ellwarp_row_order(const CsrMatrix& csr) {
  const label n = csr.n_rows;
  if (n == 0) return {};
  label longest = 0;
#pragma omp parallel for schedule(static) reduction(max : longest) if (n >= min_parallel_rows)
  for (label i = 0; i < n; ++i) longest = std::max(longest, row_length(csr, i));

  // --- longest rows first, equal lengths in CSR order
  return counting_sort(
      n, longest + 1, [](label i) { return i; }, [&](label i) { return longest - row_length(csr, i); });
}

EllWarpMatrix build_ellwarp(const CsrMatrix& csr, const EllWarpParameters& parameters) {
  if (parameters.threshold < 1)
    throw std::invalid_argument("ellwarp: threshold must be >= 1 (got " + std::to_string(parameters.threshold) + ")");
  EllWarpMatrix m;
  const label n = csr.n_rows;
  m.n_rows = n;
  m.parameters = parameters;
  m.n_nonzeros = csr.nnz();

  // --- the sort by length, skipped when the rows are already longest first (the "r" variant)
  bool in_place = true;
#pragma omp parallel for schedule(static) reduction(&& : in_place) if (n >= min_parallel_rows)
  for (label i = 0; i < n - 1; ++i) in_place = in_place && row_length(csr, i) >= row_length(csr, i + 1);
  m.rows_in_place = in_place;
  if (in_place) {
    m.row_order.resize(n);
    std::iota(m.row_order.begin(), m.row_order.end(), 0);
  } else {
    m.row_order = ellwarp_row_order(csr);
  }
  auto sorted_length = [&](label p) { return row_length(csr, m.row_order[p]); };

  // --- slices: K1 32 rows each; K2 32 / t rows, t from the slice's first (longest) row. O(n / 32)
  m.slice_row.push_back(0);
  for (label p = 0; p < n;) {
    const int t =
        parameters.kernel == EllWarpKernel::k2 ? ellwarp_threads_per_row(sorted_length(p), parameters.threshold) : 1;
    p += std::min(warp / t, n - p);
    m.slice_row.push_back(p);
    m.threads_per_row.push_back(t);
  }
  m.n_slices = static_cast<label>(m.threads_per_row.size());

  // --- slice s is ceil(longest / t) entries wide: slice_ptr[s+1] = slice_ptr[s] + 32 * width
  m.slice_ptr.assign(m.n_slices + 1, 0);
  for (label s = 0; s < m.n_slices; ++s) {
    const label t = m.threads_per_row[s];
    const label width = (sorted_length(m.slice_row[s]) + t - 1) / t;
    m.slice_ptr[s + 1] = m.slice_ptr[s] + std::int64_t{width} * warp;
  }
  m.col.assign(m.slice_ptr[m.n_slices], padding_column);
  m.values.assign(m.slice_ptr[m.n_slices], 0.0);
  m.value_slot.resize(csr.nnz());

  // --- entry e of the row at position slice_row[s] + r goes to slice_ptr[s] + (e / t) 32 + r t + e % t
#pragma omp parallel if (n >= min_parallel_rows)
  {
    std::vector<std::int64_t> sorted;  // the row's CSR slots by column ("s" only)
#pragma omp for schedule(static)
    for (label s = 0; s < m.n_slices; ++s) {
      const label t = m.threads_per_row[s];
      const int log2t = std::countr_zero(static_cast<unsigned>(t));  // t is a power of two
      for (label r = 0; r < m.slice_rows(s); ++r) {
        const label row = m.row_order[m.slice_row[s] + r];
        const auto first = csr.col.begin() + csr.row_ptr[row], last = csr.col.begin() + csr.row_ptr[row + 1];
        const bool sort_row = parameters.sort_columns && !std::is_sorted(first, last);
        if (sort_row) sorted_entries(csr, row, sorted);
        const std::int64_t length = row_length(csr, row);
        for (std::int64_t e = 0; e < length; ++e) {
          const std::int64_t k = sort_row ? sorted[e] : csr.row_ptr[row] + e;
          const std::int64_t slot = m.slice_ptr[s] + (e >> log2t) * warp + r * t + (e & (t - 1));
          m.col[slot] = csr.col[k];
          m.values[slot] = csr.values[k];
          m.value_slot[k] = slot;
        }
      }
    }
  }
  // --- where each slice stands in the input numbering: its middle row's CSR row (rows in place:
  //     unknown here, the caller's sort came before)
  if (parameters.visit_by_position && !m.rows_in_place) {
    m.slice_position.resize(m.n_slices);
    for (label s = 0; s < m.n_slices; ++s) m.slice_position[s] = m.row_order[middle_of_slice(m, s)];
  }
  return m;
}

std::vector<label> ellwarp_slice_positions(const EllWarpMatrix& m, std::span<const label> row_position) {
  if (static_cast<label>(row_position.size()) != m.n_rows)
    throw std::invalid_argument("ellwarp: " + std::to_string(row_position.size()) + " row positions for " +
                                std::to_string(m.n_rows) + " rows");
  std::vector<label> positions(m.n_slices);
  for (label s = 0; s < m.n_slices; ++s) positions[s] = row_position[m.row_order[middle_of_slice(m, s)]];
  return positions;
}

}  // namespace fvmmini
