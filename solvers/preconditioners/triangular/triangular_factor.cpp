#include "solvers/preconditioners/triangular/triangular_factor.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/counting_sort.hpp"
#include "linalg/ordering/colouring.hpp"
#include "linalg/parallel.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

namespace {

// One triangle's ELL blocks: for each row of each level, the neighbours `take` accepts, by column.
template <class Take>
TrianglePart make_part(const TriangularFactor& t, const FactorPattern& g, Take take, bool pad_with_own_row) {
  TrianglePart part;
  const label levels = t.levels();
  part.offset.assign(levels + 1, 0);
  part.width.assign(levels, 0);
  for (label l = 0; l < levels; ++l) {
    label width = 0;
    for (label k = t.level_ptr[l]; k < t.level_ptr[l + 1]; ++k) {
      const label i = t.rows[k];
      label count = 0;
      for (label e = g.row_ptr[i]; e < g.row_ptr[i + 1]; ++e) count += take(i, g.col[e]);
      width = std::max(width, count);
    }
    part.width[l] = width;
    part.offset[l + 1] = part.offset[l] + static_cast<std::int64_t>(width) * t.level_size(l);
  }
  part.col.resize(part.offset[levels]);
  part.value.assign(part.offset[levels], 0.0);
  part.face.assign(part.offset[levels], -1);
  std::vector<std::pair<label, label>> entries;  // (column, face), ascending columns
  for (label l = 0; l < levels; ++l) {
    const label size = t.level_size(l);
    for (label r = 0; r < size; ++r) {
      const label i = t.rows[t.level_ptr[l] + r];
      entries.clear();
      for (label e = g.row_ptr[i]; e < g.row_ptr[i + 1]; ++e)
        if (take(i, g.col[e])) entries.emplace_back(g.col[e], g.face[e]);
      // Padding reads a value that is final when the row is solved: the row's first neighbour in
      // the forward solve, the row itself (its forward result) in the backward one; times 0.
      const label pad = pad_with_own_row || entries.empty() ? i : entries.front().first;
      for (label k = 0; k < part.width[l]; ++k) {
        const std::int64_t slot = part.offset[l] + static_cast<std::int64_t>(k) * size + r;
        const bool real = k < static_cast<label>(entries.size());
        part.col[slot] = real ? entries[k].first : pad;
        part.face[slot] = real ? entries[k].second : -1;
      }
    }
  }
  return part;
}

}  // namespace

FactorPattern factor_pattern(const LduAddressing& a, const Permutation& op) {
  const label n = a.n_rows;
  FactorPattern p;
  p.row_ptr.assign(n + 1, 0);
  for (label i = 0; i < n; ++i) p.row_ptr[i + 1] = 1;
  for (label f = 0; f < a.n_faces(); ++f) {
    ++p.row_ptr[op.old_to_new[a.lower[f]] + 1];
    ++p.row_ptr[op.old_to_new[a.upper[f]] + 1];
  }
  for (label i = 0; i < n; ++i) p.row_ptr[i + 1] += p.row_ptr[i];
  p.col.resize(p.row_ptr[n]);
  p.face.resize(p.row_ptr[n]);
  std::vector<label> next(p.row_ptr.begin(), p.row_ptr.end() - 1);
  for (label i = 0; i < n; ++i) {
    p.col[next[i]] = i;
    p.face[next[i]++] = -1;
  }
  for (label f = 0; f < a.n_faces(); ++f) {
    const label l = op.old_to_new[a.lower[f]], u = op.old_to_new[a.upper[f]];
    p.col[next[l]] = u;
    p.face[next[l]++] = f;
    p.col[next[u]] = l;
    p.face[next[u]++] = f;
  }
  // --- ascending columns within each row (a row has a handful of entries)
#pragma omp parallel for schedule(static) if (n > min_parallel_rows)
  for (label i = 0; i < n; ++i)
    for (label e = p.row_ptr[i] + 1; e < p.row_ptr[i + 1]; ++e)
      for (label k = e; k > p.row_ptr[i] && p.col[k - 1] > p.col[k]; --k) {
        std::swap(p.col[k - 1], p.col[k]);
        std::swap(p.face[k - 1], p.face[k]);
      }
  return p;
}

