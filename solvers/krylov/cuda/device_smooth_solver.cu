// smoothSolver on the device. A pass is nSweeps sweeps x += M^-1 (b - A x), the first on the
// residual the last pass (or the start) left, then r = b - A x with |r|_1 and the stopping tests,
// counted and tested as the reference unit does. The scalars live in a device struct whose status
// the sweeps' kernels read (nonzero: stopped), so that a pass queued past the stop changes
// nothing. The passes run as a CUDA graph's conditional while loop (one launch, one wait for the
// whole solve); where the device cannot loop, the host queues batches of passes and reads the
// state after each.

#include "solvers/krylov/cuda/device_smooth_solver.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/reduction.cuh"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/solve_start.cuh"
#include "solvers/krylov/smooth_solver_settings.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

namespace fvmmini::cuda {

namespace {

/// One solve's scalars on the device.
struct SmoothState {
  double x_mean;
  double norm_factor;
  double initial_residual;
  double residual;
  int iterations;  ///< sweeps, as OpenFOAM counts them
  int status;      ///< a CgStatus, as the int the sweeps' kernels read (running is 0)
};

__host__ __device__ inline bool running(const SmoothState& state) {
  return state.status == static_cast<int>(CgStatus::running);
}

/// r = b - Ax; partials of |r| and |Ax - s x̄| + |b - s x̄| (s = A 1).
__global__ void __launch_bounds__(reduce_block)
    initial_residual_kernel(long long n, const double* __restrict__ b, const double* __restrict__ ax,
                            const double* __restrict__ row_sums, double* __restrict__ r, const SmoothState* state,
                            double* __restrict__ partials) {
  const double x_mean = state->x_mean;
  Sums<2> s{};
  FVMMINI_GRID_STRIDE(i, n) r[i] = start_residual(b[i], ax[i], row_sums[i], x_mean, s);
  write_block_partials<2>(s, partials, gridDim.x, blockIdx.x);
}

/// normFactor = sum(|Ax - A x̄| + |b - A x̄|) + SMALL; the initial residual |r|_1 / normFactor and
/// the stopping tests before the first pass.
__global__ void __launch_bounds__(finalize_block) initial_finalize(const double* __restrict__ partials, int count,
                                                                   SmoothState* state, CgStop stop) {
  const Sums<2> s = reduce_partials<2>(partials, count);
  if (threadIdx.x != 0) return;
  start_state(s.v[0], s.v[1], *state, stop);
}

/// r = b - Ax, the next sweep's residual, unless stopped.
__global__ void __launch_bounds__(reduce_block)
    residual_kernel(long long n, const double* __restrict__ b, const double* __restrict__ ax, double* __restrict__ r,
                    const SmoothState* state) {
  if (!running(*state)) return;
  FVMMINI_GRID_STRIDE(i, n) r[i] = b[i] - ax[i];
}

/// x += c, a sweep's correction, unless stopped.
__global__ void __launch_bounds__(reduce_block)
    correct_kernel(long long n, const double* __restrict__ c, double* __restrict__ x, const SmoothState* state) {
  if (!running(*state)) return;
  FVMMINI_GRID_STRIDE(i, n) x[i] += c[i];
}

/// After the pass's sweeps, unless stopped: r = b - Ax and partials of |r|.
__global__ void __launch_bounds__(reduce_block)
    pass_residual_kernel(long long n, const double* __restrict__ b, const double* __restrict__ ax,
                         double* __restrict__ r, const SmoothState* state, double* __restrict__ partials) {
  if (!running(*state)) return;
  Sums<1> s{};
  FVMMINI_GRID_STRIDE(i, n) {
    const double ri = b[i] - ax[i];
    r[i] = ri;
    s.v[0] += fabs(ri);
  }
  write_block_partials<1>(s, partials, gridDim.x, blockIdx.x);
}

/// The pass counted as its nSweeps sweeps, its residual |r|_1 / normFactor and the stopping tests.
__global__ void __launch_bounds__(finalize_block) pass_finalize(const double* __restrict__ partials, int count,
                                                                SmoothState* state, CgStop stop, int sweeps) {
  if (!running(*state)) return;
  const Sums<1> s = reduce_partials<1>(partials, count);
  if (threadIdx.x != 0) return;
  const int iterations = state->iterations + sweeps;
  const double residual = s.v[0] / state->norm_factor;
  state->iterations = iterations;
  state->residual = residual;
  state->status = static_cast<int>(cg_status_after(residual, state->initial_residual, iterations, stop));
}

}  // namespace

struct DeviceSmoothSolver::Impl {
  explicit Impl(DeviceMatrix& m)
      : spmv(m.spmv()),
        n(m.n_rows()),
        x(n),
        b(n),
        r(n),
        ax(n),
        correction(n),
        inv_diag(n),
        row_sums(n),
        partials(std::max(2 * vector_grid(n), 1)),
        state(1),
        pinned(1),
        check(true) {}

