#include "discretisation/least_squares_gradient.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace fvmmini {

namespace {

// The fit's unknowns: the gradient (3) and the Hessian's distinct entries (6).
constexpr int n_terms = 9;
using Terms = std::array<double, n_terms>;
using Normal = std::array<Terms, n_terms>;

/// The row of d in the fit phi - phi_P = d . g + d^T H d / 2, d in units of the stencil's scale.
Terms quadratic_terms(const Vec3& d) {
  return {d.x, d.y, d.z, 0.5 * d.x * d.x, 0.5 * d.y * d.y, 0.5 * d.z * d.z, d.x * d.y, d.x * d.z, d.y * d.z};
}

double weight(const Vec3& d) { return 1.0 / dot(d, d); }

int packed(int i, int j) {  // index of (i, j), i <= j, in the upper triangle by rows
  return i * n_terms - i * (i - 1) / 2 + (j - i);
}

/// The inverse of m (symmetric positive semi-definite) by Cholesky, packed. A direction no point
/// spans (the empty direction of a 2-D mesh) leaves m singular: a tiny diagonal term makes the
/// inverse finite and the fit's terms there zero.
std::array<double, 45> invert(Normal m) {
  double trace = 0.0;
  for (int i = 0; i < n_terms; ++i) trace += m[i][i];
  for (int i = 0; i < n_terms; ++i) m[i][i] += 1e-10 * trace;
  // --- m = L L^T, L in the lower triangle of m
  for (int j = 0; j < n_terms; ++j) {
    for (int k = 0; k < j; ++k) m[j][j] -= m[j][k] * m[j][k];
    m[j][j] = std::sqrt(m[j][j]);
    for (int i = j + 1; i < n_terms; ++i) {
      for (int k = 0; k < j; ++k) m[i][j] -= m[i][k] * m[j][k];
      m[i][j] /= m[j][j];
    }
  }
  // --- column r of the inverse solves L L^T x = e_r
  std::array<double, 45> inverse{};
  for (int r = 0; r < n_terms; ++r) {
    Terms x{};
    x[r] = 1.0;
    for (int i = 0; i < n_terms; ++i) {
      for (int k = 0; k < i; ++k) x[i] -= m[i][k] * x[k];
      x[i] /= m[i][i];
    }
    for (int i = n_terms - 1; i >= 0; --i) {
      for (int k = i + 1; k < n_terms; ++k) x[i] -= m[k][i] * x[k];
      x[i] /= m[i][i];
    }
    for (int i = 0; i <= r; ++i) inverse[packed(i, r)] = x[i];
  }
  return inverse;
}

/// CSR of the items that visit(add) adds, add(c, item), per cell c.
template <class F>
void build_csr(label n_cells, std::vector<label>& offsets, std::vector<label>& items, F&& visit) {
  offsets.assign(n_cells + 1, 0);
  visit([&](label c, label) { ++offsets[c + 1]; });
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  items.resize(offsets.back());
  std::vector<label> next(offsets.begin(), offsets.end() - 1);
  visit([&](label c, label item) { items[next[c]++] = item; });
}

/// A cell or a face of some rank, as a map key.
std::uint64_t key_of(int rank, label index) {
  return (static_cast<std::uint64_t>(rank) << 32) | static_cast<std::uint32_t>(index);
}

/// The cells the rings run over: this rank's (0 .. n_cells - 1, the mesh's numbers) and, on a part
/// of a decomposed mesh, other ranks' cells (n_cells + j) as their neighbours and boundary faces
/// become known. Boundary faces: the mesh's numbers, or n_faces + j for another rank's face j.
struct RingGraph {
  struct Remote {
    bool known = false;
    std::vector<label> neighbours, faces;
  };
  label n_cells = 0, n_faces = 0;
  std::vector<label> neighbour_offsets, neighbours, boundary_offsets, boundary_faces;  ///< this rank's cells
  std::vector<Remote> remote;

