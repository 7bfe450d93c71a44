#pragma once
// The one declaration header of the device formats: each factory uploads a host format
// struct (linalg/formats/) and returns its SpMV; the kernels live in <format>.cu.

#include <memory>

#include "kernels/cuda/cuda_error.hpp"
#include "kernels/cuda/device_spmv.cuh"
#include "linalg/formats/csr_format.hpp"
#include "linalg/formats/ellwarp_matrix.hpp"
#include "linalg/formats/sell_matrix.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

/// "csr": vector CSR, a sub-warp of lanes per row sized from the mean row length.
std::unique_ptr<DeviceSpmv> make_csr_device(const CsrFormat& a);
/// "csr-cusparse": cusparseSpMV on the CSR arrays.
std::unique_ptr<DeviceSpmv> make_csr_cusparse_device(const CsrFormat& a);
/// "sell": SELL-C-sigma, one thread per row, y scattered through row_order.
std::unique_ptr<DeviceSpmv> make_sell_device(const SellMatrix& a);
/// "sell-cusparse": cusparseSpMV on cuSPARSE's sliced ELL (plus a scatter of y when the SELL
/// rows are sorted: cuSPARSE has no row permutation).
std::unique_ptr<DeviceSpmv> make_sell_cusparse_device(const SellMatrix& a);
/// "staircase": Staircase SELL; launch groups: one launch per group, each on its own stream;
/// interleaved: one launch over the slices of every group, kept in step over the rows.
std::unique_ptr<DeviceSpmv> make_staircase_device(const StaircaseMatrix& a,
                                                  StaircaseLaunch launch = StaircaseLaunch::groups);
/// "ellwarp": ELL-WARP, a warp per slice, K1 or K2 as the matrix was built; y scattered through
/// row_order unless the rows are in place; slices visited in slice_position order when known.
std::unique_ptr<DeviceSpmv> make_ellwarp_device(const EllWarpMatrix& a);

}  // namespace fvmmini::cuda
