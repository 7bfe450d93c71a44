#include "solvers/make_linear_solver.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/unit_twins.hpp"
#include "comm/slowest_median.hpp"
#include "linalg/block_vectors.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/cuda_linear_solver.hpp"
#include "solvers/distributed/distributed_operator.hpp"
#include "solvers/krylov/krylov_table.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

// cuda_format_files(), cuda_krylov_files(), cuda_preconditioner_files(): the CUDA library's unit
// files, known in every build
#include "cuda_format_files.inc"
#include "cuda_krylov_files.inc"
#include "cuda_preconditioner_files.inc"

void check_symmetry(const LduMatrix& matrix, const SolverSettings& s, bool decomposed) {
  if (matrix.symmetric()) return;
  if (decomposed) require_symmetric(matrix, "a matrix decomposed over ranks");
  if (find_krylov(s.solver).symmetric_only) require_symmetric(matrix, "solver " + s.solver);
  if (find_preconditioner(s.preconditioner).symmetric_only)
    require_symmetric(matrix, "preconditioner " + s.preconditioner);
}

namespace {

class ReferenceSolver final : public LinearSolver {
 public:
  /// @param[in] system a rank's piece of a decomposed matrix (m its local block), or null
  /// @param[in] same_pattern another reference solver on the same pattern: prepare_format may copy
  ///            its format, GAMG share its agglomeration; or null
  ReferenceSolver(const LduMatrix& m, const SolverSettings& s, std::string note,
                  const DistributedLdu* system = nullptr, const Communicator* comm = nullptr,
                  const ReferenceSolver* same_pattern = nullptr)
      : settings_(s),
        op_(make_reference_operator(m, prepare_format(m, s.format, s.ordering, s.format_parameters, 1,
                                                      reference_spmv_timer(),
                                                      same_pattern ? &same_pattern->prepared() : nullptr))),
        permuted_(!op_->prepared().permutation.is_identity()),
        work_(same_pattern ? same_pattern->work_ : std::make_shared<WorkStore>()),
        krylov_(find_krylov(s.solver).make(work_)),
        preconditioner_(m, op_->prepared().permutation, s, op_->prepared().position_before_grouping,
                        system ? GamgRanks{.interfaces = &system->interfaces, .comm = comm,
                                           .global_rows = system->global_rows}
                               : GamgRanks{},
                        same_pattern ? &same_pattern->preconditioner_ : nullptr),
        note_(std::move(note)) {
    krylov_->set_up(m, op_->prepared().permutation, op_->prepared().position_before_grouping, s, system != nullptr);
    if (permuted_) {
      x_op_.resize(m.n_rows());
      b_op_.resize(m.n_rows());
    }
    if (system) {
      distributed_ = std::make_unique<DistributedOperator>(*op_, op_->prepared().permutation.old_to_new,
                                                           system->interfaces, *comm);
      distributed_->set_overlap(s.halo_overlap);
    }
  }

