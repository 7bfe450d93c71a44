// k CGs / Jacobi-PCGs in lockstep on the device (device_block_cg.hpp). Per iteration, as DeviceCg's
// without a preconditioner: Q = A P with the k p.q fused; alpha_j; r_j -= alpha_j q_j with |r_j|_1
// and r_j.z_j; each system's residual test and beta_j; x_j += alpha_j p_j and p_j = z_j + beta_j p_j
// in one pass. With a preconditioner applied to the block (GAMG's V-cycle of the k vectors,
// DevicePreconditioner::apply_block), as DeviceCg's applied path: the residual step only tests,
// then Z = M^-1 R, the k r.z and beta_j, and p_j = z_j + beta_j p_j from Z. Each system's scalars
// live in a device state of its own; a system that stopped has alpha and beta unused and its
// vectors untouched. From the second solve on, the start and the
// iterations replay CUDA graphs, and the iterations run as DeviceCg's device loop (while any system
// runs: most of the last solve's count unrolled, then the loop); otherwise the host reads the k
// states after each batch, sizes the next from the residuals' fall (DeviceCg's rule), and queues
// no more once none runs. Across ranks
// (the DeviceCg's DeviceRanks) each product adds the halo's couplings of all k vectors at once
// (one exchange of k values a face) and their share of the fused p.q, and every reduction gathers
// every rank's totals, as the single CG does.

#include "solvers/krylov/cuda/device_block_cg.hpp"

#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/block_vectors.hpp"
#include "solvers/distributed/cuda/device_ranks.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/cg_state.cuh"
#include "solvers/krylov/cuda/solve_start.cuh"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini::cuda {

namespace {

constexpr int check_interval = 8;

template <int K>
__device__ inline bool any_running(const CgState* state) {
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (running(state[j])) return true;
  return false;
}

/// The vectors hold value v = i K + j (row i, system j). A kernel walks the n K values flat, its
/// grid's threads cut to a multiple of K, so that a warp reads and writes consecutive values (a
/// thread a row would stride by K values) and each thread keeps one system, j = its index % K.
template <int K>
struct FlatValues {
  long long first, stride, end;
  int system;
  __device__ explicit FlatValues(long long n) {
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    stride = static_cast<long long>(gridDim.x) * blockDim.x / K * K;
    end = n * K;
    first = t < stride ? t : end;  // the few threads past the last multiple of K only join the reductions
    system = static_cast<int>(t % K);
  }
};

/// Values a thread loads before it stores any: its loop alone keeps one value's loads in flight (ncu,
/// H100, three 8 M vectors: r -= alpha q took 0.305 ms a value at a time, 0.27 batched, 0.25 a thread
/// a row; the direction step 0.45 flat either way, 0.48 a thread a row).
constexpr int flat_batch = 4;

/// A thread's N sums of its one system, placed at N j + m of the K systems' N K sums.
template <int K, int N>
__device__ inline Sums<N * K> of_system(int system, const Sums<N>& mine) {
  Sums<N * K> s;
#pragma unroll
  for (int j = 0; j < K; ++j)
#pragma unroll
    for (int m = 0; m < N; ++m) s.v[N * j + m] = j == system ? mine.v[m] : 0.0;
  return s;
}

template <int K>
__global__ void __launch_bounds__(reduce_block) block_sum_kernel(long long n, const double* __restrict__ x,
                                                                 double* __restrict__ partials) {
  const FlatValues<K> f(n);
  Sums<1> mine{};
  for (long long v = f.first; v < f.end; v += f.stride) mine.v[0] += x[v];
  write_block_partials<K>(of_system<K>(f.system, mine), partials, gridDim.x, blockIdx.x);
}

template <int K>
__global__ void __launch_bounds__(finalize_block) block_mean_finalize(long long n, const double* __restrict__ partials,
                                                                      int count, CgState* state) {
  const Sums<K> s = reduce_partials<K>(partials, count);
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int j = 0; j < K; ++j) state[j].x_mean = s.v[j] / static_cast<double>(n);
}