  DeviceSpmv& spmv;
  label n;
  DeviceBuffer<double> x, b, r, ax, correction, inv_diag, row_sums, partials;
  DeviceBuffer<SmoothState> state;
  PinnedBuffer<SmoothState> pinned;
  Stream stream;
  Event check;  ///< the state copied to the host
  bool singular = false;
  DeviceTriangularPreconditioner* sweeps = nullptr;  ///< the splitting (not owned)
  bool use_l2_window = false;
  L2Window window{};  ///< the current solve's
  bool device_loop = true;
  bool looped = false;
  int check_interval = 8;

  // --- the loop graph, its kernels' arguments fixed at capture
  GraphExec loop_graph;
  CgStop graph_stop{};
  int graph_sweeps = 0;
  bool graph_symmetric = false;
  DeviceTriangularPreconditioner* graph_splitting = nullptr;
  L2Window graph_window{};
  bool loop_failed = false;  ///< no device loop (no conditional nodes, or its body not capturable)

  const int* status() { return &state.data()->status; }

  /// The state once the work queued so far is done (through pinned memory).
  SmoothState read_state() {
    cudaStream_t s = stream.get();
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(pinned.data(), state.data(), sizeof(SmoothState), cudaMemcpyDeviceToHost, s));
    check.record(s);
    check.synchronize();
    return pinned[0];
  }

  /// row_sums = A 1 on the stream (correction is scratch until a sweep writes it).
  void enqueue_row_sums() {
    if (n == 0) return;
    cudaStream_t s = stream.get();
    fill_kernel<<<vector_grid(n), reduce_block, 0, s>>>(n, 1.0, correction.data());
    FVMMINI_CUDA_CHECK_LAUNCH(fill_kernel);
    spmv.apply(correction.data(), row_sums.data(), s);
  }

