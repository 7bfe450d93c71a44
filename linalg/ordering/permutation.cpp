#include "linalg/ordering/permutation.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace fvmmini {

bool Permutation::is_identity() const {
  for (label i = 0; i < size(); ++i)
    if (new_to_old[i] != i) return false;
  return true;
}

Permutation Permutation::identity(label n) {
  Permutation p;
  p.new_to_old.resize(n);
  for (label i = 0; i < n; ++i) p.new_to_old[i] = i;
  p.old_to_new = p.new_to_old;
  return p;
}

Permutation Permutation::from_new_to_old(std::vector<label> new_to_old) {
  Permutation p;
  const label n = static_cast<label>(new_to_old.size());
  p.old_to_new.assign(n, -1);
  for (label i = 0; i < n; ++i) {
    const label old = new_to_old[i];
    if (old < 0 || old >= n || p.old_to_new[old] >= 0)
      throw std::invalid_argument("permutation: entry " + std::to_string(i) + " = " + std::to_string(old) +
                                  " is out of range 0.." + std::to_string(n - 1) + " or repeated");
    p.old_to_new[old] = i;
  }
  p.new_to_old = std::move(new_to_old);
  return p;
}

Permutation compose(const Permutation& first, const Permutation& second) {
  if (first.size() != second.size())
    throw std::invalid_argument("compose: permutations of " + std::to_string(first.size()) + " and " +
                                std::to_string(second.size()) + " indices");
  std::vector<label> new_to_old(first.size());
  for (label i = 0; i < first.size(); ++i) new_to_old[i] = first.new_to_old[second.new_to_old[i]];
  return Permutation::from_new_to_old(std::move(new_to_old));
}

void permute_to_new(const Permutation& p, std::span<const double> x_old, std::span<double> x_new) {
  const label n = p.size();
  const label* map = p.new_to_old.data();
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) x_new[i] = x_old[map[i]];
}

void permute_to_old(const Permutation& p, std::span<const double> x_new, std::span<double> x_old) {
  const label n = p.size();
  const label* map = p.old_to_new.data();
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) x_old[i] = x_new[map[i]];
}

PermutedLdu permute_ldu(const LduMatrix& ldu, const Permutation& p) {
  const label n = ldu.n_rows();
  const auto& lower = ldu.lower_addr();
  const auto& upper = ldu.upper_addr();
  const label n_faces = static_cast<label>(lower.size());

  // --- each face becomes (a, b) = (min, max) of its renumbered ends; bucket by a (counting sort)
  std::vector<label> start(n + 1, 0);
  for (label f = 0; f < n_faces; ++f) ++start[std::min(p.old_to_new[lower[f]], p.old_to_new[upper[f]]) + 1];
  for (label i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<label> face_to_old(n_faces);
  {
    std::vector<label> next(start.begin(), start.end() - 1);
    for (label f = 0; f < n_faces; ++f)
      face_to_old[next[std::min(p.old_to_new[lower[f]], p.old_to_new[upper[f]])]++] = f;
  }
  // --- within each bucket sort by b: faces ordered by (a, b) are upper-triangular
  auto other_end = [&](label f) { return std::max(p.old_to_new[lower[f]], p.old_to_new[upper[f]]); };
  for (label a = 0; a < n; ++a)
    std::sort(face_to_old.begin() + start[a], face_to_old.begin() + start[a + 1],
              [&](label f, label g) { return other_end(f) < other_end(g); });

  auto addressing = std::make_shared<LduAddressing>();
  addressing->n_rows = n;
  addressing->lower.resize(n_faces);
  addressing->upper.resize(n_faces);
  for (label f = 0; f < n_faces; ++f) {
    const label old = face_to_old[f];
    addressing->lower[f] = std::min(p.old_to_new[lower[old]], p.old_to_new[upper[old]]);
    addressing->upper[f] = other_end(old);
  }
  PermutedLdu out{make_ldu_matrix(std::move(addressing)), std::move(face_to_old)};
  refresh_permuted_ldu(ldu, p, out);
  return out;
}

void refresh_permuted_ldu(const LduMatrix& original, const Permutation& p, PermutedLdu& permuted) {
  // --- D_new[i] = D[sigma(i)]; U_new[f] = U[face_to_old[f]] (symmetric: orientation does not matter)
  const label n = p.size();
  const label n_faces = static_cast<label>(permuted.face_to_old_face.size());
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) permuted.matrix.diag[i] = original.diag[p.new_to_old[i]];
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) permuted.matrix.upper[f] = original.upper[permuted.face_to_old_face[f]];
}

