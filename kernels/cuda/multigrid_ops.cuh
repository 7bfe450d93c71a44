#pragma once
// The vector steps of GAMG's V-cycle on the device (launchers; CUDA types allowed here): the
// device twin of kernels/reference/multigrid_ops.hpp. Every launcher takes the CG's status flag:
// when it is not null and not 0 the kernels return at once (graphs replay past convergence).

#include <cuda_runtime.h>

namespace fvmmini::cuda {

/// x = weight * inv_diag * b (a Jacobi sweep from zero).
void enqueue_jacobi_start(int n, double weight, const double* inv_diag, const double* b, double* x,
                          const int* status, cudaStream_t stream);

/// x += weight * inv_diag * (b - ax) (a Jacobi sweep; ax = A x).
void enqueue_jacobi_correct(int n, double weight, const double* inv_diag, const double* b, const double* ax, double* x,
                            const int* status, cudaStream_t stream);

/// r = b - ax (r may alias ax).
void enqueue_residual(int n, const double* b, const double* ax, double* r, const int* status, cudaStream_t stream);

/// x += z.
void enqueue_add(int n, const double* z, double* x, const int* status, cudaStream_t stream);

/// coarse_c = sum over the rows i of group c of (b_i - ax_i): the residual restricted. With
/// `start_inv_diag`, also the coarse level's first Jacobi sweep from zero in the same pass:
/// start_c = weight * start_inv_diag_c * coarse_c.
void enqueue_restrict_residual(int n_coarse, const int* group_ptr, const int* group_rows, const double* b,
                               const double* ax, double* coarse, const int* status, cudaStream_t stream,
                               double weight = 0.0, const double* start_inv_diag = nullptr, double* start = nullptr);

/// coarse_c = extra_c + sum over the rows i of group c of fine_i (a diagonal restricted).
void enqueue_restrict_add(int n_coarse, const int* group_ptr, const int* group_rows, const double* fine,
                          const double* extra, double* coarse, cudaStream_t stream);

/// x_i += scale * coarse_{coarse_of[i]}.
void enqueue_prolong_add(int n, const int* coarse_of, double scale, const double* coarse, double* x, const int* status,
                         cudaStream_t stream);

/// to_i = from_{rows[i]} (a gathered level's values into its ordering, and this rank's rows back).
void enqueue_gather(int n, const int* rows, const double* from, double* to, const int* status, cudaStream_t stream);

/// x = inverse b, the inverse dense and row-major (rows x columns).
void enqueue_dense_multiply(int rows, int columns, const double* inverse, const double* b, double* x,
                            const int* status, cudaStream_t stream);

/// values[slot[i]] = d[i] and inv_diag[i] = 1 / d[i], each unless null (a level's new diagonal
/// into its format and its Jacobi smoother).
void enqueue_set_diagonal(int n, const double* d, const long long* slot, double* values, double* inv_diag,
                          cudaStream_t stream);

}  // namespace fvmmini::cuda
