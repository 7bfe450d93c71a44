#pragma once
// What a case file says about one linear solve and what the solve reports back (the interface
// every backend's solver implements is solvers/linear_solver.hpp).

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/formats/format_parameters.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

/// The most rows a multigrid's coarsest level may have for its dense inverse (8 MiB): GAMG's
/// nCellsInCoarsestLevel is bounded by it.
constexpr label max_direct_rows = 1024;

/// A smoother, the key `smoother`. GAMG's on every level but the coarsest: jacobi (damped by 0.9)
/// or mcsgs (a symmetric multicolour Gauss-Seidel sweep, forward and backward). smoothSolver's,
/// OpenFOAM's: GaussSeidel (a forward sweep) or symGaussSeidel (forward, then backward), in the
/// solve's ordering. Each reader takes its own two (gamg_smoother_names, smooth_solver_smoother_names).
enum class Smoother { jacobi, mcsgs, gauss_seidel, symmetric_gauss_seidel };
/// How GAMG pairs cells: algebraicPair (OpenFOAM's pairGAMGAgglomeration, a sequential greedy
/// pass on the host), parallelPair (a handshake matching that runs on the device: each round pairs
/// the cells whose heaviest free face is the heaviest free face of its other cell too), or
/// automatic ("auto": parallelPair where the cuda backend builds the hierarchy on the device, one
/// rank with the jacobi smoother; algebraicPair elsewhere).
enum class Agglomerator { automatic, algebraic_pair, parallel_pair };
/// How the cuda backend solves DIC's triangles: fvmmini's level-scheduled kernels, or cuSPARSE's
/// cusparseSpSV on the same factor (the baseline). The reference backend always uses levels.
enum class TriangularSolve { levels, cusparse };
/// Whether a cuda solve keeps a persisting-L2 window over the vector its SpMVs gather: on, off, or
/// automatic ("auto": on for CG and Jacobi-PCG where the vector takes a sixteenth to a third of
/// L2, where it was measured to gain).
enum class L2WindowSetting { automatic, on, off };
/// The matrix a cuda CG iterates with: the float64 one (double), or its float32 twin (mixed: float
/// values, 16-bit column offsets where a slice's fit, vectors and sums in float64), the residual
/// replaced with the float64 matrix's whenever it fell tenfold and before the solve may stop.
enum class Precision { full, mixed };
/// How a cuda solve across ranks moves its halos and sums: nccl (device buffers on the solver's
/// stream, one GPU per rank), mpi (host staging: device to host, MPI, host to device), or automatic
/// ("auto": nccl where the build has it and no two ranks share a GPU, else mpi).
enum class Transport { automatic, nccl, mpi, ipc };
/// Where a solve runs; automatic ("auto") is cuda when a device is present, else reference.
enum class Backend { reference, cuda, automatic };

// Each enum's one name table (in enum order, as case files and logs write them), its name and
// its parser. @throws std::invalid_argument on an unknown name, listing the known ones
const std::vector<std::string>& triangular_solve_names();  ///< levels, cusparse
const std::vector<std::string>& smoother_names();          ///< jacobi, mcsgs, GaussSeidel, symGaussSeidel
const std::vector<std::string>& gamg_smoother_names();     ///< jacobi, mcsgs
const std::vector<std::string>& smooth_solver_smoother_names();  ///< GaussSeidel, symGaussSeidel
const std::vector<std::string>& agglomerator_names();      ///< auto, algebraicPair, parallelPair
const std::vector<std::string>& backend_names();          ///< reference, cuda, auto
const std::vector<std::string>& l2_window_names();        ///< auto, on, off
const std::vector<std::string>& precision_names();        ///< double, mixed
const std::vector<std::string>& transport_names();        ///< auto, nccl, mpi, ipc
const std::string& name(Backend backend);
const std::string& name(TriangularSolve solve);
const std::string& name(Smoother smoother);
const std::string& name(Agglomerator agglomerator);
const std::string& name(L2WindowSetting setting);
const std::string& name(Precision precision);
const std::string& name(Transport transport);
Backend parse_backend(const std::string& text);
TriangularSolve parse_triangular_solve(const std::string& text);
Smoother parse_smoother(const std::string& text);
Agglomerator parse_agglomerator(const std::string& text);
L2WindowSetting parse_l2_window(const std::string& text);
Precision parse_precision(const std::string& text);
Transport parse_transport(const std::string& text);