  /// x̄ = mean(x); r = b - A x; the initial residual and the stopping tests.
  void enqueue_start(CgStop stop) {
    cudaStream_t s = stream.get();
    const int grid = vector_grid(n);
    spmv.apply(x.data(), ax.data(), s);
    sum_kernel<<<grid, reduce_block, 0, s>>>(n, x.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(sum_kernel);
    mean_finalize<<<1, finalize_block, 0, s>>>(n, partials.data(), grid, state.data());
    FVMMINI_CUDA_CHECK_LAUNCH(mean_finalize);
    initial_residual_kernel<<<grid, reduce_block, 0, s>>>(n, b.data(), ax.data(), row_sums.data(), r.data(),
                                                          state.data(), partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(initial_residual_kernel);
    initial_finalize<<<1, finalize_block, 0, s>>>(partials.data(), grid, state.data(), stop);
    FVMMINI_CUDA_CHECK_LAUNCH(initial_finalize);
  }

  /// One pass: n_sweeps sweeps x += M^-1 r, r = b - A x between them, then the residual and the tests.
  void enqueue_pass(CgStop stop, int n_sweeps, bool symmetric) {
    cudaStream_t s = stream.get();
    const int grid = vector_grid(n);
    for (int sweep = 0; sweep < n_sweeps; ++sweep) {
      if (sweep > 0) {  // the first reads the residual the last pass, or the start, left in r
        spmv.apply(x.data(), ax.data(), s);
        residual_kernel<<<grid, reduce_block, 0, s>>>(n, b.data(), ax.data(), r.data(), state.data());
        FVMMINI_CUDA_CHECK_LAUNCH(residual_kernel);
      }
      if (symmetric)
        sweeps->apply(r.data(), correction.data(), status(), s);  // (D + L) D^-1 (D + U)
      else
        sweeps->apply_lower(r.data(), correction.data(), status(), s);  // D + L
      correct_kernel<<<grid, reduce_block, 0, s>>>(n, correction.data(), x.data(), state.data());
      FVMMINI_CUDA_CHECK_LAUNCH(correct_kernel);
    }
    spmv.apply(x.data(), ax.data(), s);
    pass_residual_kernel<<<grid, reduce_block, 0, s>>>(n, b.data(), ax.data(), r.data(), state.data(),
                                                       partials.data());
    FVMMINI_CUDA_CHECK_LAUNCH(pass_residual_kernel);
    pass_finalize<<<1, finalize_block, 0, s>>>(partials.data(), grid, state.data(), stop, n_sweeps);
    FVMMINI_CUDA_CHECK_LAUNCH(pass_finalize);
  }

  /// Whether the passes can run as the device loop, its graph (re)captured where the kernels'
  /// arguments changed.
  bool loop_ready(CgStop stop, int n_sweeps, bool symmetric) {
    if (!device_loop || loop_failed) return false;
    const bool current = loop_graph.valid() && graph_stop.tolerance == stop.tolerance &&
                         graph_stop.rel_tol == stop.rel_tol && graph_stop.max_iter == stop.max_iter &&
                         graph_sweeps == n_sweeps && graph_symmetric == symmetric && graph_splitting == sweeps &&
                         graph_window == window;
    if (current) return true;
    loop_failed = !loop_graph.capture_while(stream.get(), status(), static_cast<int>(CgStatus::running),
                                            [&] { enqueue_pass(stop, n_sweeps, symmetric); }, window);
    graph_stop = stop;
    graph_sweeps = n_sweeps;
    graph_symmetric = symmetric;
    graph_splitting = sweeps;
    graph_window = window;
    return !loop_failed;
  }

  SolverPerformance iterate(const SolverSettings& settings);
};

SolverPerformance DeviceSmoothSolver::Impl::iterate(const SolverSettings& settings) {
  check_smooth_solver_settings(settings);
  if (!sweeps) throw CudaError("smoothSolver: its sweeps are not set up (set_preconditioner)");
  SolverPerformance perf;
  perf.solver_name = solver_name(settings, spmv.format_name());
  looped = false;
  window = {};
  if (n == 0) {
    perf.converged = true;
    return perf;
  }
  if (singular) throw cg_error({CgStatus::singular});

  const CgStop stop = cg_stop(settings);
  const int n_sweeps = settings.n_sweeps;
  const bool symmetric = settings.smoother == Smoother::symmetric_gauss_seidel;
  cudaStream_t s = stream.get();
  // --- x is what every SpMV gathers: its window lasts this solve only
  window = use_l2_window ? l2_window_over(x.data(), static_cast<std::size_t>(n) * sizeof(double)) : L2Window{};
  const L2WindowScope window_scope(s, window);

  enqueue_start(stop);
  SmoothState st{};
  looped = loop_ready(stop, n_sweeps, symmetric);
  if (looped) {
    loop_graph.launch(s);
    st = read_state();
  } else {
    // --- batches of passes, at most as many as reach maxIter (a pass counts nSweeps iterations)
    const int most = (stop.max_iter + n_sweeps - 1) / n_sweeps;
    int queued = 0;
    st = read_state();
    while (running(st) && queued < most) {
      const int batch = std::min(check_interval, most - queued);
      for (int k = 0; k < batch; ++k) enqueue_pass(stop, n_sweeps, symmetric);
      queued += batch;
      st = read_state();
    }
  }

  perf.initial_residual = st.initial_residual;
  perf.final_residual = st.residual;
  perf.iterations = st.iterations;
  const auto status = static_cast<CgStatus>(st.status);
  if (status == CgStatus::running)
    throw CudaError("smoothSolver: the solve ended with the device still iterating (internal error)");
  if (status != CgStatus::converged && status != CgStatus::max_iterations) throw cg_error({status, st.iterations});
  perf.converged = status == CgStatus::converged;
  return perf;
}

DeviceSmoothSolver::DeviceSmoothSolver(DeviceMatrix& matrix, std::span<const double> diagonal) {
  // (a float32 twin would only take memory: the sweeps and the residuals need the float64 matrix)
  if (matrix.mixed())
    throw std::invalid_argument(
        "smoothSolver on the cuda backend sweeps in double precision only: the matrix has a float32 twin "
        "(precision mixed); write precision double");
  impl_ = std::make_unique<Impl>(matrix);
  refresh(diagonal);
}

DeviceSmoothSolver::~DeviceSmoothSolver() = default;

void DeviceSmoothSolver::refresh(std::span<const double> diagonal) {
  Impl& m = *impl_;
  if (diagonal.size() != static_cast<std::size_t>(m.n))
    throw CudaError("DeviceSmoothSolver: diagonal length differs from n_rows");
  std::vector<double> inv(m.n);
  for (label i = 0; i < m.n; ++i) inv[i] = 1.0 / diagonal[i];
  m.inv_diag.upload(inv);
  if (m.n == 0) return;
  // --- row sums s = A 1, for the normalisation and the singularity test
  m.enqueue_row_sums();
  m.stream.synchronize();
  std::vector<double> sums(m.n);
  m.row_sums.download(sums);
  m.singular = cg_singular(sums, diagonal);
}

void DeviceSmoothSolver::refresh_on_device() { impl_->enqueue_row_sums(); }

SolverPerformance DeviceSmoothSolver::solve(std::span<double> x, std::span<const double> b,
                                            const SolverSettings& settings) {
  Impl& m = *impl_;
  if (x.size() != static_cast<std::size_t>(m.n) || b.size() != static_cast<std::size_t>(m.n))
    throw CudaError("DeviceSmoothSolver::solve: vector length differs from n_rows");
  m.x.upload(x, m.stream.get());
  m.b.upload(b, m.stream.get());
  SolverPerformance perf = m.iterate(settings);
  m.x.download(x);  // after the stream's work: iterate waited for it
  return perf;
}

SolverPerformance DeviceSmoothSolver::solve_resident(const SolverSettings& settings) {
  return impl_->iterate(settings);
}

double* DeviceSmoothSolver::x_device() { return impl_->x.data(); }
double* DeviceSmoothSolver::b_device() { return impl_->b.data(); }
double* DeviceSmoothSolver::inverse_diagonal_device() { return impl_->inv_diag.data(); }
CUstream_st* DeviceSmoothSolver::stream() const { return impl_->stream.get(); }

void DeviceSmoothSolver::set_preconditioner(DevicePreconditioner* sweeps) {
  auto* splitting = dynamic_cast<DeviceTriangularPreconditioner*>(sweeps);
  if (!splitting || splitting->method().modified_diagonal || splitting->method().split != TriangleSplit::index)
    throw std::invalid_argument(
        "smoothSolver: sweeps with a Gauss-Seidel splitting in the solve's ordering (a DeviceTriangularPreconditioner "
        "of gauss_seidel), not " +
        (splitting ? splitting->method().name : sweeps ? std::string("another preconditioner") : std::string("none")));
  impl_->sweeps = splitting;
}

void DeviceSmoothSolver::set_l2_window(bool on) { impl_->use_l2_window = on; }
void DeviceSmoothSolver::set_device_loop(bool on) { impl_->device_loop = on; }
bool DeviceSmoothSolver::last_solve_looped() const { return impl_->looped; }
void DeviceSmoothSolver::set_check_interval(int passes) { impl_->check_interval = std::max(1, passes); }

}  // namespace fvmmini::cuda
