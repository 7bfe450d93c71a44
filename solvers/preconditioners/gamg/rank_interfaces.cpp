#include "solvers/preconditioners/gamg/rank_interfaces.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "solvers/preconditioners/gamg/dense_inverse.hpp"

namespace fvmmini {

namespace {

/// Sends values[i][k] (labels, exact as doubles) across each interface's faces; returns what the
/// neighbours sent at the same faces.
std::vector<std::vector<label>> exchange_labels(const std::vector<ProcessorInterface>& interfaces,
                                                const std::vector<std::vector<label>>& values,
                                                const Communicator& comm) {
  std::vector<int> neighbours;
  std::vector<std::size_t> counts;
  for (const auto& i : interfaces) {
    neighbours.push_back(i.neighbour_rank);
    counts.push_back(i.face_cells.size());
  }
  HaloExchange halo(comm, neighbours, counts, counts);
  for (std::size_t i = 0; i < interfaces.size(); ++i)
    std::copy(values[i].begin(), values[i].end(), halo.send_buffer(i).begin());
  halo.start();
  halo.finish();
  std::vector<std::vector<label>> received(interfaces.size());
  for (std::size_t i = 0; i < interfaces.size(); ++i)
    for (double v : halo.received(i)) received[i].push_back(static_cast<label>(v));
  return received;
}

}  // namespace

std::vector<std::vector<label>> rows_across(const std::vector<ProcessorInterface>& interfaces,
                                            const Communicator& comm) {
  std::vector<std::vector<label>> rows;
  for (const auto& i : interfaces) rows.push_back(i.face_cells);
  return exchange_labels(interfaces, rows, comm);
}

InterfaceAgglomeration agglomerate_interfaces(const std::vector<ProcessorInterface>& fine,
                                              std::span<const label> coarse_of, const Communicator& comm) {
  std::vector<std::vector<label>> groups;
  for (const auto& i : fine) {
    groups.emplace_back();
    for (label row : i.face_cells) groups.back().push_back(coarse_of[row]);
  }
  const std::vector<std::vector<label>> across = exchange_labels(fine, groups, comm);
  InterfaceAgglomeration a;
  for (std::size_t i = 0; i < fine.size(); ++i) {
    // --- the distinct (lower rank's group, higher rank's group) pairs, in that order on both sides
    const bool lower_here = comm.rank() < fine[i].neighbour_rank;
    const std::size_t faces = fine[i].face_cells.size();
    auto key = [&](std::size_t k) {
      return lower_here ? std::pair(groups[i][k], across[i][k]) : std::pair(across[i][k], groups[i][k]);
    };
    std::vector<std::size_t> order(faces);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key(x) < key(y); });
    ProcessorInterface coarse;
    coarse.neighbour_rank = fine[i].neighbour_rank;
    std::vector<label> coarse_across, face_map(faces);
    for (std::size_t s = 0; s < faces; ++s) {
      const std::size_t k = order[s];
      if (s == 0 || key(k) != key(order[s - 1])) {
        coarse.face_cells.push_back(groups[i][k]);
        coarse_across.push_back(across[i][k]);
      }
      face_map[k] = static_cast<label>(coarse.face_cells.size()) - 1;
    }
    a.coarse.push_back(std::move(coarse));
    a.rows_across.push_back(std::move(coarse_across));
    a.face_map.push_back(std::move(face_map));
  }
  coarse_interface_values(fine, a);
  return a;
}

void coarse_interface_values(const std::vector<ProcessorInterface>& fine, InterfaceAgglomeration& a) {
  for (std::size_t i = 0; i < fine.size(); ++i) {
    // in the fine faces' order, which both sides share: the same sums on both sides
    auto& coefficients = a.coarse[i].coefficients;
    coefficients.assign(a.coarse[i].face_cells.size(), 0.0);
    for (std::size_t k = 0; k < fine[i].coefficients.size(); ++k)
      coefficients[a.face_map[i][k]] += fine[i].coefficients[k];
  }
}