  SolverPerformance solve(std::span<double> x, std::span<const double> b, const std::string& field) override {
    const HostOperator& a = distributed_ ? static_cast<const HostOperator&>(*distributed_) : *op_;
    if (!permuted_) {
      auto perf = krylov_->solve(a, x, b, settings_, preconditioner_);
      perf.field = field;
      return perf;
    }
    // --- into the operator's numbering once, the Krylov method there, back once
    const Permutation& p = op_->prepared().permutation;
    permute_to_new(p, x, x_op_);
    permute_to_new(p, b, b_op_);
    auto perf = krylov_->solve(a, x_op_, b_op_, settings_, preconditioner_);
    permute_to_old(p, x_op_, x);
    perf.field = field;
    return perf;
  }
  /// All k systems in one solve where the Krylov method solves them together (CG: the format has a
  /// multi-vector SpMV and the preconditioner is fused or takes the k vectors together; each system
  /// as solve() gives it, bit for bit); else one solve after another.
  std::vector<SolverPerformance> solve_block(std::span<const std::span<double>> x,
                                             std::span<const std::span<const double>> b,
                                             std::span<const std::string> fields) override {
    const int k = static_cast<int>(x.size());
    if (!solves_together(k) || b.size() != x.size() || fields.size() != x.size())
      return LinearSolver::solve_block(x, b, fields);  // one by one (and the size check)
    // --- into the operator's numbering, interleaved by row; the block CG there; back
    const Permutation& p = op_->prepared().permutation;
    const label n = op_->n_rows();
    x_block_.resize(static_cast<std::size_t>(n) * k);
    b_block_.resize(x_block_.size());
    for (int j = 0; j < k; ++j)
      for (label i = 0; i < n; ++i) {
        x_block_[static_cast<std::size_t>(i) * k + j] = x[j][p.new_to_old[i]];
        b_block_[static_cast<std::size_t>(i) * k + j] = b[j][p.new_to_old[i]];
      }
    std::vector<SolverPerformance> perf = krylov_->solve_block(*op_, k, x_block_, b_block_, settings_, preconditioner_);
    for (int j = 0; j < k; ++j) {
      for (label i = 0; i < n; ++i) x[j][p.new_to_old[i]] = x_block_[static_cast<std::size_t>(i) * k + j];
      perf[j].field = fields[j];
    }
    return perf;
  }
  /// Not across ranks: the reference backend solves a rank's systems one after another there.
  bool solves_together(int k) const override {
    return !distributed_ && krylov_->solves_together(*op_, settings_, preconditioner_, k);
  }
  void update_coefficients(const LduMatrix& m) override {
    check_symmetry(m, settings_, false);
    op_->refresh_values(m);
    krylov_->refresh(m);
    preconditioner_.refresh(m);
  }
  void update_distributed(const DistributedLdu& system) override {
    if (!distributed_) LinearSolver::update_distributed(system);  // throws
    op_->refresh_values(system.local);
    krylov_->refresh(system.local);
    distributed_->refresh_interfaces(system.interfaces);
    preconditioner_.refresh(system.local, &system.interfaces);
  }
  IterationParts time_iteration_parts(int repeats) override {
    if (!distributed_) return LinearSolver::time_iteration_parts(repeats);  // throws
    const Communicator& comm = distributed_->communicator();
    const label n = op_->n_rows();
    std::vector<double> x(static_cast<std::size_t>(n)), y(x.size());
    for (label i = 0; i < n; ++i) x[i] = 1.0 + 0.125 * (i % 7);
    IterationParts parts;
    parts.local_spmv = slowest_median(comm, repeats, [&] { op_->multiply(x, y); });
    parts.halo = slowest_median(comm, repeats, [&] { distributed_->exchange_halo(x); });
    double pair[2] = {1.0, 2.0};
    parts.sum = slowest_median(comm, 10 * repeats, [&] { comm.sum(pair); });
    if (preconditioner_.applied()) {
      parts.sums_per_iteration = 3;
      parts.preconditioner = slowest_median(comm, repeats, [&] { preconditioner_.apply(*distributed_, x, y); });
      if (HostGamg* gamg = preconditioner_.gamg())
        for (label level = 0; level < gamg->hierarchy().levels(); ++level)
          parts.preconditioner_from_level.push_back(
              slowest_median(comm, repeats, [&] { gamg->cycle_from(*distributed_, level, x, y); }));
    }
    return parts;
  }
  std::string describe() const override {
    // the note first: GAMG's description ends with its hierarchy, a line per level, then tuning's lines
    const std::string ranks =
        distributed_ ? fmt::format(", {} rank{} ({} processor faces on rank {}), {}", distributed_->communicator().size(),
                                   distributed_->communicator().size() == 1 ? "" : "s", distributed_->interface_faces(),
                                   distributed_->communicator().rank(),
                                   preconditioner_across_ranks(settings_, distributed_->communicator().size()))
                     : std::string();
    return fmt::format("backend reference{}{}, {}, preconditioner {}{}", note_, ranks,
                       fvmmini::describe(op_->prepared()), fvmmini::describe(preconditioner_info()),
                       describe_tuning(op_->prepared()));
  }
  FormatInfo format_info() const override { return fvmmini::format_info(op_->prepared()); }
  const PreparedFormat& prepared() const { return op_->prepared(); }
  PreconditionerInfo preconditioner_info() const override {
    return preconditioner_.info(op_->prepared().format.figures().nnz);
  }

