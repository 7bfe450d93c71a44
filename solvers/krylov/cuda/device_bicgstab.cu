// PBiCGStab on the device, step for step as reference_bicgstab.cpp (its comments' "---" steps
// are named the same here). Per iteration, with y = M^-1 p and z = M^-1 s (p and s themselves
// under none, Jacobi fused into the passes that write p and s):
//   direction:  p = r, then p = r + beta (p - omega v)            [y = p / a_ii]
//   product:    v = A y; alpha = rho / r0.v
//   half step:  s = r - alpha v (in r), |s|_1; the stopping test on s [z = s / a_ii]
//   product:    t = A z; omega = t.s / t.t
//   update:     x += alpha y + omega z; r = s - omega t, |r|_1 and r0.r (the next rho) in one pass;
//               the stopping tests, the next beta and the vanishing tests on rho and omega
// Where s passes, the update kernel applies x += alpha y alone and the iteration ends there. The
// scalars and the status live in a device struct that every kernel after a stop reads and
// returns on; so the host queues a batch of iterations and reads the state once a batch (an
// iteration queued past the stop costs its two products, which do not read the status), the
// batches sized from the residual's fall as the CG's are (cg_next_batch). No graphs: an
// iteration is about a dozen launches, which only small systems notice.

#include "solvers/krylov/cuda/device_bicgstab.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/l2_window.hpp"
#include "kernels/cuda/reduction.cuh"
#include "kernels/cuda/vector_ops.cuh"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/solve_start.cuh"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini::cuda {

namespace {

/// OpenFOAM's VSMALL, as reference_bicgstab.cpp: below it r0.r and omega count as zero.
constexpr double vanishing = 1e-300;
/// The status of a solve stopped because r0.r or omega vanished: no error (OpenFOAM's stops so),
/// converged only if the residual says so. Negative: no CgStatus, and not 0, so that every kernel
/// (the preconditioners' too) reads it as stopped.
constexpr int status_vanished = -1;
/// Iterations in a solve's first batch when no solve came before it.
constexpr int first_batch_default = 8;

struct BiCgStabState {
  double x_mean;
  double norm_factor;
  double initial_residual;
  double residual;  ///< after the last iteration (a half one too)
  double rho;       ///< r0.r of the current iteration
  double alpha;
  double omega;
  double beta;
  int iterations;
  int status;          ///< a CgStatus or status_vanished: 0 while running (the preconditioners read it)
  int x_half_pending;  ///< s passed the stopping test: x += alpha y is still to be applied
};

__device__ inline bool running(const BiCgStabState& state) {
  return state.status == static_cast<int>(CgStatus::running);
}

/// r = b - Ax; r0 = r; partials of |r|, |Ax - s x̄| + |b - s x̄| (s = A 1) and r.r (the first rho).
__global__ void __launch_bounds__(reduce_block)
    initial_residual_kernel(long long n, const double* __restrict__ b, const double* __restrict__ ax,
                            const double* __restrict__ row_sums, double* __restrict__ r, double* __restrict__ r0,
                            const BiCgStabState* state, double* __restrict__ partials) {
  const double x_mean = state->x_mean;
  Sums<3> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double ri = start_residual(b[i], ax[i], row_sums[i], x_mean, s);
    r[i] = ri;
    r0[i] = ri;
    s.v[2] += ri * ri;
  }
  write_block_partials<3>(s, partials, gridDim.x, blockIdx.x);
}

/// normFactor, the initial residual and the stopping tests before any iteration (start_solve);
/// then the first rho and its vanishing test (the loop's top).
__global__ void __launch_bounds__(finalize_block) initial_finalize(const double* __restrict__ partials, int count,
                                                                   BiCgStabState* state, CgStop stop) {
  const Sums<3> s = reduce_partials<3>(partials, count);
  if (threadIdx.x != 0) return;
  start_state(s.v[0], s.v[1], *state, stop);
  state->x_half_pending = 0;
  if (!running(*state)) return;
  state->rho = s.v[2];
  if (fabs(state->rho) < vanishing) state->status = status_vanished;
}

