#include "solvers/cuda/device_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "comm/slowest_median.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_matrix.hpp"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_rows.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/l2_window.hpp"
#include "kernels/cuda/reduction.cuh"
#include "linalg/block_vectors.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/benchmark.hpp"
#include "solvers/distributed/cuda/device_ranks.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/gamg/cuda/device_gamg.hpp"
#include "solvers/preconditioners/preconditioner.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini::cuda {

DeviceMatrix make_device_matrix(const PreparedFormat& prepared, Precision precision) {
  return make_device_matrix(prepared.format_name, prepared.format, prepared.parameters, precision == Precision::mixed);
}

SpmvTimer spmv_timer(Precision precision, bool l2_window) {
  constexpr int warmup = 10, repeats = 30;
  const bool mixed = precision == Precision::mixed;
  std::string how = std::string("cuda SpMV") + (mixed ? " of the float32 twin" : "") +
                    " as the CG runs it (its dot product fused where the format fuses it" +
                    (l2_window ? ", in an L2 window" : "") + "), median of " + std::to_string(repeats) + " runs";
  return {std::move(how), [=](const std::string& name, const StoredFormat& format, const FormatParameters& parameters,
                              label n_rows) {
            DeviceMatrix device = make_device_matrix(name, format, parameters, mixed);
            const int partials = mixed ? device.mixed()->dot_partial_count() : device.spmv().dot_partial_count();
            std::vector<double> x(n_rows);
            for (label i = 0; i < n_rows; ++i) x[i] = 1.0 + 0.125 * (i % 7);
            return time_spmv(device, x, warmup, repeats, l2_window, mixed, partials > 0).median_ms;
          }};
}

bool keeps_l2_window(const SolverSettings& s, label n_rows) {
  // auto: where it was measured to gain, CG and Jacobi-PCG on a vector of the right size; under
  // GAMG (whose V-cycle gathers other vectors) the 128^3 cavity's pressure solve was 2.5 % slower
  const bool cg_or_jacobi = cg_step(s) != CgStep::applied;
  return s.l2_window == L2WindowSetting::on ||
         (s.l2_window == L2WindowSetting::automatic && cg_or_jacobi &&
          l2_window_pays(static_cast<std::size_t>(n_rows) * sizeof(double)));
}

namespace {

/// x_op[i] = x[new_to_old[i]], b_op[i] = b[new_to_old[i]].
__global__ void gather_kernel(int n, const int* __restrict__ new_to_old, const double* __restrict__ x,
                              const double* __restrict__ b, double* __restrict__ x_op, double* __restrict__ b_op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int old = new_to_old[i];
    x_op[i] = x[old];
    b_op[i] = b[old];
  }
}

/// x[new_to_old[i]] = x_op[i].
__global__ void scatter_kernel(int n, const int* __restrict__ new_to_old, const double* __restrict__ x_op,
                               double* __restrict__ x) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[new_to_old[i]] = x_op[i];
}

/// values[slot[i]] = d[i]; inv_diag[old_to_new[i]] = 1 / d[i]; d_op[old_to_new[i]] = d[i] (i in
/// the mesh's numbering).
__global__ void set_diagonal_kernel(int n, const double* __restrict__ d, const std::int64_t* __restrict__ slot,
                                    const int* __restrict__ old_to_new, double* __restrict__ values,
                                    double* __restrict__ inv_diag, double* __restrict__ d_op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    values[slot[i]] = d[i];
    inv_diag[old_to_new[i]] = 1.0 / d[i];
    d_op[old_to_new[i]] = d[i];
  }
}

/// values[upper_slot[f]] = upper[f], values[lower_slot[f]] = lower[f] (upper[f] where lower is null).
__global__ void set_faces_kernel(int n_faces, const double* __restrict__ upper, const double* __restrict__ lower,
                                 const std::int64_t* __restrict__ upper_slot,
                                 const std::int64_t* __restrict__ lower_slot,
                                 double* __restrict__ values) {
  for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < n_faces; f += gridDim.x * blockDim.x) {
    values[upper_slot[f]] = upper[f];
    values[lower_slot[f]] = lower ? lower[f] : upper[f];
  }
}

