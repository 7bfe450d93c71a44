// CG / PCG on the device. Per iteration without a preconditioner or with Jacobi: q = A p fused with the partials of p.q (where the
// format fuses), alpha; r -= alpha q fused with |r|_1 and r.z; the residual test and beta;
// x += alpha p and p = z + beta p in one pass (p is read once for both: 8 vector passes an
// iteration instead of 9). Scalars live in a device struct; the host never waits inside
// an iteration. The iterations run as one loop on the device: a CUDA graph's conditional while
// node whose body is one iteration and a test of the CG's status, so the host launches a solve
// and waits once (without a preconditioner most of the last solve's count runs unrolled ahead
// of the loop), and no iteration runs past convergence beyond that lead. Where there is no loop
// (mixed precision, MPI across ranks, a driver without conditional nodes) the host queues a
// batch of iterations, reads the state through pinned memory, and sizes the next batch from the
// residual's fall so as to stop short of convergence (an iteration queued past it still runs
// its products: the other kernels return at once).
// With an applied preconditioner (DIC, mcsgs) the residual step only tests; z = M^-1 r, r.z and
// beta follow, and the direction step reads z.
// precision mixed: q = A p multiplies with the matrix's float32 twin, so the recursive residual
// drifts from b - A x by about eps_float32 x cond(A) of each decade it falls. Reliable updates
// (Clark et al. 2010, README References): whenever the residual the host reads has fallen
// tenfold since the last replacement, r is replaced with b - A x from the float64 matrix (z and
// r.z with it; p stays); when the recursive residual says converged, the float64 one decides,
// and a solve it does not pass goes on from p = z.
// Across ranks (DeviceRanks): every product adds the halo's couplings, which add their share of
// p.q to the partials the local kernel fused (p.q = p.(A_local p) + p.(couplings)), and each finalize kernel reduces every rank's totals (gathered in rank
// order) instead of its own partials, so all ranks hold the same scalars and take the same
// steps; over NCCL the iterations are captured in graphs as on one rank, over MPI (whose host
// waits for each exchange) launched directly.

#include "solvers/krylov/cuda/device_cg.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/reduction.cuh"
#include "kernels/cuda/vector_ops.cuh"
#include "solvers/distributed/cuda/device_ranks.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/cg_state.cuh"
#include "solvers/krylov/cuda/device_block_cg.hpp"
#include "solvers/krylov/cuda/solve_start.cuh"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini::cuda {

namespace {

/// precision mixed: the residual is replaced once it fell below this share of the last replaced
/// one (Clark et al. 2010 use 0.1 in their reliable updates).
constexpr double reliable_update_drop = 0.1;

/// r = b - Ax; p = z = M^-1 r; partials of |r|, |Ax - s x̄| + |b - s x̄| (s = A 1) and r.z.
__global__ void __launch_bounds__(reduce_block)
    initial_residual_kernel(long long n, const double* __restrict__ b, const double* __restrict__ ax,
                            const double* __restrict__ row_sums, const double* __restrict__ inv_diag,
                            double* __restrict__ r, double* __restrict__ p, const CgState* state,
                            double* __restrict__ partials) {
  const double x_mean = state->x_mean;
  Sums<3> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double ri = start_residual(b[i], ax[i], row_sums[i], x_mean, s);
    const double zi = inv_diag ? ri * inv_diag[i] : ri;
    r[i] = ri;
    p[i] = zi;
    s.v[2] += ri * zi;
  }
  write_block_partials<3>(s, partials, gridDim.x, blockIdx.x);
}

__global__ void __launch_bounds__(finalize_block) initial_finalize(const double* __restrict__ partials, int count,
                                                                   CgState* state, double* history, CgStop stop) {
  const Sums<3> s = reduce_partials<3>(partials, count);
  if (threadIdx.x != 0) return;
  start_state(s.v[0], s.v[1], *state, stop);
  state->rz = s.v[2];
  state->x_pending = 0;
  state->restart = 0;
  history[0] = state->residual;
}