/// GAMG's keys, as OpenFOAM names them where it has the concept. The V-cycle is symmetric (pre-
/// and post-sweeps equal) and the same each application, so that it is a valid preconditioner of
/// CG; the coarsest level is solved directly.
struct GamgSettings {
  label n_cells_in_coarsest_level = 10;  ///< agglomerate while the next level keeps at least this many
  int merge_levels = 2;                  ///< pairings per level (groups of about 2^mergeLevels cells)
  Smoother smoother = Smoother::jacobi;
  Agglomerator agglomerator = Agglomerator::automatic;
  int n_pre_sweeps = 1;                  ///< smoother sweeps before the coarse correction
  int n_post_sweeps = 1;                 ///< after it; must equal n_pre_sweeps
  int n_vcycles = 1;                     ///< V-cycles per application
  /// The coarse correction is multiplied by this fixed factor: piecewise-constant transfer
  /// underestimates it (OpenFOAM's scaleCorrection computes a factor each cycle instead, which
  /// would change the preconditioner from one CG iteration to the next).
  double correction_scale = 1.3;
  /// Across ranks: the first level whose cells over all ranks number at most this many is
  /// gathered whole on every rank and agglomerated on as on one rank (no halo below it); 0: every
  /// level across the ranks, the coarsest gathered; -1: the backend's (solvers/preconditioners/gamg/multigrid.hpp).
  label n_cells_to_gather = -1;

  bool operator==(const GamgSettings&) const = default;
};

/// GAMG's case keys (app/settings_keys.hpp), under OpenFOAM's names; they apply to preconditioner GAMG.
template <class Keys>
void declare_keys(Keys& keys, GamgSettings& g) {
  keys.add("nCellsInCoarsestLevel", g.n_cells_in_coarsest_level,
               "GAMG: agglomerate while the next level keeps at least this many cells (the coarsest is solved directly)")
      .min(1)
      .max(max_direct_rows / 4);
  keys.add("mergeLevels", g.merge_levels, "GAMG: pairwise agglomerations per level (cells per group about 2^mergeLevels)")
      .min(1)
      .max(4);
  keys.enumeration("smoother", g.smoother, "GAMG: jacobi (damped by 0.9) or mcsgs (multicolour symmetric Gauss-Seidel)",
                   gamg_smoother_names(), parse_smoother, name);
  keys.enumeration("agglomerator", g.agglomerator,
                   "GAMG: how cells are paired: algebraicPair (OpenFOAM's, sequential, on the host), parallelPair "
                   "(a handshake matching, built on the GPU by the cuda backend on one rank with the jacobi smoother), "
                   "auto (parallelPair where the GPU builds it, else algebraicPair)",
                   agglomerator_names(), parse_agglomerator, name);
  keys.add("nPreSweeps", g.n_pre_sweeps, "GAMG: smoother sweeps before the coarse correction (= nPostSweeps)")
      .min(0)
      .max(20);
  keys.add("nPostSweeps", g.n_post_sweeps, "GAMG: smoother sweeps after the coarse correction (= nPreSweeps)")
      .min(0)
      .max(20);
  keys.add("nVcycles", g.n_vcycles, "GAMG: V-cycles per application of the preconditioner")
      .min(1)
      .max(20);
  keys.add("nCellsToGather", g.n_cells_to_gather,
           "GAMG across ranks: the first level with at most this many cells over all ranks is gathered on every rank "
           "and agglomerated on there, with no halo exchange below it (0: never, only the coarsest; -1: 200000 on "
           "cuda, 2000 on reference)")
      .min(-1);
  keys.add("correctionScale", g.correction_scale,
            "GAMG: the fixed factor on the coarse-grid correction (piecewise-constant transfer underestimates it)")
      .min(0, false)
      .max(2, false);
}

struct SolverSettings {
  /// A Krylov unit's name (solvers/krylov/krylov_table.hpp): CG.
  std::string solver = "CG";
  /// A preconditioner unit's name (solvers/preconditioners/preconditioner_table.hpp): none,
  /// diagonal, DIC, mcsgs, GAMG.
  std::string preconditioner = "none";
  int sweeps = 1;  ///< mcsgs: symmetric sweeps per application
  /// smoothSolver's smoother (GaussSeidel or symGaussSeidel) and its sweeps between residuals.
  /// The key `smoother` is GAMG's too: both members read it, each reader takes its own.
  Smoother smoother = Smoother::symmetric_gauss_seidel;
  int n_sweeps = 1;
  TriangularSolve triangular_solve = TriangularSolve::levels;  ///< DIC on the cuda backend
  GamgSettings gamg;
  double tolerance = 1e-6;              ///< absolute, on the normalised residual
  double rel_tol = 0.0;                 ///< stop when residual < rel_tol * initial (0: off)
  int max_iter = 1000;
  Backend backend = Backend::reference;
  L2WindowSetting l2_window = L2WindowSetting::automatic;  ///< cuda only
  Precision precision = Precision::full;                   ///< cuda only
  Transport transport = Transport::automatic;              ///< cuda across ranks only
  bool halo_overlap = true;  ///< across ranks: the local product runs while the halo travels
  std::string format = "csr";            ///< a format name, or auto: staircase on cuda, csr on reference
  std::string ordering = "none";
  FormatParameters format_parameters;  ///< keys not set take the format's defaults