/// Up to max_block_vectors device vectors, passed by value.
struct VectorSet {
  double* v[max_block_vectors];
};
struct ConstVectorSet {
  const double* v[max_block_vectors];
};

/// x_op[i k + j] = x_j[new_to_old[i]], b_op likewise (k vectors into one interleaved by row).
__global__ void gather_block_kernel(int n, int k, const int* __restrict__ new_to_old, ConstVectorSet x,
                                    ConstVectorSet b, double* __restrict__ x_op, double* __restrict__ b_op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int old = new_to_old[i];
    for (int j = 0; j < k; ++j) {
      x_op[static_cast<long long>(i) * k + j] = x.v[j][old];
      b_op[static_cast<long long>(i) * k + j] = b.v[j][old];
    }
  }
}

/// x_j[new_to_old[i]] = x_op[i k + j].
__global__ void scatter_block_kernel(int n, int k, const int* __restrict__ new_to_old,
                                     const double* __restrict__ x_op, VectorSet x) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int old = new_to_old[i];
    for (int j = 0; j < k; ++j) x.v[j][old] = x_op[static_cast<long long>(i) * k + j];
  }
}

/// The format keys a solver's set-up asks for (a mixed-precision solver's narrowed).
FormatParameters format_parameters(const SolverSettings& s, const LduMatrix& matrix) {
  return s.precision == Precision::mixed ? mixed_precision_parameters(s.format, s.format_parameters, *matrix.addressing)
                                         : s.format_parameters;
}

/// Where the solver's format builds its arrays: on the device where its CUDA unit places rows, the
/// registry's unit makes a shape and no key is tuned, in double precision (the float32 twin is
/// made from the host's arrays); else on the host.
FormatArrays format_arrays(const LduMatrix& matrix, const SolverSettings& s, bool l2_window) {
  const bool device = s.precision == Precision::full && places_rows_on_device(s.format) &&
                      shapes_for_device(s.format, format_parameters(s, matrix), spmv_timer(s.precision, l2_window));
  return device ? FormatArrays::device : FormatArrays::host;
}

/// `model`, another solver's host format, where it is matrix's pattern prepared as s asks
/// (fits_model); else the format prepared afresh (its shape alone where its arrays are the device's).
std::shared_ptr<PreparedFormat> share_or_prepare(const std::shared_ptr<PreparedFormat>* model,
                                                 const LduMatrix& matrix, const SolverSettings& s, bool l2_window,
                                                 FormatArrays arrays) {
  const FormatParameters parameters = format_parameters(s, matrix);
  const SpmvTimer timer = spmv_timer(s.precision, l2_window);
  if (model && *model && fits_model(matrix, s.format, s.ordering, parameters, 1, timer, **model, arrays))
    return *model;
  return std::make_shared<PreparedFormat>(
      prepare_format(matrix, s.format, s.ordering, parameters, 1, timer, nullptr, arrays));
}

}  // namespace