/// R = B - AX; P = M^-1 R; per system the partials of |r|, |Ax - s x̄| + |b - s x̄| and r.z (at 3j,
/// 3j + 1, 3j + 2).
template <int K>
__global__ void __launch_bounds__(reduce_block)
    block_initial_kernel(long long n, const double* __restrict__ b, const double* __restrict__ ax,
                         const double* __restrict__ row_sums, const double* __restrict__ inv_diag,
                         double* __restrict__ r, double* __restrict__ p, const CgState* state,
                         double* __restrict__ partials) {
  const FlatValues<K> f(n);
  const double x_mean = state[f.system].x_mean;
  Sums<3> mine{};
  for (long long v = f.first; v < f.end; v += f.stride) {
    const long long i = v / K;
    const double m = inv_diag ? inv_diag[i] : 1.0;
    const double ri = start_residual(b[v], ax[v], row_sums[i], x_mean, mine);
    const double zi = ri * m;
    r[v] = ri;
    p[v] = zi;
    mine.v[2] += ri * zi;
  }
  write_block_partials<3 * K>(of_system<K>(f.system, mine), partials, gridDim.x, blockIdx.x);
}

template <int K>
__global__ void __launch_bounds__(finalize_block)
    block_initial_finalize(const double* __restrict__ partials, int count, CgState* state, CgStop stop, int* idle) {
  const Sums<3 * K> s = reduce_partials<3 * K>(partials, count);
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    CgState& st = state[j];
    start_state(s.v[3 * j], s.v[3 * j + 1], st, stop);
    st.rz = s.v[3 * j + 2];
    st.x_pending = 0;
  }
  *idle = !any_running<K>(state);
}

/// alpha_j = r_j.z_j / p_j.q_j for each running system, unless p.q fails the breakdown test. Every
/// x update of the previous iteration is done by now (block_direction_kernel ran before this).
template <int K>
__global__ void __launch_bounds__(finalize_block) block_alpha_finalize(const double* __restrict__ partials, int count,
                                                                       CgState* state, int* idle) {
  const bool some = any_running<K>(state);
  if (threadIdx.x == 0)
#pragma unroll
    for (int j = 0; j < K; ++j) state[j].x_pending = 0;
  if (!some) return;
  const Sums<K> s = reduce_partials<K>(partials, count);
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    CgState& st = state[j];
    if (!running(st)) continue;
    if (cg_breaks_down(s.v[j])) {
      st.rejected = s.v[j];
      set_status(&st, CgStatus::breakdown);
    } else {
      st.alpha = st.rz / s.v[j];
    }
  }
  *idle = !any_running<K>(state);
}

/// r_j -= alpha_j q_j for the running systems; partials of |r_j| and r_j.z_j (at 2j, 2j + 1).
template <int K>
__global__ void __launch_bounds__(reduce_block)
    block_update_kernel(long long n, const double* __restrict__ q, const double* __restrict__ inv_diag,
                        double* __restrict__ r, const CgState* state, double* __restrict__ partials) {
  if (!any_running<K>(state)) return;
  const FlatValues<K> f(n);
  Sums<2> mine{};
  if (running(state[f.system])) {
    const double alpha = state[f.system].alpha;
    for (long long v0 = f.first; v0 < f.end; v0 += flat_batch * f.stride) {
      double rv[flat_batch], qv[flat_batch], mv[flat_batch];
#pragma unroll
      for (int u = 0; u < flat_batch; ++u) {
        const long long v = v0 + u * f.stride;
        const bool in = v < f.end;
        rv[u] = in ? r[v] : 0.0;
        qv[u] = in ? q[v] : 0.0;
        mv[u] = in && inv_diag ? inv_diag[v / K] : 1.0;
      }
#pragma unroll
      for (int u = 0; u < flat_batch; ++u) {
        const long long v = v0 + u * f.stride;
        if (v >= f.end) break;
        const double ri = rv[u] - alpha * qv[u];
        r[v] = ri;
        mine.v[0] += fabs(ri);
        mine.v[1] += ri * (ri * mv[u]);
      }
    }
  }
  write_block_partials<2 * K>(of_system<K>(f.system, mine), partials, gridDim.x, blockIdx.x);
}

