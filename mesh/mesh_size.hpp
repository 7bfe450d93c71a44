#pragma once
// How big a mesh is before it is built: whether its counts fit the 32-bit label and
// whether a run on it fits in this machine's memory. Readers and the box generator ask
// here before they allocate, so a hostile count is refused with the figure and the limit.

#include <cstdint>
#include <string>

namespace fvmmini {

/// A mesh's sizes, known (or bounded) before the mesh is built.
struct MeshCounts {
  std::int64_t points = 0;
  std::int64_t faces = 0;
  std::int64_t internal_faces = 0;
  std::int64_t cells = 0;
  std::int64_t face_vertices = 0;  ///< the entries of all vertex loops together
};

/// The memory a run may use, and where that figure comes from.
struct MemoryLimit {
  std::uint64_t bytes = 0;
  std::string source;  ///< "FVMMINI_MEMORY_LIMIT", "physical memory", "the cgroup memory limit" or the
                       ///< address-space one
};

/// The environment variable that overrides the memory limit.
inline constexpr const char* memory_limit_variable = "FVMMINI_MEMORY_LIMIT";

/// FVMMINI_MEMORY_LIMIT when set (bytes, or a number with a K, M, G or T suffix: powers of
/// 1024), else this machine's physical memory, or its control group's limit or the process's
/// address-space limit (RLIMIT_AS, `ulimit -v`) where lower.
/// Throws std::invalid_argument naming the variable when its value is not a positive size.
MemoryLimit memory_limit();

/// The bytes a run on such a mesh needs at least, roughly: the mesh and its copies while it
/// is read and ordered, its geometry, and the main arrays of a scalar run (matrix, solver
/// vectors, fields); an incompressible run needs about 2.3 times as much (the app's key_memory
/// adds the difference as the memory of physics.type).
std::uint64_t estimated_run_bytes(const MeshCounts& counts);

/// Why a mesh of these counts cannot be used here (a count past the 32-bit label range, or
/// an estimated run past memory_limit()), with the figure and the limit; "" when it can.
std::string mesh_size_problem(const MeshCounts& counts);

/// Why `bytes` for `what` ("the points list of 3000000 entries") cannot be had under
/// memory_limit(), with the figures and where the limit comes from; "" when they can. Every
/// allocation an input sizes (a reader's list, a key's samples) asks here first.
std::string memory_problem(std::uint64_t bytes, const std::string& what);

/// Where a limit comes from and how to change it: "the address-space limit (ulimit -v);
/// FVMMINI_MEMORY_LIMIT overrides it", or "FVMMINI_MEMORY_LIMIT" when that set it.
std::string describe_limit_source(const MemoryLimit& limit);

/// One line for --dry-run: "about 1.20 GiB for the mesh and a run (limit 31.3 GiB: physical memory)".
std::string describe_memory(const MeshCounts& counts);

/// Bytes in binary units with three significant figures: "512 B", "1.50 GiB".
std::string format_bytes(std::uint64_t bytes);

}  // namespace fvmmini