/// --- p = r (the first iteration), else p = r + beta (p - omega v); y = p / a_ii under Jacobi.
__global__ void __launch_bounds__(reduce_block)
    direction_kernel(long long n, const double* __restrict__ r, const double* __restrict__ v,
                     const double* __restrict__ inv_diag, double* __restrict__ p, double* __restrict__ y,
                     const BiCgStabState* state) {
  if (!running(*state)) return;
  const bool first = state->iterations == 0;  // p holds the last solve's values: not read
  const double beta = state->beta;
  const double omega = state->omega;
  FVMMINI_GRID_STRIDE(i, n) {
    const double pi = first ? r[i] : r[i] + beta * (p[i] - omega * v[i]);
    p[i] = pi;
    if (inv_diag) y[i] = inv_diag[i] * pi;
  }
}

/// alpha = rho / r0.v (a vanishing r0.v makes alpha infinite, and the residual of s not finite,
/// as in the reference).
__global__ void __launch_bounds__(finalize_block) alpha_finalize(const double* __restrict__ partials, int count,
                                                                 BiCgStabState* state) {
  if (!running(*state)) return;
  const Sums<1> s = reduce_partials<1>(partials, count);
  if (threadIdx.x == 0) state->alpha = state->rho / s.v[0];
}

/// s = r - alpha v (in r); partials of |s|; z = s / a_ii under Jacobi.
__global__ void __launch_bounds__(reduce_block)
    half_step_kernel(long long n, const double* __restrict__ v, const double* __restrict__ inv_diag,
                     double* __restrict__ r, double* __restrict__ z, const BiCgStabState* state,
                     double* __restrict__ partials) {
  if (!running(*state)) return;
  const double alpha = state->alpha;
  Sums<1> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double si = r[i] - alpha * v[i];
    r[i] = si;
    if (inv_diag) z[i] = inv_diag[i] * si;
    s.v[0] += fabs(si);
  }
  write_block_partials<1>(s, partials, gridDim.x, blockIdx.x);
}

/// The residual of s: not finite is an error in the iteration under way; passing the stopping
/// test ends the solve there, x += alpha y left to the update kernel.
__global__ void __launch_bounds__(finalize_block) half_step_finalize(const double* __restrict__ partials, int count,
                                                                     BiCgStabState* state, CgStop stop) {
  if (!running(*state)) return;
  const Sums<1> s = reduce_partials<1>(partials, count);
  if (threadIdx.x != 0) return;
  const double residual = s.v[0] / state->norm_factor;
  if (!std::isfinite(residual)) {
    ++state->iterations;  // the reference names the iteration under way
    state->status = static_cast<int>(CgStatus::residual_not_finite);
  } else if (cg_converged(residual, state->initial_residual, stop)) {
    ++state->iterations;
    state->residual = residual;
    state->x_half_pending = 1;
    state->status = static_cast<int>(CgStatus::converged);
  }
}

/// Partials of t.s and t.t (s in r).
__global__ void __launch_bounds__(reduce_block)
    omega_partials_kernel(long long n, const double* __restrict__ t, const double* __restrict__ r,
                          const BiCgStabState* state, double* __restrict__ partials) {
  if (!running(*state)) return;
  Sums<2> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double ti = t[i];
    s.v[0] += ti * r[i];
    s.v[1] += ti * ti;
  }
  write_block_partials<2>(s, partials, gridDim.x, blockIdx.x);
}

__global__ void __launch_bounds__(finalize_block) omega_finalize(const double* __restrict__ partials, int count,
                                                                 BiCgStabState* state) {
  if (!running(*state)) return;
  const Sums<2> s = reduce_partials<2>(partials, count);
  if (threadIdx.x != 0) return;
  const double ts = s.v[0], tt = s.v[1];
  state->omega = tt > 0.0 ? ts / tt : 0.0;
}

/// x += alpha y + omega z; r = s - omega t; partials of |r| and r0.r. Where s passed instead:
/// x += alpha y alone. z null: z is s itself (preconditioner none), read from r before its update.
__global__ void __launch_bounds__(reduce_block)
    update_kernel(long long n, const double* __restrict__ y, const double* __restrict__ z,
                  const double* __restrict__ t, const double* __restrict__ r0, double* __restrict__ x,
                  double* __restrict__ r, const BiCgStabState* state, double* __restrict__ partials) {
  const double alpha = state->alpha;
  if (!running(*state)) {
    if (state->x_half_pending) FVMMINI_GRID_STRIDE(i, n) x[i] += alpha * y[i];
    return;
  }
  const double omega = state->omega;
  Sums<2> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double si = r[i];
    x[i] += alpha * y[i] + omega * (z ? z[i] : si);
    const double ri = si - omega * t[i];
    r[i] = ri;
    s.v[0] += fabs(ri);
    s.v[1] += r0[i] * ri;
  }
  write_block_partials<2>(s, partials, gridDim.x, blockIdx.x);
}

