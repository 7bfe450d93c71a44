#pragma once
// The level analysis on the device, with the same result as build_triangular_factor on the host
// (linalg/preconditioners/triangular_factor.hpp), from the factor's pattern already on the
// device: each row's level (1 + the largest of its earlier neighbours') in one sync-free launch
// (sync_free.cuh), the rows sorted by level with ties by rank (CUB's stable radix sort), then
// each level's triangle entries written as column-major ELL blocks whose columns are positions
// in that order.

#include <cuda_runtime.h>

#include <vector>

#include "kernels/cuda/device_memory.cuh"

namespace fvmmini::cuda {

/// The factor pattern (FactorPattern) on the device, and the schedule's order.
struct DevicePattern {
  int n_rows = 0;
  DeviceBuffer<int> row_ptr, col, face;
  DeviceBuffer<int> order;  ///< rows by rank; empty for index order
  DeviceBuffer<int> rank;   ///< rank by row; empty for index order
};

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

struct DeviceLevels {
  std::vector<int> level_ptr;          ///< levels + 1, host
  DeviceBuffer<int> level_ptr_device;  ///< the same
  DeviceBuffer<int> rows;              ///< positions -> rows, level by level; empty when rows[k] == k
  DeviceBuffer<int> position_level;    ///< positions -> their level
  DeviceTrianglePart lower, upper;
  int levels() const { return static_cast<int>(level_ptr.size()) - 1; }
  int level_size(int l) const { return level_ptr[l + 1] - level_ptr[l]; }
};

/// The levels and both triangles' addressing (col, face) of `pattern`'s schedule; values are
/// left for the caller. Synchronises `stream`.
DeviceLevels analyse_levels(const DevicePattern& pattern, cudaStream_t stream);

}  // namespace fvmmini::cuda
