#include "solvers/preconditioners/gamg/agglomeration.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>

#include "solvers/preconditioners/gamg/pair_matching.hpp"

namespace fvmmini {

namespace {

/// `second` after `first`: the fine level of `first` straight to the coarse level of `second`.
Agglomeration compose(const Agglomeration& first, const Agglomeration& second) {
  Agglomeration a;
  const auto n = static_cast<std::int64_t>(first.coarse_of.size());
  const auto n_faces = static_cast<std::int64_t>(first.face_map.size());
  a.coarse_of.resize(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) a.coarse_of[i] = second.coarse_of[first.coarse_of[i]];
  a.face_map.resize(n_faces);
#pragma omp parallel for schedule(static)
  for (std::int64_t f = 0; f < n_faces; ++f) {
    const label m = first.face_map[f];
    a.face_map[f] = m >= 0 ? second.face_map[m] : -1 - second.coarse_of[-1 - m];
  }
  a.coarse = second.coarse;
  a.leading_row = second.leading_row;
  return a;
}

/// Each group's leading row (Agglomeration::leading_row) from its rows' leading rows.
std::vector<label> leading_rows(std::span<const label> coarse_of, label n_coarse, std::span<const label> rows,
                                bool forward) {
  std::vector<label> leading(static_cast<std::size_t>(n_coarse), forward ? std::numeric_limits<label>::max() : -1);
  for (std::size_t i = 0; i < coarse_of.size(); ++i) {
    label& l = leading[coarse_of[i]];
    l = forward ? std::min(l, rows[i]) : std::max(l, rows[i]);
  }
  return leading;
}

/// Heavier beyond rounding: on a uniform mesh the face weights differ only by the rounding of the
/// geometry, and letting that noise pick the partner tears the regular pairing that equal weights
/// give (on a 100^3 box the operator complexity rose from 1.33 to 1.60). OpenFOAM's faceAreaPair
/// agglomerator breaks such ties by a fixed bias per direction to the same end.
bool heavier(double weight, double heaviest) { return weight > heaviest + 1e-8 * std::abs(heaviest); }

}  // namespace

std::vector<label> pair_agglomerate(const LduAddressing& fine, const std::vector<double>& weights, bool forward,
                                    label& n_coarse) {
  const label n = fine.n_rows;
  const RowFaces faces = row_faces(fine);  // each cell's faces, as pairGAMGAgglomeration gathers them
  std::vector<label> coarse_of(n, -1);
  n_coarse = 0;
  for (label k = 0; k < n; ++k) {
    const label cell = forward ? k : n - 1 - k;
    if (coarse_of[cell] >= 0) continue;
    // --- the ungrouped neighbour across the heaviest face
    label match = -1;
    double heaviest = -1.0;
    for (label s = faces.ptr[cell]; s < faces.ptr[cell + 1]; ++s) {
      const label f = faces.faces[s];
      if (coarse_of[fine.lower[f]] < 0 && coarse_of[fine.upper[f]] < 0 && heavier(weights[f], heaviest)) {
        match = f;
        heaviest = weights[f];
      }
    }
    if (match >= 0) {
      coarse_of[fine.lower[match]] = coarse_of[fine.upper[match]] = n_coarse++;
      continue;
    }
    // --- every neighbour grouped: join the group across the heaviest face
    heaviest = -1.0;
    for (label s = faces.ptr[cell]; s < faces.ptr[cell + 1]; ++s) {
      const label f = faces.faces[s];
      if (heavier(weights[f], heaviest)) {
        match = f;
        heaviest = weights[f];
      }
    }
    // --- a cell without faces: a group of its own, numbered in its place (OpenFOAM numbers these
    // --- last), so that the groups keep their leading rows' order (Agglomeration::leading_row)
    coarse_of[cell] = match >= 0 ? std::max(coarse_of[fine.lower[match]], coarse_of[fine.upper[match]]) : n_coarse++;
  }
  // --- a backward pass numbers its groups from the end, so coarse rows follow the fine order
  if (!forward)
    for (label& c : coarse_of) c = n_coarse - 1 - c;
  return coarse_of;
}

std::vector<label> parallel_pair_agglomerate(const LduAddressing& fine, const std::vector<double>& weights,
                                             bool nearer_first, label& n_coarse) {
  namespace pm = pair_matching;
  const label n = fine.n_rows;
  const label n_faces = fine.n_faces();
  const RowFaces faces = row_faces(fine);
  const auto other = [&](label f, label cell) { return fine.lower[f] == cell ? fine.upper[f] : fine.lower[f]; };
  std::vector<std::uint64_t> rank(static_cast<std::size_t>(n_faces)), priority(rank.size());
  for (label f = 0; f < n_faces; ++f) rank[f] = pm::face_rank(weights[f], fine.lower[f], fine.upper[f], nearer_first);
  std::vector<label> partner(static_cast<std::size_t>(n), -1), pick(static_cast<std::size_t>(n), -1);
  const auto free_cell = [&](label j) { return partner[j] < 0; };
  // --- the face of `cell` that goes first among those whose other cell passes `eligible`
  const auto first_face = [&](label cell, auto eligible) {
    label first = -1;
    for (label s = faces.ptr[cell]; s < faces.ptr[cell + 1]; ++s) {
      const label f = faces.faces[s];
      if (eligible(other(f, cell)) && (first < 0 || pm::before(priority[f], f, priority[first], first))) first = f;
    }
    return first;
  };
  std::vector<label> place(static_cast<std::size_t>(n), 0);
  for (int round = 0; round < pm::max_rounds; ++round) {
    // --- each free cell's place along its line among the free cells (pair_matching.hpp): its
    // --- nearest lower free neighbour across a face of its own first rank is one step back
    for (label i = 0; i < n; ++i) {
      if (!free_cell(i)) continue;
      std::uint64_t first = 0;
      for (label s = faces.ptr[i]; s < faces.ptr[i + 1]; ++s)
        if (free_cell(other(faces.faces[s], i))) first = std::max(first, rank[faces.faces[s]]);
      label back = -1;
      for (label s = faces.ptr[i]; s < faces.ptr[i + 1]; ++s) {
        const label f = faces.faces[s], j = other(f, i);
        if (free_cell(j) && rank[f] == first && j < i) back = std::max(back, j);
      }
      place[i] = back >= 0 ? place[back] + 1 : 0;  // lower cells' places are known first
    }
    for (label f = 0; f < n_faces; ++f)
      priority[f] = pm::face_priority(rank[f], place[std::min(fine.lower[f], fine.upper[f])]);
    for (label i = 0; i < n; ++i) pick[i] = free_cell(i) ? first_face(i, free_cell) : -1;
    long long paired = 0;
    for (label i = 0; i < n; ++i) {
      const label f = pick[i];
      if (f >= 0 && pick[other(f, i)] == f) {
        partner[i] = other(f, i);
        ++paired;
      }
    }
    if (pm::last_round(paired, n)) break;
  }
  for (label f = 0; f < n_faces; ++f) priority[f] = pm::face_priority(rank[f], 1);  // joining: by rank
  // --- a free cell's group: the pair across its heaviest face, or its own; numbered in the
  // --- order of their least rows
  std::vector<label> pair_of(static_cast<std::size_t>(n)), least(static_cast<std::size_t>(n), n);
  for (label i = 0; i < n; ++i) {
    label target = i;
    if (partner[i] < 0) {
      const label f = first_face(i, [&](label j) { return partner[j] >= 0; });
      if (f >= 0) target = other(f, i);
    }
    pair_of[i] = partner[target] >= 0 ? std::min(target, partner[target]) : target;
    least[pair_of[i]] = std::min(least[pair_of[i]], i);
  }
  std::vector<label> coarse_of(static_cast<std::size_t>(n));
  n_coarse = 0;
  for (label i = 0; i < n; ++i)
    if (least[pair_of[i]] == i) coarse_of[i] = n_coarse++;
  for (label i = 0; i < n; ++i) coarse_of[i] = coarse_of[least[pair_of[i]]];
  return coarse_of;
}

Agglomeration agglomerate_addressing(const LduAddressing& fine, std::vector<label> coarse_of, label n_coarse,
                                     std::vector<double>* face_weights) {
  Agglomeration a;
  const label n_faces = fine.n_faces();
  a.face_map.resize(n_faces);
  // --- faces between two groups, bucketed by the lower group (counted and placed on every
  //     thread; each bucket is sorted below, so the order they land in does not matter)
  std::vector<label> ptr(n_coarse + 1, 0);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    const label cl = coarse_of[fine.lower[f]], cu = coarse_of[fine.upper[f]];
    if (cl != cu) std::atomic_ref<label>(ptr[std::min(cl, cu) + 1]).fetch_add(1, std::memory_order_relaxed);
  }
  for (label c = 0; c < n_coarse; ++c) ptr[c + 1] += ptr[c];
  std::vector<std::pair<label, label>> bucket(ptr[n_coarse]);  // (upper group, fine face)
  std::vector<label> next(ptr.begin(), ptr.end() - 1);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    const label cl = coarse_of[fine.lower[f]], cu = coarse_of[fine.upper[f]];
    if (cl == cu)
      a.face_map[f] = -1 - cl;
    else
      bucket[std::atomic_ref<label>(next[std::min(cl, cu)]).fetch_add(1, std::memory_order_relaxed)] = {std::max(cl, cu), f};
  }
  // --- one coarse face per (lower, upper) pair, in that order: each bucket sorted, its distinct
  //     upper groups counted, and the faces numbered from those counts' running sum
  std::vector<label> first_face(n_coarse + 1, 0);