CsrMatrix permuted_csr(const LduMatrix& ldu, const Permutation& p, LduToCsrMap* map) {
  const label n = ldu.n_rows();
  if (p.size() != n)
    throw std::invalid_argument("permuted_csr: permutation of " + std::to_string(p.size()) + " indices for " +
                                std::to_string(n) + " rows");
  const auto& lower = ldu.lower_addr();
  const auto& upper = ldu.upper_addr();
  const label n_faces = static_cast<label>(lower.size());
  const auto& o2n = p.old_to_new;

  // --- row lengths of P A P^T: 1 + faces touching the row
  CsrMatrix csr;
  csr.n_rows = n;
  csr.row_ptr.assign(n + 1, 0);
  for (label i = 0; i < n; ++i) csr.row_ptr[i + 1] = 1;
  for (label f = 0; f < n_faces; ++f) {
    ++csr.row_ptr[o2n[lower[f]] + 1];
    ++csr.row_ptr[o2n[upper[f]] + 1];
  }
  for (label i = 0; i < n; ++i) csr.row_ptr[i + 1] += csr.row_ptr[i];
  const std::int64_t nnz = csr.row_ptr[n];
  csr.col.resize(nnz);
  csr.values.assign(nnz, 0.0);

  // --- scatter entries with a tag saying which LDU coefficient they hold:
  //     tag = -1 - row (diagonal), 2 f (upper coefficient of f), 2 f + 1 (lower coefficient of f)
  std::vector<std::int64_t> tag(nnz);
  {
    std::vector<std::int64_t> next(csr.row_ptr.begin(), csr.row_ptr.end() - 1);
    for (label i = 0; i < n; ++i) {
      csr.col[next[i]] = i;
      tag[next[i]++] = -1 - static_cast<std::int64_t>(i);
    }
    for (label f = 0; f < n_faces; ++f) {
      const label a = o2n[lower[f]], b = o2n[upper[f]];
      csr.col[next[a]] = b;
      tag[next[a]++] = 2 * static_cast<std::int64_t>(f);
      csr.col[next[b]] = a;
      tag[next[b]++] = 2 * static_cast<std::int64_t>(f) + 1;
    }
  }
  // --- sort each row by column (rows are short: insertion sort), carrying the tags
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) {
    for (auto k = csr.row_ptr[i] + 1; k < csr.row_ptr[i + 1]; ++k) {
      const label c = csr.col[k];
      const std::int64_t t = tag[k];
      auto m = k;
      for (; m > csr.row_ptr[i] && csr.col[m - 1] > c; --m) {
        csr.col[m] = csr.col[m - 1];
        tag[m] = tag[m - 1];
      }
      csr.col[m] = c;
      tag[m] = t;
    }
  }
  // --- the slot map in the original numbering
  LduToCsrMap local;
  local.diag_slot.resize(n);
  local.upper_slot.resize(n_faces);
  local.lower_slot.resize(n_faces);
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t t = tag[k];
    if (t < 0)
      local.diag_slot[p.new_to_old[-1 - t]] = k;
    else if (t % 2 == 0)
      local.upper_slot[t / 2] = k;
    else
      local.lower_slot[t / 2] = k;
  }
  refresh_csr_values(ldu, local, csr.values);
  if (map) *map = std::move(local);
  return csr;
}

}  // namespace fvmmini