/// alpha = r.z / p.q, unless p.q fails the breakdown test (cg_breaks_down). The previous iteration's x update
/// is done by now (direction_kernel ran before this).
__global__ void __launch_bounds__(finalize_block) alpha_finalize(const double* __restrict__ partials, int count,
                                                                 CgState* state) {
  if (threadIdx.x == 0) state->x_pending = 0;
  if (!running(*state)) return;
  const Sums<1> s = reduce_partials<1>(partials, count);
  if (threadIdx.x != 0) return;
  const double pq = s.v[0];
  if (cg_breaks_down(pq)) {
    state->rejected = pq;
    set_status(state, CgStatus::breakdown);
  } else {
    state->alpha = state->rz / pq;
  }
}

/// r -= alpha q; partials of |r| and r.z (z = M^-1 r, not stored).
__global__ void __launch_bounds__(reduce_block)
    update_kernel(long long n, const double* __restrict__ q, const double* __restrict__ inv_diag,
                  double* __restrict__ r, const CgState* state, double* __restrict__ partials) {
  if (!running(*state)) return;
  const double alpha = state->alpha;
  Sums<2> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double ri = r[i] - alpha * q[i];
    r[i] = ri;
    const double zi = inv_diag ? ri * inv_diag[i] : ri;
    s.v[0] += fabs(ri);
    s.v[1] += ri * zi;
  }
  write_block_partials<2>(s, partials, gridDim.x, blockIdx.x);
}

/// residual = |r|_1 / normFactor; the stopping tests; beta = (r.z)_new / (r.z)_old unless the
/// preconditioner is applied (rz_finalize then sets beta from z = M^-1 r).
__global__ void __launch_bounds__(finalize_block) residual_finalize(const double* __restrict__ partials, int count,
                                                                    CgState* state, double* history, CgStop stop,
                                                                    bool applied) {
  if (!running(*state)) return;
  const Sums<2> s = reduce_partials<2>(partials, count);
  if (threadIdx.x != 0) return;
  const int it = ++state->iterations;
  state->x_pending = 1;
  const double residual = s.v[0] / state->norm_factor;
  state->residual = residual;
  history[it] = residual;
  const CgStatus status = cg_status_after(residual, state->initial_residual, it, stop);
  set_status(state, status);
  if (status == CgStatus::running && !applied) {
    state->beta = s.v[1] / state->rz;
    state->rz = s.v[1];
  }
}

/// r.z of an applied preconditioner: the first (initial) sets rz, later ones beta = r.z / rz.
/// One that fails the breakdown test: the preconditioner is not positive definite (or NaN appeared).
__global__ void __launch_bounds__(finalize_block) rz_finalize(const double* __restrict__ partials, int count,
                                                              CgState* state, bool initial) {
  if (!running(*state)) return;
  const Sums<1> s = reduce_partials<1>(partials, count);
  if (threadIdx.x != 0) return;
  const double rz = s.v[0];
  if (cg_breaks_down(rz)) {
    state->rejected = rz;
    set_status(state, CgStatus::preconditioner_breakdown);
    return;
  }
  if (!initial) state->beta = rz / state->rz;
  state->rz = rz;
}

/// x += alpha p (the iteration just tested), then, unless it stopped, p = z + beta p with z = M^-1 r
/// (read from z when the preconditioner is applied, else r .* inv_diag or r).
__global__ void __launch_bounds__(reduce_block)
    direction_kernel(long long n, const double* __restrict__ r, const double* __restrict__ inv_diag,
                     const double* __restrict__ z, double* __restrict__ x, double* __restrict__ p,
                     const CgState* state) {
  if (!state->x_pending) return;
  const double alpha = state->alpha;
  const double beta = state->beta;
  const bool next = running(*state);
  FVMMINI_GRID_STRIDE(i, n) {
    const double pi = p[i];
    x[i] += alpha * pi;
    if (next) p[i] = (z ? z[i] : inv_diag ? r[i] * inv_diag[i] : r[i]) + beta * pi;
  }
}

/// A residual replacement runs while the CG runs, and in the final check also after it converged.
__device__ inline bool replacing(const CgState& state, bool final_check) {
  return running(state) || (final_check && state.status == static_cast<int>(CgStatus::converged));
}

/// r = b - A x with A x from the float64 matrix; partials of |r| and r.z (z = r .* inv_diag or r).
__global__ void __launch_bounds__(reduce_block)
    replace_kernel(long long n, const double* __restrict__ b, const double* __restrict__ ax,
                   const double* __restrict__ inv_diag, double* __restrict__ r, const CgState* state, bool final_check,
                   double* __restrict__ partials) {
  if (!replacing(*state, final_check)) return;
  Sums<2> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double ri = b[i] - ax[i];
    r[i] = ri;
    s.v[0] += fabs(ri);
    s.v[1] += ri * (inv_diag ? ri * inv_diag[i] : ri);
  }
  write_block_partials<2>(s, partials, gridDim.x, blockIdx.x);
}