/// Each running system's residual, stopping tests and, unless the preconditioner is applied
/// (block_rz_finalize then sets it from Z), beta; *idle: whether none runs (the device loop's test).
template <int K>
__global__ void __launch_bounds__(finalize_block) block_residual_finalize(const double* __restrict__ partials,
                                                                          int count, CgState* state, CgStop stop,
                                                                          int* idle, bool applied) {
  if (!any_running<K>(state)) return;
  const Sums<2 * K> s = reduce_partials<2 * K>(partials, count);
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    CgState& st = state[j];
    if (!running(st)) continue;
    const int it = ++st.iterations;
    st.x_pending = 1;
    st.residual = s.v[2 * j] / st.norm_factor;
    const CgStatus status = cg_status_after(st.residual, st.initial_residual, it, stop);
    set_status(&st, status);
    if (status == CgStatus::running && !applied) {
      st.beta = s.v[2 * j + 1] / st.rz;
      st.rz = s.v[2 * j + 1];
    }
  }
  *idle = !any_running<K>(state);
}

/// Partials of r_j.z_j (z = M^-1 r of an applied preconditioner).
template <int K>
__global__ void __launch_bounds__(reduce_block)
    block_dot_kernel(long long n, const double* __restrict__ r, const double* __restrict__ z, const CgState* state,
                     double* __restrict__ partials) {
  if (!any_running<K>(state)) return;
  const FlatValues<K> f(n);
  Sums<1> mine{};
  for (long long v = f.first; v < f.end; v += f.stride) mine.v[0] += r[v] * z[v];
  write_block_partials<K>(of_system<K>(f.system, mine), partials, gridDim.x, blockIdx.x);
}

/// r_j.z_j of an applied preconditioner for each running system: the first (initial) sets rz_j,
/// later ones beta_j = r_j.z_j / rz_j; one that fails the breakdown test stops its system.
template <int K>
__global__ void __launch_bounds__(finalize_block)
    block_rz_finalize(const double* __restrict__ partials, int count, CgState* state, bool initial, int* idle) {
  if (!any_running<K>(state)) return;
  const Sums<K> s = reduce_partials<K>(partials, count);
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    CgState& st = state[j];
    if (!running(st)) continue;
    if (cg_breaks_down(s.v[j])) {
      st.rejected = s.v[j];
      set_status(&st, CgStatus::preconditioner_breakdown);
      continue;
    }
    if (!initial) st.beta = s.v[j] / st.rz;
    st.rz = s.v[j];
  }
  *idle = !any_running<K>(state);
}

/// x_j += alpha_j p_j (the iteration just tested), then, for the systems still running,
/// p_j = z_j + beta_j p_j, z read from `z` when the preconditioner is applied, else r .* inv_diag or r.
template <int K>
__global__ void __launch_bounds__(reduce_block)
    block_direction_kernel(long long n, const double* __restrict__ r, const double* __restrict__ inv_diag,
                           const double* __restrict__ z, double* __restrict__ x, double* __restrict__ p,
                           const CgState* state) {
  const FlatValues<K> f(n);
  const CgState& st = state[f.system];
  if (!st.x_pending) return;
  const double alpha = st.alpha, beta = st.beta;
  const bool next = running(st);
  for (long long v0 = f.first; v0 < f.end; v0 += flat_batch * f.stride) {
    double pv[flat_batch], xv[flat_batch], zv[flat_batch];
#pragma unroll
    for (int u = 0; u < flat_batch; ++u) {
      const long long v = v0 + u * f.stride;
      const bool in = v < f.end;
      pv[u] = in ? p[v] : 0.0;
      xv[u] = in ? x[v] : 0.0;
      zv[u] = !in || !next ? 0.0 : z ? z[v] : r[v] * (inv_diag ? inv_diag[v / K] : 1.0);
    }
#pragma unroll
    for (int u = 0; u < flat_batch; ++u) {
      const long long v = v0 + u * f.stride;
      if (v >= f.end) break;
      x[v] = xv[u] + alpha * pv[u];
      if (next) p[v] = zv[u] + beta * pv[u];
    }
  }
}

}  // namespace

