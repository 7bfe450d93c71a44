#include "mesh/polymesh_reader.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "base/checked.hpp"
#include "base/printable.hpp"
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
  std::string text = "LSB;label=32;scalar=64";  ///< as the header gives it
};

struct FoamHeader {
  std::string format = "ascii";
  std::string class_name;
  std::string note;
  long line = 0;
  std::optional<BinaryArch> binary;  ///< set for format binary
};

/// The directory holding owner (or owner.gz). A path that cannot be looked at (a symbolic link
/// loop, a folder that may not be searched) is a MeshError naming it and the reason.
fs::path locate_polymesh(const fs::path& dir) {
  if (!path_exists(dir)) throw MeshError(dir.string(), 0, "no polyMesh here: no such file or folder");
  auto has_owner = [](const fs::path& d) { return path_exists(d / "owner") || path_exists(d / "owner.gz"); };
  if (has_owner(dir / "constant" / "polyMesh")) return dir / "constant" / "polyMesh";
  if (has_owner(dir)) return dir;
  throw MeshError(dir.string(), 0, "no polyMesh here: expected constant/polyMesh/owner or owner (or owner.gz)");
}

/// The file `name` in dir, else name.gz; throws MeshError when neither exists.
fs::path polymesh_file(const fs::path& dir, const std::string& name) {
  if (path_exists(dir / name)) return dir / name;
  if (path_exists(dir / (name + ".gz"))) return dir / (name + ".gz");
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
  a.text = arch;
  std::string_view rest = arch;
  while (!rest.empty()) {
    const size_t end = std::min(rest.find(';'), rest.size());
    const std::string_view part = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    auto bits = [&](std::string_view key, int& bytes) {
      if (part.substr(0, key.size()) != key) return;
      const std::string_view value = part.substr(key.size());
      if (value != "32" && value != "64")
        t.fail(line, "arch '" + printable(arch) + "': " + std::string(key) + printable(value) +
                         " is not supported (32 or 64 bits; run foamFormatConvert for ascii)");
      bytes = value == "32" ? 4 : 8;
    };
    if (part == "MSB")
      t.fail(line, "arch '" + printable(arch) +
                       "': big-endian (MSB) binary is not supported (run foamFormatConvert for ascii)");
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
      if (!tok.quoted && (tok.text == "{" || tok.text == "}"))
        t.fail(tok.line, "unexpected '" + printable(tok.text) + "' in the FoamFile header");
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
    t.fail(header.line, "format '" + printable(header.format) + "' is not supported (ascii or binary)");
  if (!header.class_name.empty() && header.class_name != expected_class_a && header.class_name != expected_class_b)
    t.fail(header.line, "class '" + printable(header.class_name) + "' where '" + expected_class_a + "' was expected");
  return header;
}

// --- Lists. Every list's size is checked before an entry is stored: against the room left in
// its file, against the counts of the files read before it (owner: exactly one entry per face;
// neighbour: at most that many; a face: no more vertices than there are points; the compact
// faces' vertices: exactly as many as the last offset says), and against the memory limit with
// what the reader holds already (the files' lists kept so far and this file's text). A list
// without a size is held to the same as it grows. No line is kept per entry: each entry is
// checked as it is read, where its line is known, and the one check that needs a line later
// (a compact face offset past the vertex list) scans that list again.

/// What the reader holds while it reads one file: the lists of the files read before it (kept
/// until the mesh is assembled), the file's text and the lists read from it so far.
struct Holding {
  std::uint64_t kept = 0;
  std::uint64_t text = 0;
  std::function<std::uint64_t()> file_lists = [] { return std::uint64_t{0}; };
  std::uint64_t bytes() const { return kept + text + file_lists(); }
};

template <class T, class Allocator>
std::uint64_t bytes_of(const std::vector<T, Allocator>& values) {
  return static_cast<std::uint64_t>(values.capacity()) * sizeof(T);
}

/// Throw at `line` when `more` bytes for `what`, on top of what the reader holds, cannot be had
/// under the memory limit (mesh_size.hpp's memory_problem).
void require_memory(const Tokenizer& t, long line, const Holding& held, std::uint64_t more, const std::string& what) {
  const std::uint64_t holding = held.bytes();
  const std::string with = holding > 0 ? ", with the " + format_bytes(holding) + " of text and lists read so far," : "";
  if (const std::string problem = memory_problem(checked_sum(holding, more, what), what + with); !problem.empty())
    t.fail(line, problem);
}

/// Throw at `line` when a mesh of `counts` cannot be used here (mesh_size.hpp), naming `what`.
void require_mesh_size(const Tokenizer& t, long line, const MeshCounts& counts, const std::string& what) {
  if (const std::string problem = mesh_size_problem(counts); !problem.empty()) t.fail(line, what + ": " + problem);
}

/// Room in `values` for `more` entries, asked of the memory limit first: exactly that much
/// (a list of known size), or by doubling (a list that grows), the old and new blocks together.
template <class T, class Allocator>
void make_room(std::vector<T, Allocator>& values, std::int64_t more, bool exact, const Tokenizer& t, long line,
               const Holding& held, const std::string& what) {
  if (more <= 0) return;
  const std::uint64_t needed = values.size() + static_cast<std::uint64_t>(more);
  if (needed <= values.capacity()) return;
  const std::uint64_t grown = exact ? needed : std::max<std::uint64_t>({needed, 2 * values.capacity(), 256});
  require_memory(t, line, held, checked_product<std::uint64_t>(grown, sizeof(T), what),
                 what + (exact ? "" : ", grown to " + std::to_string(grown) + " entries of " +
                                          std::to_string(sizeof(T)) + " bytes"));
  values.reserve(static_cast<size_t>(grown));
}

/// How a list's size compares with what the other files say, at each point it is known.
enum class SizeKnown {
  declared,  ///< `N (` before the entries
  uniform,   ///< `N {e}`, after its one entry
  growing,   ///< a list without a size is about to hold this many
  ended,     ///< a list without a size ended with this many
};

/// The rules of one list: its name, the least characters an ASCII entry takes, and `agree(n,
/// line, when)`, which throws when n entries disagree with the other files.
struct ListRules {
  std::string what;
  std::int64_t text_bytes = 2;
  std::function<void(std::int64_t, long, SizeKnown)> agree = [](std::int64_t, long, SizeKnown) {};
};

/// A list's size agreeing with a count another file gave: `exactly` that many, or at most it.
/// `source` says where the count comes from ("faces has 98 faces").
std::function<void(std::int64_t, long, SizeKnown)> agreeing_with(const Tokenizer& t, const std::string& what,
                                                                 std::int64_t count, bool exactly, std::string source) {
  return [&t, what, count, exactly, source = std::move(source)](std::int64_t n, long line, SizeKnown when) {
    if (when == SizeKnown::growing) {
      if (n > count)
        t.fail(line, "the " + what + " list has more than " + std::to_string(count) + " entries, but " + source);
      return;
    }
    if (n > count || (exactly && n != count))
      t.fail(line, std::string("the ") + (when == SizeKnown::uniform ? "uniform " : "") + what + " list has " +
                       std::to_string(n) + " entries but " + source);
  };
}

/// Where a list was read: the line it starts on, where its first entry's scan starts (to find an
/// entry's line again), and whether it is binary (every entry on the size's line).
struct ListRead {
  long line = 0;
  Tokenizer::Position first_entry;
  bool binary = false;
};

/// The line of entry k of a list of one token per entry (a label list) in `text`.
long entry_line(const Tokenizer& t, std::string_view text, const ListRead& list, std::int64_t k) {
  if (list.binary) return list.line;
  Tokenizer again(text, t.file(), Tokenizer::Syntax::openfoam, list.first_entry);
  for (std::int64_t i = 0; i < k && !again.at_end(); ++i) again.next();
  return again.line();
}

/// A list's size N, refused (at its line) when negative or past the 32-bit labels.
std::int64_t read_list_size(Tokenizer& t, const std::string& what) {
  const long line = t.line();
  const std::int64_t count = t.next_int64();
  if (count < 0) t.fail(line, "negative size " + std::to_string(count) + " of the " + what + " list");
  if (count > std::numeric_limits<label>::max())
    t.fail(line, "the " + what + " list size " + std::to_string(count) + " is past the 32-bit index range (at most " +
                     std::to_string(std::numeric_limits<label>::max()) + ")");
  return count;
}

/// Read an OpenFOAM list: `N ( e... )`, `N { e }` (uniform) or `( e... )`, storing entries through
/// `entries`: check_uniform(N, line) after a uniform list's one entry is read (a list that cannot
/// be uniform refuses it), reserve(N, line) once N agrees with the other files (asking memory for
/// N), read_one() per entry (a list without a size grows through make_room), repeat_last().
template <class Entries>
ListRead read_list(Tokenizer& t, const ListRules& rules, Entries& entries) {
  ListRead list{t.line(), {}, false};
  std::optional<std::int64_t> count;
  if (t.peek().text != "(") {
    const long count_line = t.line();
    count = read_list_size(t, rules.what);
    if (!t.at_end() && t.peek().text == "{") {
      t.next();
      list.first_entry = t.position();
      if (*count == 0) {
        skip_block(t);
        return list;
      }
      entries.read_one();
      t.expect("}");
      entries.check_uniform(*count, count_line);
      rules.agree(*count, count_line, SizeKnown::uniform);
      entries.reserve(*count, count_line);
      for (std::int64_t i = 1; i < *count; ++i) entries.repeat_last();
      return list;
    }
    t.require_room(*count, rules.text_bytes, count_line, "entries of the " + rules.what + " list");
    rules.agree(*count, count_line, SizeKnown::declared);
    entries.reserve(*count, count_line);
  }
  t.expect("(");
  list.first_entry = t.position();
  std::int64_t n = 0;
  for (;;) {
    const auto& tok = t.peek();
    if (tok.text == ")" && !tok.quoted) {
      if (count && n != *count)
        t.fail(tok.line, "the " + rules.what + " list ends after " + std::to_string(n) + " of " +
                             std::to_string(*count) + " entries");
      if (!count) rules.agree(n, tok.line, SizeKnown::ended);
      t.next();
      return list;
    }
    if (count && n == *count)
      t.fail(tok.line, "the " + rules.what + " list has more than the " + std::to_string(*count) +
                           " entries its size says");
    if (!count) rules.agree(n + 1, tok.line, SizeKnown::growing);
    entries.read_one();
    ++n;
  }
}

/// `message` with a hint that the binary header may not describe the file, for a binary list
/// whose size or contents make no sense.
[[noreturn]] void rethrow_with_arch_hint(const MeshError& e, const BinaryArch& arch) {
  throw MeshError(e.file(), e.line(), e.message() + " (is the header's arch '" + printable(arch.text) +
                                          "' right for this file?)");
}

/// Read a binary list as OpenFOAM writes a contiguous one: `N (` then N entries of `entry_bytes`
/// raw bytes each, then `)`; N alone when it is 0. N is checked by `rules` and reserved through
/// `reserve(N, line)` before the block is taken; `decode(bytes, k, line)` then takes entry k, `line`
/// the list size's, which an entry's error names. A block that does not fit, entries that make no
/// sense or no `)` after the block add a hint that the header's arch may be wrong.
template <class Reserve, class Decode>
ListRead read_binary_list(Tokenizer& t, const ListRules& rules, const BinaryArch& arch, std::int64_t entry_bytes,
                          Reserve&& reserve, Decode&& decode) {
  ListRead list{t.line(), {}, true};
  const std::int64_t count = read_list_size(t, rules.what);
  if (count == 0) {
    rules.agree(0, list.line, SizeKnown::declared);
    if (!t.at_end() && t.peek().text == "(") {
      t.next();
      t.expect(")");
    }
    return list;
  }
  try {
    t.require_room(count, entry_bytes, list.line, "entries of the binary " + rules.what + " list");
  } catch (const MeshError& e) {
    rethrow_with_arch_hint(e, arch);
  }
  rules.agree(count, list.line, SizeKnown::declared);
  reserve(count, list.line);
  try {
    t.expect("(");
    const std::string_view bytes = t.take_bytes(count * entry_bytes, list.line, "binary " + rules.what + " list");
    for (std::int64_t k = 0; k < count; ++k) decode(bytes.data() + k * entry_bytes, k, list.line);
    t.expect(")");
  } catch (const MeshError& e) {
    rethrow_with_arch_hint(e, arch);
  }
  return list;
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

/// Labels appended to `values`, each checked as it is read: `check(k, value, line)` with k its
/// index in this list; `what` names `values` in a memory refusal. A uniform list of more than one
/// entry is refused where `uniform_refused` names the list (face vertices or offsets: it would
/// repeat a vertex).
template <class Check>
struct LabelEntries {
  Tokenizer& t;
  std::vector<label>& values;
  const Holding& held;
  std::string what;  ///< "the owner list"
  Check check;
  const char* uniform_refused = nullptr;
  std::int64_t read = 0;
  long last_line = 0;

  void check_uniform(std::int64_t n, long line) const {
    if (uniform_refused && n > 1)
      t.fail(line, std::string("the uniform ") + uniform_refused + " list of " + std::to_string(n) +
                       " equal entries cannot describe faces (a face has at least 3 distinct vertices)");
  }
  void reserve(std::int64_t n, long line) {
    make_room(values, n - (read > 0 ? 1 : 0), true, t, line, held, what + " of " + std::to_string(n) + " entries");
  }
  void push(label v, long line) {
    check(read, v, line);
    make_room(values, 1, false, t, line, held, what);
    values.push_back(v);
    ++read;
    last_line = line;
  }
  void read_one() {
    const long line = t.line();
    push(t.next_label(), line);
  }
  void repeat_last() { push(values.back(), last_line); }
};

template <class Check>
LabelEntries<Check> label_entries(Tokenizer& t, std::vector<label>& values, const Holding& held, std::string what,
                                  Check check, const char* uniform_refused = nullptr) {
  return LabelEntries<Check>{t, values, held, std::move(what), std::move(check), uniform_refused};
}

/// A label list, ASCII (read_list) or binary (each entry a label of the header's arch, which
/// must fit 32 bits), through `entries`.
template <class Entries>
ListRead read_labels_into(Tokenizer& t, const std::optional<BinaryArch>& binary, const ListRules& rules,
                          Entries& entries) {
  if (!binary) return read_list(t, rules, entries);
  const BinaryArch arch = *binary;
  return read_binary_list(
      t, rules, arch, arch.label_bytes, [&](std::int64_t n, long line) { entries.reserve(n, line); },
      [&](const char* p, std::int64_t k, long line) {
        const std::int64_t v = binary_integer(p, arch.label_bytes);
        if (v < std::numeric_limits<label>::min() || v > std::numeric_limits<label>::max())
          t.fail(line, "entry " + std::to_string(k) + " of the " + rules.what + " list, " + std::to_string(v) +
                           ", does not fit a 32-bit label");
        entries.push(static_cast<label>(v), line);
      });
}

/// No trailing tokens after the list.
void expect_end(Tokenizer& t) {
  if (!t.at_end()) t.fail(t.line(), "unexpected '" + printable(t.peek().text) + "' after the list");
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
    throw MeshError(file, header.line, "header note " + key + ":" + printable(digits) +
                                           " is past the 32-bit index range (at most " +
                                           std::to_string(std::numeric_limits<label>::max()) + ")");
  return value;
}

UnfilledVector<Vec3> read_points(const fs::path& path, Holding& held) {
  FoamFile file(path.string(), read_text_file(path));
  Tokenizer& t = file.tokens;
  const FoamHeader header = read_header(t, "vectorField");
  UnfilledVector<Vec3> points;
  held.text = file.text.size();
  held.file_lists = [&points] { return bytes_of(points); };
  auto reserve_points = [&](std::int64_t n, long line) {
    require_mesh_size(t, line, {.points = n}, "the points list of " + std::to_string(n) + " entries");
    make_room(points, n - static_cast<std::int64_t>(points.size()), true, t, line, held,
              "the points list of " + std::to_string(n) + " entries");
  };
  const ListRules rules{"points", 7};
  if (header.binary) {
    const int bytes = header.binary->scalar_bytes;
    read_binary_list(t, rules, *header.binary, 3 * bytes, reserve_points, [&](const char* p, std::int64_t k, long at) {
      const Vec3 v{binary_scalar(p, bytes), binary_scalar(p + bytes, bytes), binary_scalar(p + 2 * bytes, bytes)};
      if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
        t.fail(at, "point " + std::to_string(k) + " has a coordinate that is not a finite number");
      points.push_back(v);
    });
    expect_end(t);
    return points;
  }
  struct PointEntries {
    Tokenizer& t;
    UnfilledVector<Vec3>& points;
    const Holding& held;
    decltype(reserve_points)& reserve_list;
    void check_uniform(std::int64_t n, long line) const {
      require_mesh_size(t, line, {.points = n}, "the uniform points list of " + std::to_string(n) + " entries");
    }
    void reserve(std::int64_t n, long line) { reserve_list(n, line); }
    void read_one() {
      const long line = t.line();
      t.expect("(");
      Vec3 p;
      p.x = t.next_double();
      p.y = t.next_double();
      p.z = t.next_double();
      t.expect(")");
      if (points.size() == points.capacity())  // --- a list without a size: the points so far as a mesh
        require_mesh_size(t, line, {.points = static_cast<std::int64_t>(points.size()) + 1},
                          "the points list, at " + std::to_string(points.size() + 1) + " entries");
      make_room(points, 1, false, t, line, held, "the points list");
      points.push_back(p);
    }
    void repeat_last() { points.push_back(points.back()); }
  } entries{t, points, held, reserve_points};
  read_list(t, rules, entries);
  expect_end(t);
  return points;
}

struct FacesRead {
  std::vector<label> offsets{0};
  std::vector<label> vertices;
};

/// A face vertex in [0, n_points), or an error at `line` naming the face.
void check_vertex(const Tokenizer& t, std::int64_t face, label v, label n_points, long line) {
  if (v < 0) t.fail(line, "face " + std::to_string(face) + " has a negative vertex index " + std::to_string(v));
  if (v >= n_points)
    t.fail(line, "face " + std::to_string(face) + " has vertex " + std::to_string(v) + " but there are only " +
                     std::to_string(n_points) + " points");
}

/// The faces of a faceCompactList: the offsets (each face's first vertex, then the end), then
/// all the faces' vertices, which must be as many as the last offset says.
void read_compact_faces(FoamFile& file, const FoamHeader& header, label n_points, FacesRead& faces,
                        const Holding& held) {
  Tokenizer& t = file.tokens;
  std::vector<label>& offsets = faces.offsets;
  offsets.clear();
  long offsets_line = t.line();
  long previous_line = 0;
  auto offset_check = [&](std::int64_t k, label v, long line) {
    if (k == 0 && v != 0) t.fail(offsets_line, "face offsets must start with 0");
    if (k > 0 && v < offsets.back())
      t.fail(line, "face offset " + std::to_string(v) + " is out of order or beyond the vertex list");
    if (k > 0 && v - offsets.back() < 3)
      t.fail(previous_line, "face " + std::to_string(k - 1) + " has fewer than 3 vertices");
    previous_line = line;
  };
  auto offset_entries = label_entries(t, offsets, held, "the face offsets list", offset_check, "face offsets");
  // --- N + 1 offsets make N faces of at least 3 vertices each: checked as a mesh before they are held
  struct OffsetEntries : decltype(offset_entries) {
    void reserve(std::int64_t n, long line) {
      const std::int64_t n_faces = std::max<std::int64_t>(n - 1, 0);
      require_mesh_size(this->t, line, {.faces = n_faces, .face_vertices = 3 * n_faces},
                        "the face offsets list of " + std::to_string(n) + " entries");
      decltype(offset_entries)::reserve(n, line);
    }
  } offsets_in{offset_entries};
  const ListRules offset_rules{"face offsets", 2};
  const ListRead offsets_list = read_labels_into(t, header.binary, offset_rules, offsets_in);
  offsets_line = offsets_list.line;
  if (offsets.empty()) t.fail(offsets_list.line, "face offsets must start with 0");

  // --- the vertices: exactly as many as the last offset says, each a point
  const label last = offsets.back();
  const std::int64_t n_faces = static_cast<std::int64_t>(offsets.size()) - 1;
  ListRules vertex_rules{"face vertices", 2};
  vertex_rules.agree = [&](std::int64_t n, long line, SizeKnown when) {
    if (when == SizeKnown::growing) {
      if (n > last)
        t.fail(line, "the face vertices list has more than the " + std::to_string(last) +
                         " entries the last face offset says");
      return;
    }
    if (n == last) return;
    if (n < last) {  // --- the first offset past the vertices, on its own line
      const std::int64_t k = std::upper_bound(offsets.begin(), offsets.end(), static_cast<label>(n)) - offsets.begin();
      t.fail(entry_line(t, file.text, offsets_list, k),
             "face offset " + std::to_string(offsets[k]) + " is out of order or beyond the vertex list");
    }
    t.fail(entry_line(t, file.text, offsets_list, n_faces),
           "the last face offset does not match the " + std::to_string(n) + " vertices");
  };
  std::int64_t face = 0;
  auto vertex_check = [&](std::int64_t k, label v, long line) {
    while (face < n_faces && offsets[face + 1] <= k) ++face;
    check_vertex(t, face, v, n_points, line);
  };
  auto vertex_entries = label_entries(t, faces.vertices, held, "the face vertices list", vertex_check, "face vertices");
  struct VertexEntries : decltype(vertex_entries) {
    std::int64_t n_faces;
    void reserve(std::int64_t n, long line) {
      require_mesh_size(this->t, line, {.faces = n_faces, .face_vertices = n},
                        "the face vertices list of " + std::to_string(n) + " entries");
      decltype(vertex_entries)::reserve(n, line);
    }
  } vertices_in{vertex_entries, n_faces};
  read_labels_into(t, header.binary, vertex_rules, vertices_in);
}

/// The faces of a faceList: every face is itself a list, n(v0 v1 ...) (in a binary file n then
/// its raw block).
void read_face_list(Tokenizer& t, const FoamHeader& header, label n_points, FacesRead& faces, const Holding& held) {
  // --- one face's vertices: made once, not per face (a file may hold hundreds of millions)
  std::int64_t face = 0;
  ListRules vertex_rules{"face", 2};
  vertex_rules.agree = agreeing_with(t, "face", n_points, false,
                                     "there are only " + std::to_string(n_points) + " points");
  auto vertex_check = [&](std::int64_t, label v, long at) { check_vertex(t, face, v, n_points, at); };
  auto vertex_entries = label_entries(t, faces.vertices, held, "the faces' vertices", vertex_check, "face");
  struct Vertices : decltype(vertex_entries) {
    void reserve(std::int64_t n, long at) {
      make_room(this->values, n - this->read, false, this->t, at, this->held, "the faces' vertices");
    }
  } vertices{vertex_entries};

  struct FaceEntries {
    Tokenizer& t;
    FacesRead& faces;
    const Holding& held;
    const std::optional<BinaryArch>& binary;
    std::int64_t& face;
    const ListRules& vertex_rules;
    Vertices& vertices;

    std::int64_t last_size() const { return faces.offsets.back() - faces.offsets.end()[-2]; }
    void check_uniform(std::int64_t n, long line) const {
      require_mesh_size(t, line, {.faces = n, .face_vertices = n * last_size()},
                        "the uniform faces list of " + std::to_string(n) + " entries");
    }
    void reserve(std::int64_t n, long line) {
      const bool uniform = faces.offsets.size() == 2;
      const std::int64_t n_vertices = uniform ? n * last_size() : 3 * n;  // a face has at least 3
      const std::string what = "the faces list of " + std::to_string(n) + " entries";
      require_mesh_size(t, line, {.faces = n, .face_vertices = n_vertices}, what);
      make_room(faces.offsets, n + 1 - static_cast<std::int64_t>(faces.offsets.size()), true, t, line, held, what);
      make_room(faces.vertices, n_vertices - static_cast<std::int64_t>(faces.vertices.size()), true, t, line, held,
                what);
    }
    void read_one() {
      face = static_cast<std::int64_t>(faces.offsets.size()) - 1;
      const long line = t.line();
      vertices.read = 0;
      read_labels_into(t, binary, vertex_rules, vertices);
      if (faces.offsets.size() == faces.offsets.capacity())  // --- a list without a size: the faces so far as a mesh
        require_mesh_size(t, line,
                          {.faces = face + 1, .face_vertices = static_cast<std::int64_t>(faces.vertices.size())},
                          "the faces list, at " + std::to_string(face + 1) + " entries");
      make_room(faces.offsets, 1, false, t, line, held, "the faces list");
      faces.offsets.push_back(static_cast<label>(faces.vertices.size()));
      if (last_size() < 3) t.fail(line, "face " + std::to_string(face) + " has fewer than 3 vertices");
    }
    void repeat_last() {
      const label n = static_cast<label>(last_size());
      for (label i = 0; i < n; ++i) faces.vertices.push_back(faces.vertices[faces.vertices.size() - n]);
      faces.offsets.push_back(static_cast<label>(faces.vertices.size()));
    }
  } entries{t, faces, held, header.binary, face, vertex_rules, vertices};
  read_list(t, ListRules{"faces", 7}, entries);
}

FacesRead read_faces(const fs::path& path, label n_points, Holding& held) {
  FoamFile file(path.string(), read_text_file(path));
  Tokenizer& t = file.tokens;
  const FoamHeader header = read_header(t, "faceList", "faceCompactList");
  FacesRead faces;
  held.text = file.text.size();
  held.file_lists = [&faces] { return bytes_of(faces.offsets) + bytes_of(faces.vertices); };
  if (header.class_name == "faceCompactList")
    read_compact_faces(file, header, n_points, faces, held);
  else
    read_face_list(t, header, n_points, faces, held);
  expect_end(t);
  return faces;
}

struct LabelsRead {
  std::vector<label> values;
  long list_line = 0;
  FoamHeader header;
  label highest = -1;       ///< the highest entry
  long highest_line = 0;    ///< the line of its first occurrence
};

/// Read owner or neighbour: a cell per face, `faces_file` having `n_faces` faces; owner
/// (`one_per_face`) exactly that many, neighbour at most; every entry a cell (not negative);
/// a neighbour's entry not its face's `owner`.
LabelsRead read_labels(const fs::path& path, const char* what, const fs::path& faces_file, label n_faces,
                       bool one_per_face, const std::vector<label>* owner, Holding& held) {
  FoamFile file(path.string(), read_text_file(path));
  Tokenizer& t = file.tokens;
  LabelsRead result;
  result.header = read_header(t, "labelList");
  held.text = file.text.size();
  held.file_lists = [&result] { return bytes_of(result.values); };
  ListRules rules{what, 2};
  rules.agree = agreeing_with(t, what, n_faces, one_per_face,
                              faces_file.filename().string() + " has " + std::to_string(n_faces) + " faces");
  auto check = [&](std::int64_t k, label v, long line) {
    if (v < 0) t.fail(line, std::string("negative cell index ") + std::to_string(v) + " for face " + std::to_string(k));
    if (owner && k < static_cast<std::int64_t>(owner->size()) && (*owner)[k] == v)
      t.fail(line, "face " + std::to_string(k) + " has the same owner and neighbour " + std::to_string(v));
    if (v > result.highest) {
      result.highest = v;
      result.highest_line = line;
    }
  };
  auto entries = label_entries(t, result.values, held, std::string("the ") + what + " list", check);
  result.list_line = read_labels_into(t, result.header.binary, rules, entries).line;
  expect_end(t);
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
  struct PatchEntries {
    Tokenizer& t;
    std::vector<PatchRead>& patches;
    std::map<std::string, long, std::less<>> lines;  ///< the line of each name
    void check_uniform(std::int64_t, long) const {}
    void reserve(std::int64_t, long) const {}  // each patch is read from at least 31 characters of text
    void read_one() {
      PatchRead entry;
      const auto name = t.next();
      entry.line = name.line;
      entry.patch.name = std::string(name.text);
      const std::string quoted = "'" + printable(entry.patch.name) + "'";
      if (name.text == "(" || name.text == ")" || name.text == "{" || name.text == "}" || name.text == ";")
        t.fail(name.line, "expected a patch name but found " + quoted);
      if (const auto [first, inserted] = lines.emplace(entry.patch.name, name.line); !inserted)
        t.fail(name.line, "patch " + quoted + " is named twice (first on line " + std::to_string(first->second) + ")");
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
            t.fail(value_line, std::string(key.text) + " " + std::to_string(value) + " of patch " + quoted +
                                   " is out of range");
          (key.text == "nFaces" ? n_faces : start_face) = value;
          t.expect(";");
          continue;
        }
        std::string value;
        for (;;) {
          const auto tok = t.next();
          if (!tok.quoted && tok.text == ";") break;
          if (!tok.quoted && tok.text == "}") t.fail(tok.line, "missing ';' after '" + printable(key.text) + "'");
          if (!value.empty()) value += ' ';
          value += tok.text;
        }
        if (key.text == "type") entry.patch.type = value;
      }
      if (entry.patch.type.empty()) t.fail(entry.line, "patch " + quoted + " has no type");
      if (!n_faces) t.fail(entry.line, "patch " + quoted + " has no nFaces");
      if (!start_face) t.fail(entry.line, "patch " + quoted + " has no startFace");
      const std::string& type = entry.patch.type;
      if (type == "processor" || type == "processorCyclic" || type.rfind("cyclic", 0) == 0)
        t.fail(entry.line, "patch " + quoted + " of type " + printable(type) +
                               " is not supported (no coupled patches)");
      entry.patch.size = static_cast<label>(*n_faces);
      entry.patch.start = static_cast<label>(*start_face);
      patches.push_back(std::move(entry));
    }
    void repeat_last() { t.fail(t.line(), "a uniform list of patches is not valid"); }
  } entries{t, patches, {}};
  read_list(t, ListRules{"patches", 31}, entries);
  expect_end(t);
  return patches;
}

}  // namespace