struct DeviceSolver::Impl {
  /// @param system, comm a rank's piece of a decomposed matrix (matrix its local block), or null
  /// @param model another solver on the same pattern, or null: its host format is shared where it
  ///   fits (its structure on the host once; each solver's values on its device), and its GAMG's
  ///   agglomeration taken where that fits (DeviceGamg)
  Impl(const LduMatrix& matrix, const SolverSettings& s, const DistributedLdu* system = nullptr,
       const Communicator* comm = nullptr, const Impl* model = nullptr)
      : settings(s),
        l2_window(keeps_l2_window(s, matrix.n_rows())),
        arrays(format_arrays(matrix, s, l2_window)),
        prepared(share_or_prepare(model ? &model->prepared : nullptr, matrix, s, l2_window, arrays)),
        shared(model && prepared == model->prepared),
        device(make_matrix(matrix)),
        new_to_old(std::span<const int>(prepared->permutation.new_to_old)),
        old_to_new(std::span<const int>(prepared->permutation.old_to_new)),
        diagonal_op(matrix.n_rows()),
        fork(true),
        join(true),
        device_name(cuda::describe(device_info())) {
    // --- this matrix's values on the device before the CG and the preconditioner read them
    if (shared && arrays == FormatArrays::host) {
      const auto t0 = std::chrono::steady_clock::now();
      upload_values(matrix);
      shared_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::vector<double> diagonal(matrix.n_rows());  // the method keeps its own copy
    permute_to_new(prepared->permutation, matrix.diag, diagonal);
    if (system) {
      settings.transport = resolve_transport(s.transport, *comm);
      ranks = std::make_unique<DeviceRanks>(*comm, settings.transport,
                                            in_operator_rows(system->interfaces, prepared->permutation),
                                            matrix.n_rows());
      ranks->set_overlap(s.halo_overlap);
    }
    const DeviceKrylovUnit& method = find_device_krylov(s.solver);
    cg = method.make(device, diagonal, ranks.get());
    // --- the settings' preconditioner, or the method's own splitting (smoothSolver's sweeps)
    method_smoother = static_cast<bool>(method.make_smoother);
    if (cg_step(s) == CgStep::applied || method_smoother) {
      GamgRanks across;
      if (system) across = {.interfaces = &system->interfaces, .comm = comm, .global_rows = system->global_rows};
      const bool mapped =
          prepared->value_map && prepared->value_map->diag_slot.size() == static_cast<std::size_t>(matrix.n_rows());
      const FineSlots fine_slots = arrays == FormatArrays::device ? FineSlots(slots, prepared.get())
                                   : mapped                       ? FineSlots(prepared->value_map.get())
                                                                  : FineSlots();
      const DevicePreconditionerInput input{matrix,
                                            prepared->permutation,
                                            s,
                                            device.spmv(),
                                            prepared->position_before_grouping,
                                            across,
                                            ranks.get(),
                                            fine_slots,
                                            model ? model->preconditioner.get() : nullptr};
      preconditioner = method_smoother ? method.make_smoother(input)
                                       : find_device_preconditioner(s.preconditioner).make(input);
    }
    if (preconditioner) cg->set_preconditioner(preconditioner.get());
    cg->set_l2_window(l2_window);
    symmetric_only = matrix.symmetric();
    addressing = matrix.addressing;
    // the faces' slots off the device until a refresh asks for them (upload_face_slots), as on the host route
    slots.upper = DeviceBuffer<std::int64_t>();
    slots.lower = DeviceBuffer<std::int64_t>();
  }

  /// The format on the device: its arrays built there from matrix (the slot map with them), or the
  /// host's uploaded (its diagonal slots with it).
  DeviceMatrix make_matrix(const LduMatrix& matrix) {
    if (arrays == FormatArrays::host) {
      slots.diag = DeviceBuffer<std::int64_t>(std::span<const std::int64_t>(prepared->value_map->diag_slot));
      return make_device_matrix(*prepared, settings.precision);
    }
    const auto start = std::chrono::steady_clock::now();
    DeviceMatrix built = build_on_device(prepared->format_name, prepared->format, prepared->parameters, matrix,
                                         prepared->permutation, slots);
    (shared ? shared_seconds : prepared->device_seconds) =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return built;
  }

  /// The device format's values from matrix: refreshed in the host format and uploaded, or, where
  /// the host format is another solver's too, made aside (format_values) and uploaded; where the
  /// arrays are the device's, matrix uploaded and placed through the slots there.
  void upload_values(const LduMatrix& matrix) {
    if (arrays == FormatArrays::device) {
      upload_face_slots();
      const DeviceBuffer<double> diag(std::span<const double>(matrix.diag));
      const DeviceBuffer<double> upper(std::span<const double>(matrix.upper));
      DeviceBuffer<double> lower;
      if (!matrix.symmetric()) lower = DeviceBuffer<double>(std::span<const double>(matrix.lower));
      place_values(diag.data(), upper.data(), lower.size() > 0 ? lower.data() : nullptr, cg->stream());
      FVMMINI_CUDA_CHECK(cudaStreamSynchronize(cg->stream()));
      return;
    }
    if (!shared) {
      refresh_format_values(matrix, *prepared);
      device.upload_values(prepared->format.values());
      return;
    }
    const std::unique_ptr<double[]> values = format_values(matrix, *prepared);
    device.upload_values(std::span<const double>(values.get(), prepared->format.values().size()));
  }

  /// The faces' slots on the device (16 bytes a face): the host map's uploaded, or, where the
  /// arrays are the device's, the map made there again as the build made it.
  void upload_face_slots() {
    const auto n_faces = static_cast<std::size_t>(addressing->n_faces());
    if (slots.upper.size() == n_faces && slots.lower.size() == n_faces) return;
    if (arrays == FormatArrays::device) {
      DeviceSlotMap again =
          slots_on_device(prepared->format_name, prepared->format, *addressing, prepared->permutation);
      slots.upper = std::move(again.upper);
      slots.lower = std::move(again.lower);
      return;
    }
    const LduToCsrMap& map = *prepared->value_map;
    slots.upper = DeviceBuffer<std::int64_t>(std::span<const std::int64_t>(map.upper_slot));
    slots.lower = DeviceBuffer<std::int64_t>(std::span<const std::int64_t>(map.lower_slot));
  }

  /// The mesh's coefficients (device vectors; lower null: symmetric) into the format's values
  /// through the slots, and the diagonal into the method's and the preconditioner's, on stream s.
  void place_values(const double* diag, const double* upper, const double* lower, cudaStream_t s) {
    const int n = device.n_rows();
    const int n_faces = static_cast<int>(slots.upper.size());
    double* values = device.spmv().device_values();
    if (n_faces > 0) {
      set_faces_kernel<<<vector_grid(n_faces), reduce_block, 0, s>>>(n_faces, upper, lower, slots.upper.data(),
                                                                     slots.lower.data(), values);
      FVMMINI_CUDA_CHECK_LAUNCH(set_faces_kernel);
    }
    set_diagonal_kernel<<<vector_grid(n), reduce_block, 0, s>>>(n, diag, slots.diag.data(), old_to_new.data(), values,
                                                                cg->inverse_diagonal_device(), diagonal_op.data());
    FVMMINI_CUDA_CHECK_LAUNCH(set_diagonal_kernel);
  }

  /// The block solver of k systems where the method, the settings and the format allow it (made
  /// on first use); null: solve them one after another. @throws std::invalid_argument unless the
  /// three lists of solve_block have one length
  DeviceBlockKrylov* block_cg(std::size_t systems, std::size_t right_hand_sides, std::size_t fields) {
    if (right_hand_sides != systems || fields != systems)
      throw std::invalid_argument("solve_block: the solutions, right-hand sides and field names differ in number");
    const int k = static_cast<int>(systems);
    if (!blockable(k)) return nullptr;
    if (!block || block->vectors() != k) block = cg->make_block(k);
    return block.get();
  }

  /// Whether k systems go through one block solve: a method that has one (CG's block CG), the
  /// preconditioner fused into its passes (none or diagonal) or taking the k vectors together
  /// (GAMG with the jacobi smoother on one rank), and a format with a multi-vector SpMV of k
  /// vectors, its dot product fused.
  bool blockable(int k) {
    const bool fused = cg_step(settings) != CgStep::applied;
    const bool together = fused || (preconditioner && preconditioner->applies_block(k));
    return k >= 2 && cg->has_block() && k <= device.spmv().max_block() && together &&
           device.spmv().dot_partial_count() > 0 && !device.mixed();
  }

  /// Device work of the solver waits for `caller`'s queue so far.
  void wait_for(cudaStream_t caller) {
    fork.record(caller);
    FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(cg->stream(), fork.get(), 0));
  }
  /// `caller` waits for the solver's queue so far.
  void release(cudaStream_t caller) {
    join.record(cg->stream());
    FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(caller, join.get(), 0));
  }

  SolverSettings settings;
  bool l2_window = false;  ///< a persisting-L2 window over p in each solve
  FormatArrays arrays = FormatArrays::host;  ///< where the format's arrays were built
  /// The host format; shared with another solver (same pattern, format, keys, ordering), which
  /// then holds its own values on its own device only
  std::shared_ptr<PreparedFormat> prepared;
  bool shared = false;
  double shared_seconds = 0.0;  ///< a shared format's set-up: this solver's values made and uploaded
  /// Mesh rows and faces -> slots of the format's values on the device: the diagonal's always, the
  /// faces' while set-up or set_coefficients needs them (upload_face_slots)
  DeviceSlotMap slots;
  DeviceMatrix device;
  DeviceBuffer<int> new_to_old, old_to_new;
  DeviceBuffer<double> diagonal_op;   ///< the diagonal in the operator's numbering (set_diagonal)
  /// host-vector solves' x and b in the operator's numbering (made by the first: the flow's solves
  /// take device vectors)
  std::vector<double> x_op, b_op;
  std::unique_ptr<DeviceRanks> ranks;        ///< the halo and the sums across ranks, or null
  std::unique_ptr<DeviceKrylov> cg;          ///< the solver's Krylov unit; refers to device and ranks
  std::unique_ptr<DeviceBlockKrylov> block;  ///< refers to cg; made by block_cg()
  Event fork, join;
  std::string device_name;
  std::unique_ptr<DevicePreconditioner> preconditioner;  ///< DIC, mcsgs, GAMG; cg refers to it
  /// preconditioner is the method's own splitting (make_smoother), not the settings' (none)
  bool method_smoother = false;
  bool symmetric_only = true;  ///< set up on a symmetric matrix: its method or preconditioner may need one
  /// set_coefficients for a preconditioner that cannot refresh on the device: the values on the host
  std::shared_ptr<const LduAddressing> addressing;
  std::unique_ptr<LduMatrix> host_values;
};