struct DeviceBlockCg::Impl {
  Impl(DeviceCg& single, int vectors)
      : cg(single),
        spmv(single.matrix().spmv()),
        n(spmv.n_rows()),
        k(vectors),
        x(static_cast<std::size_t>(n) * k),
        b(x.size()),
        r(x.size()),
        p(x.size()),
        q(x.size()),
        partials(static_cast<std::size_t>(std::max(3 * k * vector_grid(n), k * spmv.dot_partial_count()))),
        state(k),
        idle(1),
        pinned(static_cast<std::size_t>(k)),
        check(true) {
    if (DevicePreconditioner* m = single.preconditioner(); m && m->applies_block(k)) {
      m->reserve_block();
      z = DeviceBuffer<double>(x.size());
    }
  }

  DeviceCg& cg;
  DeviceSpmv& spmv;
  label n;
  int k;
  DeviceBuffer<double> x, b, r, p, q, partials;
  DeviceBuffer<double> z;        ///< M^-1 R of a preconditioner applied to the block
  DeviceBuffer<CgState> state;
  DeviceBuffer<int> idle;        ///< 0 while a system runs (the finalize kernels write it; the V-cycle's status)
  PinnedBuffer<CgState> pinned;  ///< the k states at a check
  Event check;
  Event loop_start, loop_end;
  double iterations_ms = 0.0;
  int last_iterations = 0;
  CouplingDot couplings;  ///< across ranks, the last product's share of p.q

  // --- the start and the iterations from CUDA graphs, as DeviceCg's: captured from the second
  //     solve (the first makes, collectively and outside any capture, the halo's transport of k
  //     vectors), again where the kernels' arguments change
  GraphExec start_graph, batch_graph, single_graph, loop_graph;
  const double* graph_m_inv = nullptr;
  DevicePreconditioner* graph_preconditioner = nullptr;
  CgStop graph_stop{};
  bool solved_once = false;
  bool graphs_failed = false;  ///< a launch could not be captured: direct launches
  bool loop_failed = false;    ///< no device loop (no conditional nodes): batches
  bool device_loop = true;
  bool looped = false;

  cudaStream_t stream() const { return cg.stream(); }
  DeviceRanks* ranks() const { return cg.ranks(); }
  std::vector<SolverPerformance> iterate(const SolverSettings& settings);
  template <int K>
  std::vector<SolverPerformance> iterate_k(const SolverSettings& settings);

  /// Q = A P (with the halo's couplings across ranks); with_dot: the p_j.q_j partials, their
  /// count (fused in the product; across ranks the couplings add their share at the totals).
  template <int K>
  int multiply(const double* in, double* out, bool with_dot) {
    cudaStream_t s = stream();
    if (ranks()) ranks()->start_halo(in, s, K);
    spmv.apply_block(K, in, out, with_dot ? partials.data() : nullptr, s);
    if (ranks()) couplings = ranks()->finish_halo(out, s, K, with_dot ? in : nullptr);
    return spmv.dot_partial_count();
  }

  /// What a finalize reduces: the `values` values' count partials, or every rank's totals.
  std::pair<const double*, int> over_ranks(int count, int values, CouplingDot more = {}) {
    if (!ranks()) return {partials.data(), count};
    return {ranks()->gather_totals(partials.data(), count, values, stream(), more), ranks()->communicator().size()};
  }