  bool known(label c) const { return c < n_cells || remote[c - n_cells].known; }
  std::size_t n_boundary(label c) const {
    return c < n_cells ? static_cast<std::size_t>(boundary_offsets[c + 1] - boundary_offsets[c])
                       : remote[c - n_cells].faces.size();
  }
  std::span<const label> neighbours_of(label c) const {
    if (c >= n_cells) return remote[c - n_cells].neighbours;
    return std::span<const label>(neighbours).subspan(neighbour_offsets[c], neighbour_offsets[c + 1] - neighbour_offsets[c]);
  }
  std::span<const label> faces_of(label c) const {
    if (c >= n_cells) return remote[c - n_cells].faces;
    return std::span<const label>(boundary_faces).subspan(boundary_offsets[c], boundary_offsets[c + 1] - boundary_offsets[c]);
  }
};

/// Cell p's stencil cells (p first): rings of face neighbours until the fit has twice as many
/// points as unknowns. Two rings alone (about 16 points inside a tetrahedral mesh, 9 at the
/// domain's edges) left fits near interpolation, badly conditioned enough to make the correction
/// loop diverge on the 48877-tetrahedron mesh. `rings` gets where each ring starts in `cells`
/// (ring 0: p) and its end. So that a stencil costs a bounded number of steps whatever the mesh (a
/// cell with thousands of face neighbours), a cell's neighbours are visited with a stride that
/// meets at most stencil_scan_points of them, spread over the list, and a ring stops once
/// stencil_scan_points cells are in (StencilPoints::cap then keeps stencil_cap_points points).
/// @return false when a ring reached cells of other ranks not known yet (added to `missing`): the
/// stencil is not decided
bool stencil_rings(const RingGraph& graph, label p, std::vector<label>& stamp, label mark, std::vector<label>& cells,
                   std::vector<std::size_t>& rings, std::vector<label>* missing = nullptr) {
  cells.assign(1, p);
  rings.assign({0, 1});
  stamp[p] = mark;
  std::size_t n_points = graph.n_boundary(p);
  bool decided = true;
  for (std::size_t begin = 0;;) {
    const std::size_t end = cells.size();
    for (std::size_t k = begin; k < end && cells.size() <= stencil_scan_points; ++k) {
      const auto neighbours = graph.neighbours_of(cells[k]);
      const std::size_t stride = (neighbours.size() + stencil_scan_points - 1) / stencil_scan_points;
      for (std::size_t i = 0; i < neighbours.size() && cells.size() <= stencil_scan_points;
           i += std::max<std::size_t>(stride, 1)) {
        const label n = neighbours[i];
        if (stamp[n] == mark) continue;
        stamp[n] = mark;
        cells.push_back(n);
        if (graph.known(n)) {
          n_points += 1 + graph.n_boundary(n);
        } else {
          decided = false;
          if (missing) missing->push_back(n);
        }
      }
    }
    begin = end;
    if (!decided) return false;
    if (cells.size() == end) return true;  // no cell left to add
    rings.push_back(cells.size());
    if (n_points >= 2 * n_terms || cells.size() > stencil_scan_points) return true;
  }
}

/// A stencil's points in rings: ring r's cells (P not among them), then their boundary faces.
struct StencilPoints {
  std::vector<label> items;
  std::vector<bool> is_face;
  std::vector<std::size_t> ring_ends;