DeviceSolver::DeviceSolver(const LduMatrix& matrix, const SolverSettings& settings, const DeviceSolver* same_pattern) {
  if (!cuda_device_available()) throw CudaError("backend cuda: no CUDA device is available (no driver or no GPU)");
  impl_ = std::make_unique<Impl>(matrix, settings, nullptr, nullptr,
                                 same_pattern ? same_pattern->impl_.get() : nullptr);
}

DeviceSolver::DeviceSolver(const DistributedLdu& system, const SolverSettings& settings, const Communicator& comm,
                           const DeviceSolver* same_pattern) {
  if (!cuda_device_available()) throw CudaError("backend cuda: no CUDA device is available (no driver or no GPU)");
  select_device(comm.node_rank());
  impl_ = std::make_unique<Impl>(system.local, settings, &system, &comm,
                                 same_pattern ? same_pattern->impl_.get() : nullptr);
}

DeviceSolver::~DeviceSolver() = default;
DeviceSolver::DeviceSolver(DeviceSolver&&) noexcept = default;

label DeviceSolver::n_rows() const { return impl_->device.n_rows(); }

SolverPerformance DeviceSolver::solve(std::span<double> x, std::span<const double> b, const std::string& field) {
  Impl& m = *impl_;
  // --- into the operator's numbering on the host, solve on the device, back to the mesh's
  m.x_op.resize(x.size());
  m.b_op.resize(b.size());
  permute_to_new(m.prepared->permutation, x, m.x_op);
  permute_to_new(m.prepared->permutation, b, m.b_op);
  SolverPerformance perf = m.cg->solve(m.x_op, m.b_op, m.settings);
  permute_to_old(m.prepared->permutation, m.x_op, x);
  perf.field = field;
  return perf;
}

