#include "mesh/gmsh_reader.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <new>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "base/checked.hpp"
#include "base/printable.hpp"
#include "mesh/mesh_assembly.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/mesh_size.hpp"
#include "mesh/text_reader.hpp"

namespace fvmmini {

namespace {

/// Gmsh element types this reader knows (first order; 0-D and 1-D ones are skipped).
struct ElementType {
  int nodes = 0;
  int dim = 0;
};

/// The node count and dimension of a Gmsh element type, or nodes = 0 when unsupported.
ElementType element_type(std::int64_t type) {
  switch (type) {
    case 15: return {1, 0};  // point
    case 1: return {2, 1};   // line
    case 2: return {3, 2};   // triangle
    case 3: return {4, 2};   // quadrangle
    case 4: return {4, 3};   // tetrahedron
    case 5: return {8, 3};   // hexahedron
    case 6: return {6, 3};   // prism
    case 7: return {5, 3};   // pyramid
    default: return {0, 0};
  }
}

bool is_second_order(std::int64_t type) { return (type >= 8 && type <= 14) || (type >= 16 && type <= 19); }

/// Local faces of each 3-D type, ordered so that the right-hand normal points out of a
/// positively oriented element of Gmsh's reference numbering (-1 ends a triangle).
using LocalFace = std::array<int, 4>;
const std::vector<LocalFace>& local_faces(std::int64_t type) {
  static const std::vector<LocalFace> tet{{0, 2, 1, -1}, {0, 1, 3, -1}, {0, 3, 2, -1}, {1, 2, 3, -1}};
  static const std::vector<LocalFace> hex{{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};
  static const std::vector<LocalFace> prism{{0, 2, 1, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {0, 3, 5, 2}};
  static const std::vector<LocalFace> pyramid{{0, 3, 2, 1}, {0, 1, 4, -1}, {1, 2, 4, -1}, {2, 3, 4, -1}, {3, 0, 4, -1}};
  switch (type) {
    case 4: return tet;
    case 5: return hex;
    case 6: return prism;
    default: return pyramid;
  }
}

/// A face's vertices sorted, padded with -1: equal keys mean the same face.
using FaceKey = std::array<label, 4>;
struct FaceKeyHash {
  size_t operator()(const FaceKey& k) const {
    size_t h = 1469598103934665603ull;
    for (label v : k) h = (h ^ static_cast<size_t>(static_cast<std::uint32_t>(v))) * 1099511628211ull;
    return h;
  }
};
FaceKey make_key(const label* vertices, int n) {
  FaceKey key{-1, -1, -1, -1};
  // --- insertion sort of at most four entries
  for (int i = 0; i < n; ++i) {
    label v = vertices[i];
    int j = i;
    for (; j > 0 && key[j - 1] > v; --j) key[j] = key[j - 1];
    key[j] = v;
  }
  return key;
}

/// A 3-D element, or a 2-D one in a physical group, as read: its nodes already indices into
/// GmshData::nodes (64 bytes; the node tags of a file are 64-bit, and were 96 bytes an element).
struct RawElement {
  std::int64_t tag = 0;
  std::int64_t physical = 0;  ///< 0 when in no physical group
  long line = 0;
  std::array<label, 8> nodes{};
  std::int32_t type = 0;
};

/// What the reader holds per node while it reads: the coordinates and the node's entry in the
/// tag -> index map (a hash node of 32 bytes as malloc hands it out, and about 16 bytes of
/// buckets), with the coordinates' growth.
constexpr std::uint64_t reader_bytes_per_node = 2 * sizeof(Vec3) + 48;
/// What the reader holds per element while it reads: a RawElement, up to three of them while
/// its vector grows (the old block and the new one, twice as large).
constexpr std::uint64_t reader_bytes_per_element = 3 * sizeof(RawElement);
/// What building the faces holds per 3-D element beyond the elements and points, measured on
/// tetrahedra (4 faces, about 2 unique): the face map (a 48-byte hash node per unique face and
/// 8-byte buckets for 4 per element), the face list (offsets, vertices, owner, neighbour and patch
/// per face, with growth), and assembly's sorted copies.
constexpr std::uint64_t face_building_bytes_per_face = 48 + 8 + 2 * (4 + 4 * 4 + 12) + 40;

struct PhysicalName {
  std::string name;
  long line = 0;
};

struct GmshData {
  double version = 0.0;
  std::string version_text;  ///< as $MeshFormat writes it
  long version_line = 0;
  std::map<std::pair<int, std::int64_t>, PhysicalName> physical_names;  ///< (dim, tag) -> name
  std::map<std::pair<int, std::int64_t>, std::int64_t> entity_physical;  ///< (dim, entity) -> first physical tag
  std::unordered_map<std::int64_t, label> node_index;
  std::vector<Vec3> nodes;
  std::vector<RawElement> volumes;
  std::vector<RawElement> surfaces;
};

void read_mesh_format(Tokenizer& t, GmshData& data) {
  const auto version = t.next();
  const long line = version.line;
  const std::string text(version.text);
  if (text == "4.1") data.version = 4.1;
  else if (text == "2.2" || text == "2.1" || text == "2")
    data.version = 2.2;
  else
    t.fail(line, "MSH version " + printable(text) + " is not supported (save as MSH 4.1 or 2.2)");
  data.version_text = text;
  data.version_line = line;
  const std::int64_t file_type = t.next_int64();
  if (file_type != 0) t.fail(line, "binary MSH is not supported (save as ASCII)");
  t.next_int64();  // data size
  t.expect("$EndMeshFormat");
}

/// Fail with "the version does not match the body": `section`'s first line, which starts at
/// `line`, has the shape of the other MSH version (one count in 2.2, four numbers in 4.1).
[[noreturn]] void version_mismatch(const Tokenizer& t, const GmshData& data, const std::string& section, long line) {
  const bool v4 = data.version > 4.0;
  t.fail(line, section + " starts with " + (v4 ? "one number, as in MSH 2.2," : "several numbers, as in MSH 4.1,") +
                   " but $MeshFormat on line " + std::to_string(data.version_line) + " says version " + data.version_text +
                   ": the version does not match the body");
}

/// MSH 4.1 section headers are four numbers on one line; fail at `line` when the next is not there.
void expect_on_header_line(Tokenizer& t, const GmshData& data, const std::string& section, long line) {
  if (t.at_end() || t.line() != line) version_mismatch(t, data, section, line);
}

/// The first line of a MSH 4.1 $Nodes or $Elements section: the block count, the item count,
/// the smallest and the largest tag, all on one line; both counts checked against the file.
struct Header41 {
  long line = 0;
  std::int64_t n_blocks = 0;
  std::int64_t n_items = 0;
};
Header41 read_header_41(Tokenizer& t, const GmshData& data, const std::string& section, const char* blocks,
                        const char* items, std::int64_t item_bytes) {
  Header41 header;
  header.line = t.line();
  header.n_blocks = t.next_count(blocks, 8);
  expect_on_header_line(t, data, section, header.line);
  header.n_items = t.next_count(items, item_bytes);
  for (int k = 0; k < 2; ++k) {
    expect_on_header_line(t, data, section, header.line);
    t.next_int64();  // smallest and largest tag
  }
  return header;
}

/// MSH 2.2 section headers are one count on its own line; fail at `line` when more follows it.
void expect_header_line_ends(Tokenizer& t, const GmshData& data, const std::string& section, long line) {
  if (!t.at_end() && t.line() == line) version_mismatch(t, data, section, line);
}

/// Throw at `line` when a mesh of `counts` cannot be used here (mesh_size.hpp), before anything is sized by them.
void require_mesh_size(const Tokenizer& t, long line, const MeshCounts& counts) {
  const std::string problem = mesh_size_problem(counts);
  if (!problem.empty()) t.fail(line, problem);
}

/// Throw at `line` when `bytes` for `what` cannot be had under the memory limit.
void require_memory(const Tokenizer& t, long line, std::uint64_t bytes, const std::string& what) {
  const std::string problem = memory_problem(bytes, what);
  if (!problem.empty()) t.fail(line, problem);
}

/// The bytes the reader holds for the nodes read so far, with the text.
std::uint64_t held_bytes(const GmshData& data, std::uint64_t text_bytes) {
  return text_bytes + data.nodes.capacity() * sizeof(Vec3) +
         data.node_index.size() * (reader_bytes_per_node - 2 * sizeof(Vec3)) +
         (data.volumes.capacity() + data.surfaces.capacity()) * sizeof(RawElement);
}

void read_physical_names(Tokenizer& t, GmshData& data) {
  const std::int64_t n = t.next_count("physical names", 6);
  std::map<std::string, long, std::less<>> surface_names;  // a patch's name, given once
  for (std::int64_t i = 0; i < n; ++i) {
    const long line = t.line();
    const int dim = static_cast<int>(t.next_int64());
    const std::int64_t tag = t.next_int64();
    const std::string name(t.next().text);
    const auto [named, inserted] = data.physical_names.try_emplace({dim, tag}, PhysicalName{name, line});
    if (!inserted)
      t.fail(line, fmt::format("physical group {} of dimension {} is named twice ('{}', and '{}' on line {})", tag, dim,
                               printable(name), printable(named->second.name), named->second.line));
    if (dim != 2) continue;
    if (const auto [first, fresh] = surface_names.try_emplace(name, line); !fresh)
      t.fail(line, fmt::format("physical surface name '{}' is given twice (first on line {}): two patches cannot "
                               "share a name",
                               printable(name), first->second));
  }
  t.expect("$EndPhysicalNames");
}

void read_entities(Tokenizer& t, GmshData& data) {
  std::int64_t counts[4];
  for (auto& c : counts) c = t.next_count("entities", 10);
  for (int dim = 0; dim < 4; ++dim)
    for (std::int64_t i = 0; i < counts[dim]; ++i) {
      const std::int64_t tag = t.next_int64();
      for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) t.next_double();
      const std::int64_t n_physical = t.next_count("physical tags", 2);
      for (std::int64_t k = 0; k < n_physical; ++k) {
        const std::int64_t physical = t.next_int64();
        if (k == 0) data.entity_physical[{dim, tag}] = physical;
      }
      if (dim > 0) {
        const std::int64_t n_bounding = t.next_count("bounding entities", 2);
        for (std::int64_t k = 0; k < n_bounding; ++k) t.next_int64();
      }
    }
  t.expect("$EndEntities");
}

void add_node(Tokenizer& t, GmshData& data, std::int64_t tag, long line, const Vec3& x) {
  if (!data.node_index.emplace(tag, static_cast<label>(data.nodes.size())).second)
    t.fail(line, "node " + std::to_string(tag) + " is defined twice");
  data.nodes.push_back(x);
}

/// The nodes of a $Nodes section of `n` nodes must fit, as a mesh and in the reader, before they are read.
void require_nodes_fit(const Tokenizer& t, long line, const GmshData& data, std::int64_t n, std::uint64_t text_bytes) {
  const std::int64_t total = checked_sum(static_cast<std::int64_t>(data.nodes.size()), n, "nodes");
  require_mesh_size(t, line, {.points = total});
  require_memory(t, line,
                 held_bytes(data, text_bytes) + checked_product<std::uint64_t>(n, reader_bytes_per_node, "nodes"),
                 "reading " + std::to_string(n) + " nodes (" + std::to_string(reader_bytes_per_node) +
                     " bytes each in the reader, with the file's text)");
}

void read_nodes(Tokenizer& t, GmshData& data, std::uint64_t text_bytes) {
  if (data.version > 4.0) {
    // --- 4.1: blocks of tags then coordinates (with parametric coordinates when flagged)
    const auto [header_line, n_blocks, n_nodes] = read_header_41(t, data, "$Nodes", "node blocks", "nodes", 8);
    require_nodes_fit(t, header_line, data, n_nodes, text_bytes);
    data.nodes.reserve(data.nodes.size() + static_cast<size_t>(n_nodes));
    data.node_index.reserve(data.node_index.size() + static_cast<size_t>(n_nodes));
    std::int64_t total = 0;
    std::vector<std::pair<std::int64_t, long>> tags;
    for (std::int64_t b = 0; b < n_blocks; ++b) {
      const int dim = static_cast<int>(t.next_int64());
      t.next_int64();
      const std::int64_t parametric = t.next_int64();
      const std::int64_t n = t.next_count("nodes", 8);
      tags.clear();
      for (std::int64_t i = 0; i < n; ++i) {
        const long line = t.line();
        tags.emplace_back(t.next_int64(), line);
      }
      for (std::int64_t i = 0; i < n; ++i) {
        Vec3 x;
        x.x = t.next_double();
        x.y = t.next_double();
        x.z = t.next_double();
        for (int k = 0; k < (parametric ? dim : 0); ++k) t.next_double();
        add_node(t, data, tags[i].first, tags[i].second, x);
      }
      total += n;
    }
    if (total != n_nodes) t.fail(t.line(), "$Nodes announces " + std::to_string(n_nodes) + " nodes but has " + std::to_string(total));
  } else {
    // --- 2.2: one "tag x y z" line per node
    const long header_line = t.line();
    const std::int64_t n = t.next_count("nodes", 8);
    expect_header_line_ends(t, data, "$Nodes", header_line);
    require_nodes_fit(t, header_line, data, n, text_bytes);
    data.nodes.reserve(data.nodes.size() + static_cast<size_t>(n));
    data.node_index.reserve(data.node_index.size() + static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const long line = t.line();
      if (t.peek().text == "$EndNodes") t.fail(line, "$Nodes ends after " + std::to_string(i) + " of " + std::to_string(n) + " nodes");
      const std::int64_t tag = t.next_int64();
      Vec3 x;
      x.x = t.next_double();
      x.y = t.next_double();
      x.z = t.next_double();
      add_node(t, data, tag, line, x);
    }
  }
  if (t.peek().text != "$EndNodes")
    t.fail(t.line(), "expected $EndNodes but found '" + printable(t.peek().text) + "' (wrong node count?)");
  t.next();
}

/// Check an element type; fail with the file line when it is not one this reader handles.
ElementType checked_type(Tokenizer& t, std::int64_t type, long line) {
  const ElementType et = element_type(type);
  if (et.nodes > 0) return et;
  if (is_second_order(type)) t.fail(line, "element type " + std::to_string(type) + " is second order; only first-order elements are supported");
  t.fail(line, "unknown or unsupported element type " + std::to_string(type));
}

/// Keep a 3-D element, or a 2-D one in a physical group (the others make no face nor patch),
/// its node tags (`tags`) turned into node indices.
void store_element(const Tokenizer& t, GmshData& data, RawElement&& e, int dim, const std::array<std::int64_t, 8>& tags,
                   int n_nodes) {
  if (dim != 3 && (dim != 2 || e.physical == 0)) return;
  for (int k = 0; k < n_nodes; ++k) {
    const auto it = data.node_index.find(tags[k]);
    if (it == data.node_index.end())
      t.fail(e.line, "element " + std::to_string(e.tag) + " uses undefined node " + std::to_string(tags[k]));
    e.nodes[k] = it->second;
  }
  (dim == 3 ? data.volumes : data.surfaces).push_back(std::move(e));
}

/// The elements of an $Elements section of `n` elements must fit, as a mesh of that many cells
/// and in the reader (what it holds per element, and per node, with the text), before they are read.
void require_elements_fit(const Tokenizer& t, long line, const GmshData& data, std::int64_t n,
                          std::uint64_t text_bytes) {
  require_mesh_size(t, line, {.points = static_cast<std::int64_t>(data.nodes.size()), .cells = n});
  require_memory(t, line,
                 held_bytes(data, text_bytes) + checked_product<std::uint64_t>(n, reader_bytes_per_element, "elements"),
                 "reading " + std::to_string(n) + " elements (" + std::to_string(reader_bytes_per_element) +
                     " bytes each in the reader, with the file's text and nodes)");
}

void read_elements(Tokenizer& t, GmshData& data, std::uint64_t text_bytes) {
  std::array<std::int64_t, 8> tags{};
  if (data.version > 4.0) {
    // --- 4.1: blocks of one entity and one type; the physical group comes from the entity
    const auto [header_line, n_blocks, n_elements] = read_header_41(t, data, "$Elements", "element blocks", "elements", 4);
    require_elements_fit(t, header_line, data, n_elements, text_bytes);
    std::int64_t total = 0;
    for (std::int64_t b = 0; b < n_blocks; ++b) {
      const long block_line = t.line();
      const int dim = static_cast<int>(t.next_int64());
      const std::int64_t entity = t.next_int64();
      const std::int64_t type = t.next_int64();
      const std::int64_t n = t.next_count("elements", 4);
      const ElementType et = checked_type(t, type, block_line);
      if (et.dim != dim) t.fail(block_line, "element type " + std::to_string(type) + " in a block of dimension " + std::to_string(dim));
      const auto physical = data.entity_physical.find({dim, entity});
      for (std::int64_t i = 0; i < n; ++i) {
        RawElement e;
        e.line = t.line();
        if (t.peek().text.front() == '$')
          t.fail(e.line, "element block ends after " + std::to_string(i) + " of " + std::to_string(n) + " elements");
        e.tag = t.next_int64();
        e.type = static_cast<std::int32_t>(type);
        e.physical = physical != data.entity_physical.end() ? physical->second : 0;
        for (int k = 0; k < et.nodes; ++k) {
          if (t.line() != e.line) t.fail(e.line, "element " + std::to_string(e.tag) + " has fewer than " + std::to_string(et.nodes) + " nodes");
          tags[k] = t.next_int64();
        }
        store_element(t, data, std::move(e), dim, tags, et.nodes);
      }
      total += n;
    }
    if (total != n_elements)
      t.fail(t.line(), "$Elements announces " + std::to_string(n_elements) + " elements but has " + std::to_string(total));
  } else {
    // --- 2.2: "tag type n_tags physical elementary ... nodes" per line
    const long header_line = t.line();
    const std::int64_t n = t.next_count("elements", 8);
    expect_header_line_ends(t, data, "$Elements", header_line);
    require_elements_fit(t, header_line, data, n, text_bytes);
    for (std::int64_t i = 0; i < n; ++i) {
      RawElement e;
      e.line = t.line();
      if (t.peek().text == "$EndElements")
        t.fail(e.line, "$Elements ends after " + std::to_string(i) + " of " + std::to_string(n) + " elements");
      e.tag = t.next_int64();
      const std::int64_t type = t.next_int64();
      const ElementType et = checked_type(t, type, e.line);
      e.type = static_cast<std::int32_t>(type);
      const std::int64_t n_tags = t.next_count("tags", 2);
      for (std::int64_t k = 0; k < n_tags; ++k) {
        const std::int64_t value = t.next_int64();
        if (k == 0) e.physical = value;
      }
      for (int k = 0; k < et.nodes; ++k) {
        if (t.line() != e.line) t.fail(e.line, "element " + std::to_string(e.tag) + " has fewer than " + std::to_string(et.nodes) + " nodes");
        tags[k] = t.next_int64();
      }
      store_element(t, data, std::move(e), et.dim, tags, et.nodes);
    }
  }
  if (t.peek().text != "$EndElements")
    t.fail(t.line(), "expected $EndElements but found '" + printable(t.peek().text) + "' (wrong element count?)");
  t.next();
}

/// Skip an unknown section up to its $End marker.
void skip_section(Tokenizer& t, const std::string& name, long line) {
  const std::string end = "$End" + name.substr(1);
  while (!t.at_end())
    if (t.next().text == end) return;
  t.fail(line, "section " + printable(name) + " has no " + printable(end));
}

/// Signed volume of an element from its outward faces: V = 1/3 sum_f (x_f - x_0) . S_f.
double element_volume(std::span<const Vec3> points, const label* nodes, const std::vector<LocalFace>& faces) {
  double volume = 0.0;
  const Vec3& origin = points[nodes[0]];
  for (const auto& lf : faces) {
    const int n = lf[3] < 0 ? 3 : 4;
    Vec3 centre;
    for (int k = 0; k < n; ++k) centre += points[nodes[lf[k]]];
    centre /= n;
    const Vec3 area = n == 3 ? 0.5 * cross(points[nodes[lf[1]]] - points[nodes[lf[0]]], points[nodes[lf[2]]] - points[nodes[lf[0]]])
                             : 0.5 * cross(points[nodes[lf[2]]] - points[nodes[lf[0]]], points[nodes[lf[3]]] - points[nodes[lf[1]]]);
    volume += dot(centre - origin, area) / 3.0;
  }
  return volume;
}

std::string patch_type_for(const std::string& name) {
  return name == "frontAndBack" || name == "frontAndBackPlanes" ? "empty" : "patch";
}

Mesh build_gmsh(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::string text = read_text_file(path);
  Tokenizer t(text, file, Tokenizer::Syntax::plain);
  GmshData data;

  // --- sections
  bool seen_nodes = false, seen_elements = false;
  while (!t.at_end()) {
    const auto section = t.next();
    const std::string name(section.text);
    if (name.empty() || name.front() != '$')
      t.fail(section.line, "expected a $Section but found '" + printable(name) + "'");
    if (name != "$MeshFormat" && data.version == 0.0) t.fail(section.line, "the file does not start with $MeshFormat (not a Gmsh mesh?)");
    if (name == "$MeshFormat") read_mesh_format(t, data);
    else if (name == "$PhysicalNames") read_physical_names(t, data);
    else if (name == "$Entities" && data.version > 4.0) read_entities(t, data);
    else if (name == "$Nodes") {
      read_nodes(t, data, text.size());
      seen_nodes = true;
    } else if (name == "$Elements") {
      if (!seen_nodes) t.fail(section.line, "$Elements before $Nodes");
      read_elements(t, data, text.size());
      seen_elements = true;
    } else
      skip_section(t, name, section.line);
  }
  if (data.version == 0.0) t.fail(t.line(), "empty file: no $MeshFormat");
  if (!seen_nodes || !seen_elements) t.fail(t.line(), std::string("no ") + (seen_nodes ? "$Elements" : "$Nodes") + " section (truncated file?)");
  if (data.volumes.empty())
    throw MeshError(file, 0, "no 3-D elements (a 2-D mesh, or the volume is in no physical group: add a Physical Volume)");
  // --- what was read is in data: the text and the tag map are no longer needed
  std::string().swap(text);
  decltype(data.node_index)().swap(data.node_index);

  // --- the mesh must fit before its faces are built: each element's faces counted once
  // (internal ones are shared, so half of them, roughly, are internal)
  MeshCounts counts{.points = static_cast<std::int64_t>(data.nodes.size()), .cells = static_cast<std::int64_t>(data.volumes.size())};
  for (const auto& e : data.volumes)
    for (const auto& lf : local_faces(e.type)) {
      ++counts.faces;
      counts.face_vertices += lf[3] < 0 ? 3 : 4;
    }
  counts.internal_faces = counts.faces / 2;
  if (const std::string problem = mesh_size_problem(counts); !problem.empty()) throw MeshError(file, 0, problem);
  // --- and building the faces must fit beside the elements and nodes read
  const std::uint64_t held = held_bytes(data, 0) + data.nodes.size() * (sizeof(Vec3) + sizeof(label));
  if (const std::string problem = memory_problem(
          held + checked_product<std::uint64_t>(counts.faces, face_building_bytes_per_face, "faces"),
          "building the faces of " + std::to_string(counts.cells) + " elements (" +
              std::to_string(face_building_bytes_per_face) + " bytes a face, with the elements and nodes read)");
      !problem.empty())
    throw MeshError(file, 0, problem);

  // --- nodes -> points, keeping only nodes of 3-D elements, in node order
  std::vector<label> new_index(data.nodes.size(), -1);
  for (const auto& e : data.volumes)
    for (int k = 0; k < element_type(e.type).nodes; ++k) new_index[e.nodes[k]] = 0;
  UnfilledVector<Vec3> points;
  for (size_t i = 0; i < data.nodes.size(); ++i)
    if (new_index[i] == 0) {
      new_index[i] = static_cast<label>(points.size());
      points.push_back(data.nodes[i]);
    }
  std::vector<Vec3>().swap(data.nodes);

  // --- faces of the 3-D elements, matched by sorted vertices; the first element owns the face
  FaceList faces;
  std::unordered_map<FaceKey, label, FaceKeyHash> face_of_key;
  face_of_key.reserve(data.volumes.size() * 4);
  std::array<label, 8> nodes{};
  std::array<label, 4> loop{};
  for (label cell = 0; cell < static_cast<label>(data.volumes.size()); ++cell) {
    const RawElement& e = data.volumes[cell];
    const int n_nodes = element_type(e.type).nodes;
    for (int k = 0; k < n_nodes; ++k) nodes[k] = new_index[e.nodes[k]];
    for (int a = 0; a < n_nodes; ++a)
      for (int b = a + 1; b < n_nodes; ++b)
        if (nodes[a] == nodes[b]) t.fail(e.line, "element " + std::to_string(e.tag) + " repeats a node");
    const auto& local = local_faces(e.type);
    const bool mirrored = element_volume(points, nodes.data(), local) < 0.0;
    for (const auto& lf : local) {
      const int n = lf[3] < 0 ? 3 : 4;
      for (int k = 0; k < n; ++k) loop[k] = nodes[lf[k]];
      if (mirrored) std::reverse(loop.begin() + 1, loop.begin() + n);
      const auto [it, inserted] = face_of_key.emplace(make_key(loop.data(), n), faces.size());
      if (inserted) {
        faces.add(std::span<const label>(loop.data(), n), cell, -1, -1);
      } else {
        const label f = it->second;
        if (faces.neighbour[f] >= 0 || faces.owner[f] == cell)
          t.fail(e.line, "element " + std::to_string(e.tag) + " shares a face already shared by two elements (non-manifold mesh)");
        faces.neighbour[f] = cell;
      }
    }
  }

  // --- patches: physical surface groups in increasing tag, then defaultFaces
  std::map<std::int64_t, label> patch_of_group;
  for (const auto& [key, name] : data.physical_names)
    if (key.first == 2) patch_of_group.emplace(key.second, 0);
  for (const auto& e : data.surfaces)
    if (e.physical != 0) patch_of_group.emplace(e.physical, 0);
  std::vector<Patch> patches;
  for (auto& [group, index] : patch_of_group) {
    index = static_cast<label>(patches.size());
    const auto named = data.physical_names.find({2, group});
    const std::string name = named != data.physical_names.end() ? named->second.name : "patch" + std::to_string(group);
    patches.push_back({name, patch_type_for(name), 0, 0});
  }

  // --- each grouped 2-D element gives its face's patch (the first group wins)
  for (const auto& e : data.surfaces) {
    if (e.physical == 0) continue;
    const int n = element_type(e.type).nodes;
    for (int k = 0; k < n; ++k) {
      const label v = new_index[e.nodes[k]];
      if (v < 0) t.fail(e.line, "surface element " + std::to_string(e.tag) + " is not on any 3-D element");
      loop[k] = v;
    }
    const auto it = face_of_key.find(make_key(loop.data(), n));
    if (it == face_of_key.end()) t.fail(e.line, "surface element " + std::to_string(e.tag) + " matches no face of a 3-D element");
    const label f = it->second;
    if (faces.neighbour[f] < 0 && faces.patch[f] < 0) faces.patch[f] = patch_of_group.at(e.physical);
  }
  patches.push_back({"defaultFaces", "patch", 0, 0});
  std::vector<label> patch_faces(patches.size(), 0);
  for (label f = 0; f < faces.size(); ++f)
    if (faces.neighbour[f] < 0) {
      if (faces.patch[f] < 0) faces.patch[f] = static_cast<label>(patches.size()) - 1;
      ++patch_faces[faces.patch[f]];
    }

  // --- drop groups without boundary faces (and defaultFaces when every face has a group)
  std::vector<label> renumber(patches.size(), -1);
  std::vector<Patch> used_patches;
  for (size_t p = 0; p < patches.size(); ++p)
    if (patch_faces[p] > 0) {
      renumber[p] = static_cast<label>(used_patches.size());
      used_patches.push_back(patches[p]);
    }
  for (label f = 0; f < faces.size(); ++f)
    if (faces.neighbour[f] < 0) faces.patch[f] = renumber[faces.patch[f]];
  patches = std::move(used_patches);

  const label n_cells = static_cast<label>(data.volumes.size());
  decltype(face_of_key)().swap(face_of_key);
  std::vector<RawElement>().swap(data.volumes);
  std::vector<RawElement>().swap(data.surfaces);
  Mesh mesh = assemble_mesh(std::move(points), faces, std::move(patches), n_cells, "gmsh " + file);
  check_mesh_addressing(mesh, file);
  return mesh;
}

}  // namespace

Mesh read_gmsh(const std::filesystem::path& path) {
  const std::string file = path.string();
  try {
    return build_gmsh(path);
  } catch (const std::bad_alloc&) {
    const MemoryLimit limit = memory_limit();
    throw MeshError(file, 0, "out of memory while reading the mesh (memory limit " + format_bytes(limit.bytes) + ": " +
                                 describe_limit_source(limit) + ")");
  }
}

}  // namespace fvmmini