  void clear() {
    items.clear();
    is_face.clear();
    ring_ends.clear();
  }
  void add(label item, bool face) {
    items.push_back(item);
    is_face.push_back(face);
  }
  /// Cut to `cap` points: whole rings while they fit, then evenly over the first ring that does
  /// not (its points spread as the ring's are), none of later rings. @return whether it cut
  bool cap(std::size_t cap) {
    if (items.size() <= cap) return false;
    std::vector<label> kept_items;
    std::vector<bool> kept_faces;
    std::size_t begin = 0;
    for (std::size_t end : ring_ends) {
      const std::size_t room = cap - kept_items.size();
      const std::size_t size = end - begin;
      for (std::size_t j = 0; j < std::min(room, size); ++j) {
        const std::size_t k = begin + (size <= room ? j : j * size / room);
        kept_items.push_back(items[k]);
        kept_faces.push_back(is_face[k]);
      }
      if (kept_items.size() == cap) break;
      begin = end;
    }
    items = std::move(kept_items);
    is_face = std::move(kept_faces);
    return true;
  }
  /// The cells and the boundary faces apart, each in ring order.
  void split(std::vector<label>& cells, std::vector<label>& faces) const {
    cells.clear();
    faces.clear();
    for (std::size_t k = 0; k < items.size(); ++k) (is_face[k] ? faces : cells).push_back(items[k]);
  }
};

/// The points of the rings that stencil_rings found, ring by ring: the cells (P itself not), then
/// their boundary faces (those of a cell with very many taken with a stride, at most
/// stencil_scan_points in all).
void ring_points(const RingGraph& graph, std::span<const label> cells, std::span<const std::size_t> rings,
                 StencilPoints& points) {
  points.clear();
  std::size_t n_faces = 0;
  for (std::size_t r = 0; r + 1 < rings.size(); ++r) {
    for (std::size_t k = rings[r]; k < rings[r + 1]; ++k)
      if (k > 0) points.add(cells[k], false);
    for (std::size_t k = rings[r]; k < rings[r + 1]; ++k) {
      const auto fs = graph.faces_of(cells[k]);
      const std::size_t stride = (fs.size() + stencil_scan_points - 1) / stencil_scan_points;
      for (std::size_t i = 0; i < fs.size() && n_faces < stencil_scan_points;
           i += std::max<std::size_t>(stride, 1), ++n_faces)
        points.add(fs[i], true);
    }
    points.ring_ends.push_back(points.items.size());
  }
}

/// The farthest point's distance: the unit of the fit's d (scales_).
double stencil_scale(std::span<const Vec3> offsets) {
  double scale = 0.0;
  for (const Vec3& d : offsets) scale = std::max(scale, mag(d));
  return scale;
}

/// The fit's normal matrix sum w t t^T over the points at `offsets` from P, in units of `scale`.
Normal normal_matrix(std::span<const Vec3> offsets, double scale) {
  Normal m{};
  for (const Vec3& d : offsets) {
    const Terms t = quadratic_terms(d / scale);
    const double w = weight(d / scale);
    for (int i = 0; i < n_terms; ++i)
      for (int j = 0; j < n_terms; ++j) m[i][j] += w * t[i] * t[j];
  }
  return m;
}

/// Per processor face, the number on its rank of the cell across it (none without processor faces).
std::vector<label> cells_across(label n_cells, ProcessorFaces* processor) {
  std::vector<label> across;
  if (processor && !processor->empty()) {
    std::vector<double> index(n_cells), across_index(processor->faces().size());
    std::iota(index.begin(), index.end(), 0.0);
    processor->across(index, across_index);
    for (double v : across_index) across.push_back(static_cast<label>(v));
  }
  return across;
}

/// Per processor face, the rank across it.
std::vector<int> processor_face_ranks(const Mesh& mesh) {
  std::vector<int> ranks;
  for (const Patch& patch : mesh.patches)
    if (patch.neighbour_rank >= 0) ranks.insert(ranks.end(), patch.size, patch.neighbour_rank);
  return ranks;
}

}  // namespace

/// The rings' graph while the constructor builds the stencils, and where it put the other ranks'
/// cells and faces it has met (their j), by key_of(rank, number).
struct LeastSquaresGradient::RingSearch {
  RingGraph graph;
  std::unordered_map<std::uint64_t, label> cell_slot, face_slot;
};

LeastSquaresGradient::LeastSquaresGradient(const Mesh& mesh, const MeshGeometry& g, ProcessorFaces* processor)
    : mesh_(mesh), geometry_(g), comm_(processor ? processor->communicator() : Communicator::serial()) {
  RingSearch search;
  link_cells(search, processor);
  if (comm_.distributed()) learn_remote_cells(search);
  fit_stencils(search);
  capped_cells_ = static_cast<label>(comm_.sum(static_cast<long long>(capped_cells_)));
  if (comm_.distributed()) plan_value_exchanges();
}

