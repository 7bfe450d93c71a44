#include "mesh/polymesh_reader.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "mesh/mesh_assembly.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/mesh_size.hpp"
#include "mesh/text_reader.hpp"

namespace fvmmini {

namespace {

namespace fs = std::filesystem;

/// One polyMesh file in memory with its tokenizer.
struct FoamFile {
  std::string name;
  std::string text;
  Tokenizer tokens;
  FoamFile(std::string file_name, std::string contents)
      : name(std::move(file_name)), text(std::move(contents)), tokens(text, name, Tokenizer::Syntax::openfoam) {}
  FoamFile(const FoamFile&) = delete;
  FoamFile& operator=(const FoamFile&) = delete;
};

/// How a binary file stores its numbers: the header's `arch` ("LSB;label=32;scalar=64", also
/// OpenFOAM's default where a file has none).
struct BinaryArch {
  int label_bytes = 4;
  int scalar_bytes = 8;
};

struct FoamHeader {
  std::string format = "ascii";
  std::string class_name;
  std::string note;
  long line = 0;
  std::optional<BinaryArch> binary;  ///< set for format binary
};

/// The directory holding owner (or owner.gz).
fs::path locate_polymesh(const fs::path& dir) {
  auto has_owner = [](const fs::path& d) { return fs::exists(d / "owner") || fs::exists(d / "owner.gz"); };
  if (has_owner(dir / "constant" / "polyMesh")) return dir / "constant" / "polyMesh";
  if (has_owner(dir)) return dir;
  throw MeshError(dir.string(), 0, "no polyMesh here: expected constant/polyMesh/owner or owner (or owner.gz)");
}

/// The file `name` in dir, else name.gz; throws MeshError when neither exists.
fs::path polymesh_file(const fs::path& dir, const std::string& name) {
  if (fs::exists(dir / name)) return dir / name;
  if (fs::exists(dir / (name + ".gz"))) return dir / (name + ".gz");
  throw MeshError((dir / name).string(), 0, "cannot open: no such file (nor " + name + ".gz)");
}

/// Skip a balanced { ... } block whose opening brace has been consumed.
void skip_block(Tokenizer& t) {
  int depth = 1;
  while (depth > 0) {
    const auto tok = t.next();
    if (tok.quoted) continue;
    if (tok.text == "{") ++depth;
    if (tok.text == "}") --depth;
  }
}

/// The header's arch of a binary file: little-endian, labels and scalars of 32 or 64 bits.
BinaryArch parse_arch(const Tokenizer& t, long line, const std::string& arch) {
  static_assert(std::endian::native == std::endian::little, "binary polyMesh files are read on little-endian hosts");
  BinaryArch a;
  std::string_view rest = arch;
  while (!rest.empty()) {
    const size_t end = std::min(rest.find(';'), rest.size());
    const std::string_view part = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    auto bits = [&](std::string_view key, int& bytes) {
      if (part.substr(0, key.size()) != key) return;
      const std::string_view value = part.substr(key.size());
      if (value != "32" && value != "64")
        t.fail(line, "arch '" + arch + "': " + std::string(key) + std::string(value) +
                         " is not supported (32 or 64 bits; run foamFormatConvert for ascii)");
      bytes = value == "32" ? 4 : 8;
    };
    if (part == "MSB") t.fail(line, "arch '" + arch + "': big-endian (MSB) binary is not supported (run foamFormatConvert for ascii)");
    bits("label=", a.label_bytes);
    bits("scalar=", a.scalar_bytes);
  }
  return a;
}

/// Read the optional FoamFile { ... } header.
FoamHeader read_header(Tokenizer& t, const std::string& expected_class_a, const std::string& expected_class_b = "") {
  FoamHeader header;
  std::string arch = "LSB;label=32;scalar=64";
  if (t.at_end() || t.peek().text != "FoamFile") return header;
  header.line = t.next().line;
  t.expect("{");
  for (;;) {
    const auto key = t.next();
    if (key.text == "}" && !key.quoted) break;
    std::string value;
    for (;;) {
      const auto tok = t.next();
      if (!tok.quoted && tok.text == ";") break;
      if (!tok.quoted && (tok.text == "{" || tok.text == "}")) t.fail(tok.line, "unexpected '" + std::string(tok.text) + "' in the FoamFile header");
      if (!value.empty()) value += ' ';
      value += tok.text;
    }
    if (key.text == "format") header.format = value;
    if (key.text == "class") header.class_name = value;
    if (key.text == "note") header.note = value;
    if (key.text == "arch") arch = value;
  }
  if (header.format == "binary")
    header.binary = parse_arch(t, header.line, arch);
  else if (header.format != "ascii")
    t.fail(header.line, "format '" + header.format + "' is not supported (ascii or binary)");
  if (!header.class_name.empty() && header.class_name != expected_class_a && header.class_name != expected_class_b)
    t.fail(header.line, "class '" + header.class_name + "' where '" + expected_class_a + "' was expected");
  return header;
}

/// What bounds a list's declared size before anything is read or expanded. A sized list
/// `N ( ... )` must fit in the rest of its file, each entry taking at least `entry_bytes`
/// characters; a uniform list `N { e }` stands for N entries in a few bytes, so the file
/// cannot bound it: `check_uniform(N, line)` does, after the one entry is read and before it
/// is repeated (it throws when N is too many). Every N must fit the 32-bit label.
struct ListBounds {
  std::int64_t entry_bytes = 2;
  std::function<void(std::int64_t count, long line)> check_uniform = [](std::int64_t, long) {};
};

/// A list's size N, refused (at its line) when negative or past the 32-bit labels.
std::int64_t read_list_size(Tokenizer& t, const char* what) {
  const long line = t.line();
  const std::int64_t count = t.next_int64();
  if (count < 0) t.fail(line, std::string("negative size ") + std::to_string(count) + " of the " + what + " list");
  if (count > std::numeric_limits<label>::max())
    t.fail(line, std::string("the ") + what + " list size " + std::to_string(count) + " is past the 32-bit index range (at most " +
                     std::to_string(std::numeric_limits<label>::max()) + ")");
  return count;
}

/// Read an OpenFOAM list: `N ( e... )`, `N { e }` (uniform) or `( e... )`; `read_one`
/// consumes one element. Returns the line of the list's opening token.
template <class ReadOne>
long read_list(Tokenizer& t, const char* what, ReadOne&& read_one, const ListBounds& bounds) {
  const long line = t.line();
  std::optional<std::int64_t> count;
  if (t.peek().text != "(") {
    const long count_line = t.line();
    count = read_list_size(t, what);
    if (!t.at_end() && t.peek().text == "{") {
      t.next();
      if (*count == 0) {
        skip_block(t);
        return line;
      }
      read_one();
      t.expect("}");
      bounds.check_uniform(*count, count_line);
      for (std::int64_t i = 1; i < *count; ++i) read_one.repeat_last();
      return line;
    }
    t.require_room(*count, bounds.entry_bytes, count_line, std::string("entries of the ") + what + " list");
  }
  t.expect("(");
  std::int64_t n = 0;
  for (;;) {
    const auto& tok = t.peek();
    if (tok.text == ")" && !tok.quoted) {
      if (count && n != *count)
        t.fail(tok.line, std::string("the ") + what + " list ends after " + std::to_string(n) + " of " + std::to_string(*count) + " entries");
      t.next();
      return line;
    }
    if (count && n == *count)
      t.fail(tok.line, std::string("the ") + what + " list has more than the " + std::to_string(*count) + " entries its size says");
    read_one();
    ++n;
  }
}

/// Read a binary list as OpenFOAM writes a contiguous one: `N (` then N entries of `entry_bytes`
/// raw bytes each, then `)`; N alone when it is 0. `decode(bytes, k, line)` takes entry k, `line`
/// the list size's, which an entry's error names. Returns that line.
template <class Decode>
long read_binary_list(Tokenizer& t, const char* what, std::int64_t entry_bytes, Decode&& decode) {
  const long line = t.line();
  const std::int64_t count = read_list_size(t, what);
  if (count == 0) {
    if (!t.at_end() && t.peek().text == "(") {
      t.next();
      t.expect(")");
    }
    return line;
  }
  t.require_room(count, entry_bytes, line, std::string("entries of the binary ") + what + " list");
  t.expect("(");
  const std::string_view bytes = t.take_bytes(count * entry_bytes, line, std::string("binary ") + what + " list");
  for (std::int64_t k = 0; k < count; ++k) decode(bytes.data() + k * entry_bytes, k, line);
  t.expect(")");
  return line;
}

/// One number of a binary list: an integer or a floating-point value of `bytes` bytes.
std::int64_t binary_integer(const char* p, int bytes) {
  if (bytes == 4) {
    std::int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double binary_scalar(const char* p, int bytes) {
  if (bytes == 4) {
    float v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  double v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// A binary labelList (owner, neighbour, a face, the compact faces' lists) appended to `values`,
/// each entry's line the list's.
long read_binary_labels(Tokenizer& t, const char* what, const BinaryArch& arch, std::vector<label>& values,
                        std::vector<long>* lines) {
  const size_t first = values.size();
  const long line = read_binary_list(t, what, arch.label_bytes, [&](const char* p, std::int64_t k, long at) {
    const std::int64_t v = binary_integer(p, arch.label_bytes);
    if (v < std::numeric_limits<label>::min() || v > std::numeric_limits<label>::max())
      t.fail(at, std::string("entry ") + std::to_string(k) + " of the " + what + " list, " + std::to_string(v) +
                           ", does not fit a 32-bit label");
    values.push_back(static_cast<label>(v));
  });
  if (lines) lines->resize(lines->size() + (values.size() - first), line);
  return line;
}

/// Bounds of a uniform list that only a mesh of `counts(N)` can back (mesh_size.hpp): refused
/// past the 32-bit labels or this machine's memory.
template <class Counts>
ListBounds fitting_in_memory(const Tokenizer& t, const char* what, std::int64_t entry_bytes, Counts counts) {
  return {entry_bytes, [&t, what, counts](std::int64_t n, long line) {
            const std::string problem = mesh_size_problem(counts(n));
            if (!problem.empty()) t.fail(line, std::string("the uniform ") + what + " list of " + std::to_string(n) + " entries: " + problem);
          }};
}

/// Bounds of a list of face vertices or offsets: a uniform one of more than one entry makes
/// faces that repeat a vertex (or have none), which no mesh has.
ListBounds no_uniform_faces(const Tokenizer& t, const char* what) {
  return {2, [&t, what](std::int64_t n, long line) {
            if (n > 1)
              t.fail(line, std::string("the uniform ") + what + " list of " + std::to_string(n) +
                               " equal entries cannot describe faces (a face has at least 3 distinct vertices)");
          }};
}

/// Reads labels into a vector, remembering each one's line.
struct LabelReader {
  Tokenizer& t;
  std::vector<label>& values;
  std::vector<long>* lines;
  void operator()() {
    if (lines) lines->push_back(t.line());
    values.push_back(t.next_label());
  }
  void repeat_last() {
    if (lines) lines->push_back(lines->back());
    values.push_back(values.back());
  }
};

/// No trailing tokens after the list.
void expect_end(Tokenizer& t) {
  if (!t.at_end()) t.fail(t.line(), "unexpected '" + std::string(t.peek().text) + "' after the list");
}

/// A "key:value" count from the owner header's note, or -1 when absent. Throws at the
/// header's line when the count is past the 32-bit label range.
std::int64_t note_count(const std::string& file, const FoamHeader& header, const std::string& key) {
  const std::string& note = header.note;
  const auto pos = note.find(key + ":");
  if (pos == std::string::npos) return -1;
  const size_t first = pos + key.size() + 1;
  size_t last = first;
  while (last < note.size() && note[last] >= '0' && note[last] <= '9') ++last;
  if (last == first) return -1;
  const std::string digits = note.substr(first, last - first);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || value > std::numeric_limits<label>::max())
    throw MeshError(file, header.line, "header note " + key + ":" + digits + " is past the 32-bit index range (at most " +
                                           std::to_string(std::numeric_limits<label>::max()) + ")");
  return value;
}

std::vector<Vec3> read_points(const fs::path& path) {
  FoamFile file(path.string(), read_text_file(path));
  Tokenizer& t = file.tokens;
  const FoamHeader header = read_header(t, "vectorField");
  std::vector<Vec3> points;
  if (header.binary) {
    const int bytes = header.binary->scalar_bytes;
    read_binary_list(t, "points", 3 * bytes, [&](const char* p, std::int64_t k, long at) {
      const Vec3 v{binary_scalar(p, bytes), binary_scalar(p + bytes, bytes), binary_scalar(p + 2 * bytes, bytes)};
      if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
        t.fail(at, "point " + std::to_string(k) + " has a coordinate that is not a finite number");
      points.push_back(v);
    });
    expect_end(t);
    return points;
  }
  struct PointReader {
    Tokenizer& t;
    std::vector<Vec3>& points;
    void operator()() {
      t.expect("(");
      Vec3 p;
      p.x = t.next_double();
      p.y = t.next_double();
      p.z = t.next_double();
      t.expect(")");
      points.push_back(p);
    }
    void repeat_last() { points.push_back(points.back()); }
  };
  read_list(t, "points", PointReader{t, points},
            fitting_in_memory(t, "points", 7, [](std::int64_t n) { return MeshCounts{.points = n}; }));
  expect_end(t);
  return points;
}

struct FacesRead {
  std::vector<label> offsets{0};
  std::vector<label> vertices;
  std::vector<long> lines;  ///< line of each face
};

FacesRead read_faces(const fs::path& path, label n_points) {
  FoamFile file(path.string(), read_text_file(path));
  Tokenizer& t = file.tokens;
  const FoamHeader header = read_header(t, "faceList", "faceCompactList");
  FacesRead faces;
  std::vector<long> vertex_lines;

  if (header.class_name == "faceCompactList") {
    // --- compact form: offsets list then the flat vertex list
    std::vector<label> offsets;
    std::vector<long> offset_lines;
    long offsets_line = 0;
    if (header.binary) {
      offsets_line = read_binary_labels(t, "face offsets", *header.binary, offsets, &offset_lines);
      read_binary_labels(t, "face vertices", *header.binary, faces.vertices, &vertex_lines);
    } else {
      offsets_line = read_list(t, "face offsets", LabelReader{t, offsets, &offset_lines}, no_uniform_faces(t, "face offsets"));
      read_list(t, "face vertices", LabelReader{t, faces.vertices, &vertex_lines}, no_uniform_faces(t, "face vertices"));
    }
    expect_end(t);
    if (offsets.empty() || offsets.front() != 0) t.fail(offsets_line, "face offsets must start with 0");
    for (size_t f = 0; f + 1 < offsets.size(); ++f)
      if (offsets[f + 1] < offsets[f] || offsets[f + 1] > static_cast<label>(faces.vertices.size()))
        t.fail(offset_lines[f + 1], "face offset " + std::to_string(offsets[f + 1]) + " is out of order or beyond the vertex list");
    if (offsets.back() != static_cast<label>(faces.vertices.size()))
      t.fail(offset_lines.back(), "the last face offset does not match the " + std::to_string(faces.vertices.size()) + " vertices");
    faces.offsets = offsets;
    faces.lines.assign(offset_lines.begin(), offset_lines.end() - 1);
  } else {
    // --- faceList: every face is itself a list, n(v0 v1 ...) (in a binary file n then its raw block)
    struct FaceReader {
      Tokenizer& t;
      FacesRead& faces;
      std::vector<long>& vertex_lines;
      const std::optional<BinaryArch>& binary;
      void operator()() {
        faces.lines.push_back(t.line());
        if (binary)
          read_binary_labels(t, "face", *binary, faces.vertices, &vertex_lines);
        else
          read_list(t, "face", LabelReader{t, faces.vertices, &vertex_lines}, no_uniform_faces(t, "face"));
        faces.offsets.push_back(static_cast<label>(faces.vertices.size()));
      }
      void repeat_last() {
        const label n = faces.offsets.back() - faces.offsets[faces.offsets.size() - 2];
        for (label i = 0; i < n; ++i) {
          faces.vertices.push_back(faces.vertices[faces.vertices.size() - n]);
          vertex_lines.push_back(vertex_lines.back());
        }
        faces.offsets.push_back(static_cast<label>(faces.vertices.size()));
        faces.lines.push_back(faces.lines.back());
      }
    };
    // --- a uniform list repeats its one face: N faces of that face's vertex count
    read_list(t, "faces", FaceReader{t, faces, vertex_lines, header.binary}, fitting_in_memory(t, "faces", 7, [&faces](std::int64_t n) {
                return MeshCounts{.faces = n, .face_vertices = n * (faces.offsets.back() - faces.offsets.end()[-2])};
              }));
    expect_end(t);
  }

  // --- every face has at least 3 vertices, all in [0, n_points)
  const label n_faces = static_cast<label>(faces.offsets.size()) - 1;
  for (label f = 0; f < n_faces; ++f) {
    if (faces.offsets[f + 1] - faces.offsets[f] < 3)
      t.fail(faces.lines[f], "face " + std::to_string(f) + " has fewer than 3 vertices");
    for (label k = faces.offsets[f]; k < faces.offsets[f + 1]; ++k) {
      const label v = faces.vertices[k];
      if (v < 0) t.fail(vertex_lines[k], "face " + std::to_string(f) + " has a negative vertex index " + std::to_string(v));
      if (v >= n_points)
        t.fail(vertex_lines[k], "face " + std::to_string(f) + " has vertex " + std::to_string(v) + " but there are only " +
                                    std::to_string(n_points) + " points");
    }
  }
  return faces;
}

struct LabelsRead {
  std::vector<label> values;
  std::vector<long> lines;
  long list_line = 0;
  FoamHeader header;
};

/// Read owner or neighbour: a label per face, `faces_file` having `n_faces` faces. A uniform
/// list may have at most `n_faces` entries (owner: exactly that many).
LabelsRead read_labels(const fs::path& path, const char* what, const fs::path& faces_file, label n_faces, bool one_per_face) {
  FoamFile file(path.string(), read_text_file(path));
  Tokenizer& t = file.tokens;
  LabelsRead result;
  result.header = read_header(t, "labelList");
  const std::string faces_name = faces_file.filename().string();
  const ListBounds bounds{2, [&](std::int64_t n, long line) {
                            if (n > n_faces || (one_per_face && n != n_faces))
                              t.fail(line, std::string("the uniform ") + what + " list has " + std::to_string(n) + " entries but " +
                                               faces_name + " has " + std::to_string(n_faces) + " faces");
                          }};
  result.list_line = result.header.binary
                         ? read_binary_labels(t, what, *result.header.binary, result.values, &result.lines)
                         : read_list(t, what, LabelReader{t, result.values, &result.lines}, bounds);
  expect_end(t);
  for (size_t i = 0; i < result.values.size(); ++i)
    if (result.values[i] < 0)
      t.fail(result.lines[i], std::string("negative cell index ") + std::to_string(result.values[i]) + " for face " + std::to_string(i));
  return result;
}

struct PatchRead {
  Patch patch;
  long line = 0;
};

std::vector<PatchRead> read_boundary(const fs::path& path) {
  FoamFile file(path.string(), read_text_file(path));
  Tokenizer& t = file.tokens;
  read_header(t, "polyBoundaryMesh");
  std::vector<PatchRead> patches;
  struct PatchReader {
    Tokenizer& t;
    std::vector<PatchRead>& patches;
    void operator()() {
      PatchRead entry;
      const auto name = t.next();
      entry.line = name.line;
      entry.patch.name = std::string(name.text);
      if (name.text == "(" || name.text == ")" || name.text == "{" || name.text == "}" || name.text == ";")
        t.fail(name.line, "expected a patch name but found '" + entry.patch.name + "'");
      t.expect("{");
      std::optional<std::int64_t> n_faces, start_face;
      for (;;) {
        const auto key = t.next();
        if (key.text == "}" && !key.quoted) break;
        if (t.peek().text == "{") {
          t.next();
          skip_block(t);
          continue;
        }
        if (key.text == "nFaces" || key.text == "startFace") {
          const long value_line = t.line();
          const std::int64_t value = t.next_int64();
          if (value < 0 || value > INT32_MAX)
            t.fail(value_line, std::string(key.text) + " " + std::to_string(value) + " of patch '" + entry.patch.name + "' is out of range");
          (key.text == "nFaces" ? n_faces : start_face) = value;
          t.expect(";");
          continue;
        }
        std::string value;
        for (;;) {
          const auto tok = t.next();
          if (!tok.quoted && tok.text == ";") break;
          if (!tok.quoted && tok.text == "}") t.fail(tok.line, "missing ';' after '" + std::string(key.text) + "'");
          if (!value.empty()) value += ' ';
          value += tok.text;
        }
        if (key.text == "type") entry.patch.type = value;
      }
      if (entry.patch.type.empty()) t.fail(entry.line, "patch '" + entry.patch.name + "' has no type");
      if (!n_faces) t.fail(entry.line, "patch '" + entry.patch.name + "' has no nFaces");
      if (!start_face) t.fail(entry.line, "patch '" + entry.patch.name + "' has no startFace");
      const std::string& type = entry.patch.type;
      if (type == "processor" || type == "processorCyclic" || type.rfind("cyclic", 0) == 0)
        t.fail(entry.line, "patch '" + entry.patch.name + "' of type " + type + " is not supported (no coupled patches)");
      entry.patch.size = static_cast<label>(*n_faces);
      entry.patch.start = static_cast<label>(*start_face);
      patches.push_back(std::move(entry));
    }
    void repeat_last() { t.fail(t.line(), "a uniform list of patches is not valid"); }
  };
  read_list(t, "patches", PatchReader{t, patches}, ListBounds{});
  expect_end(t);
  return patches;
}

}  // namespace

Mesh read_polymesh(const std::filesystem::path& case_or_polymesh_dir) {
  const fs::path dir = locate_polymesh(case_or_polymesh_dir);
  const fs::path points_path = polymesh_file(dir, "points");
  const fs::path faces_path = polymesh_file(dir, "faces");
  const fs::path owner_path = polymesh_file(dir, "owner");
  const fs::path neighbour_path = polymesh_file(dir, "neighbour");
  const fs::path boundary_path = polymesh_file(dir, "boundary");

  std::vector<Vec3> points = read_points(points_path);
  const label n_points = static_cast<label>(points.size());
  const FacesRead faces = read_faces(faces_path, n_points);
  const label n_faces = static_cast<label>(faces.offsets.size()) - 1;
  const LabelsRead owner = read_labels(owner_path, "owner", faces_path, n_faces, true);
  const LabelsRead neighbour = read_labels(neighbour_path, "neighbour", faces_path, n_faces, false);
  const std::vector<PatchRead> patches = read_boundary(boundary_path);

  // --- sizes: one owner per face, at most one neighbour per face
  const std::string owner_name = owner_path.string();
  if (static_cast<label>(owner.values.size()) != n_faces)
    throw MeshError(owner_name, owner.list_line, "has " + std::to_string(owner.values.size()) + " entries but " +
                                                     faces_path.filename().string() + " has " + std::to_string(n_faces) + " faces");
  const label n_internal = static_cast<label>(neighbour.values.size());
  if (n_internal > n_faces)
    throw MeshError(neighbour_path.string(), neighbour.list_line,
                    "has " + std::to_string(n_internal) + " entries but there are only " + std::to_string(n_faces) + " faces");
  // --- the cell count is the highest cell index + 1; it must be one the faces can close
  // before any per-cell array is sized by it
  std::int64_t n_cells = 0;
  const LabelsRead* highest_in = &owner;
  size_t highest_at = 0;
  for (const LabelsRead* labels : {&owner, &neighbour})
    for (size_t i = 0; i < labels->values.size(); ++i)
      if (labels->values[i] + std::int64_t{1} > n_cells) {
        n_cells = labels->values[i] + std::int64_t{1};
        highest_in = labels;
        highest_at = i;
      }
  if (n_cells > max_closed_cells(n_faces, n_internal))
    throw MeshError(highest_in == &owner ? owner_name : neighbour_path.string(), highest_in->lines[highest_at],
                    "cell " + std::to_string(n_cells - 1) + " makes " + std::to_string(n_cells) + " cells, but " +
                        std::to_string(n_faces) + " faces (" + std::to_string(n_internal) + " internal) can close at most " +
                        std::to_string(max_closed_cells(n_faces, n_internal)) + " (a cell needs at least 4 faces)");
  for (label f = 0; f < n_internal; ++f)
    if (owner.values[f] == neighbour.values[f])
      throw MeshError(neighbour_path.string(), neighbour.lines[f], "face " + std::to_string(f) + " has the same owner and neighbour " + std::to_string(owner.values[f]));

  // --- the counts in the owner header's note, where present
  const std::pair<const char*, std::int64_t> noted[] = {
      {"nPoints", n_points}, {"nCells", n_cells}, {"nFaces", n_faces}, {"nInternalFaces", n_internal}};
  for (const auto& [key, actual] : noted) {
    const std::int64_t expected = note_count(owner_name, owner.header, key);
    if (expected >= 0 && expected != actual)
      throw MeshError(owner_name, owner.header.line, std::string("header note says ") + key + " " + std::to_string(expected) +
                                                         " but the mesh has " + std::to_string(actual));
  }

  // --- patches contiguous from the first boundary face to the last
  const std::string boundary_name = boundary_path.string();
  label expected_start = n_internal;
  for (const auto& p : patches) {
    if (p.patch.start != expected_start)
      throw MeshError(boundary_name, p.line, "patch '" + p.patch.name + "' has startFace " + std::to_string(p.patch.start) +
                                                 ", expected " + std::to_string(expected_start) + " (patches must be contiguous after the " +
                                                 std::to_string(n_internal) + " internal faces)");
    if (static_cast<std::int64_t>(p.patch.start) + p.patch.size > n_faces)
      throw MeshError(boundary_name, p.line, "patch '" + p.patch.name + "' runs past the last face " + std::to_string(n_faces - 1));
    expected_start += p.patch.size;
  }
  if (expected_start != n_faces)
    throw MeshError(boundary_name, 0, "patches cover faces up to " + std::to_string(expected_start) + " but there are " +
                                          std::to_string(n_faces) + " faces (boundary faces without a patch)");

  // --- the mesh must fit before it is copied, ordered and given geometry
  const MeshCounts counts{.points = n_points, .faces = n_faces, .internal_faces = n_internal, .cells = n_cells,
                          .face_vertices = static_cast<std::int64_t>(faces.vertices.size())};
  if (const std::string problem = mesh_size_problem(counts); !problem.empty()) throw MeshError(dir.string(), 0, problem);

  // --- assemble; faces out of upper-triangular order are flipped and sorted, cells keep their numbers
  FaceList list;
  list.offsets = faces.offsets;
  list.vertices = faces.vertices;
  list.owner = owner.values;
  list.neighbour.assign(n_faces, -1);
  std::copy(neighbour.values.begin(), neighbour.values.end(), list.neighbour.begin());
  list.patch.assign(n_faces, -1);
  std::vector<Patch> patch_list;
  for (label p = 0; p < static_cast<label>(patches.size()); ++p) {
    patch_list.push_back(patches[p].patch);
    std::fill(list.patch.begin() + patches[p].patch.start, list.patch.begin() + patches[p].patch.start + patches[p].patch.size, p);
  }
  Mesh mesh = assemble_mesh(std::move(points), list, std::move(patch_list), static_cast<label>(n_cells), "polyMesh " + dir.string());
  check_mesh_addressing(mesh, dir.string());
  return mesh;
}

}  // namespace fvmmini
