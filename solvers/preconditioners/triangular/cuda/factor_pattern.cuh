#pragma once
// The factor's pattern on the device: the matrix's CSR pattern in the operator's numbering
// (FactorPattern, solvers/preconditioners/triangular/triangular_factor.hpp), built there from the LDU
// addressing entry for entry as factor_pattern builds it on the host, and the schedule's order
// beside it. The host's build, a serial scatter over the faces, was 70 to 80 % of DIC's and
// mcsgs's set-up on the device (200³ box, H200: 710 to 760 of 900 to 1030 ms).

#include <cuda_runtime.h>

#include <span>

#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_rows.cuh"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "solvers/preconditioners/triangular/triangular_factor.hpp"

namespace fvmmini::cuda {

/// The factor pattern (FactorPattern) on the device (the rows' pattern, kernels/cuda/device_rows.cuh),
/// and the schedule's order.
struct DevicePattern : DeviceRowPattern {
  DeviceBuffer<int> order;  ///< rows by rank; empty for index order
  DeviceBuffer<int> rank;   ///< rank by row; empty for index order
};

/// factor_pattern(addressing, op) built on the device: each row's entries counted and placed
/// from the faces, then sorted by column (ties, two faces between one pair of cells, by face).
/// Its order is left empty (index order). Synchronises `stream`.
DevicePattern device_factor_pattern(const LduAddressing& addressing, const Permutation& op, cudaStream_t stream);
/// The same from an addressing already on the device (lower and upper of `faces` faces, old_to_new
/// null for the identity), as GAMG's device hierarchy builds its levels.
DevicePattern device_factor_pattern(int n_rows, int faces, const int* lower, const int* upper, const int* old_to_new,
                                    cudaStream_t stream);

/// The pattern on the host (tests compare it with factor_pattern's).
FactorPattern download(const DevicePattern& pattern);

/// `order` (rows by rank, schedule_order's) and its inverse on the device; both left empty where
/// the order is the index order. Synchronises `stream`.
void set_schedule_order(DevicePattern& pattern, std::span<const label> order, cudaStream_t stream);
/// The same from an order already on the device (kept even where it is the index order).
void set_schedule_order(DevicePattern& pattern, DeviceBuffer<int> order, cudaStream_t stream);

}  // namespace fvmmini::cuda