  /// out = M^-1 R and the k r.out (applied preconditioner only): rz_j when `initial`, else beta_j.
  template <int K>
  void enqueue_preconditioned(DevicePreconditioner& m, double* out, bool initial) {
    cudaStream_t s = stream();
    const int grid = vector_grid(n);
    m.apply_block(K, r.data(), out, idle.data(), s);
    block_dot_kernel<K><<<grid, reduce_block, 0, s>>>(n, r.data(), out, state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_dot_kernel);
    const auto rz = over_ranks(grid, K);
    block_rz_finalize<K><<<1, finalize_block, 0, s>>>(rz.first, rz.second, state.data(), initial, idle.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_rz_finalize);
  }

  /// x̄_j; R = B - AX; P = M^-1 R; the initial residuals and stopping tests.
  template <int K>
  void enqueue_start(const double* m_inv, DevicePreconditioner* m, CgStop stop) {
    cudaStream_t s = stream();
    const int grid = vector_grid(n);
    multiply<K>(x.data(), q.data(), false);
    block_sum_kernel<K><<<grid, reduce_block, 0, s>>>(n, x.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_sum_kernel);
    const auto sums = over_ranks(grid, K);
    block_mean_finalize<K><<<1, finalize_block, 0, s>>>(ranks() ? ranks()->total_rows() : n, sums.first, sums.second,
                                                        state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_mean_finalize);
    block_initial_kernel<K><<<grid, reduce_block, 0, s>>>(n, b.data(), q.data(), cg.row_sums_device(), m_inv,
                                                          r.data(), p.data(), state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_initial_kernel);
    const auto initial = over_ranks(grid, 3 * K);
    block_initial_finalize<K><<<1, finalize_block, 0, s>>>(initial.first, initial.second, state.data(), stop,
                                                           idle.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_initial_finalize);
    if (m) enqueue_preconditioned<K>(*m, p.data(), true);
  }