SolverPerformance DeviceSolver::solve(double* x, const double* b, const std::string& field, CUstream_st* caller) {
  return solve(x, b, field, caller, impl_->settings);
}

SolverPerformance DeviceSolver::solve(double* x, const double* b, const std::string& field, CUstream_st* caller,
                                      const SolverSettings& rules) {
  Impl& m = *impl_;
  if (!same_but_stopping_rules(m.settings, rules))
    throw std::logic_error("DeviceSolver::solve: rules other than the stopping rules differ from the solver's");
  const int n = m.device.n_rows();
  cudaStream_t s = m.cg->stream();
  const int grid = vector_grid(n);
  // --- into the operator's numbering on the device, solve there, and back
  m.wait_for(caller);
  gather_kernel<<<grid, reduce_block, 0, s>>>(n, m.new_to_old.data(), x, b, m.cg->x_device(), m.cg->b_device());
  FVMMINI_CUDA_CHECK_LAUNCH(gather_kernel);
  SolverPerformance perf = m.cg->solve_resident(rules);
  scatter_kernel<<<grid, reduce_block, 0, s>>>(n, m.new_to_old.data(), m.cg->x_device(), x);
  FVMMINI_CUDA_CHECK_LAUNCH(scatter_kernel);
  m.release(caller);
  perf.field = field;
  return perf;
}