void LeastSquaresGradient::link_cells(RingSearch& search, ProcessorFaces* processor) {
  // --- neighbours across processor faces are the other rank's cells; boundary faces are neither
  //     those of empty patches (no values) nor processor faces (inside the whole mesh)
  const Mesh& mesh = mesh_;
  RingGraph& graph = search.graph;
  graph.n_cells = mesh.n_cells;
  graph.n_faces = mesh.n_faces();
  const std::vector<label> across = cells_across(mesh.n_cells, processor);
  const std::vector<int> processor_rank = processor_face_ranks(mesh);
  build_csr(mesh.n_cells, graph.neighbour_offsets, graph.neighbours, [&](auto add) {
    for (label f = 0; f < mesh.n_internal_faces(); ++f) {
      add(mesh.owner[f], mesh.neighbour[f]);
      add(mesh.neighbour[f], mesh.owner[f]);
    }
    for (std::size_t k = 0; k < across.size(); ++k) {
      const label f = processor->faces()[k];
      add(mesh.owner[f], graph_cell(search, processor_rank[k], across[k]));
    }
  });
  build_csr(mesh.n_cells, graph.boundary_offsets, graph.boundary_faces, [&](auto add) {
    for (const Patch& patch : mesh.patches)
      if (patch.type != "empty" && patch.neighbour_rank < 0)
        for (label f = patch.start; f < patch.start + patch.size; ++f) add(mesh.owner[f], f);
  });
}

void LeastSquaresGradient::learn_remote_cells(RingSearch& search) {
  const label n_cells = mesh_.n_cells;
  std::vector<label> pending(n_cells);
  std::iota(pending.begin(), pending.end(), 0);
  std::vector<label> stamp, cells;
  std::vector<std::size_t> rings;
  label mark = 0;  // one per stencil over every round: stamp is never reset
  for (;;) {
    std::vector<label> missing, undecided;
    stamp.resize(n_cells + remote_cells_.size(), -1);
    for (label p : pending)
      if (!stencil_rings(search.graph, p, stamp, mark++, cells, rings, &missing)) undecided.push_back(p);
    pending = std::move(undecided);
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    if (!comm_.any(!missing.empty())) return;
    fetch_remote_cells(search, missing);
  }
}

void LeastSquaresGradient::fetch_remote_cells(RingSearch& search, std::span<const label> missing) {
  // requests: the cells' numbers on their ranks; answers: describe_cells
  std::vector<std::vector<double>> ask(comm_.size());
  std::vector<std::vector<label>> asked(comm_.size());
  for (label c : missing) {
    const RemotePoint& r = remote_cells_[c - mesh_.n_cells];
    ask[r.rank].push_back(r.index);
    asked[r.rank].push_back(c);
  }
  const auto requests = comm_.all_to_all(ask);
  const auto answers = comm_.all_to_all(describe_cells(search, requests));
  for (int rank = 0; rank < comm_.size(); ++rank) read_descriptions(search, rank, asked[rank], answers[rank]);
}

std::vector<std::vector<double>> LeastSquaresGradient::describe_cells(
    const RingSearch& search, const std::vector<std::vector<double>>& requests) const {
  // per cell: centre, neighbours (rank, number), boundary faces (number, centre)
  const label n_cells = mesh_.n_cells;
  const int me = comm_.rank();
  std::vector<std::vector<double>> answer(comm_.size());
  for (int rank = 0; rank < comm_.size(); ++rank)
    for (double v : requests[rank]) {
      const auto c = static_cast<label>(v);
      auto& out = answer[rank];
      const Vec3& x = geometry_.cell_centres[c];
      out.insert(out.end(), {x.x, x.y, x.z});
      const auto nbs = search.graph.neighbours_of(c);
      out.push_back(static_cast<double>(nbs.size()));
      for (label n : nbs) {
        const RemotePoint where = n < n_cells ? RemotePoint{me, n, {}} : remote_cells_[n - n_cells];
        out.insert(out.end(), {static_cast<double>(where.rank), static_cast<double>(where.index)});
      }
      const auto fs = search.graph.faces_of(c);
      out.push_back(static_cast<double>(fs.size()));
      for (label f : fs) {
        const Vec3& y = geometry_.face_centres[f];
        out.insert(out.end(), {static_cast<double>(f), y.x, y.y, y.z});
      }
    }
  return answer;
}

