#include "mesh/decomposition.hpp"

#include <metis.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "base/checked.hpp"

namespace fvmmini {

namespace {

std::vector<int> metis_parts(const Mesh& mesh, const DecompositionSettings& s) {
  const label n = mesh.n_cells;
  // --- the vertices: cells, or the groups given
  const bool grouped = !s.groups.empty();
  if (grouped && s.groups.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument(fmt::format("decomposition: {} cell groups for a mesh of {} cells", s.groups.size(), n));
  const auto vertex_of = [&](label c) { return grouped ? s.groups[c] : c; };
  label n_vertices = grouped ? 0 : n;
  for (label g : s.groups) {
    if (g < 0) throw std::invalid_argument("decomposition: a negative cell group");
    n_vertices = std::max(n_vertices, g + 1);
  }
  // --- the graph in CSR: an edge per pair of vertices that share faces, weighing their count
  //     (each vertex's faces bucketed, then sorted and merged within the bucket)
  std::vector<idx_t> xadj(static_cast<std::size_t>(n_vertices) + 1, 0);
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const label a = vertex_of(mesh.owner[f]), b = vertex_of(mesh.neighbour[f]);
    if (a == b) continue;
    ++xadj[a + 1];
    ++xadj[b + 1];
  }
  std::partial_sum(xadj.begin(), xadj.end(), xadj.begin());
  std::vector<idx_t> adjncy(static_cast<std::size_t>(xadj[n_vertices])), fill(xadj.begin(), xadj.end() - 1);
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const label a = vertex_of(mesh.owner[f]), b = vertex_of(mesh.neighbour[f]);
    if (a == b) continue;
    adjncy[fill[a]++] = b;
    adjncy[fill[b]++] = a;
  }
  std::vector<idx_t> adjwgt(adjncy.size(), 1);
  if (grouped) {
    idx_t kept = 0;
    for (label v = 0; v < n_vertices; ++v) {
      const idx_t begin = xadj[v], end = xadj[v + 1];
      std::sort(adjncy.begin() + begin, adjncy.begin() + end);
      xadj[v] = kept;
      for (idx_t k = begin; k < end; ++k) {
        if (k > begin && adjncy[k] == adjncy[k - 1]) {
          ++adjwgt[kept - 1];
          continue;
        }
        adjncy[kept] = adjncy[k];
        adjwgt[kept++] = 1;
      }
    }
    xadj[n_vertices] = kept;
    adjncy.resize(kept);
    adjwgt.resize(kept);
  }
  // --- a vertex's weight: its cells, or their rows' entries (the diagonal and one per face to
  //     another cell)
  std::vector<idx_t> vwgt(static_cast<std::size_t>(n_vertices), 0);
  for (label c = 0; c < n; ++c) ++vwgt[vertex_of(c)];
  if (s.weights == DecompositionWeights::row_entries)
    for (label f = 0; f < mesh.n_internal_faces(); ++f) {
      ++vwgt[vertex_of(mesh.owner[f])];
      ++vwgt[vertex_of(mesh.neighbour[f])];
    }
  idx_t nvtxs = n_vertices, ncon = 1, nparts = s.parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;
  if (grouped) options[METIS_OPTION_UFACTOR] = 5;  // 0.5 %: with groups of cells the default 3 % is reached
  std::vector<idx_t> vertex_part(static_cast<std::size_t>(n_vertices), 0);
  const int status = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                         adjwgt.data(), &nparts, nullptr, nullptr, options, &objval, vertex_part.data());
  if (status != METIS_OK)
    throw std::runtime_error(fmt::format("decomposition: METIS_PartGraphKway into {} parts failed (status {})", s.parts,
                                         status));
  std::vector<int> part(static_cast<std::size_t>(n));
  for (label c = 0; c < n; ++c) part[c] = static_cast<int>(vertex_part[vertex_of(c)]);
  return part;
}