  template <int K>
  void enqueue_iteration(const double* m_inv, DevicePreconditioner* m, CgStop stop) {
    cudaStream_t s = stream();
    const int grid = vector_grid(n);
    const int count = multiply<K>(p.data(), q.data(), true);
    const auto pq = over_ranks(count, K, couplings);
    block_alpha_finalize<K><<<1, finalize_block, 0, s>>>(pq.first, pq.second, state.data(), idle.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_alpha_finalize);
    block_update_kernel<K><<<grid, reduce_block, 0, s>>>(n, q.data(), m_inv, r.data(), state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_update_kernel);
    const auto rr = over_ranks(grid, 2 * K);
    block_residual_finalize<K><<<1, finalize_block, 0, s>>>(rr.first, rr.second, state.data(), stop, idle.data(),
                                                            m != nullptr);
    FVMMINI_CUDA_CHECK_LAUNCH(block_residual_finalize);
    if (m) enqueue_preconditioned<K>(*m, z.data(), false);
    block_direction_kernel<K><<<grid, reduce_block, 0, s>>>(n, r.data(), m_inv, m ? z.data() : nullptr, x.data(),
                                                            p.data(), state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(block_direction_kernel);
  }

  /// (Re)capture the graphs where the kernels' arguments changed; false where none can be used.
  template <int K>
  bool graphs_ready(const double* m_inv, DevicePreconditioner* m, CgStop stop) {
    if (!solved_once || graphs_failed) return false;
    // --- across ranks over MPI no graph: its host waits cannot be captured
    if (ranks() && !ranks()->capturable()) return false;
    const bool current = start_graph.valid() && batch_graph.valid() && single_graph.valid() &&
                         graph_m_inv == m_inv && graph_preconditioner == m && graph_stop.tolerance == stop.tolerance &&
                         graph_stop.rel_tol == stop.rel_tol && graph_stop.max_iter == stop.max_iter;
    if (current) return true;
    cudaStream_t s = stream();
    const bool captured =
        start_graph.capture(s, [&] { enqueue_start<K>(m_inv, m, stop); }) &&
        batch_graph.capture(s, [&] {
          for (int it = 0; it < check_interval; ++it) enqueue_iteration<K>(m_inv, m, stop);
        }) &&
        single_graph.capture(s, [&] { enqueue_iteration<K>(m_inv, m, stop); });
    // across ranks all capture or none does: every rank must queue the same exchanges
    graphs_failed = ranks() ? !ranks()->communicator().all(captured) : !captured;
    const bool loop = !graphs_failed &&
                      loop_graph.capture_while(s, idle.data(), 0, [&] { enqueue_iteration<K>(m_inv, m, stop); });
    loop_failed = ranks() ? !ranks()->communicator().all(loop) : !loop;
    graph_m_inv = m_inv;
    graph_preconditioner = m;
    graph_stop = stop;
    return !graphs_failed;
  }

  /// Queue `count` iterations, from the graphs where they are ready.
  template <int K>
  void enqueue_iterations(int count, bool graphs, const double* m_inv, DevicePreconditioner* m, CgStop stop) {
    cudaStream_t s = stream();
    if (!graphs) {
      for (int it = 0; it < count; ++it) enqueue_iteration<K>(m_inv, m, stop);
      return;
    }
    for (int it = 0; it < count / check_interval; ++it) batch_graph.launch(s);
    for (int it = 0; it < count % check_interval; ++it) single_graph.launch(s);
  }
};

template <int K>
std::vector<SolverPerformance> DeviceBlockCg::Impl::iterate_k(const SolverSettings& settings) {
  const bool jacobi = cg_step(settings) == CgStep::jacobi;
  std::vector<SolverPerformance> perf(K);
  for (auto& one : perf) one.solver_name = solver_name(settings, spmv.format_name());
  iterations_ms = 0.0;
  looped = false;
  if (n == 0) {
    for (auto& one : perf) one.converged = true;
    return perf;
  }
  cg.check_solvable(settings);
  const CgStop stop = cg_stop(settings);
  const double* m_inv = jacobi ? cg.inverse_diagonal_device() : nullptr;
  DevicePreconditioner* m = cg_step(settings) == CgStep::applied ? cg.preconditioner() : nullptr;
  cudaStream_t s = stream();
  const int max_iter = stop.max_iter;

  const bool graphs = graphs_ready<K>(m_inv, m, stop);
  if (graphs)
    start_graph.launch(s);
  else
    enqueue_start<K>(m_inv, m, stop);
  loop_start.record(s);
  looped = graphs && device_loop && !loop_failed;
  if (looped) {
    // --- Jacobi-PCG's iteration is a few kernels, which the loop's relaunch slows: most of the
    //     last solve's count unrolled first (cg_loop_lead), then the loop to the end (an applied
    //     preconditioner's iteration is long enough to loop from the start, as DeviceCg's)
    if (!m) enqueue_iterations<K>(cg_loop_lead(last_iterations, check_interval, max_iter), true, m_inv, m, stop);
    loop_graph.launch(s);
  } else {
    // --- batches as DeviceCg::run_batches: the first one fewer than the last solve took, each
    //     waited for, the next sized from the residuals' fall to end short of the last system's
    //     stopping point (an iteration past it still multiplies all K vectors)
    std::vector<CgState> last(K);  // each system's state at the last check (before the first: its initial residual)
    int queued = 0;
    int batch = std::clamp(last_iterations > 0 ? last_iterations - 1 : check_interval, 1, std::max(1, max_iter));
    while (true) {
      batch = std::min(batch, max_iter - queued);
      enqueue_iterations<K>(batch, graphs, m_inv, m, stop);
      queued += batch;
      FVMMINI_CUDA_CHECK(cudaMemcpyAsync(pinned.data(), state.data(), K * sizeof(CgState), cudaMemcpyDeviceToHost, s));
      check.record(s);
      check.synchronize();
      if (queued >= max_iter) break;
      int next = 0;  // none running: done
      for (int j = 0; j < K; ++j) {
        const CgState& now = pinned[j];
        if (!running(now)) continue;
        next = std::max(next, cg_next_batch(now.iterations - last[j].iterations,
                                            last[j].iterations == 0 ? now.initial_residual : last[j].residual,
                                            now.residual, now.initial_residual, stop, check_interval,
                                            cg_batch_cap(queued, check_interval, false)));
        last[j] = now;
      }
      if (next == 0) break;
      batch = next;
    }
  }
  loop_end.record(s);
  loop_end.synchronize();
  iterations_ms = loop_end.elapsed_since(loop_start);
  solved_once = true;

  // --- the states after the last queued kernel
  std::vector<CgState> final_state(K);
  FVMMINI_CUDA_CHECK(cudaMemcpy(final_state.data(), state.data(), K * sizeof(CgState), cudaMemcpyDeviceToHost));
  last_iterations = 0;
  for (int j = 0; j < K; ++j) {
    const CgState& st = final_state[j];
    const auto status = static_cast<CgStatus>(st.status);
    if (status == CgStatus::running)
      throw CudaError("block CG: the solve ended with a system still iterating (internal error)");
    if (status != CgStatus::converged && status != CgStatus::max_iterations)
      throw cg_error({status, st.iterations, st.rejected});
    perf[j].initial_residual = st.initial_residual;
    perf[j].final_residual = st.residual;
    perf[j].iterations = st.iterations;
    perf[j].converged = status == CgStatus::converged;
    last_iterations = std::max(last_iterations, st.iterations);
  }
  return perf;
}

std::vector<SolverPerformance> DeviceBlockCg::Impl::iterate(const SolverSettings& settings) {
  const DevicePreconditioner* m = cg.preconditioner();
  if (cg_step(settings) == CgStep::applied && (z.size() == 0 || !m || !m->applies_block(k)))
    throw CudaError("block CG: preconditioner " + settings.preconditioner + " does not take " + std::to_string(k) +
                    " vectors together here");
  std::vector<SolverPerformance> perf;
  dispatch_block(k, [&]<int K>() { perf = iterate_k<K>(settings); });
  return perf;
}

DeviceBlockCg::DeviceBlockCg(DeviceCg& single, int k) {
  DeviceSpmv& spmv = single.matrix().spmv();
  if (k < 2 || k > spmv.max_block() || spmv.dot_partial_count() == 0)
    throw CudaError("block CG: format " + spmv.format_name() + " has no multi-vector SpMV of " + std::to_string(k) +
                    " vectors with the dot product fused");
  impl_ = std::make_unique<Impl>(single, k);
}

DeviceBlockCg::~DeviceBlockCg() = default;

int DeviceBlockCg::vectors() const { return impl_->k; }
double* DeviceBlockCg::x_device() { return impl_->x.data(); }
double* DeviceBlockCg::b_device() { return impl_->b.data(); }
double DeviceBlockCg::last_iterations_ms() const { return impl_->iterations_ms; }
void DeviceBlockCg::set_device_loop(bool on) { impl_->device_loop = on; }
bool DeviceBlockCg::last_solve_looped() const { return impl_->looped; }

std::vector<SolverPerformance> DeviceBlockCg::solve(std::span<double> x, std::span<const double> b,
                                                    const SolverSettings& settings) {
  Impl& m = *impl_;
  if (x.size() != m.x.size() || b.size() != m.x.size())
    throw CudaError("DeviceBlockCg::solve: vector length differs from k n_rows");
  m.x.upload(x, m.stream());
  m.b.upload(b, m.stream());
  std::vector<SolverPerformance> perf = m.iterate(settings);
  m.x.download(x);  // the stream is idle: iterate synchronised it
  return perf;
}

std::vector<SolverPerformance> DeviceBlockCg::solve_resident(const SolverSettings& settings) {
  return impl_->iterate(settings);
}

}  // namespace fvmmini::cuda