  bool operator==(const SolverSettings&) const = default;
};

/// Whether `b` is `a` but for the stopping rules (tolerance, relTol, maxIter): pFinal beside p,
/// which one solver set up once may serve with each solve's rules.
inline bool same_but_stopping_rules(SolverSettings a, const SolverSettings& b) {
  a.tolerance = b.tolerance;
  a.rel_tol = b.rel_tol;
  a.max_iter = b.max_iter;
  return a == b;
}

/// The case keys of solvers.<field> (app/settings_keys.hpp) but the tables': format, ordering and
/// the format parameters come from the format tables of registry/, solver and preconditioner from
/// the Krylov and preconditioner units of solvers/, which also say under which preconditioners
/// each of the keys below applies; the app adds them after these.
template <class Keys>
void declare_keys(Keys& keys, SolverSettings& s) {
  keys.add("sweeps", s.sweeps, "mcsgs: symmetric Gauss-Seidel sweeps per application")
      .min(1)
      .max(100);
  keys.enumeration("triangularSolve", s.triangular_solve,
                   "DIC on the cuda backend: levels (fvmmini's level-scheduled kernels) or cusparse (cusparseSpSV)",
                   triangular_solve_names(), parse_triangular_solve, name);
  declare_keys(keys, s.gamg);
  // --- smoothSolver's: after GAMG's smoother, the same key read under another unit (the first found where both apply)
  keys.enumeration("smoother", s.smoother,
                   "smoothSolver: GaussSeidel (a forward sweep) or symGaussSeidel (forward, then backward), "
                   "in the solve's ordering (OpenFOAM's)",
                   smooth_solver_smoother_names(), parse_smoother, name)
      .when("solver", {"smoothSolver"});
  keys.add("nSweeps", s.n_sweeps, "smoothSolver: smoother sweeps between residual checks (iterations count sweeps)")
      .min(1)
      .max(1000)
      .when("solver", {"smoothSolver"});
  keys.add("tolerance", s.tolerance, "stop when the normalised residual falls below this").min(0);
  keys.add("relTol", s.rel_tol, "stop when the residual falls below relTol x the initial one (0: off)")
      .min(0)
      .max(1, false);
  keys.add("maxIter", s.max_iter, "the most iterations per solve").min(1).max(std::numeric_limits<int>::max());
  keys.enumeration("backend", s.backend, "reference (CPU), cuda, or auto (cuda when a GPU is present)", backend_names(),
                   parse_backend, name);
  keys.enumeration("l2Window", s.l2_window,
                   "cuda: keep the vector the SpMV gathers in the persisting part of L2 during a solve (on, off, "
                   "or auto: on for none and diagonal when it takes a sixteenth to a third of L2); the reference "
                   "backend ignores it",
                   l2_window_names(), parse_l2_window, name);
  keys.enumeration("precision", s.precision,
                   "cuda: double, or mixed (the CG iterates with a float32 copy of the matrix, 16-bit column "
                   "offsets where they fit, and replaces its residual with the float64 matrix's; formats with a "
                   "mixed kernel: staircase, sell; staircase without an alpha keeps the ordering in one row group "
                   "where that pads at most 1 % more entries); the reference backend solves in double",
                   precision_names(), parse_precision, name);
  keys.enumeration("transport", s.transport,
                   "cuda across ranks (mpirun): nccl (halos and sums in device buffers, one GPU per rank), ipc "
                   "(CUDA IPC: each rank writes into the others' GPU memory; one host, one GPU per rank, peer "
                   "access), mpi (through host copies; ranks may share a GPU), or auto (ipc where every GPU maps "
                   "the others' memory, else nccl where the build has it and no two ranks share a GPU, else mpi); "
                   "ignored on one rank and by the reference backend",
                   transport_names(), parse_transport, name);
  keys.add("haloOverlap", s.halo_overlap,
           "across ranks (mpirun): the local product runs while the halo travels (true), or after it has "
           "arrived (false: what the overlap gains, measured); ignored on one rank");
}

/// Breakdown (pAp <= 0, NaN), a singular system, or a device failure during a solve.
class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A solve stopped by its device, not by its numbers: a call that failed, or memory the device
/// did not have (the backends' errors: kernels/cuda/cuda_error.hpp).
class DeviceError : public SolverError {
 public:
  using SolverError::SolverError;
  DeviceError(const std::string& what, bool out_of_memory) : SolverError(what), out_of_memory_(out_of_memory) {}
  /// The device lacked the memory a call asked for (a caller may take a leaner way).
  bool out_of_memory() const { return out_of_memory_; }