/// The iteration counted with its residual (finish_iteration); where it goes on, the loop's top
/// of the next: rho, the vanishing tests on rho and omega, beta.
__global__ void __launch_bounds__(finalize_block) update_finalize(const double* __restrict__ partials, int count,
                                                                  BiCgStabState* state, CgStop stop) {
  if (threadIdx.x == 0) state->x_half_pending = 0;  // the update kernel applied it
  if (!running(*state)) return;
  const Sums<2> s = reduce_partials<2>(partials, count);
  if (threadIdx.x != 0) return;
  const int it = ++state->iterations;
  const double residual = s.v[0] / state->norm_factor;
  state->residual = residual;
  state->status = static_cast<int>(cg_status_after(residual, state->initial_residual, it, stop));
  if (!running(*state)) return;
  const double rho_old = state->rho;
  state->rho = s.v[1];
  if (fabs(state->rho) < vanishing || fabs(state->omega) < vanishing) {
    state->status = status_vanished;
    return;
  }
  state->beta = (state->rho / rho_old) * (state->alpha / state->omega);
}

}  // namespace

struct DeviceBiCgStab::Impl {
  explicit Impl(DeviceMatrix& m)
      : spmv(m.spmv()),
        n(m.n_rows()),
        x(n),
        b(n),
        r0(n),
        v(n),
        t(n),
        inv_diag(n),
        row_sums(n),
        pr(2 * static_cast<std::size_t>(n)),
        yz(2 * static_cast<std::size_t>(n)),
        partials(std::max(3 * vector_grid(n), 1)),
        state(1),
        pinned(1),
        check(true) {}

  DeviceSpmv& spmv;
  label n;
  DeviceBuffer<double> x, b, r0, v, t, inv_diag, row_sums;
  /// p and r, y and z side by side: each pair is what the two products gather (p and s = r under
  /// none, y and z otherwise), so that one L2 window covers both.
  DeviceBuffer<double> pr, yz;
  DeviceBuffer<double> partials;
  DeviceBuffer<BiCgStabState> state;
  PinnedBuffer<BiCgStabState> pinned;
  Stream stream;
  Event check;  ///< a batch's state copied to the host
  std::vector<double> diagonal;
  bool diagonal_on_host = true;  ///< false once the caller changed it on the device
  bool singular = false;
  int last_iterations = 0;  ///< sizes the next solve's first batch
  DevicePreconditioner* preconditioner = nullptr;  ///< not owned
  bool use_l2_window = false;

  double* p() { return pr.data(); }
  double* r() { return pr.data() + n; }
  double* y() { return yz.data(); }
  double* z() { return yz.data() + n; }
  int* status() { return &state.data()->status; }

  /// row_sums = A 1 on the stream (t is scratch: every iteration writes it afresh).
  void enqueue_row_sums() {
    if (n == 0) return;
    cudaStream_t s = stream.get();
    fill_kernel<<<vector_grid(n), reduce_block, 0, s>>>(n, 1.0, t.data());
    FVMMINI_CUDA_CHECK_LAUNCH(fill_kernel);
    spmv.apply(t.data(), row_sums.data(), s);
  }

  /// start_solve's checks. @throws SolverError for a singular system, or a diagonal entry
  /// Jacobi cannot take (diagonal)
  void check_solvable(bool jacobi) const {
    if (singular) throw cg_error({CgStatus::singular});
    if (jacobi && diagonal_on_host) cg_check_diagonal(diagonal, Communicator::serial());
  }