label widest_row(const FactorPattern& p) {
  label widest = 0;
  for (label i = 0; i < p.n_rows(); ++i)
    widest = std::max(widest, p.row_ptr[i + 1] - p.row_ptr[i] - 1);  // less the diagonal
  return widest;
}

std::vector<label> sequence_order(label n, std::span<const label> sequence) {
  if (!sequence.empty() && static_cast<label>(sequence.size()) != n)
    throw std::invalid_argument(fmt::format("sequence_order: a sequence of {} rows for {}", sequence.size(), n));
  std::vector<label> order(n);
  if (sequence.empty())
    std::iota(order.begin(), order.end(), 0);
  else
    for (label i = 0; i < n; ++i) order[sequence[i]] = i;
  return order;
}

std::vector<label> schedule_order(const FactorPattern& p, TriangleSplit split, label* colours,
                                  std::span<const label> sequence) {
  const label n = p.n_rows();
  std::vector<label> order = sequence_order(n, sequence);
  if (colours) *colours = 0;
  if (split == TriangleSplit::colour) {
    const Colouring c = greedy_colouring(p.row_ptr, p.col, order);  // a row's own entry is never coloured yet
    if (colours) *colours = c.n_colours;
    // by colour, ties in the sequence
    order = counting_sort(
        n, c.n_colours, [&](label k) { return order[k]; }, [&](label i) { return c.colour[i]; });
  }
  return order;
}

std::vector<label> TriangularFactor::level_sizes() const {
  std::vector<label> sizes(levels());
  for (label l = 0; l < levels(); ++l) sizes[l] = level_size(l);
  return sizes;
}

TriangularFactor build_triangular_factor(const LduMatrix& matrix, const Permutation& op, const TriangularMethod& method,
                                         std::span<const label> sequence) {
  const label n = matrix.n_rows();
  const TriangleSplit split = method.split;
  TriangularFactor t;
  t.method = method.name;
  t.n_rows = n;
  t.modified_diagonal = method.modified_diagonal;
  t.split = split;
  t.mesh_row = op.new_to_old;
  const FactorPattern g = factor_pattern(*matrix.addressing, op);

  // --- the schedule: rank[i] orders the rows; a row depends on its neighbours of lower rank
  const std::vector<label> order = schedule_order(g, split, &t.colours, sequence);  // rows by rank
  std::vector<label> rank(n);
  for (label k = 0; k < n; ++k) rank[order[k]] = k;

  // --- levels: one more than the highest level among the neighbours of lower rank
  std::vector<label> level(n, 0);
  label levels = n > 0 ? 1 : 0;
  for (label i : order) {
    label lv = 0;
    for (label e = g.row_ptr[i]; e < g.row_ptr[i + 1]; ++e)
      if (rank[g.col[e]] < rank[i]) lv = std::max(lv, level[g.col[e]] + 1);
    level[i] = lv;
    levels = std::max(levels, lv + 1);
  }
  t.level_ptr.assign(levels + 1, 0);
  for (label i = 0; i < n; ++i) ++t.level_ptr[level[i] + 1];
  for (label l = 0; l < levels; ++l) t.level_ptr[l + 1] += t.level_ptr[l];
  t.rows.resize(n);
  std::vector<label> next(t.level_ptr.begin(), t.level_ptr.end() - 1);
  for (label i : order) t.rows[next[level[i]]++] = i;  // by rank within a level
  t.rows_contiguous = true;
  for (label k = 0; k < n && t.rows_contiguous; ++k) t.rows_contiguous = t.rows[k] == k;

  t.lower = make_part(t, g, [&](label i, label j) { return rank[j] < rank[i]; }, false);
  t.upper = make_part(t, g, [&](label i, label j) { return rank[j] > rank[i]; }, true);
  t.rdiag.assign(n, 0.0);
  refresh_triangular_factor(matrix, t);
  return t;
}

SolverError pivot_error(const TriangularMethod& method, double pivot, label row, label mesh_cell) {
  return SolverError(fmt::format("{}: pivot {:.6g} at row {} (mesh cell {}) is not positive{}", method.name, pivot, row,
                                 mesh_cell,
                                 method.modified_diagonal
                                     ? " (the incomplete factorisation broke down on it: a matrix that is not SPD, or "
                                       "not diagonally dominant enough)"
                                     : " (the diagonal must be positive)"));
}