std::vector<SolverPerformance> DeviceSolver::solve_block(std::span<const std::span<double>> x,
                                                       std::span<const std::span<const double>> b,
                                                       std::span<const std::string> fields) {
  Impl& m = *impl_;
  const int k = static_cast<int>(x.size());
  DeviceBlockKrylov* block = m.block_cg(x.size(), b.size(), fields.size());
  std::vector<SolverPerformance> perf;
  if (!block) {
    for (int j = 0; j < k; ++j) perf.push_back(solve(x[j], b[j], fields[j]));
    return perf;
  }
  // --- into the operator's numbering, interleaved by row, on the host; the block CG; back
  const label n = m.device.n_rows();
  const auto& new_to_old = m.prepared->permutation.new_to_old;
  std::vector<double> x_op(static_cast<std::size_t>(n) * k), b_op(x_op.size());
  for (label i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) {
      x_op[static_cast<std::size_t>(i) * k + j] = x[j][new_to_old[i]];
      b_op[static_cast<std::size_t>(i) * k + j] = b[j][new_to_old[i]];
    }
  perf = block->solve(x_op, b_op, m.settings);
  for (int j = 0; j < k; ++j) {
    for (label i = 0; i < n; ++i) x[j][new_to_old[i]] = x_op[static_cast<std::size_t>(i) * k + j];
    perf[j].field = fields[j];
  }
  return perf;
}

std::vector<SolverPerformance> DeviceSolver::solve_block(std::span<double* const> x, std::span<const double* const> b,
                                                       std::span<const std::string> fields, CUstream_st* caller) {
  Impl& m = *impl_;
  const int k = static_cast<int>(x.size());
  DeviceBlockKrylov* block = m.block_cg(x.size(), b.size(), fields.size());
  std::vector<SolverPerformance> perf;
  if (!block) {
    for (int j = 0; j < k; ++j) perf.push_back(solve(x[j], b[j], fields[j], caller));
    return perf;
  }
  const int n = m.device.n_rows();
  cudaStream_t s = m.cg->stream();
  const int grid = vector_grid(n);
  VectorSet xs{};
  ConstVectorSet xs_in{}, bs{};
  for (int j = 0; j < k; ++j) {
    xs.v[j] = x[j];
    xs_in.v[j] = x[j];
    bs.v[j] = b[j];
  }
  // --- into the operator's numbering, interleaved, on the device; the block CG; back
  m.wait_for(caller);
  gather_block_kernel<<<grid, reduce_block, 0, s>>>(n, k, m.new_to_old.data(), xs_in, bs, block->x_device(),
                                                    block->b_device());
  FVMMINI_CUDA_CHECK_LAUNCH(gather_block_kernel);
  perf = block->solve_resident(m.settings);
  scatter_block_kernel<<<grid, reduce_block, 0, s>>>(n, k, m.new_to_old.data(), block->x_device(), xs);
  FVMMINI_CUDA_CHECK_LAUNCH(scatter_block_kernel);
  m.release(caller);
  for (int j = 0; j < k; ++j) perf[j].field = fields[j];
  return perf;
}

bool DeviceSolver::solves_together(int k) const { return impl_->blockable(k); }

void DeviceSolver::update_coefficients(const LduMatrix& matrix) {
  Impl& m = *impl_;
  if (m.symmetric_only) require_symmetric(matrix, "a solver set up on a symmetric matrix");
  m.upload_values(matrix);
  std::vector<double> diagonal(matrix.diag.size());
  permute_to_new(m.prepared->permutation, matrix.diag, diagonal);
  m.cg->refresh(diagonal);
  if (m.preconditioner) m.preconditioner->refresh(matrix);
}