 private:
  SolverSettings settings_;
  std::unique_ptr<ReferenceOperator> op_;
  std::unique_ptr<DistributedOperator> distributed_;  ///< op_ coupled to the other ranks, or null
  bool permuted_;
  std::vector<double> x_op_, b_op_;  ///< x and b in the operator's numbering
  std::vector<double> x_block_, b_block_;  ///< solve_block's vectors, interleaved, the operator's numbering
  /// The Krylov method's work vectors: same_pattern's (the two solve one at a time), else its own
  std::shared_ptr<WorkStore> work_;
  std::unique_ptr<KrylovMethod> krylov_;  ///< the solver's unit
  HostPreconditioner preconditioner_;  ///< in the operator's numbering
  std::string note_;
};


std::unique_ptr<LinearSolver> make_reference_solver(const LduMatrix& matrix, const SolverSettings& s, std::string note,
                                                    const DistributedLdu* system = nullptr,
                                                    const Communicator* comm = nullptr,
                                                    const LinearSolver* same_pattern = nullptr) {
  if (!find_format(s.format).multiply)
    throw std::invalid_argument(
        fmt::format("format '{}' is not available on the reference backend: it needs backend cuda", s.format));
  // --- precision mixed is the cuda backend's: the same case file solves in double on the CPU
  if (s.precision == Precision::mixed) note += ", precision double (mixed is a cuda option)";
  return std::make_unique<ReferenceSolver>(matrix, s, std::move(note), system, comm,
                                           dynamic_cast<const ReferenceSolver*>(same_pattern));
}

/// Whether the CUDA library's list of unit files (cuda_*_files()) has `file`.
bool lists(const std::vector<std::string>& files, const std::string& file) {
  return std::find(files.begin(), files.end(), file) != files.end();
}

}  // namespace

std::vector<std::string> format_backends(const std::string& format) {
  const FormatUnit& unit = find_format(format);
  std::vector<std::string> backends;
  if (unit.multiply) backends.push_back("reference");
  std::string file = unit.name;
  std::replace(file.begin(), file.end(), '-', '_');
  if (lists(cuda_format_files(), file)) backends.push_back("cuda");
  return backends;
}

std::vector<std::string> krylov_backends(const std::string& name) {
  const KrylovUnit& unit = find_krylov(name);
  std::vector<std::string> backends{"reference"};
  if (lists(cuda_krylov_files(), unit_file_name(unit.name))) backends.push_back("cuda");
  return backends;
}

std::vector<std::string> preconditioner_backends(const std::string& name) {
  const PreconditionerUnit& unit = find_preconditioner(name);
  std::vector<std::string> backends{"reference"};
  // --- a preconditioner the CG fuses is every CG's; one it applies, the backends with its twin
  if (unit.cg_step != CgStep::applied || lists(cuda_preconditioner_files(), unit_file_name(unit.name)))
    backends.push_back("cuda");
  return backends;
}