/// The cells ordered by their centres' coordinate `axis`, ties kept in their order: std::stable_sort's
/// result, from (coordinate, cell) pairs side by side rather than a look-up into the centres per
/// comparison, each thread's chunk sorted and the chunks merged in pairs (std::merge keeps the
/// first range's element first among equals, so the order is the stable sort's).
void stable_sort_by_coordinate(std::span<label> cells, const MeshGeometry& geometry, int axis) {
  struct Keyed {
    double key;
    label cell;
  };
  const std::size_t n = cells.size();
  const int chunks = n < 65536 ? 1 : omp_get_max_threads();
  std::vector<Keyed> keyed(n), other(chunks > 1 ? n : 0);  // the merges' output: none for one chunk
  const auto less = [](const Keyed& a, const Keyed& b) { return a.key < b.key; };
  const auto at = [&](int i) { return n * static_cast<std::size_t>(std::min(i, chunks)) / static_cast<std::size_t>(chunks); };
#pragma omp parallel for schedule(static) num_threads(chunks)
  for (int i = 0; i < chunks; ++i) {
    for (std::size_t k = at(i); k < at(i + 1); ++k) keyed[k] = {geometry.cell_centres[cells[k]][axis], cells[k]};
    std::stable_sort(keyed.begin() + at(i), keyed.begin() + at(i + 1), less);
  }
  for (int width = 1; width < chunks; width *= 2) {
#pragma omp parallel for schedule(static) num_threads(chunks)
    for (int i = 0; i < chunks; i += 2 * width)
      std::merge(keyed.begin() + at(i), keyed.begin() + at(i + width), keyed.begin() + at(i + width),
                 keyed.begin() + at(i + 2 * width), other.begin() + at(i), less);
    keyed.swap(other);
  }
  for (std::size_t k = 0; k < n; ++k) cells[k] = keyed[k].cell;
}

/// cells[begin, end) cut into `count` groups of (nearly) equal size along axis `axis`, recursively.
void simple_split(std::span<label> cells, const MeshGeometry& geometry, const std::array<int, 3>& counts, int axis,
                  int first_part, std::vector<int>& part) {
  if (axis == 3) {
    for (label c : cells) part[c] = first_part;
    return;
  }
  const int count = counts[axis];
  if (count > 1) stable_sort_by_coordinate(cells, geometry, axis);  // one part along this axis: its order does not matter
  int stride = 1;
  for (int later = axis + 1; later < 3; ++later) stride *= counts[later];
  const std::size_t n = cells.size();
  for (int g = 0; g < count; ++g) {
    const std::size_t begin = n * g / count, end = n * (g + 1) / count;
    simple_split(cells.subspan(begin, end - begin), geometry, counts, axis + 1, first_part + g * stride, part);
  }
}

}  // namespace

std::string processor_patch_name(int part, int other) { return fmt::format("procBoundary{}to{}", part, other); }

std::vector<int> decompose_cells(const Mesh& mesh, const MeshGeometry& geometry, const DecompositionSettings& s) {
  if (s.parts < 1) throw std::invalid_argument(fmt::format("decomposition: {} parts (at least 1)", s.parts));
  if (s.parts > mesh.n_cells)
    throw std::invalid_argument(fmt::format("decomposition: {} parts for a mesh of {} cells (at most one part per cell)",
                                            s.parts, mesh.n_cells));
  std::vector<int> part(static_cast<std::size_t>(mesh.n_cells), 0);
  if (s.parts > 1 && s.method == DecompositionMethod::metis) {
    part = metis_parts(mesh, s);
  } else if (s.parts > 1) {
    const auto& n = s.simple_parts;
    if (n[0] < 1 || n[1] < 1 || n[2] < 1)
      throw std::invalid_argument(fmt::format("decomposition: simple split ({} {} {}) has a count below 1", n[0], n[1],
                                              n[2]));
    // the product in checked arithmetic: a wrapped int matching `parts` would send cells to parts past the last
    try {
      const std::string what = fmt::format("decomposition: the simple split ({} {} {})", n[0], n[1], n[2]);
      if (checked_product(checked_product(n[0], n[1], what), n[2], what) != s.parts)
        throw std::invalid_argument(fmt::format("decomposition: simple split ({} {} {}) is not {} parts", n[0], n[1],
                                                n[2], s.parts));
    } catch (const CountOverflow& e) {
      throw std::invalid_argument(std::string(e.what()) + ", not " + std::to_string(s.parts) + " parts");
    }
    std::vector<label> cells(static_cast<std::size_t>(mesh.n_cells));
    std::iota(cells.begin(), cells.end(), 0);
    simple_split(cells, geometry, n, 0, 0, part);
  }
  std::vector<label> count(static_cast<std::size_t>(s.parts), 0);
  for (int p : part) ++count[p];
  for (int p = 0; p < s.parts; ++p)
    if (count[p] == 0)
      throw std::invalid_argument(fmt::format("decomposition: part {} of {} has no cells", p, s.parts));
  return part;
}