std::vector<std::filesystem::path> polymesh_files(const std::filesystem::path& case_or_polymesh_dir) {
  const fs::path dir = locate_polymesh(case_or_polymesh_dir);
  std::vector<fs::path> files;
  for (const char* name : {"points", "faces", "owner", "neighbour", "boundary"})
    files.push_back(polymesh_file(dir, name));
  return files;
}

Mesh read_polymesh(const std::filesystem::path& case_or_polymesh_dir) {
  const fs::path dir = locate_polymesh(case_or_polymesh_dir);
  const std::vector<fs::path> files = polymesh_files(dir);
  const fs::path& points_path = files[0];
  const fs::path& faces_path = files[1];
  const fs::path& owner_path = files[2];
  const fs::path& neighbour_path = files[3];
  const fs::path& boundary_path = files[4];

  // --- each file's lists are kept while the next is read: the budget of each counts them
  Holding held;
  auto keep = [&held](std::uint64_t bytes) {
    held.kept += bytes;
    held.text = 0;
    held.file_lists = [] { return std::uint64_t{0}; };
  };
  // --- no allocation may fail past the checks with std::bad_alloc for a message
  const fs::path* reading = &points_path;
  try {
    UnfilledVector<Vec3> points = read_points(points_path, held);
    keep(bytes_of(points));
    const label n_points = static_cast<label>(points.size());
    reading = &faces_path;
    FacesRead faces = read_faces(faces_path, n_points, held);
    keep(bytes_of(faces.offsets) + bytes_of(faces.vertices));
    const label n_faces = static_cast<label>(faces.offsets.size()) - 1;
    reading = &owner_path;
    LabelsRead owner = read_labels(owner_path, "owner", faces_path, n_faces, true, nullptr, held);
    keep(bytes_of(owner.values));
    reading = &neighbour_path;
    LabelsRead neighbour = read_labels(neighbour_path, "neighbour", faces_path, n_faces, false, &owner.values, held);
    keep(bytes_of(neighbour.values));
    reading = &boundary_path;
    const std::vector<PatchRead> patches = read_boundary(boundary_path);
    reading = &dir;

    // --- sizes: one owner per face, at most one neighbour per face (the readers refuse others)
    const std::string owner_name = owner_path.string();
    if (static_cast<label>(owner.values.size()) != n_faces)
      throw MeshError(owner_name, owner.list_line, "has " + std::to_string(owner.values.size()) + " entries but " +
                                                       faces_path.filename().string() + " has " +
                                                       std::to_string(n_faces) + " faces");
    const label n_internal = static_cast<label>(neighbour.values.size());
    if (n_internal > n_faces)
      throw MeshError(neighbour_path.string(), neighbour.list_line,
                      "has " + std::to_string(n_internal) + " entries but there are only " + std::to_string(n_faces) +
                          " faces");
    // --- the cell count is the highest cell index + 1; it must be one the faces can close
    // before any per-cell array is sized by it
    const bool owner_highest = owner.highest >= neighbour.highest;
    const LabelsRead& highest_in = owner_highest ? owner : neighbour;
    const std::int64_t n_cells = std::int64_t{highest_in.highest} + 1;
    if (n_cells > max_closed_cells(n_faces, n_internal))
      throw MeshError(owner_highest ? owner_name : neighbour_path.string(), highest_in.highest_line,
                      "cell " + std::to_string(n_cells - 1) + " makes " + std::to_string(n_cells) + " cells, but " +
                          std::to_string(n_faces) + " faces (" + std::to_string(n_internal) +
                          " internal) can close at most " +
                          std::to_string(max_closed_cells(n_faces, n_internal)) + " (a cell needs at least 4 faces)");

    // --- the counts in the owner header's note, where present
    const std::pair<const char*, std::int64_t> noted[] = {
        {"nPoints", n_points}, {"nCells", n_cells}, {"nFaces", n_faces}, {"nInternalFaces", n_internal}};
    for (const auto& [key, actual] : noted) {
      const std::int64_t expected = note_count(owner_name, owner.header, key);
      if (expected >= 0 && expected != actual)
        throw MeshError(owner_name, owner.header.line, std::string("header note says ") + key + " " +
                                                           std::to_string(expected) +
                                                           " but the mesh has " + std::to_string(actual));
    }

    // --- patches contiguous from the first boundary face to the last
    const std::string boundary_name = boundary_path.string();
    label expected_start = n_internal;
    for (const auto& p : patches) {
      const std::string name = "'" + printable(p.patch.name) + "'";
      if (p.patch.start != expected_start)
        throw MeshError(boundary_name, p.line, "patch " + name + " has startFace " + std::to_string(p.patch.start) +
                                                   ", expected " + std::to_string(expected_start) +
                                                   " (patches must be contiguous after the " +
                                                   std::to_string(n_internal) + " internal faces)");
      if (static_cast<std::int64_t>(p.patch.start) + p.patch.size > n_faces)
        throw MeshError(boundary_name, p.line, "patch " + name + " runs past the last face " +
                                                   std::to_string(n_faces - 1));
      expected_start += p.patch.size;
    }
    if (expected_start != n_faces)
      throw MeshError(boundary_name, 0, "patches cover faces up to " + std::to_string(expected_start) +
                                            " but there are " +
                                            std::to_string(n_faces) + " faces (boundary faces without a patch)");

    // --- the mesh must fit before it is copied, ordered and given geometry
    const MeshCounts counts{.points = n_points, .faces = n_faces, .internal_faces = n_internal, .cells = n_cells,
                            .face_vertices = static_cast<std::int64_t>(faces.vertices.size())};
    if (const std::string problem = mesh_size_problem(counts); !problem.empty())
      throw MeshError(dir.string(), 0, problem);

    // --- assemble; faces out of upper-triangular order are flipped and sorted, cells keep their numbers
    FaceList list;
    list.offsets = std::move(faces.offsets);
    list.vertices = std::move(faces.vertices);
    list.owner = std::move(owner.values);
    list.neighbour.assign(n_faces, -1);
    std::copy(neighbour.values.begin(), neighbour.values.end(), list.neighbour.begin());
    std::vector<label>().swap(neighbour.values);
    list.patch.assign(n_faces, -1);
    std::vector<Patch> patch_list;
    for (label p = 0; p < static_cast<label>(patches.size()); ++p) {
      patch_list.push_back(patches[p].patch);
      std::fill(list.patch.begin() + patches[p].patch.start,
                list.patch.begin() + patches[p].patch.start + patches[p].patch.size, p);
    }
    Mesh mesh = assemble_mesh(std::move(points), list, std::move(patch_list), static_cast<label>(n_cells),
                              "polyMesh " + dir.string());
    check_mesh_addressing(mesh, dir.string());
    return mesh;
  } catch (const std::bad_alloc&) {
    const MemoryLimit limit = memory_limit();
    throw MeshError(reading->string(), 0, "out of memory while reading the mesh (memory limit " +
                                              format_bytes(limit.bytes) + ": " + describe_limit_source(limit) + ")");
  }
}

}  // namespace fvmmini