LduMatrix gather_whole_matrix(const LduMatrix& local, const std::vector<ProcessorInterface>& interfaces,
                              const std::vector<std::vector<label>>& rows_across, const Communicator& comm,
                              std::vector<label>& offsets) {
  // --- this rank's piece: rows, faces, diagonal, its faces, and each interface face once (from
  // --- the lower rank's side)
  std::vector<double> piece{static_cast<double>(local.n_rows()), static_cast<double>(local.addressing->n_faces())};
  piece.insert(piece.end(), local.diag.begin(), local.diag.end());
  for (label f = 0; f < local.addressing->n_faces(); ++f)
    piece.insert(piece.end(), {static_cast<double>(local.lower_addr()[f]), static_cast<double>(local.upper_addr()[f]),
                               local.upper[f]});
  for (std::size_t i = 0; i < interfaces.size(); ++i) {
    if (interfaces[i].neighbour_rank < comm.rank()) continue;
    for (std::size_t k = 0; k < interfaces[i].face_cells.size(); ++k)
      piece.insert(piece.end(), {static_cast<double>(interfaces[i].face_cells[k]),
                                 static_cast<double>(interfaces[i].neighbour_rank),
                                 static_cast<double>(rows_across[i][k]), interfaces[i].coefficients[k]});
  }
  const std::vector<std::vector<double>> pieces =
      comm.all_to_all(std::vector<std::vector<double>>(static_cast<std::size_t>(comm.size()), piece));
  // --- the whole matrix, rank after rank
  offsets.assign(1, 0);
  for (const auto& p : pieces) offsets.push_back(offsets.back() + static_cast<label>(p[0]));
  std::vector<std::tuple<label, label, double>> faces;
  std::vector<double> diag;
  for (std::size_t r = 0; r < pieces.size(); ++r) {
    const std::vector<double>& p = pieces[r];
    const auto n = static_cast<std::size_t>(p[0]), n_faces = static_cast<std::size_t>(p[1]);
    const label offset = offsets[r];
    diag.insert(diag.end(), p.begin() + 2, p.begin() + 2 + static_cast<std::ptrdiff_t>(n));
    std::size_t at = 2 + n;
    for (std::size_t f = 0; f < n_faces; ++f, at += 3)
      faces.emplace_back(offset + static_cast<label>(p[at]), offset + static_cast<label>(p[at + 1]), p[at + 2]);
    for (; at < p.size(); at += 4)
      faces.emplace_back(offset + static_cast<label>(p[at]), offsets[static_cast<std::size_t>(p[at + 1])] +
                                                                 static_cast<label>(p[at + 2]), p[at + 3]);
  }
  std::sort(faces.begin(), faces.end());
  auto addressing = std::make_shared<LduAddressing>();
  addressing->n_rows = offsets.back();
  LduMatrix whole;
  for (const auto& [lower, upper, value] : faces) {
    addressing->lower.push_back(lower);
    addressing->upper.push_back(upper);
    whole.upper.push_back(value);
  }
  whole.diag.assign(diag.begin(), diag.end());
  whole.addressing = std::move(addressing);
  return whole;
}

GatheredLevel gather_level(const LduMatrix& local, const std::vector<ProcessorInterface>& interfaces,
                           const std::vector<std::vector<label>>& rows_across, const Communicator& comm,
                           std::span<const label> keys) {
  GatheredLevel g;
  LduMatrix in_rank_order = gather_whole_matrix(local, interfaces, rows_across, comm, g.offsets);
  g.rank = comm.rank();
  for (std::size_t r = 0; r + 1 < g.offsets.size(); ++r) g.width = std::max(g.width, g.offsets[r + 1] - g.offsets[r]);
  const bool keyed = comm.all(static_cast<label>(keys.size()) == local.n_rows());
  if (!keyed) {
    g.order = Permutation::identity(in_rank_order.n_rows());
    g.whole = std::move(in_rank_order);
    return g;
  }
  // --- every rank's keys in rank order, then the rows by key
  std::vector<double> mine(keys.begin(), keys.end());
  const std::vector<std::vector<double>> all =
      comm.all_to_all(std::vector<std::vector<double>>(static_cast<std::size_t>(comm.size()), mine));
  std::vector<double> key;
  for (const auto& k : all) key.insert(key.end(), k.begin(), k.end());
  std::vector<label> by_key(key.size());
  for (std::size_t i = 0; i < by_key.size(); ++i) by_key[i] = static_cast<label>(i);
  std::stable_sort(by_key.begin(), by_key.end(), [&](label a, label b) { return key[a] < key[b]; });
  g.order = Permutation::from_new_to_old(std::move(by_key));
  g.whole = permute_ldu(in_rank_order, g.order).matrix;
  return g;
}