 private:
  bool out_of_memory_ = false;
};

struct SolverPerformance {
  std::string solver_name;  ///< as printed: "CG[csr]"
  std::string field;
  double initial_residual = 0.0;
  double final_residual = 0.0;
  int iterations = 0;
  bool converged = false;
};

/// What a preconditioner cost to set up and costs to apply, for the log and the JSON summary.
struct PreconditionerInfo {
  std::string name;            ///< "DIC", "mcsgs", ...
  double setup_seconds = 0.0;  ///< colouring, levels, factor and upload: once per mesh
  /// The set-up's parts in the order they ran, seconds each (where the set-up times them).
  std::vector<std::pair<std::string, double>> setup_parts;
  double refresh_seconds = 0.0;  ///< the last value refresh (new factor, no new analysis)
  /// The last refresh's parts in the order they ran (where it times them: GAMG's).
  std::vector<std::pair<std::string, double>> refresh_parts;
  label colours = 0;           ///< mcsgs, and DIC on a multicolour schedule (0: none)
  label levels = 0;            ///< dependency levels of the triangular solves (0: none)
  std::vector<label> level_sizes;  ///< rows per level, in solve order
  /// Bytes one application moves over the bytes of one SpMV (the model, not a timing).
  double spmv_equivalents = 0.0;
  /// GAMG: the grid levels, finest first; empty for the other preconditioners.
  struct GridLevel {
    label rows = 0;
    std::int64_t nnz = 0;
    std::string format;  ///< the level's storage format, "dense" for the coarsest (direct solve)
    label colours = 0;   ///< the mcsgs smoother's colours on the level (0: jacobi, or the coarsest)
  };
  std::vector<GridLevel> grid_levels;
  std::string smoother;  ///< GAMG's, as in the case file
  /// Sum of the levels' nonzeros over the finest level's (1 when there is no hierarchy).
  double operator_complexity() const;
};

/// The storage format a solve runs on, for the JSON summary: its keys as resolved, its set-up,
/// and when keys were auto each setting set-up timed.
struct FormatInfo {
  std::string name;        ///< "staircase"
  std::string ordering;    ///< "cm"
  std::string parameters;  ///< "sliceHeight 512, alpha 0.01, launch interleaved"
  double setup_seconds = 0.0;  ///< ordering, permuted CSR, build and tuning
  struct Trial {
    std::string parameters;  ///< the tuned keys only: "sliceHeight 512, alpha 0.01"
    double spmv_ms = 0.0;
  };
  std::vector<Trial> tuning;  ///< empty unless keys were auto
  std::size_t chosen = 0;     ///< the trial kept
  std::string tuning_timer;   ///< how each was timed
  double tuning_seconds = 0.0;
};

/// The levels' size histogram in powers of two: (2^k, how many levels have 2^k .. 2^(k+1) - 1
/// rows), smallest first, empty buckets left out.
std::vector<std::pair<label, label>> level_size_histogram(const std::vector<label>& level_sizes);

/// Settings that do not fit one field's matrix (a format that declines it, a parameter outside
/// its range for this matrix), naming the field: the app reports it as a case error on
/// solvers.<field>.
class SolverSetupError : public std::invalid_argument {
 public:
  SolverSetupError(std::string field, const std::string& what) : std::invalid_argument(what), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

/// What one CG iteration across ranks is made of (fvmmini-dist-bench's split), each part the
/// slowest rank's median in seconds: the local block's SpMV, the halo exchange alone (the
/// product overlaps it with the local rows), one sum over the ranks (an iteration makes
/// sums_per_iteration of them) and one application of the preconditioner on the rank's block.
struct IterationParts {
  double local_spmv = 0.0;
  double halo = 0.0;
  double sum = 0.0;
  int sums_per_iteration = 2;
  double preconditioner = 0.0;
  bool from_graphs = false;  ///< each part replayed from a CUDA graph, as the CG runs it (else launched and synchronised)
  /// GAMG: one V-cycle from level l down, for each level l (l = 0: the whole cycle; the last: the
  /// coarsest level's solve, gathered across ranks); a level's own share is its entry less the
  /// next one's. Empty for the other preconditioners.
  std::vector<double> preconditioner_from_level;
};

/// A solve timed as fvmmini-dist-bench reports it: the fastest of several, each the slowest rank's.
struct SolveTiming {
  SolverPerformance performance;  ///< the last solve's
  double seconds = 0.0;
};



/// The OpenFOAM-style line: "CG[csr]: Solving for p, Initial residual = 1, Final residual = 9.2e-07, No Iterations 41".
std::string format_solve_line(const SolverPerformance& performance);

}  // namespace fvmmini