void DeviceSolver::update_distributed(const DistributedLdu& system) {
  if (!impl_->ranks) throw std::logic_error("update_distributed: this solver was not made across ranks");
  // the interfaces first: the CG's refresh takes the row sums (normalisation, singularity) of A 1
  // with the couplings
  impl_->ranks->refresh_coefficients(in_operator_rows(system.interfaces, impl_->prepared->permutation));
  if (impl_->preconditioner) impl_->preconditioner->refresh_interfaces(system.interfaces);
  update_coefficients(system.local);
}

IterationParts DeviceSolver::time_iteration_parts(int repeats) {
  Impl& m = *impl_;
  if (!m.ranks) throw std::logic_error("time_iteration_parts: this solver was not made across ranks");
  const Communicator& comm = m.ranks->communicator();
  const int n = m.device.n_rows();
  cudaStream_t s = m.cg->stream();
  std::vector<double> host(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) host[i] = 1.0 + 0.125 * (i % 7);
  DeviceBuffer<double> x{std::span<const double>(host)}, y(n), partials(2 * vector_grid(n));
  FVMMINI_CUDA_CHECK(cudaMemset(partials.data(), 0, partials.bytes()));
  // --- each part as the CG's graphs run it: captured `per_graph` times in one graph, replayed and
  //     divided, so that no host launch latency is counted; launched and synchronised where the
  //     transport cannot be captured (mpi)
  constexpr int per_graph = 20;
  IterationParts parts;
  parts.from_graphs = m.ranks->capturable();
  const auto timed = [&](int runs, auto&& enqueue) {
    if (parts.from_graphs) {
      GraphExec graph;
      const bool captured = graph.capture(s, [&] {
        for (int k = 0; k < per_graph; ++k) enqueue();
      });
      if (comm.all(captured)) {
        graph.launch(s);  // warm-up (an IPC exchange's first round)
        FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
        return slowest_median(comm, runs, [&] {
                 graph.launch(s);
                 FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
               }) /
               per_graph;
      }
      parts.from_graphs = false;  // this part, and the ones after it, launched
    }
    return slowest_median(comm, runs, [&] {
      enqueue();
      FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
    });
  };
  parts.local_spmv = timed(repeats, [&] { m.device.spmv().apply(x.data(), y.data(), s); });
  parts.halo = timed(repeats, [&] {
    m.ranks->start_halo(x.data(), s);
    m.ranks->finish_halo(y.data(), s);
  });
  // one of the CG's sums: two values' per-block partials to every rank's totals
  parts.sum = timed(10 * repeats, [&] { m.ranks->gather_totals(partials.data(), vector_grid(n), 2, s); });
  if (m.preconditioner) {
    parts.sums_per_iteration = 3;
    const int running = static_cast<int>(CgStatus::running);
    DeviceBuffer<int> status{std::span<const int>(&running, 1)};
    parts.preconditioner = timed(repeats, [&] { m.preconditioner->apply(x.data(), y.data(), status.data(), s); });
    if (auto* gamg = dynamic_cast<DeviceGamg*>(m.preconditioner.get()))
      for (int level = 0; level < gamg->levels(); ++level)
        parts.preconditioner_from_level.push_back(
            timed(repeats, [&] { gamg->cycle_from(level, x.data(), y.data(), status.data(), s); }));
  }
  return parts;
}

SolveTiming DeviceSolver::time_solves(std::span<const double> b, int solves, const Communicator& comm) {
  DeviceBuffer<double> b_device{b}, x(b.size());
  Stream caller;
  SolveTiming t;
  t.seconds = fastest_slowest(
      comm, solves,
      [&] {
        FVMMINI_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.bytes(), caller.get()));
        FVMMINI_CUDA_CHECK(cudaStreamSynchronize(caller.get()));
      },
      [&] {
        t.performance = solve(x.data(), b_device.data(), "p", caller.get());
        FVMMINI_CUDA_CHECK(cudaStreamSynchronize(caller.get()));
      });
  return t;
}