std::vector<label> GatheredLevel::padded_rows(const Permutation& p) const {
  std::vector<label> padded(static_cast<std::size_t>(p.size()));
  for (label i = 0; i < p.size(); ++i) {
    const label row = order.new_to_old[p.new_to_old[i]];
    const auto r = std::upper_bound(offsets.begin(), offsets.end(), row) - offsets.begin() - 1;
    padded[i] = static_cast<label>(r) * width + row - offsets[r];
  }
  return padded;
}

std::vector<label> GatheredLevel::own_rows(const Permutation& p) const {
  std::vector<label> own(static_cast<std::size_t>(offsets[rank + 1] - offsets[rank]));
  for (std::size_t j = 0; j < own.size(); ++j)
    own[j] = p.old_to_new[order.old_to_new[offsets[rank] + static_cast<label>(j)]];
  return own;
}

label gathering_level(const std::vector<label>& rows_per_level, label cells, const Communicator& comm) {
  if (cells <= 0 || rows_per_level.size() < 2 || comm.size() == 1) return 0;
  std::vector<double> whole(rows_per_level.begin(), rows_per_level.end());
  comm.sum(whole);
  for (std::size_t l = 1; l < whole.size(); ++l)
    if (whole[l] <= static_cast<double>(cells)) return static_cast<label>(l);
  return 0;
}

WholeCoarsest whole_coarsest(const LduMatrix& local, const std::vector<ProcessorInterface>& interfaces,
                             const std::vector<std::vector<label>>& rows_across, const Communicator& comm,
                             std::span<const label> new_to_old) {
  std::vector<label> offsets;
  const LduMatrix whole = gather_whole_matrix(local, interfaces, rows_across, comm, offsets);
  const std::vector<double> inverse = dense_spd_inverse(whole);
  // --- every rank's operator numbering: its row j of the gathered right-hand sides
  std::vector<double> mine(static_cast<std::size_t>(local.n_rows()));
  for (label i = 0; i < local.n_rows(); ++i) mine[i] = new_to_old.empty() ? i : new_to_old[i];
  const std::vector<std::vector<double>> numbering =
      comm.all_to_all(std::vector<std::vector<double>>(static_cast<std::size_t>(comm.size()), mine));
  WholeCoarsest c;
  c.ranks = comm.size();
  c.rows = local.n_rows();
  for (int r = 0; r < c.ranks; ++r) c.width = std::max(c.width, offsets[r + 1] - offsets[r]);
  const auto n = static_cast<std::size_t>(offsets.back());
  const auto columns = static_cast<std::size_t>(c.ranks) * c.width;
  const label first = offsets[comm.rank()];
  c.inverse.assign(static_cast<std::size_t>(c.rows) * columns, 0.0);
  for (label i = 0; i < c.rows; ++i) {
    const auto row = static_cast<std::size_t>(first + static_cast<label>(mine[i]));
    for (int r = 0; r < c.ranks; ++r)
      for (label j = 0; j < offsets[r + 1] - offsets[r]; ++j)
        c.inverse[i * columns + static_cast<std::size_t>(r) * c.width + j] =
            inverse[row * n + static_cast<std::size_t>(offsets[r] + static_cast<label>(numbering[r][j]))];
  }
  return c;
}

}  // namespace fvmmini