  /// The state once the work queued so far is done (through pinned memory).
  BiCgStabState read_state() {
    cudaStream_t s = stream.get();
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(pinned.data(), state.data(), sizeof(BiCgStabState), cudaMemcpyDeviceToHost, s));
    check.record(s);
    check.synchronize();
    return pinned[0];
  }

  /// --- x̄ = mean(x); r = b - A x; r0 = r; the initial residual, the stopping tests, the first rho
  void enqueue_start(CgStop stop) {
    cudaStream_t s = stream.get();
    const int grid = vector_grid(n);
    spmv.apply(x.data(), v.data(), s);
    sum_kernel<<<grid, reduce_block, 0, s>>>(n, x.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(sum_kernel);
    mean_finalize<<<1, finalize_block, 0, s>>>(n, partials.data(), grid, state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(mean_finalize);
    initial_residual_kernel<<<grid, reduce_block, 0, s>>>(n, b.data(), v.data(), row_sums.data(), r(), r0.data(),
                                                          state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(initial_residual_kernel);
    initial_finalize<<<1, finalize_block, 0, s>>>(partials.data(), grid, state.data(), stop);
    FVMMINI_CUDA_CHECK_LAUNCH(initial_finalize);
  }

  /// One iteration of reference_bicgstab's loop (every kernel returns once the state stopped,
  /// but for the products). m_inv: 1/a_ii under Jacobi, else null.
  void enqueue_iteration(const double* m_inv, CgStop stop) {
    cudaStream_t s = stream.get();
    const int grid = vector_grid(n);
    // --- what the products gather: M^-1 p and M^-1 s, or p and s themselves under none
    const bool preconditioned = m_inv || preconditioner;
    const double* y_in = preconditioned ? y() : p();
    const double* z_in = preconditioned ? z() : r();

    // --- p = r, then p = r + beta (p - omega v) (Jacobi: y = p / a_ii)
    direction_kernel<<<grid, reduce_block, 0, s>>>(n, r(), v.data(), m_inv, p(), y(), state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(direction_kernel);
    // --- y = M^-1 p; v = A y; alpha = rho / r0 . v
    if (preconditioner) preconditioner->apply(p(), y(), status(), s);
    spmv.apply(y_in, v.data(), s);
    const int count = enqueue_dot_partials(n, r0.data(), v.data(), partials.data(), s);
    alpha_finalize<<<1, finalize_block, 0, s>>>(partials.data(), count, state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(alpha_finalize);
    // --- s = r - alpha v (in r); the stopping test on s (Jacobi: z = s / a_ii)
    half_step_kernel<<<grid, reduce_block, 0, s>>>(n, v.data(), m_inv, r(), z(), state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(half_step_kernel);
    half_step_finalize<<<1, finalize_block, 0, s>>>(partials.data(), grid, state.data(), stop);
    FVMMINI_CUDA_CHECK_LAUNCH(half_step_finalize);
    // --- z = M^-1 s; t = A z; omega = t.s / t.t
    if (preconditioner) preconditioner->apply(r(), z(), status(), s);
    spmv.apply(z_in, t.data(), s);
    omega_partials_kernel<<<grid, reduce_block, 0, s>>>(n, t.data(), r(), state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(omega_partials_kernel);
    omega_finalize<<<1, finalize_block, 0, s>>>(partials.data(), grid, state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(omega_finalize);
    // --- x += alpha y + omega z; r = s - omega t (or x += alpha y where s passed); the tests
    update_kernel<<<grid, reduce_block, 0, s>>>(n, y_in, preconditioned ? z() : nullptr, t.data(), r0.data(),
                                                x.data(), r(), state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(update_kernel);
    update_finalize<<<1, finalize_block, 0, s>>>(partials.data(), grid, state.data(), stop);
    FVMMINI_CUDA_CHECK_LAUNCH(update_finalize);
  }

  SolverPerformance iterate(const SolverSettings& settings);
};

DeviceBiCgStab::DeviceBiCgStab(DeviceMatrix& matrix, std::span<const double> diagonal) {
  if (matrix.mixed())
    throw std::invalid_argument(
        "PBiCGStab on the cuda backend iterates in double precision only: the matrix has a float32 twin "
        "(precision mixed); write precision double");
  impl_ = std::make_unique<Impl>(matrix);
  refresh(diagonal);
}

DeviceBiCgStab::~DeviceBiCgStab() = default;

void DeviceBiCgStab::refresh(std::span<const double> diagonal) {
  Impl& m = *impl_;
  if (diagonal.size() != static_cast<std::size_t>(m.n))
    throw CudaError("DeviceBiCgStab: diagonal length differs from n_rows");
  m.diagonal.assign(diagonal.begin(), diagonal.end());
  std::vector<double> inv(m.n);
  for (label i = 0; i < m.n; ++i) inv[i] = 1.0 / diagonal[i];
  m.inv_diag.upload(inv);
  m.diagonal_on_host = true;
  if (m.n == 0) return;
  // --- row sums s = A 1, for the normalisation and the singularity test
  m.enqueue_row_sums();
  m.stream.synchronize();
  std::vector<double> sums(m.n);
  m.row_sums.download(sums);
  m.singular = cg_singular(sums, diagonal);
}

void DeviceBiCgStab::refresh_on_device() {
  impl_->diagonal_on_host = false;
  impl_->enqueue_row_sums();
}

double* DeviceBiCgStab::x_device() { return impl_->x.data(); }
double* DeviceBiCgStab::b_device() { return impl_->b.data(); }
double* DeviceBiCgStab::inverse_diagonal_device() { return impl_->inv_diag.data(); }
CUstream_st* DeviceBiCgStab::stream() const { return impl_->stream.get(); }
void DeviceBiCgStab::set_preconditioner(DevicePreconditioner* preconditioner) {
  impl_->preconditioner = preconditioner;
}
void DeviceBiCgStab::set_l2_window(bool on) { impl_->use_l2_window = on; }

SolverPerformance DeviceBiCgStab::solve(std::span<double> x, std::span<const double> b,
                                        const SolverSettings& settings) {
  Impl& m = *impl_;
  if (x.size() != static_cast<std::size_t>(m.n) || b.size() != static_cast<std::size_t>(m.n))
    throw CudaError("DeviceBiCgStab::solve: vector length differs from n_rows");
  m.x.upload(x, m.stream.get());
  m.b.upload(b, m.stream.get());
  SolverPerformance perf = m.iterate(settings);
  m.x.download(x);  // the stream is idle: iterate read its state last
  return perf;
}

SolverPerformance DeviceBiCgStab::solve_resident(const SolverSettings& settings) { return impl_->iterate(settings); }

SolverPerformance DeviceBiCgStab::Impl::iterate(const SolverSettings& settings) {
  const bool jacobi = cg_step(settings) == CgStep::jacobi;
  const bool applied = cg_step(settings) == CgStep::applied;
  if (applied != (preconditioner != nullptr))
    throw CudaError("DeviceBiCgStab: preconditioner " + settings.preconditioner +
                    (applied ? " is not set up (set_preconditioner)" : " does not take a set-up preconditioner"));
  SolverPerformance perf;
  perf.solver_name = solver_name(settings, spmv.format_name());
  if (n == 0) {
    perf.converged = true;
    return perf;
  }
  check_solvable(jacobi);

  const CgStop stop = cg_stop(settings);
  const double* m_inv = jacobi ? inv_diag.data() : nullptr;
  cudaStream_t s = stream.get();
  const L2Window window = use_l2_window ? l2_window_over(applied || jacobi ? yz.data() : pr.data(), yz.bytes())
                                        : L2Window{};
  const L2WindowScope window_scope(s, window);
  enqueue_start(stop);

  // --- batches of iterations, the state read after each (the host's one wait a batch): first
  //     one fewer than the last solve took (time steps change slowly), then sized from the
  //     residual's fall so far to end short of the stopping point
  int queued = 0;
  int batch = last_iterations > 0 ? std::max(1, last_iterations - 1) : first_batch_default;
  BiCgStabState st{}, last{};
  while (true) {
    batch = std::min(batch, stop.max_iter - queued);
    for (int k = 0; k < batch; ++k) enqueue_iteration(m_inv, stop);
    queued += batch;
    st = read_state();
    if (st.status != static_cast<int>(CgStatus::running)) break;
    if (queued >= stop.max_iter)
      throw CudaError("PBiCGStab: max_iter reached with the device still iterating (internal error)");
    batch = cg_next_batch(st.iterations - last.iterations, last.iterations == 0 ? st.initial_residual : last.residual,
                          st.residual, st.initial_residual, stop, first_batch_default,
                          cg_batch_cap(queued, first_batch_default, false));
    last = st;
  }
  last_iterations = st.iterations;

  perf.initial_residual = st.initial_residual;
  perf.final_residual = st.residual;
  perf.iterations = st.iterations;
  if (st.status != status_vanished) {
    const auto status = static_cast<CgStatus>(st.status);
    if (status != CgStatus::converged && status != CgStatus::max_iterations)
      throw cg_error({status, st.iterations});
  }
  perf.converged = cg_converged(perf.final_residual, perf.initial_residual, stop);
  return perf;
}

}  // namespace fvmmini::cuda