void DeviceSolver::set_diagonal(const double* diagonal, CUstream_st* caller) {
  Impl& m = *impl_;
  const int n = m.device.n_rows();
  m.wait_for(caller);
  set_diagonal_kernel<<<vector_grid(n), reduce_block, 0, m.cg->stream()>>>(
      n, diagonal, m.slots.diag.data(), m.old_to_new.data(), m.device.spmv().device_values(),
      m.cg->inverse_diagonal_device(), m.diagonal_op.data());
  FVMMINI_CUDA_CHECK_LAUNCH(set_diagonal_kernel);
  m.cg->refresh_on_device();
  if (m.preconditioner) m.preconditioner->refactor(m.diagonal_op.data(), m.cg->stream());
  m.release(caller);
}

void DeviceSolver::upload_face_slots() { impl_->upload_face_slots(); }

void DeviceSolver::set_coefficients(const double* diag, const double* upper, const double* lower,
                                    CUstream_st* caller) {
  Impl& m = *impl_;
  if (lower && m.symmetric_only)
    throw std::invalid_argument("set_coefficients: asymmetric coefficients for a solver set up on a symmetric matrix");
  if (m.device.mixed()) throw std::invalid_argument("set_coefficients: precision mixed refreshes from the host only");
  m.upload_face_slots();
  const int n = m.device.n_rows();
  const int n_faces = static_cast<int>(m.slots.upper.size());
  cudaStream_t s = m.cg->stream();
  m.wait_for(caller);
  m.place_values(diag, upper, lower, s);
  m.cg->refresh_on_device();
  if (m.preconditioner && m.preconditioner->refreshes_on_device()) {
    m.preconditioner->refresh_on_device({m.diagonal_op.data(), upper, lower ? lower : upper}, s);
  } else if (m.preconditioner) {  // from a download of the mesh-numbered values
    if (!m.host_values) m.host_values = std::make_unique<LduMatrix>(make_ldu_matrix(m.addressing));
    LduMatrix& h = *m.host_values;
    h.lower.resize(lower ? h.upper.size() : 0);
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(h.diag.data(), diag, sizeof(double) * n, cudaMemcpyDeviceToHost, s));
    FVMMINI_CUDA_CHECK(
        cudaMemcpyAsync(h.upper.data(), upper, sizeof(double) * n_faces, cudaMemcpyDeviceToHost, s));
    if (lower)
      FVMMINI_CUDA_CHECK(
          cudaMemcpyAsync(h.lower.data(), lower, sizeof(double) * n_faces, cudaMemcpyDeviceToHost, s));
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
    m.preconditioner->refresh(h);
  }
  m.release(caller);
}

PreconditionerInfo DeviceSolver::preconditioner_info() const {
  const Impl& m = *impl_;
  if (!m.preconditioner || m.method_smoother) {  // (smoothSolver's sweeps: preconditioner none, as on the host)
    PreconditionerInfo none;
    none.name = m.settings.preconditioner;
    return none;
  }
  return m.preconditioner->info(m.prepared->format.figures().nnz);
}

FormatInfo DeviceSolver::format_info() const { return fvmmini::format_info(*impl_->prepared); }

std::string DeviceSolver::describe() const {
  const Impl& m = *impl_;
  const std::string precision =
      m.settings.precision == Precision::mixed
          ? ", precision mixed (16-bit columns on " +
                std::to_string(std::lround(100.0 * m.device.narrow_fraction())) + " % of entries)"
          : "";
  const std::string ranks =
      m.ranks ? ", " + std::to_string(m.ranks->communicator().size()) +
                    (m.ranks->communicator().size() == 1 ? " rank" : " ranks") + " over " + name(m.settings.transport) +
                    " (" + std::to_string(m.ranks->interface_faces()) + " processor faces on rank " +
                    std::to_string(m.ranks->communicator().rank()) + "), " +
                    preconditioner_across_ranks(m.settings, m.ranks->communicator().size())
              : "";
  const std::string format =
      m.shared ? describe_shared(*m.prepared, m.shared_seconds) : fvmmini::describe(*m.prepared);
  return "backend cuda on " + m.device_name + ranks + ", " + format + precision +
         (m.l2_window ? ", l2Window on" : "") + ", preconditioner " + fvmmini::describe(preconditioner_info()) +
         describe_tuning(*m.prepared);
}

}  // namespace fvmmini::cuda
