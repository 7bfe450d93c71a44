#include "mesh/mesh_size.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "mesh/mesh.hpp"

namespace fvmmini {

namespace {

/// "8G", "512M", "1.5T", "1073741824" in bytes; 0 when the text is not a positive size.
std::uint64_t parse_size(const std::string& text) {
  double value = 0.0;
  const char* first = text.data();
  const char* last = first + text.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || end == first) return 0;
  const std::string suffix(end, last);
  const auto unit = suffix.size() == 1 ? std::string("KMGT").find(static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])))) : std::string::npos;
  if (!suffix.empty() && unit == std::string::npos) return 0;
  const double scale = suffix.empty() ? 1.0 : std::pow(1024.0, static_cast<double>(unit + 1));
  const double bytes = value * scale;
  if (!(bytes >= 1.0) || bytes >= 1.8e19) return 0;
  return static_cast<std::uint64_t>(bytes);
}

/// The first line of a small file, or "" when it cannot be read.
std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// The control group's memory limit (cgroup v2, else v1), or 0 when there is none.
std::uint64_t cgroup_limit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const std::string text = first_line(path);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end != text.data() && value > 0) return value;  // "max" (no limit) does not parse
  }
  return 0;
}

}  // namespace

MemoryLimit memory_limit() {
  if (const char* set = std::getenv(memory_limit_variable)) {
    const std::uint64_t bytes = parse_size(set);
    if (bytes == 0)
      throw std::invalid_argument(std::string(memory_limit_variable) + "='" + set +
                                  "' is not a memory size (bytes, or a number with K, M, G or T: 8G, 1.5T)");
    return {bytes, memory_limit_variable};
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  MemoryLimit limit{std::numeric_limits<std::uint64_t>::max(), "physical memory unknown"};
  if (pages > 0 && page_size > 0) limit = {static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size), "physical memory"};
  const std::uint64_t group = cgroup_limit();
  if (group > 0 && group < limit.bytes) limit = {group, "the cgroup memory limit"};
  // --- under `ulimit -v` an allocation past the address space fails whatever the memory is
  struct rlimit address_space {};
  if (::getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY &&
      address_space.rlim_cur < limit.bytes)
    limit = {static_cast<std::uint64_t>(address_space.rlim_cur), "the address-space limit (ulimit -v)"};
  return limit;
}

std::uint64_t estimated_run_bytes(const MeshCounts& n) {
  auto count = [](std::int64_t c) { return static_cast<std::uint64_t>(c > 0 ? c : 0); };
  // Bytes per item, measured on a scalar (poisson) run of a 100^3 box: 0.74 GB peak against
  // 0.78 GB estimated; an incompressible run needs about 2.3 times as much, so this is a
  // lower bound for it. Points: coordinates. Faces: owner, offsets, centre, area vector, the
  // reader's and the ordering's copies, a flux. Internal faces: neighbour, the LDU
  // off-diagonals, two CSR entries (value and column). Face vertices: the loops and one copy
  // while ordering. Cells: centre, volume, diagonal, CSR row, about a dozen solver and field vectors.
  return 24 * count(n.points) + 80 * count(n.faces) + 48 * count(n.internal_faces) + 16 * count(n.face_vertices) +
         220 * count(n.cells);
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.{}f} {}", value, value < 10 ? 2 : (value < 100 ? 1 : 0), units[unit]);
}

namespace {

/// "512 cells, 1600 faces and 729 points": the counts that are known (non-zero).
std::string describe_counts(const MeshCounts& n) {
  std::vector<std::string> parts;
  if (n.cells > 0) parts.push_back(fmt::format("{} cells", n.cells));
  if (n.faces > 0) parts.push_back(fmt::format("{} faces", n.faces));
  if (n.points > 0) parts.push_back(fmt::format("{} points", n.points));
  if (parts.empty()) parts.push_back(fmt::format("{} face-vertex entries", n.face_vertices));
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return text;
}

}  // namespace

std::string describe_limit_source(const MemoryLimit& limit) {
  if (limit.source == memory_limit_variable) return limit.source;
  return limit.source + "; " + memory_limit_variable + " overrides it";
}

std::string mesh_size_problem(const MeshCounts& n) {
  constexpr std::int64_t max_label = std::numeric_limits<label>::max();
  const std::pair<std::int64_t, const char*> indexed[] = {
      {n.cells, "cells"}, {n.faces, "faces"}, {n.points, "points"}, {n.face_vertices, "face-vertex entries"}};
  for (const auto& [count, what] : indexed)
    if (count > max_label)
      return fmt::format("{} {} are past the 32-bit index range (at most {})", count, what, max_label);
  const MemoryLimit limit = memory_limit();
  const std::uint64_t needed = estimated_run_bytes(n);
  if (needed > limit.bytes)
    return fmt::format("a mesh of {} needs at least about {} for a run, more than the memory limit of {} ({})",
                       describe_counts(n), format_bytes(needed), format_bytes(limit.bytes),
                       describe_limit_source(limit));
  return "";
}

std::string memory_problem(std::uint64_t bytes, const std::string& what) {
  const MemoryLimit limit = memory_limit();
  if (bytes <= limit.bytes) return "";
  return fmt::format("{} needs about {}, more than the memory limit of {} ({})", what, format_bytes(bytes),
                     format_bytes(limit.bytes), describe_limit_source(limit));
}

std::string describe_memory(const MeshCounts& counts) {
  const MemoryLimit limit = memory_limit();
  return fmt::format("about {} for the mesh and a run (limit {}: {})", format_bytes(estimated_run_bytes(counts)),
                     format_bytes(limit.bytes), limit.source);
}

}  // namespace fvmmini