DecompositionFigures decomposition_figures(const Mesh& mesh, std::span<const int> cell_part, int parts) {
  DecompositionFigures d;
  d.cells.assign(static_cast<std::size_t>(parts), 0);
  d.processor_faces.assign(d.cells.size(), 0);
  d.entries.assign(d.cells.size(), 0);
  std::vector<std::vector<bool>> touches(d.cells.size(), std::vector<bool>(d.cells.size(), false));
  for (int p : cell_part) {
    ++d.cells[p];
    ++d.entries[p];
  }
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const int a = cell_part[mesh.owner[f]], b = cell_part[mesh.neighbour[f]];
    ++d.entries[a];
    ++d.entries[b];
    if (a == b) continue;
    ++d.processor_faces[a];
    ++d.processor_faces[b];
    touches[a][b] = touches[b][a] = true;
  }
  for (const auto& row : touches) d.neighbours.push_back(static_cast<int>(std::count(row.begin(), row.end(), true)));
  const double mean = static_cast<double>(mesh.n_cells) / parts;
  d.imbalance = mean > 0 ? *std::max_element(d.cells.begin(), d.cells.end()) / mean - 1.0 : 0.0;
  const double mean_entries = (static_cast<double>(mesh.n_cells) + 2.0 * mesh.n_internal_faces()) / parts;
  d.entry_imbalance = static_cast<double>(*std::max_element(d.entries.begin(), d.entries.end())) / mean_entries - 1.0;
  return d;
}

LocalMesh extract_local_mesh(const Mesh& mesh, std::span<const int> cell_part, int part) {
  LocalMesh local;
  Mesh& m = local.mesh;
  std::vector<label> local_cell(static_cast<std::size_t>(mesh.n_cells), -1);
  for (label c = 0; c < mesh.n_cells; ++c)
    if (cell_part[c] == part) {
      local_cell[c] = static_cast<label>(local.global_cell.size());
      local.global_cell.push_back(c);
    }
  m.n_cells = static_cast<label>(local.global_cell.size());
  m.description = fmt::format("{} (part {})", mesh.description, part);
  // --- room for about this part's share of the whole (and a margin for its shared faces), so
  //     that the arrays do not grow by copying
  const double share = mesh.n_cells > 0 ? 1.05 * m.n_cells / mesh.n_cells : 0.0;
  const auto about = [&](std::size_t whole) { return static_cast<std::size_t>(share * static_cast<double>(whole)) + 1024; };
  m.points.reserve(about(mesh.points.size()));
  m.face_offsets.reserve(about(mesh.face_offsets.size()));
  m.face_vertices.reserve(about(mesh.face_vertices.size()));
  m.owner.reserve(about(mesh.owner.size()));
  m.neighbour.reserve(about(mesh.neighbour.size()));
  local.global_face.reserve(about(mesh.owner.size()));

  std::vector<label> local_point(mesh.points.size(), -1);
  std::vector<label> loop;
  // appends face f of the whole mesh with local owner `owner`, its vertices reversed if asked
  auto add = [&](label f, label owner, bool reverse) {
    const auto vertices = mesh.face(f);
    loop.assign(vertices.begin(), vertices.end());
    if (reverse) std::reverse(loop.begin(), loop.end());
    for (label& v : loop) {
      if (local_point[v] < 0) {
        local_point[v] = m.n_points();
        m.points.push_back(mesh.points[v]);
      }
      v = local_point[v];
    }
    m.add_face(loop, owner);
    local.global_face.push_back(f);
  };

  // --- internal faces between two of its cells: the whole mesh's order is upper-triangular in
  //     the local numbering too (it keeps the cells' order); shared faces by neighbouring part
  std::map<int, std::vector<label>> shared;
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const int a = cell_part[mesh.owner[f]], b = cell_part[mesh.neighbour[f]];
    if (a == part && b == part) {
      add(f, local_cell[mesh.owner[f]], false);
      m.neighbour.push_back(local_cell[mesh.neighbour[f]]);
    } else if (a == part) {
      shared[b].push_back(f);
    } else if (b == part) {
      shared[a].push_back(f);
    }
  }
  // --- a processor patch per neighbouring part, pointing out of this part, right after the
  //     internal faces
  for (const auto& [other, faces] : shared) {
    Patch p{processor_patch_name(part, other), "processor", m.n_faces(), static_cast<label>(faces.size()), other};
    for (label f : faces) {
      const bool owned = cell_part[mesh.owner[f]] == part;
      add(f, local_cell[owned ? mesh.owner[f] : mesh.neighbour[f]], !owned);
    }
    m.patches.push_back(std::move(p));
  }
  // --- every patch of the whole mesh, with the faces of this part's cells
  for (const Patch& patch : mesh.patches) {
    Patch p = patch;
    p.start = m.n_faces();
    for (label f = patch.start; f < patch.start + patch.size; ++f)
      if (cell_part[mesh.owner[f]] == part) add(f, local_cell[mesh.owner[f]], false);
    p.size = m.n_faces() - p.start;
    m.patches.push_back(std::move(p));
  }
  return local;
}

}  // namespace fvmmini