/// The replaced residual in the history and the stopping tests; r.z unless the preconditioner is
/// applied (rz_finalize sets it then); restart when the check undid a stop.
__global__ void __launch_bounds__(finalize_block)
    replace_finalize(const double* __restrict__ partials, int count, CgState* state, double* history, CgStop stop,
                     bool final_check, bool applied) {
  if (!replacing(*state, final_check)) return;
  const Sums<2> s = reduce_partials<2>(partials, count);
  if (threadIdx.x != 0) return;
  const bool was_running = running(*state);
  const double residual = s.v[0] / state->norm_factor;
  state->residual = residual;
  history[state->iterations] = residual;
  const CgStatus status = cg_status_after(residual, state->initial_residual, state->iterations, stop);
  set_status(state, status);
  state->restart = !was_running && status == CgStatus::running;
  if (status == CgStatus::running && !applied) state->rz = s.v[1];
}

/// p = z (from z when the preconditioner is applied, else r .* inv_diag or r) after a replacement
/// that undid a stop.
__global__ void __launch_bounds__(reduce_block)
    restart_direction_kernel(long long n, const double* __restrict__ r, const double* __restrict__ inv_diag,
                             const double* __restrict__ z, double* __restrict__ p, const CgState* state) {
  if (!state->restart || !running(*state)) return;
  FVMMINI_GRID_STRIDE(i, n) p[i] = z ? z[i] : inv_diag ? r[i] * inv_diag[i] : r[i];
}

}  // namespace

struct DeviceCg::Impl {
  Impl(DeviceMatrix& m, DeviceRanks* r)
      : matrix(m),
        ranks(r),
        spmv(m.spmv()),
        n(m.n_rows()),
        x(n),
        b(n),
        r(n),
        p(n),
        q(n),
        z(n),
        inv_diag(n),
        row_sums(n),
        mixed(m.mixed()),
        partials(std::max({3 * vector_grid(n), spmv.dot_partial_count(), mixed ? mixed->dot_partial_count() : 0, 1})),
        state(1),
        history(1),
        pinned(1),
        check(true) {}

  DeviceMatrix& matrix;
  DeviceRanks* ranks;  ///< the other ranks' rows (a solve across ranks), or null
  DeviceSpmv& spmv;
  label n;
  DeviceBuffer<double> x, b, r, p, q, z, inv_diag, row_sums;
  MixedSpmv* mixed;  ///< the float32 twin the iterations multiply with (precision mixed); null: spmv
  DeviceBuffer<double> partials;
  DeviceBuffer<CgState> state;
  DeviceBuffer<double> history;
  PinnedBuffer<CgState> pinned;
  Stream stream;
  Event check;  ///< a batch's state copied to the host
  Event loop_start, loop_end;
  /// The host diagonal's first entry Jacobi cannot take (cg_nonpositive_diagonal; -1: none) and its
  /// value: what the check before a solve needs, without a copy of the diagonal
  label nonpositive_row = -1;
  double nonpositive_value = 0.0;
  bool diagonal_on_host = true;  ///< false once the caller changed it on the device
  bool singular = false;
  mutable std::vector<double> history_host;
  mutable bool history_stale = false;
  int history_length = 0;
  double iterations_ms = 0.0;
  int check_interval = 8;
  int last_iterations = 0;  ///< the first batch of the next solve
  bool looped = false;      ///< the last solve ran as the device loop
  bool device_loop = true;  ///< solves may run as the device loop
  int replacements = 0;     ///< residual replacements of the last solve (precision mixed)
  DevicePreconditioner* preconditioner = nullptr;  ///< DIC, mcsgs or GAMG (not owned)
  bool use_l2_window = false;  ///< a persisting-L2 window over p during each solve
  L2Window window{};           ///< the last solve's