#pragma omp parallel for schedule(dynamic, 4096)
  for (label c = 0; c < n_coarse; ++c) {
    std::sort(bucket.begin() + ptr[c], bucket.begin() + ptr[c + 1]);
    for (label k = ptr[c]; k < ptr[c + 1]; ++k)
      if (k == ptr[c] || bucket[k].first != bucket[k - 1].first) ++first_face[c + 1];
  }
  for (label c = 0; c < n_coarse; ++c) first_face[c + 1] += first_face[c];
  auto coarse = std::make_shared<LduAddressing>();
  coarse->n_rows = n_coarse;
  coarse->lower.resize(first_face[n_coarse]);
  coarse->upper.resize(first_face[n_coarse]);
  std::vector<double> coarse_weights(face_weights ? first_face[n_coarse] : 0);
#pragma omp parallel for schedule(dynamic, 4096)
  for (label c = 0; c < n_coarse; ++c) {
    label face = first_face[c] - 1;
    for (label k = ptr[c]; k < ptr[c + 1]; ++k) {
      if (k == ptr[c] || bucket[k].first != bucket[k - 1].first) {
        ++face;
        coarse->lower[face] = c;
        coarse->upper[face] = bucket[k].first;
      }
      a.face_map[bucket[k].second] = face;
      if (face_weights) coarse_weights[face] += (*face_weights)[bucket[k].second];  // fine faces ascending
    }
  }
  if (face_weights) *face_weights = std::move(coarse_weights);
  a.coarse_of = std::move(coarse_of);
  a.coarse = std::move(coarse);
  return a;
}

