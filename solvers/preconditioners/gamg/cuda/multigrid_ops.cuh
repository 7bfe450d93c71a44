#pragma once
// The vector steps of GAMG's V-cycle on the device (launchers; CUDA types allowed here): the
// device twin of solvers/preconditioners/gamg/multigrid_ops.hpp. Every launcher takes the CG's status flag:
// when it is not null and not 0 the kernels return at once (graphs replay past convergence). Those
// with a block width k take k vectors interleaved by row (linalg/block_vectors.hpp; 1 to
// max_block_vectors; n and the group counts are rows): vector j's values as the one-vector step's.

#include <cuda_runtime.h>

namespace fvmmini::cuda {

/// x = weight * inv_diag * b (a Jacobi sweep from zero).
void enqueue_jacobi_start(int n, double weight, const double* inv_diag, const double* b, double* x,
                          const int* status, cudaStream_t stream, int k = 1);

/// x += weight * inv_diag * (b - ax) (a Jacobi sweep; ax = A x).
void enqueue_jacobi_correct(int n, double weight, const double* inv_diag, const double* b, const double* ax, double* x,
                            const int* status, cudaStream_t stream, int k = 1);

/// r = b - ax (r may alias ax).
void enqueue_residual(int n, const double* b, const double* ax, double* r, const int* status, cudaStream_t stream);

/// x += z.
void enqueue_add(int n, const double* z, double* x, const int* status, cudaStream_t stream);

/// coarse_c = sum over the rows i of group c of (b_i - ax_i): the residual restricted. With
/// `start_inv_diag`, also the coarse level's first Jacobi sweep from zero in the same pass:
/// start_c = weight * start_inv_diag_c * coarse_c.
void enqueue_restrict_residual(int n_coarse, const int* group_ptr, const int* group_rows, const double* b,
                               const double* ax, double* coarse, const int* status, cudaStream_t stream,
                               double weight = 0.0, const double* start_inv_diag = nullptr, double* start = nullptr,
                               int k = 1);

/// coarse_c = extra_c + sum over the rows i of group c of fine_i (a diagonal restricted).
void enqueue_restrict_add(int n_coarse, const int* group_ptr, const int* group_rows, const double* fine,
                          const double* extra, double* coarse, cudaStream_t stream);

/// x_i += scale * coarse_{coarse_of[i]}.
void enqueue_prolong_add(int n, const int* coarse_of, double scale, const double* coarse, double* x, const int* status,
                         cudaStream_t stream, int k = 1);

/// to_i = from_{rows[i]} (a gathered level's values into its ordering, and this rank's rows back).
void enqueue_gather(int n, const int* rows, const double* from, double* to, const int* status, cudaStream_t stream);

/// x = inverse b, the inverse dense and row-major (rows x columns).
void enqueue_dense_multiply(int rows, int columns, const double* inverse, const double* b, double* x,
                            const int* status, cudaStream_t stream, int k = 1);

/// One level of a V-cycle run by one_block_vcycle: its operator A = diag + the off-diagonal CSR
/// (whose diagonal slots hold zero, so that a new diagonal needs no new values), its Jacobi
/// smoother and its transfer to the next level. The coarsest's entry only needs n, b and x.
struct OneBlockLevel {
  int n = 0;
  const int* row_ptr = nullptr;
  const int* col = nullptr;
  const double* off = nullptr;
  const double* diag = nullptr;
  const double* inv_diag = nullptr;
  double* b = nullptr;
  double* x = nullptr;
  double* ax = nullptr;
  const int* coarse_of = nullptr;   ///< row -> its group on the next level
  const int* group_ptr = nullptr;   ///< the next level's groups: its rows here
  const int* group_rows = nullptr;
};

/// The threads of one_block_vcycle's block; each level has at most one_block_rows rows: two a
/// thread (on an H200 a level of 1953 rows took 12 µs in the block, one of 3901 rows 32 µs, where
/// a level of 15 k rows takes 16 µs as kernels).
constexpr int one_block_threads = 1024;
constexpr int one_block_rows = 2 * one_block_threads;

/// The V-cycle from levels[0] down, in one kernel of one block: the same steps as GAMG's kernel
/// by kernel (Jacobi sweeps damped by `weight`, `sweeps` before and after the correction, which is
/// scaled by `scale`; a level's first sweep from zero done by the restriction above it), the
/// coarsest (levels[smoothed]) by its dense inverse (`columns` = its rows). Below a few thousand
/// rows a level's arithmetic takes less time than its five kernel launches.
/// @param[in] started whether levels[0].x already holds its first sweep (the restriction above did it)
/// With k vectors, each level's b, x and ax hold k n values.
void enqueue_one_block_vcycle(const OneBlockLevel* levels, int smoothed, const double* inverse, int columns,
                              double weight, double scale, int sweeps, bool started, const int* status,
                              cudaStream_t stream, int k = 1);

/// values[slot[i]] = d[i] and inv_diag[i] = 1 / d[i], each unless null (a level's new diagonal
/// into its format and its Jacobi smoother).
void enqueue_set_diagonal(int n, const double* d, const long long* slot, double* values, double* inv_diag,
                          cudaStream_t stream);

/// off = values (entries of them) with each of the n rows' diagonal slot zero: a one-block
/// level's off-diagonals from its csr values.
void enqueue_without_diagonal(int n, long long entries, const double* values, const long long* diag_slot, double* off,
                              cudaStream_t stream);

}  // namespace fvmmini::cuda