  // --- iterations replayed from CUDA graphs: one launch instead of ~5 per iteration, which is
  //     what an iteration costs on small systems (the host's launch rate, not the GPU, limits them)
  GraphExec batch_graph, single_graph;  ///< check_interval iterations, one iteration
  GraphExec start_graph;                ///< a solve's start (enqueue_start)
  GraphExec loop_graph;  ///< iterations while the CG runs, tested on the device (not in mixed precision)
  CgStop graph_stop{};
  const double* graph_m_inv = nullptr;
  DevicePreconditioner* graph_preconditioner = nullptr;
  const double* graph_history = nullptr;
  int graph_interval = 0;
  L2Window graph_window{};
  bool graphs_failed = false;  ///< the format's launches could not be captured: launch directly
  bool loop_failed = false;    ///< no device loop (no conditional nodes, or its body not capturable): batches

  SolverPerformance iterate(const SolverSettings& settings);
  /// @throws SolverError for a singular system, or a non-positive diagonal under Jacobi
  void check_solvable(const SolverSettings& settings) const;
  /// row_sums = A 1 on the stream (p is overwritten; every solve sets it afresh).
  void enqueue_row_sums();
  /// (Re)capture the graphs where the kernels' arguments changed; false where none can be used.
  bool graphs_ready(const double* m_inv, CgStop stop);
  /// Queue `count` iterations, from the graphs where they can be used.
  void enqueue_iterations(int count, const double* m_inv, CgStop stop);
  /// Whether the iterations can run as the device loop (its graph then ready).
  bool can_loop(const double* m_inv, CgStop stop);
  /// Queue batches until the device stops the CG or `queued` reaches max_iter; the state then.
  /// on_check(state): a batch's state read while the CG still ran.
  template <class OnCheck>
  CgState run_batches(int& queued, int first_batch, const double* m_inv, CgStop stop, OnCheck on_check);
  /// Queue a residual replacement from the float64 matrix (the final check also after convergence).
  void enqueue_replacement(const double* m_inv, CgStop stop, bool final_check);

  const int* status() { return &state.data()->status; }

