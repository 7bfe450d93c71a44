#include "linalg/preconditioners/triangular_factor.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "linalg/ordering/colouring.hpp"
#include "linalg/parallel.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

namespace {

// The matrix graph in the operator's numbering: row i's neighbours and the faces that couple them.
struct FaceGraph {
  std::vector<label> offset, neighbour, face;
};

FaceGraph face_graph(const LduAddressing& a, const Permutation& op) {
  FaceGraph g;
  g.offset.assign(a.n_rows + 1, 0);
  for (label f = 0; f < a.n_faces(); ++f) {
    ++g.offset[op.old_to_new[a.lower[f]] + 1];
    ++g.offset[op.old_to_new[a.upper[f]] + 1];
  }
  for (label i = 0; i < a.n_rows; ++i) g.offset[i + 1] += g.offset[i];
  g.neighbour.resize(g.offset[a.n_rows]);
  g.face.resize(g.offset[a.n_rows]);
  std::vector<label> next(g.offset.begin(), g.offset.end() - 1);
  for (label f = 0; f < a.n_faces(); ++f) {
    const label l = op.old_to_new[a.lower[f]], u = op.old_to_new[a.upper[f]];
    g.neighbour[next[l]] = u;
    g.face[next[l]++] = f;
    g.neighbour[next[u]] = l;
    g.face[next[u]++] = f;
  }
  return g;
}

// One triangle's ELL blocks: for each row of each level, the neighbours `take` accepts, by column.
template <class Take>
TrianglePart make_part(const TriangularFactor& t, const FaceGraph& g, Take take, bool pad_with_own_row) {
  TrianglePart part;
  const label levels = t.levels();
  part.offset.assign(levels + 1, 0);
  part.width.assign(levels, 0);
  for (label l = 0; l < levels; ++l) {
    label width = 0;
    for (label k = t.level_ptr[l]; k < t.level_ptr[l + 1]; ++k) {
      const label i = t.rows[k];
      label count = 0;
      for (label e = g.offset[i]; e < g.offset[i + 1]; ++e) count += take(i, g.neighbour[e]);
      width = std::max(width, count);
    }
    part.width[l] = width;
    part.offset[l + 1] = part.offset[l] + static_cast<std::int64_t>(width) * t.level_size(l);
  }
  part.col.resize(part.offset[levels]);
  part.value.assign(part.offset[levels], 0.0);
  part.face.assign(part.offset[levels], -1);
  std::vector<std::pair<label, label>> entries;  // (column, face)
  for (label l = 0; l < levels; ++l) {
    const label size = t.level_size(l);
    for (label r = 0; r < size; ++r) {
      const label i = t.rows[t.level_ptr[l] + r];
      entries.clear();
      for (label e = g.offset[i]; e < g.offset[i + 1]; ++e)
        if (take(i, g.neighbour[e])) entries.emplace_back(g.neighbour[e], g.face[e]);
      std::sort(entries.begin(), entries.end());
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

std::vector<label> TriangularFactor::level_sizes() const {
  std::vector<label> sizes(levels());
  for (label l = 0; l < levels(); ++l) sizes[l] = level_size(l);
  return sizes;
}

TriangularFactor build_triangular_factor(const LduMatrix& matrix, const Permutation& op, TriangleSplit split,
                                         bool modified_diagonal) {
  const label n = matrix.n_rows();
  TriangularFactor t;
  t.n_rows = n;
  t.modified_diagonal = modified_diagonal;
  t.split = split;
  t.mesh_row = op.new_to_old;
  const FaceGraph g = face_graph(*matrix.addressing, op);

  // --- the schedule: rank[i] orders the rows; a row depends on its neighbours of lower rank
  std::vector<label> order(n);  // rows by rank
  std::iota(order.begin(), order.end(), 0);
  if (split == TriangleSplit::colour) {
    const Colouring c = greedy_colouring(g.offset, g.neighbour);
    t.colours = c.n_colours;
    std::stable_sort(order.begin(), order.end(), [&](label a, label b) { return c.colour[a] < c.colour[b]; });
  }
  std::vector<label> rank(n);
  for (label k = 0; k < n; ++k) rank[order[k]] = k;

  // --- levels: one more than the highest level among the neighbours of lower rank
  std::vector<label> level(n, 0);
  label levels = n > 0 ? 1 : 0;
  for (label i : order) {
    label lv = 0;
    for (label e = g.offset[i]; e < g.offset[i + 1]; ++e)
      if (rank[g.neighbour[e]] < rank[i]) lv = std::max(lv, level[g.neighbour[e]] + 1);
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

void refresh_triangular_factor(const LduMatrix& matrix, TriangularFactor& t) {
  for (TrianglePart* part : {&t.lower, &t.upper}) {
    const std::int64_t slots = part->slots();
#pragma omp parallel for schedule(static) if (slots > min_parallel_rows)
    for (std::int64_t s = 0; s < slots; ++s) part->value[s] = part->face[s] >= 0 ? matrix.upper[part->face[s]] : 0.0;
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
          const double a = t.lower.value[slot];
          d -= a * a * t.rdiag[t.lower.col[slot]];
        }
      if (!(d > 0.0) || !std::isfinite(d))
        throw SolverError(fmt::format(
            "{}: pivot {:.6g} at row {} (mesh cell {}) is not positive{}", t.modified_diagonal ? "DIC" : "mcsgs", d, i,
            t.mesh_row[i],
            t.modified_diagonal ? " (the matrix is not SPD, or incomplete Cholesky broke down on it)"
                                : " (the diagonal must be positive)"));
      t.rdiag[i] = 1.0 / d;
    }
  }
}

}  // namespace fvmmini