void LeastSquaresGradient::read_descriptions(RingSearch& search, int rank, std::span<const label> asked,
                                             std::span<const double> in) {
  std::size_t at = 0;
  for (label c : asked) {
    const label slot = c - mesh_.n_cells;
    remote_cells_[slot].centre = {in[at], in[at + 1], in[at + 2]};
    at += 3;
    std::vector<label> nbs(static_cast<std::size_t>(in[at++]));
    for (label& n : nbs) {
      n = graph_cell(search, static_cast<int>(in[at]), static_cast<label>(in[at + 1]));
      at += 2;
    }
    std::vector<label> fs(static_cast<std::size_t>(in[at++]));
    for (label& f : fs) {
      const auto index = static_cast<label>(in[at]);
      const auto [it, added] =
          search.face_slot.try_emplace(key_of(rank, index), static_cast<label>(remote_faces_.size()));
      if (added) remote_faces_.push_back({rank, index, {in[at + 1], in[at + 2], in[at + 3]}});
      f = search.graph.n_faces + it->second;
      at += 4;
    }
    search.graph.remote[slot] = {true, std::move(nbs), std::move(fs)};
  }
}

label LeastSquaresGradient::graph_cell(RingSearch& search, int rank, label index) {
  if (rank == comm_.rank()) return index;
  const auto [at, added] =
      search.cell_slot.try_emplace(key_of(rank, index), static_cast<label>(remote_cells_.size()));
  if (added) {
    remote_cells_.push_back({rank, index, {}});
    search.graph.remote.emplace_back();
  }
  return mesh_.n_cells + at->second;
}

void LeastSquaresGradient::fit_stencils(const RingSearch& search) {
  const label n_cells = mesh_.n_cells;
  const auto& g = geometry_;
  auto cell_centre = [&](label c) { return c < n_cells ? g.cell_centres[c] : remote_cells_[c - n_cells].centre; };
  auto face_centre = [&](label f) {
    return f < search.graph.n_faces ? g.face_centres[f] : remote_faces_[f - search.graph.n_faces].centre;
  };
  std::vector<label> stamp(n_cells + remote_cells_.size(), -1);
  std::vector<label> cells, faces;
  std::vector<std::size_t> rings;
  StencilPoints points;
  std::vector<Vec3> offsets;
  scales_.resize(n_cells);
  inverses_.resize(n_cells);
  for (label p = 0; p < n_cells; ++p) {
    stencil_rings(search.graph, p, stamp, p, cells, rings);
    ring_points(search.graph, cells, rings, points);
    if (points.cap(stencil_cap_points)) ++capped_cells_;
    points.split(cells, faces);
    offsets.clear();
    for (label c : cells) offsets.push_back(cell_centre(c) - g.cell_centres[p]);
    for (label f : faces) offsets.push_back(face_centre(f) - g.cell_centres[p]);
    const double scale = stencil_scale(offsets);
    scales_[p] = scale;
    inverses_[p] = invert(normal_matrix(offsets, scale));
    stencil_cells_.insert(stencil_cells_.end(), cells.begin(), cells.end());
    stencil_faces_.insert(stencil_faces_.end(), faces.begin(), faces.end());
    cell_offsets_.push_back(static_cast<label>(stencil_cells_.size()));
    face_offsets_.push_back(static_cast<label>(stencil_faces_.size()));
  }
}

void LeastSquaresGradient::plan_value_exchanges() {
  // each rank lists the remote cells, then the remote faces, it needs of every other rank
  const int n_ranks = comm_.size();
  std::vector<std::vector<double>> ask(n_ranks);
  recv_cells_.assign(n_ranks, {});
  recv_faces_.assign(n_ranks, {});
  for (std::size_t j = 0; j < remote_cells_.size(); ++j)
    recv_cells_[remote_cells_[j].rank].push_back(static_cast<label>(j));
  for (std::size_t j = 0; j < remote_faces_.size(); ++j)
    recv_faces_[remote_faces_[j].rank].push_back(static_cast<label>(j));
  for (int rank = 0; rank < n_ranks; ++rank) {
    ask[rank].push_back(static_cast<double>(recv_cells_[rank].size()));
    for (label j : recv_cells_[rank]) ask[rank].push_back(remote_cells_[j].index);
    for (label j : recv_faces_[rank]) ask[rank].push_back(remote_faces_[j].index);
  }
  const auto requests = comm_.all_to_all(ask);
  send_cells_.assign(n_ranks, {});
  send_faces_.assign(n_ranks, {});
  for (int rank = 0; rank < n_ranks; ++rank) {
    const auto& in = requests[rank];
    const auto n = static_cast<std::size_t>(in[0]);
    for (std::size_t k = 1; k < in.size(); ++k)
      (k <= n ? send_cells_ : send_faces_)[rank].push_back(static_cast<label>(in[k]));
  }
}