  /// The state once the work queued so far is done (through pinned memory).
  CgState read_state() {
    cudaStream_t s = stream.get();
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(pinned.data(), state.data(), sizeof(CgState), cudaMemcpyDeviceToHost, s));
    check.record(s);
    check.synchronize();
    return pinned[0];
  }

  /// y = A x with the float64 matrix (or the float32 twin), the halo's couplings added across ranks.
  void multiply(const double* x_in, double* y, bool twin = false) {
    cudaStream_t s = stream.get();
    if (ranks) ranks->start_halo(x_in, s);
    if (twin)
      mixed->apply(x_in, y, s);
    else
      spmv.apply(x_in, y, s);
    if (ranks) ranks->finish_halo(y, s);
  }

  /// What a finalize kernel reduces: the k values' `count` per-block partials here, or across
  /// ranks every rank's totals of them (the same layout, one partial a rank).
  struct Partials {
    const double* data;
    int count;
  };
  Partials over_ranks(int count, int k, CouplingDot couplings = {}) {
    if (!ranks) return {partials.data(), count};
    return {ranks->gather_totals(partials.data(), count, k, stream.get(), couplings), ranks->communicator().size()};
  }
  /// The rows of the whole system (the mean of x is over all of them).
  long long total_rows() const { return ranks ? ranks->total_rows() : n; }

  /// out = M^-1 r and r.out: rz when `initial`, else beta = r.out / rz (applied preconditioner only;
  /// both skip once the CG stopped).
  void enqueue_preconditioned(double* out, bool initial) {
    cudaStream_t s = stream.get();
    preconditioner->apply(r.data(), out, status(), s);
    const Partials rz = over_ranks(enqueue_dot_partials(n, r.data(), out, partials.data(), s), 1);
    rz_finalize<<<1, finalize_block, 0, s>>>(rz.data, rz.count, state.data(), initial);
    FVMMINI_CUDA_CHECK_LAUNCH(rz_finalize);
  }

  /// x̄ = mean(x); r = b - A x; p = M^-1 r and rz = r.p; the initial residual and the stopping tests.
  void enqueue_start(const double* m_inv, CgStop stop) {
    cudaStream_t s = stream.get();
    const int grid = vector_grid(n);
    multiply(x.data(), q.data());
    sum_kernel<<<grid, reduce_block, 0, s>>>(n, x.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(sum_kernel);
    const Partials sum_x = over_ranks(grid, 1);
    mean_finalize<<<1, finalize_block, 0, s>>>(total_rows(), sum_x.data, sum_x.count, state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(mean_finalize);
    initial_residual_kernel<<<grid, reduce_block, 0, s>>>(n, b.data(), q.data(), row_sums.data(), m_inv, r.data(),
                                                          p.data(), state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(initial_residual_kernel);
    const Partials initial = over_ranks(grid, 3);
    initial_finalize<<<1, finalize_block, 0, s>>>(initial.data, initial.count, state.data(), history.data(), stop);
    FVMMINI_CUDA_CHECK_LAUNCH(initial_finalize);
    if (preconditioner) enqueue_preconditioned(p.data(), true);
  }

  void enqueue_iteration(const double* m_inv, CgStop stop) {
    cudaStream_t s = stream.get();
    const int grid = vector_grid(n);
    // --- q = A p; alpha = r.z / p.q (fused in the product where the format can; across ranks the
    //     local product while the halo travels, the couplings adding their share of p.q)
    if (ranks) ranks->start_halo(p.data(), s);
    int count = 0;
    if (mixed) {
      mixed->apply_with_dot(p.data(), q.data(), partials.data(), s);
      count = mixed->dot_partial_count();
    } else if (spmv.dot_partial_count() > 0) {
      spmv.apply_with_dot(p.data(), q.data(), partials.data(), s);
      count = spmv.dot_partial_count();
    } else {
      spmv.apply(p.data(), q.data(), s);
    }
    CouplingDot couplings;
    if (ranks) couplings = ranks->finish_halo(q.data(), s, 1, count > 0 ? p.data() : nullptr);
    if (count == 0) count = enqueue_dot_partials(n, p.data(), q.data(), partials.data(), s);
    const Partials pq = over_ranks(count, 1, couplings);
    alpha_finalize<<<1, finalize_block, 0, s>>>(pq.data, pq.count, state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(alpha_finalize);
    // --- r -= alpha q; residual = |r|_1 / normFactor; beta
    update_kernel<<<grid, reduce_block, 0, s>>>(n, q.data(), m_inv, r.data(), state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(update_kernel);
    const bool applied = preconditioner != nullptr;
    const Partials rr = over_ranks(grid, 2);
    residual_finalize<<<1, finalize_block, 0, s>>>(rr.data, rr.count, state.data(), history.data(), stop, applied);
    FVMMINI_CUDA_CHECK_LAUNCH(residual_finalize);
    // --- z = M^-1 r; beta = r.z / rz
    if (applied) enqueue_preconditioned(z.data(), false);
    // --- x += alpha p; p = M^-1 r + beta p (one read of p)
    direction_kernel<<<grid, reduce_block, 0, s>>>(n, r.data(), m_inv, applied ? z.data() : nullptr, x.data(),
                                                   p.data(), state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(direction_kernel);
  }
};

bool DeviceCg::Impl::graphs_ready(const double* m_inv, CgStop stop) {
  // --- across ranks over MPI no graph: its host waits cannot be captured (NCCL's can)
  if (ranks && !ranks->capturable()) return false;
  const bool current = batch_graph.valid() && single_graph.valid() && start_graph.valid() &&
                       graph_stop.tolerance == stop.tolerance &&
                       graph_stop.rel_tol == stop.rel_tol && graph_stop.max_iter == stop.max_iter &&
                       graph_m_inv == m_inv && graph_preconditioner == preconditioner &&
                       graph_history == history.data() && graph_interval == check_interval &&
                       graph_window == window;
  if (!current && !graphs_failed) {
    cudaStream_t s = stream.get();
    const bool captured =
        batch_graph.capture(
            s, [&] {
              for (int k = 0; k < check_interval; ++k) enqueue_iteration(m_inv, stop);
            },
            window) &&
        single_graph.capture(s, [&] { enqueue_iteration(m_inv, stop); }, window) &&
        start_graph.capture(s, [&] { enqueue_start(m_inv, stop); }, window);
    // across ranks all capture or none does: every rank must queue the same NCCL calls
    graphs_failed = ranks ? !ranks->communicator().all(captured) : !captured;
    // the device loop: mixed precision's replacements need the host between batches
    const bool looped = !mixed && !graphs_failed &&
                        loop_graph.capture_while(s, status(), static_cast<int>(CgStatus::running),
                                                 [&] { enqueue_iteration(m_inv, stop); }, window);
    loop_failed = ranks ? !ranks->communicator().all(looped) : !looped;
    graph_stop = stop;
    graph_m_inv = m_inv;
    graph_preconditioner = preconditioner;
    graph_history = history.data();
    graph_interval = check_interval;
    graph_window = window;
  }
  return !graphs_failed;
}

void DeviceCg::Impl::enqueue_iterations(int count, const double* m_inv, CgStop stop) {
  cudaStream_t s = stream.get();
  if (!graphs_ready(m_inv, stop)) {
    for (int k = 0; k < count; ++k) enqueue_iteration(m_inv, stop);
    return;
  }
  for (int k = 0; k < count / check_interval; ++k) batch_graph.launch(s);
  for (int k = 0; k < count % check_interval; ++k) single_graph.launch(s);
}

bool DeviceCg::Impl::can_loop(const double* m_inv, CgStop stop) {
  return device_loop && !mixed && graphs_ready(m_inv, stop) && !loop_failed;
}

template <class OnCheck>
CgState DeviceCg::Impl::run_batches(int& queued, int first_batch, const double* m_inv, CgStop stop, OnCheck on_check) {
  // --- a batch, then wait for its state: an iteration queued past convergence still costs most
  //     of one (its products do not read the status), so each batch is sized from the residual's
  //     fall to end just short of the stopping point, and the host waits at every check (a few
  //     microseconds of idle device against a wasted iteration). Across ranks every rank reads the
  //     same state (reduced in rank order), so all queue the same batches.
  const int max_iter = stop.max_iter;
  CgState last{};  // the state at the last check (before the first: the initial residual)
  int batch = first_batch;
  while (true) {
    batch = std::min(batch, max_iter - queued);
    enqueue_iterations(batch, m_inv, stop);
    queued += batch;
    const CgState now = read_state();
    if (!running(now) || queued >= max_iter) return now;
    on_check(now);
    batch = cg_next_batch(now.iterations - last.iterations, last.iterations == 0 ? now.initial_residual : last.residual,
                          now.residual, now.initial_residual, stop, check_interval,
                          cg_batch_cap(queued, check_interval, mixed != nullptr));
    last = now;
  }
}

void DeviceCg::Impl::enqueue_replacement(const double* m_inv, CgStop stop, bool final_check) {
  cudaStream_t s = stream.get();
  const int grid = vector_grid(n);
  const bool applied = preconditioner != nullptr;
  multiply(x.data(), q.data());
  replace_kernel<<<grid, reduce_block, 0, s>>>(n, b.data(), q.data(), m_inv, r.data(), state.data(), final_check,
                                               partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(replace_kernel);
  const Partials rr = over_ranks(grid, 2);
  replace_finalize<<<1, finalize_block, 0, s>>>(rr.data, rr.count, state.data(), history.data(), stop, final_check,
                                                applied);
  FVMMINI_CUDA_CHECK_LAUNCH(replace_finalize);
  // --- z = M^-1 r and r.z afresh
  if (applied) enqueue_preconditioned(z.data(), true);
  restart_direction_kernel<<<grid, reduce_block, 0, s>>>(n, r.data(), m_inv, applied ? z.data() : nullptr, p.data(),
                                                         state.data());
  FVMMINI_CUDA_CHECK_LAUNCH(restart_direction_kernel);
  ++replacements;
}

DeviceCg::DeviceCg(DeviceMatrix& matrix, std::span<const double> diagonal, DeviceRanks* ranks)
    : impl_(std::make_unique<Impl>(matrix, ranks)) {
  refresh(diagonal);
}

DeviceCg::~DeviceCg() = default;

void DeviceCg::refresh(std::span<const double> diagonal) {
  Impl& m = *impl_;
  if (diagonal.size() != static_cast<std::size_t>(m.n)) throw CudaError("DeviceCg: diagonal length differs from n_rows");
  m.nonpositive_row = cg_nonpositive_diagonal(diagonal);
  m.nonpositive_value = m.nonpositive_row >= 0 ? diagonal[m.nonpositive_row] : 0.0;
  std::vector<double> inv(m.n);
  for (label i = 0; i < m.n; ++i) inv[i] = 1.0 / diagonal[i];
  m.inv_diag.upload(inv);
  if (m.n == 0 && !m.ranks) return;
  m.diagonal_on_host = true;
  // --- row sums s = A 1, for the normalisation and the singularity test (across ranks: singular
  //     when every rank's rows are)
  m.enqueue_row_sums();
  m.stream.synchronize();
  std::vector<double> sums(m.n);
  m.row_sums.download(sums);
  m.singular = cg_singular(sums, diagonal);
  if (m.ranks) m.singular = m.ranks->communicator().all(m.singular);
}

void DeviceCg::Impl::enqueue_row_sums() {
  if (n == 0 && !ranks) return;
  cudaStream_t s = stream.get();
  fill_kernel<<<vector_grid(n), reduce_block, 0, s>>>(n, 1.0, p.data());
  FVMMINI_CUDA_CHECK_LAUNCH(fill_kernel);
  multiply(p.data(), row_sums.data());
}

void DeviceCg::refresh_on_device() {
  impl_->diagonal_on_host = false;
  if (impl_->mixed) impl_->mixed->refresh(impl_->stream.get());
  impl_->enqueue_row_sums();
}

DeviceMatrix& DeviceCg::matrix() { return impl_->matrix; }
DeviceRanks* DeviceCg::ranks() const { return impl_->ranks; }
const double* DeviceCg::row_sums_device() const { return impl_->row_sums.data(); }

void DeviceCg::check_solvable(const SolverSettings& settings) const { impl_->check_solvable(settings); }

void DeviceCg::Impl::check_solvable(const SolverSettings& settings) const {
  if (n == 0 && !ranks) return;
  if (singular) throw cg_error({CgStatus::singular});
  if (cg_step(settings) == CgStep::jacobi && diagonal_on_host)
    cg_check_nonpositive(nonpositive_row, nonpositive_value, ranks ? ranks->communicator() : Communicator::serial());
}

double* DeviceCg::x_device() { return impl_->x.data(); }
double* DeviceCg::b_device() { return impl_->b.data(); }
double* DeviceCg::inverse_diagonal_device() { return impl_->inv_diag.data(); }
CUstream_st* DeviceCg::stream() const { return impl_->stream.get(); }

const std::vector<double>& DeviceCg::residual_history() const {
  const Impl& m = *impl_;
  if (m.history_stale) {
    m.history_host.resize(m.history_length);
    if (m.history_length > 0)
      FVMMINI_CUDA_CHECK(cudaMemcpy(m.history_host.data(), m.history.data(), m.history_length * sizeof(double),
                                    cudaMemcpyDeviceToHost));
    m.history_stale = false;
  }
  return m.history_host;
}
double DeviceCg::last_iterations_ms() const { return impl_->iterations_ms; }
void DeviceCg::set_device_loop(bool on) { impl_->device_loop = on; }
bool DeviceCg::last_solve_looped() const { return impl_->looped; }
void DeviceCg::set_check_interval(int iterations) { impl_->check_interval = std::max(1, iterations); }
void DeviceCg::set_preconditioner(DevicePreconditioner* preconditioner) { impl_->preconditioner = preconditioner; }
DevicePreconditioner* DeviceCg::preconditioner() const { return impl_->preconditioner; }

std::unique_ptr<DeviceBlockKrylov> DeviceCg::make_block(int k) { return std::make_unique<DeviceBlockCg>(*this, k); }
void DeviceCg::set_l2_window(bool on) { impl_->use_l2_window = on; }
L2Window DeviceCg::last_l2_window() const { return impl_->window; }
int DeviceCg::last_replacements() const { return impl_->replacements; }

SolverPerformance DeviceCg::solve(std::span<double> x, std::span<const double> b, const SolverSettings& settings) {
  Impl& m = *impl_;
  if (x.size() != static_cast<std::size_t>(m.n) || b.size() != static_cast<std::size_t>(m.n))
    throw CudaError("DeviceCg::solve: vector length differs from n_rows");
  m.x.upload(x, m.stream.get());
  m.b.upload(b, m.stream.get());
  SolverPerformance perf = m.iterate(settings);
  m.x.download(x);  // the stream is idle: iterate synchronised it
  return perf;
}

SolverPerformance DeviceCg::solve_resident(const SolverSettings& settings) { return impl_->iterate(settings); }

SolverPerformance DeviceCg::Impl::iterate(const SolverSettings& settings) {
  const bool jacobi = cg_step(settings) == CgStep::jacobi;
  const bool applied = cg_step(settings) == CgStep::applied;
  if (applied != (preconditioner != nullptr))
    throw CudaError("DeviceCg: preconditioner " + settings.preconditioner +
                    (applied ? " is not set up (set_preconditioner)" : " does not take a set-up preconditioner"));
  SolverPerformance perf;
  perf.solver_name = solver_name(settings, spmv.format_name());
  window = {};
  history_host.clear();
  history_stale = false;
  iterations_ms = 0.0;
  if (n == 0 && !ranks) {
    perf.converged = true;
    return perf;
  }
  check_solvable(settings);

  const CgStop stop = cg_stop(settings);
  const int max_iter = stop.max_iter;
  if (history.size() < static_cast<std::size_t>(max_iter) + 1) history = DeviceBuffer<double>(max_iter + 1);
  const double* m_inv = jacobi ? inv_diag.data() : nullptr;
  cudaStream_t s = stream.get();
  // --- p is what every SpMV of the iterations gathers: its window lasts this solve only
  window = use_l2_window ? l2_window_over(p.data(), static_cast<std::size_t>(n) * sizeof(double)) : L2Window{};
  const L2WindowScope window_scope(s, window);

  // --- the start (from its graph where there is one: a solve of few iterations on a small mesh
  //     is mostly these launches, GAMG's first V-cycle among them)
  if (graphs_ready(m_inv, stop))
    start_graph.launch(s);
  else
    enqueue_start(m_inv, stop);

  // --- iterate as one loop on the device, which stops the CG itself. An applied preconditioner
  //     (GAMG, DIC, mcsgs) makes an iteration dozens of kernels, whose launches from the host
  //     cost more than the loop's relaunch: the whole solve loops (the 2-D cavity's pressure
  //     solve 10 % faster than in batches, H100). CG and Jacobi-PCG are a few kernels an
  //     iteration, which the relaunch slows by 4 to 17 us (boxes of 32³ to 200³): most of the
  //     last solve's count runs unrolled first (cg_loop_lead). Where there is no loop, first one
  //     fewer than the last solve took (time steps change slowly, and a check costs far less than
  //     an iteration past convergence; in mixed precision a batch, so that the residual is
  //     replaced in time), then batches sized from the residual's fall
  loop_start.record(s);
  replacements = 0;
  double replaced = -1.0;  ///< the residual at the last replacement (< 0: the initial one)
  const auto replace_when_fallen = [&](const CgState& c) {
    if (!mixed) return;
    if (replaced < 0.0) replaced = c.initial_residual;
    if (c.residual >= reliable_update_drop * replaced) return;
    enqueue_replacement(m_inv, stop, false);
    replaced = c.residual;
  };
  int queued = 0;
  int first_batch = mixed || last_iterations <= 0 ? check_interval : std::max(1, last_iterations - 1);
  CgState st{};
  looped = can_loop(m_inv, stop);
  if (looped) {
    if (!applied) enqueue_iterations(cg_loop_lead(last_iterations, check_interval, max_iter), m_inv, stop);
    loop_graph.launch(s);
    st = read_state();
  } else {
    while (true) {
      st = run_batches(queued, std::clamp(first_batch, 1, std::max(1, max_iter)), m_inv, stop, replace_when_fallen);
      if (!mixed || static_cast<CgStatus>(st.status) != CgStatus::converged) break;
      // --- converged by the recursive residual: the float64 one decides
      enqueue_replacement(m_inv, stop, true);
      stream.synchronize();
      FVMMINI_CUDA_CHECK(cudaMemcpy(&st, state.data(), sizeof(CgState), cudaMemcpyDeviceToHost));
      if (!running(st)) break;
      queued = st.iterations;
      replaced = st.residual;
      first_batch = check_interval;
    }
  }
  loop_end.record(s);
  loop_end.synchronize();
  iterations_ms = loop_end.elapsed_since(loop_start);
  last_iterations = st.iterations;
  history_length = st.iterations + 1;
  history_stale = true;

  perf.initial_residual = st.initial_residual;
  perf.final_residual = st.residual;
  perf.iterations = st.iterations;
  const auto status = static_cast<CgStatus>(st.status);
  if (status == CgStatus::running)
    throw CudaError("CG: the solve ended with the device still iterating (internal error)");
  if (status != CgStatus::converged && status != CgStatus::max_iterations)
    throw cg_error({status, st.iterations, st.rejected});
  perf.converged = status == CgStatus::converged;
  return perf;
}

}  // namespace fvmmini::cuda