void galerkin_values(const LduMatrix& fine, const Agglomeration& a, LduMatrix& coarse) {
  std::fill(coarse.diag.begin(), coarse.diag.end(), 0.0);
  std::fill(coarse.upper.begin(), coarse.upper.end(), 0.0);
  for (label i = 0; i < fine.n_rows(); ++i) coarse.diag[a.coarse_of[i]] += fine.diag[i];
  for (std::size_t f = 0; f < fine.upper.size(); ++f) {
    const label m = a.face_map[f];
    if (m >= 0)
      coarse.upper[m] += fine.upper[f];
    else
      coarse.diag[-1 - m] += 2.0 * fine.upper[f];
  }
}

AgglomerationHierarchy agglomerate(const LduMatrix& fine, label n_cells_in_coarsest_level, int merge_levels,
                                   bool parallel) {
  if (merge_levels < 1) throw std::invalid_argument("mergeLevels must be at least 1");
  AgglomerationHierarchy h;
  std::vector<double> weights(fine.upper.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t f = 0; f < static_cast<std::int64_t>(weights.size()); ++f) weights[f] = std::abs(fine.upper[f]);
  bool forward = true;  // pairGAMGAgglomeration alternates the direction pass by pass
  std::vector<label> leading(static_cast<std::size_t>(fine.n_rows()));  // the finest level's rows: themselves
  for (label i = 0; i < fine.n_rows(); ++i) leading[i] = i;
  while (true) {
    const LduMatrix& level = h.coarse.empty() ? fine : h.coarse.back();
    // --- merge_levels pairings make one level; a pairing that would leave too few cells, or
    // --- no fewer than before, ends the agglomeration
    std::shared_ptr<const LduAddressing> addressing = level.addressing;
    Agglomeration merged;
    int passes = 0;
    for (; passes < merge_levels; ++passes) {
      label n_coarse = 0;
      std::vector<label> coarse_of = parallel ? parallel_pair_agglomerate(*addressing, weights, forward, n_coarse)
                                              : pair_agglomerate(*addressing, weights, forward, n_coarse);
      if (n_coarse < n_cells_in_coarsest_level || n_coarse >= addressing->n_rows) break;
      leading = leading_rows(coarse_of, n_coarse, leading, forward || parallel);  // parallel: by least rows
      forward = !forward;
      Agglomeration pass = agglomerate_addressing(*addressing, std::move(coarse_of), n_coarse, &weights);
      pass.leading_row = leading;
      addressing = pass.coarse;
      merged = passes == 0 ? std::move(pass) : compose(merged, pass);
    }
    if (passes == 0) break;
    LduMatrix coarse = make_ldu_matrix(merged.coarse);
    galerkin_values(level, merged, coarse);
    h.agglomerations.push_back(std::make_shared<const Agglomeration>(std::move(merged)));
    h.coarse.push_back(std::move(coarse));
    if (passes < merge_levels) break;
  }
  return h;
}