namespace fvmmini {

namespace {

/// Appends plain values and arrays to a byte buffer; Reader takes them back in the same order.
class Writer {
 public:
  template <class T>
  void value(const T& v) {
    append(&v, sizeof(T));
  }
  template <class T, class Allocator>
  void array(const std::vector<T, Allocator>& v) {
    value(static_cast<std::uint64_t>(v.size()));
    append(v.data(), v.size() * sizeof(T));
  }
  void text(const std::string& s) { array(std::vector<char>(s.begin(), s.end())); }
  std::vector<std::byte> bytes;

 private:
  // resize and copy rather than insert a byte range: GCC 12 takes the latter for an overflow
  void append(const void* data, std::size_t size) {
    const std::size_t at = bytes.size();
    bytes.resize(at + size);
    if (size > 0) std::memcpy(bytes.data() + at, data, size);
  }
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  template <class T>
  T value() {
    T v;
    take(&v, sizeof(T));
    return v;
  }
  template <class T, class Vector = std::vector<T>>
  Vector array() {
    const auto n = value<std::uint64_t>();
    if (n > (bytes_.size() - at_) / sizeof(T)) throw std::runtime_error("a packed mesh part is cut short");
    Vector v(static_cast<std::size_t>(n));
    take(v.data(), v.size() * sizeof(T));
    return v;
  }
  std::string text() {
    const auto chars = array<char>();
    return {chars.begin(), chars.end()};
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  void take(void* to, std::size_t n) {
    if (n > bytes_.size() - at_) throw std::runtime_error("a packed mesh part is cut short");
    std::memcpy(to, bytes_.data() + at_, n);
    at_ += n;
  }
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

constexpr std::uint32_t part_magic = 0x66766d70;  // "fvmp"

}  // namespace

std::vector<std::byte> pack_local_mesh(const LocalMesh& local) {
  const Mesh& m = local.mesh;
  Writer w;
  // the arrays' bytes at once: growing a buffer of hundreds of MB by doubling copies it repeatedly
  w.bytes.reserve(4096 + m.points.size() * sizeof(Vec3) +
                  (m.face_offsets.size() + m.face_vertices.size() + m.owner.size() + m.neighbour.size() +
                   local.global_cell.size() + local.global_face.size()) * sizeof(label));
  w.value(part_magic);
  w.array(m.points);
  w.array(m.face_offsets);
  w.array(m.face_vertices);
  w.array(m.owner);
  w.array(m.neighbour);
  w.value(m.n_cells);
  w.text(m.description);
  w.value(static_cast<std::uint64_t>(m.patches.size()));
  for (const Patch& p : m.patches) {
    w.text(p.name);
    w.text(p.type);
    w.value(p.start);
    w.value(p.size);
    w.value(p.neighbour_rank);
  }
  w.array(local.global_cell);
  w.array(local.global_face);
  return std::move(w.bytes);
}

LocalMesh unpack_local_mesh(std::span<const std::byte> bytes) {
  Reader r(bytes);
  if (r.value<std::uint32_t>() != part_magic) throw std::runtime_error("not a packed mesh part");
  LocalMesh local;
  Mesh& m = local.mesh;
  m.points = r.array<Vec3, UnfilledVector<Vec3>>();
  m.face_offsets = r.array<label, UnfilledVector<label>>();
  m.face_vertices = r.array<label, UnfilledVector<label>>();
  m.owner = r.array<label, UnfilledVector<label>>();
  m.neighbour = r.array<label, UnfilledVector<label>>();
  m.n_cells = r.value<label>();
  m.description = r.text();
  const auto patches = r.value<std::uint64_t>();
  for (std::uint64_t i = 0; i < patches; ++i) {
    Patch p;
    p.name = r.text();
    p.type = r.text();
    p.start = r.value<label>();
    p.size = r.value<label>();
    p.neighbour_rank = r.value<int>();
    m.patches.push_back(std::move(p));
  }
  local.global_cell = r.array<label>();
  local.global_face = r.array<label>();
  if (!r.done()) throw std::runtime_error("a packed mesh part has bytes left over");
  return local;
}

namespace {

/// The most parts the root extracts at once: each holds scratch of the whole mesh's size (4 bytes
/// a cell and a point: 0.25 GB on 31.6 M cells) until its part is packed.
constexpr int parts_at_once = 8;

}  // namespace

DistributedMesh distribute_mesh(const Mesh* whole, const MeshGeometry* geometry, const DecompositionSettings& settings,
                                const Communicator& comm) {
  DistributedMesh result;
  // --- the root decomposes; its error, if any, goes to every rank first
  std::vector<int> part;
  std::string failure;
  if (comm.is_root()) {
    try {
      if (!whole || !geometry) throw std::logic_error("distribute_mesh: the root has no mesh");
      DecompositionSettings s = settings;
      s.parts = comm.size();
      part = decompose_cells(*whole, *geometry, s);
      result.figures = decomposition_figures(*whole, part, comm.size());
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  comm.broadcast(failure);
  if (!failure.empty()) throw std::invalid_argument(failure);

  // --- each rank's part from the root, as many extracted at once as it has threads up to
  //     parts_at_once (each a pass over the whole mesh with two scratch arrays of its cells and
  //     points; at most that many packed parts held); the figures to all
  if (comm.is_root()) {
    const int ranks = comm.size(), threads = std::clamp(omp_get_max_threads(), 1, parts_at_once);
    for (int first = 0; first < ranks; first += threads) {
      const int batch = std::min(threads, ranks - first);
      std::vector<std::vector<std::byte>> packed(static_cast<std::size_t>(batch));
      std::exception_ptr failed;
#pragma omp parallel for schedule(dynamic, 1) num_threads(batch)
      for (int b = 0; b < batch; ++b) {
        try {
          LocalMesh local = extract_local_mesh(*whole, part, first + b);
          if (first + b == 0)
            result.local = std::move(local);
          else
            packed[b] = pack_local_mesh(local);
        } catch (...) {
#pragma omp critical(fvmmini_extract_failure)
          failed = std::current_exception();
        }
      }
      if (failed) std::rethrow_exception(failed);
      for (int b = 0; b < batch; ++b)
        if (first + b > 0) comm.send(first + b, packed[b]);
    }
  } else {
    result.local = unpack_local_mesh(comm.receive(0));
  }
  Writer w;
  w.array(result.figures.cells);
  w.array(result.figures.processor_faces);
  w.array(result.figures.neighbours);
  w.value(result.figures.imbalance);
  w.array(result.figures.entries);
  w.value(result.figures.entry_imbalance);
  comm.broadcast(w.bytes);
  Reader r(w.bytes);
  result.figures.cells = r.array<label>();
  result.figures.processor_faces = r.array<label>();
  result.figures.neighbours = r.array<int>();
  result.figures.imbalance = r.value<double>();
  result.figures.entries = r.array<long long>();
  result.figures.entry_imbalance = r.value<double>();
  return result;
}

}  // namespace fvmmini