namespace {

/// "solver PBiCGStab" or "preconditioner DILU" where the cuda backend lacks the settings' method or
/// preconditioner (the method named first); empty where it has both.
/// @throws std::invalid_argument for an unknown method or preconditioner
std::string missing_on_device(const SolverSettings& s) {
  if (!lists(krylov_backends(s.solver), "cuda")) return "solver " + s.solver;
  if (s.precision == Precision::mixed && s.solver != "CG") return "solver " + s.solver + " in precision mixed";
  if (!lists(preconditioner_backends(s.preconditioner), "cuda")) return "preconditioner " + s.preconditioner;
  return "";
}

/// Whether any of settings asks for cuda or auto with a method and preconditioner the backend has.
bool may_use_device(std::span<const SolverSettings> settings) {
  return cuda::cuda_backend_built() && std::any_of(settings.begin(), settings.end(), [](const SolverSettings& s) {
           return s.backend != Backend::reference && missing_on_device(s).empty();
         });
}

}  // namespace

std::jthread start_device_early(std::span<const SolverSettings> settings, int node_rank) {
  return may_use_device(settings) ? cuda::start_device(node_rank) : std::jthread();
}

bool resolves_to_device(std::span<const SolverSettings> settings) {
  return may_use_device(settings) && cuda::cuda_device_ready();
}

std::size_t device_memory_peak() { return cuda::device_memory_peak(); }

SolverSettings resolve_solver_settings(const SolverSettings& requested, std::string* note) {
  SolverSettings s = requested;

  // --- cuda when asked (a missing device, or a method or preconditioner it lacks, is an error) or
  //     when auto finds a device and both are there
  std::string why;
  const std::string missing = missing_on_device(s);  // an unknown method or preconditioner is an error here
  const bool method_on_device = missing.empty();
  if (s.backend == Backend::cuda && !method_on_device)
    throw std::invalid_argument("backend cuda: " + missing + " is on the reference backend only");
  const bool device = s.backend != Backend::reference && method_on_device && cuda::cuda_device_ready();
  if (s.backend == Backend::cuda && !device)
    throw SolverError(cuda::cuda_backend_built()
                          ? "backend cuda: no CUDA device is available (backend auto falls back to reference)"
                          : "backend cuda: this build has no CUDA backend (configure with FVMMINI_WITH_CUDA=ON)");
  if (s.backend == Backend::automatic && !device)
    why = !cuda::cuda_backend_built()    ? " (auto: no CUDA backend in this build)"
          : !cuda::cuda_device_ready() ? " (auto: no CUDA device, fell back to reference)"
                                       : " (auto: " + missing + " is on the reference backend only)";
  s.backend = device ? Backend::cuda : Backend::reference;
  s.preconditioner = parse_preconditioner(s.preconditioner);  // an alias as its unit's name
  if (!find_krylov(s.solver).preconditioned && s.preconditioner != "none")
    throw std::invalid_argument(fmt::format("solver {} takes no preconditioner (preconditioner {}: write none)",
                                            s.solver, s.preconditioner));
  if (s.format == "auto") s.format = auto_format(name(s.backend));
  if (note) *note = why;
  return s;
}

std::unique_ptr<LinearSolver> make_linear_solver(const LduMatrix& matrix, const SolverSettings& requested,
                                                 const LinearSolver* same_pattern) {
  std::string note;
  const SolverSettings s = resolve_solver_settings(requested, &note);
  check_symmetry(matrix, s, false);
  if (s.backend == Backend::cuda) return cuda::make_cuda_linear_solver(matrix, s);
  return make_reference_solver(matrix, s, note, nullptr, nullptr, same_pattern);
}

std::unique_ptr<LinearSolver> make_distributed_linear_solver(const DistributedLdu& system,
                                                             const SolverSettings& requested,
                                                             const Communicator& comm,
                                                             const LinearSolver* same_pattern) {
  std::string note;
  const SolverSettings s = resolve_solver_settings(requested, &note);
  check_symmetry(system.local, s, true);
  if (s.backend == Backend::cuda) return cuda::make_cuda_distributed_linear_solver(system, s, comm);
  return make_reference_solver(system.local, s, note, &system, &comm, same_pattern);
}

}  // namespace fvmmini