AgglomerationHierarchy shared_agglomeration(const LduMatrix& fine, const AgglomerationHierarchy& model) {
  AgglomerationHierarchy h;
  h.agglomerations = model.agglomerations;
  for (const auto& a : h.agglomerations) {
    h.coarse.push_back(make_ldu_matrix(a->coarse));
    galerkin_values(h.coarse.size() == 1 ? fine : h.coarse[h.coarse.size() - 2], *a, h.coarse.back());
  }
  return h;
}

void pad_levels(const LduMatrix& fine, label levels, AgglomerationHierarchy& h) {
  while (h.levels() < levels) {
    const LduMatrix& last = h.coarse.empty() ? fine : h.coarse.back();
    std::vector<label> itself(static_cast<std::size_t>(last.n_rows()));
    for (label i = 0; i < last.n_rows(); ++i) itself[i] = i;
    Agglomeration a = agglomerate_addressing(*last.addressing, std::move(itself), last.n_rows());
    if (h.agglomerations.empty()) {
      a.leading_row.resize(static_cast<std::size_t>(last.n_rows()));
      for (label i = 0; i < last.n_rows(); ++i) a.leading_row[i] = i;
    } else {
      a.leading_row = h.agglomerations.back()->leading_row;
    }
    LduMatrix coarse = make_ldu_matrix(a.coarse);
    galerkin_values(last, a, coarse);
    h.agglomerations.push_back(std::make_shared<const Agglomeration>(std::move(a)));
    h.coarse.push_back(std::move(coarse));
  }
}

void truncate_levels(label levels, AgglomerationHierarchy& h) {
  if (levels < 1 || levels > h.levels()) throw std::invalid_argument("truncate_levels: no such level");
  h.agglomerations.resize(static_cast<std::size_t>(levels - 1));
  h.coarse.resize(static_cast<std::size_t>(levels - 1));
}

void refresh_coarse_values(const LduMatrix& fine, AgglomerationHierarchy& h) {
  for (std::size_t k = 0; k < h.coarse.size(); ++k)
    galerkin_values(k == 0 ? fine : h.coarse[k - 1], *h.agglomerations[k], h.coarse[k]);
}

Transfer make_transfer(const Agglomeration& a, const Permutation& fine, const Permutation& coarse) {
  Transfer t;
  const label n = fine.size(), n_coarse = coarse.size();
  t.coarse_of.resize(n);
  t.group_ptr.assign(n_coarse + 1, 0);
  for (label i = 0; i < n; ++i) {
    t.coarse_of[i] = coarse.old_to_new[a.coarse_of[fine.new_to_old[i]]];
    ++t.group_ptr[t.coarse_of[i] + 1];
  }
  for (label c = 0; c < n_coarse; ++c) t.group_ptr[c + 1] += t.group_ptr[c];
  t.group_rows.resize(n);
  std::vector<label> next(t.group_ptr.begin(), t.group_ptr.end() - 1);
  for (label i = 0; i < n; ++i) t.group_rows[next[t.coarse_of[i]]++] = i;
  return t;
}

}  // namespace fvmmini