double spmv_equivalents(label n_rows, std::int64_t triangle_slots, bool rows_contiguous, int sweeps, std::int64_t nnz) {
  const double n = n_rows;
  const double spmv = 12.0 * static_cast<double>(nnz) + 16.0 * n;
  if (spmv <= 0.0) return 0.0;
  // forward: r, 1/d~, y (written); backward: y, 1/d~, z (written); a 4-byte row index each unless
  // the levels are contiguous; 12 bytes per stored triangle entry, padding included
  const double per_row = 48.0 + (rows_contiguous ? 0.0 : 8.0);
  const double apply = 12.0 * static_cast<double>(triangle_slots) + per_row * n;
  const double relax = spmv + 40.0 * n;  // A z, then r - A z and z += correction
  return (sweeps * apply + (sweeps - 1) * relax) / spmv;
}

long long sync_free_hops(const FactorPattern& p, std::span<const label> order, int block_rows, int resident_blocks) {
  const label n = p.n_rows();
  if (static_cast<label>(order.size()) != n)
    throw std::invalid_argument(fmt::format("sync_free_hops: an order of {} rows for {}", order.size(), n));
  if (block_rows < 1 || resident_blocks < 1)
    throw std::invalid_argument(fmt::format("sync_free_hops: {} rows a block, {} blocks resident", block_rows,
                                            resident_blocks));
  std::vector<label> rank(n);
  for (label k = 0; k < n; ++k) rank[order[k]] = k;
  std::vector<long long> done(n);  // the hop each row is done at
  std::priority_queue<long long, std::vector<long long>, std::greater<>> running;  // blocks' last hops
  long long start = 0, last = -1;
  for (label first = 0; first < n; first += block_rows) {
    if (static_cast<int>(running.size()) == resident_blocks) {  // waits for the first to be done
      start = std::max(start, running.top());
      running.pop();
    }
    long long block_done = start;
    for (label q = first; q < std::min<label>(n, first + block_rows); ++q) {
      const label i = order[q];
      long long t = start;
      for (label e = p.row_ptr[i]; e < p.row_ptr[i + 1]; ++e)
        if (const label j = p.col[e]; j != i && rank[j] < q) t = std::max(t, done[j] + 1);
      done[i] = t;
      block_done = std::max(block_done, t);
    }
    running.push(block_done);
    last = std::max(last, block_done);
  }
  return last + 1;
}

void refresh_triangular_factor(const LduMatrix& matrix, TriangularFactor& t) {
  // --- a slot in row i, column j of face f: the face's upper coefficient where j is its upper row
  //     (i its lower one), else its lower coefficient; transposed: the other one (a symmetric
  //     matrix's are one, read without the lookups)
  const bool symmetric = matrix.symmetric();
  const std::vector<label>& upper_row = matrix.upper_addr();
  const auto entry = [&](label f, label column, bool transposed) {
    if (symmetric) return matrix.upper[f];
    return (t.mesh_row[column] == upper_row[f]) != transposed ? matrix.upper[f] : matrix.lower[f];
  };
  for (TrianglePart* part : {&t.lower, &t.upper}) {
    const std::int64_t slots = part->slots();
#pragma omp parallel for schedule(static) if (slots > min_parallel_rows)
    for (std::int64_t s = 0; s < slots; ++s)
      part->value[s] = part->face[s] >= 0 ? entry(part->face[s], part->col[s], false) : 0.0;
  }
  // --- D~, level by level: every lower neighbour's pivot is final before the row's
  for (label l = 0; l < t.levels(); ++l) {
    const label size = t.level_size(l);
    const label width = t.lower.width[l];
    for (label r = 0; r < size; ++r) {
      const label i = t.rows[t.level_ptr[l] + r];
      double d = matrix.diag[t.mesh_row[i]];
      if (t.modified_diagonal)
        for (label k = 0; k < width; ++k) {
          const std::int64_t slot = t.lower.offset[l] + static_cast<std::int64_t>(k) * size + r;
          const label f = t.lower.face[slot];
          if (f < 0) continue;  // padding
          d -= t.lower.value[slot] * entry(f, t.lower.col[slot], true) * t.rdiag[t.lower.col[slot]];
        }
      if (!(d > 0.0) || !std::isfinite(d))
        throw pivot_error({t.method, t.split, t.modified_diagonal}, d, i, t.mesh_row[i]);
      t.rdiag[i] = 1.0 / d;
    }
  }
}

}  // namespace fvmmini
