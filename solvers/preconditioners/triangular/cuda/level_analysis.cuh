#pragma once
// The level analysis on the device, with the same result as build_triangular_factor on the host
// (solvers/preconditioners/triangular/triangular_factor.hpp), from the factor's pattern already on the
// device (factor_pattern.cuh), in two steps. find_levels is the analysis proper, what
// cusparseSpSV_analysis and the block search of level-scheduled back substitution compute: each
// row's level (1 + the largest of its earlier neighbours') in one sync-free launch
// (sync_free.cuh), the rows grouped by level with ties by rank (CUB's stable radix sort, skipped
// when the ranks already run level by level), each level's start and widest rows. The same pass
// colours the rows greedily (LevelRule::colour: mcsgs's schedule). lay_out_triangles then writes
// each level's triangle entries as column-major ELL blocks whose columns are positions in that
// order.

#include <cuda_runtime.h>

#include <span>
#include <vector>

#include "kernels/cuda/device_memory.cuh"
#include "solvers/preconditioners/triangular/cuda/factor_pattern.cuh"
#include "solvers/preconditioners/triangular/triangular_factor.hpp"

namespace fvmmini::cuda {

/// One triangle as TrianglePart lays it out: offsets and widths on the host and the device,
/// slots on the device. Its columns are positions in the level order (DeviceLevels::rows), not
/// rows: a sweep keeps its vector in that order, so a level's neighbours lie close together.
struct DeviceTrianglePart {
  std::vector<long long> offset;  ///< levels + 1
  std::vector<int> width;         ///< levels
  DeviceBuffer<long long> offset_device;
  DeviceBuffer<int> width_device;
  DeviceBuffer<int> col, face;
  DeviceBuffer<double> value;
  long long slots() const { return offset.empty() ? 0 : offset.back(); }
};

/// The schedule (find_levels) and the triangles laid out by it (lay_out_triangles).
struct DeviceLevels {
  std::vector<int> level_ptr;          ///< levels + 1, host
  DeviceBuffer<int> level_ptr_device;  ///< the same (allocated for as many levels as rows)
  DeviceBuffer<int> rows;              ///< positions -> rows, level by level; empty when rows[k] == k
  DeviceBuffer<int> position_level;    ///< positions -> their level
  DeviceTrianglePart lower, upper;  ///< widths from find_levels, the rest from lay_out_triangles
  int levels() const { return static_cast<int>(level_ptr.size()) - 1; }
  int level_size(int l) const { return level_ptr[l + 1] - level_ptr[l]; }
};

/// Scratch and results sized by the row count alone, allocated before the analysis as
/// cusparseSpSV's buffer is (cusparseSpSV_bufferSize, then the caller's allocation), so that the
/// analysis allocates nothing in proportion to the rows. Read and written only by this file's
/// functions; the schedule's row and level arrays move out of it into DeviceLevels.
struct LevelWorkspace {
  explicit LevelWorkspace(int n_rows);
  int n = 0;
  DeviceBuffer<int> level;      ///< per row; then per row its position in the level order
  DeviceBuffer<int> counts;     ///< per rank its row's earlier, then its later neighbours (2 n)
  DeviceBuffer<int> bounds;     ///< per level its widths (2 n); the state (5)
  DeviceBuffer<int> level_ptr;  ///< per level its start (n + 1): DeviceLevels::level_ptr_device
  DeviceBuffer<int> sorted_level[2];  ///< the levels by rank, then (sorted) by position
  DeviceBuffer<int> sorted_rows[2];   ///< the rows by rank (then by position); the ranks by position
  DeviceBuffer<char> sort_temp;
};

/// The level pass's critical path (sync_free_hops) for `pattern` (the host's) with its rows by
/// rank in `order`: blocks of the pass's size, as many resident as this device holds of the
/// kernel the widest row picks. The analysis's time over it is what a hop costs.
long long level_pass_hops(const FactorPattern& pattern, std::span<const label> order);

/// What a row's level is, from its earlier neighbours' (those of a lower rank).
enum class LevelRule {
  chain,   ///< 1 + the largest of theirs (0 without one): the dependency levels
  colour,  ///< the smallest none of them has: greedy_colouring's colours, visiting the rows by rank
};

/// The schedule of `pattern`: levels, rows by level (ties by rank), level starts and each
/// triangle's widths per level. Synchronises `stream`.
DeviceLevels find_levels(const DevicePattern& pattern, LevelWorkspace& workspace, cudaStream_t stream,
                         LevelRule rule = LevelRule::chain);

/// Both triangles' addressing (col, face) laid out by `levels`' schedule; their values are left
/// for the caller. Synchronises `stream`.
void lay_out_triangles(const DevicePattern& pattern, LevelWorkspace& workspace, DeviceLevels& levels,
                       cudaStream_t stream);

}  // namespace fvmmini::cuda