std::size_t LeastSquaresGradient::largest_stencil() const {
  std::size_t most = 0;
  for (std::size_t c = 0; c + 1 < cell_offsets_.size(); ++c)
    most = std::max(most, static_cast<std::size_t>(cell_offsets_[c + 1] - cell_offsets_[c] + face_offsets_[c + 1] -
                                                   face_offsets_[c]));
  return most;
}

void LeastSquaresGradient::compute(const ScalarBoundary& boundary, std::span<const double> phi,
                                   std::span<Vec3> gradient, std::span<Hessian> hessian) const {
  const auto& g = geometry_;
  const label n_internal = mesh_.n_internal_faces();
  const label n_cells = mesh_.n_cells, n_faces = mesh_.n_faces();
  // --- the boundary faces' values
  std::vector<double> face_values(n_faces - n_internal);
  for (size_t p = 0; p < mesh_.patches.size(); ++p) {
    const PatchCondition& bc = boundary.patches[p];
    const Patch& patch = mesh_.patches[p];
    for (label i = 0; i < patch.size; ++i) {
      const label f = patch.start + i;
      face_values[f - n_internal] = bc.type == BoundaryType::fixed_value ? bc.values[i] : phi[mesh_.owner[f]];
    }
  }
  // --- other ranks' stencil cells and faces: each rank sends what the others asked for
  std::vector<double> remote_cell_values(remote_cells_.size()), remote_face_values(remote_faces_.size());
  if (comm_.distributed()) {
    std::vector<std::vector<double>> out(comm_.size());
    for (int rank = 0; rank < comm_.size(); ++rank) {
      for (label c : send_cells_[rank]) out[rank].push_back(phi[c]);
      for (label f : send_faces_[rank]) out[rank].push_back(face_values[f - n_internal]);
    }
    const auto in = comm_.all_to_all(out);
    for (int rank = 0; rank < comm_.size(); ++rank) {
      std::size_t at = 0;
      for (label j : recv_cells_[rank]) remote_cell_values[j] = in[rank][at++];
      for (label j : recv_faces_[rank]) remote_face_values[j] = in[rank][at++];
    }
  }
  for (label c = 0; c < n_cells; ++c) {
    // --- right-hand side sum_j w_j t_j (phi_j - phi_P), then the fit's terms
    const double scale = scales_[c];
    Terms rhs{};
    auto add = [&](const Vec3& x, double value) {
      const Vec3 d = (x - g.cell_centres[c]) / scale;
      const Terms t = quadratic_terms(d);
      const double w = weight(d) * (value - phi[c]);
      for (int i = 0; i < n_terms; ++i) rhs[i] += w * t[i];
    };
    for (label i = cell_offsets_[c]; i < cell_offsets_[c + 1]; ++i) {
      const label s = stencil_cells_[i];
      if (s < n_cells)
        add(g.cell_centres[s], phi[s]);
      else
        add(remote_cells_[s - n_cells].centre, remote_cell_values[s - n_cells]);
    }
    for (label i = face_offsets_[c]; i < face_offsets_[c + 1]; ++i) {
      const label f = stencil_faces_[i];
      if (f < n_faces)
        add(g.face_centres[f], face_values[f - n_internal]);
      else
        add(remote_faces_[f - n_faces].centre, remote_face_values[f - n_faces]);
    }
    Terms u{};
    for (int i = 0; i < n_terms; ++i)
      for (int j = 0; j < n_terms; ++j) u[i] += inverses_[c][packed(std::min(i, j), std::max(i, j))] * rhs[j];
    // --- back from units of scale
    gradient[c] = Vec3{u[0], u[1], u[2]} / scale;
    const double s2 = scale * scale;
    hessian[c].rows = {Vec3{u[3], u[6], u[7]} / s2, Vec3{u[6], u[4], u[8]} / s2, Vec3{u[7], u[8], u[5]} / s2};
  }
}

}  // namespace fvmmini
