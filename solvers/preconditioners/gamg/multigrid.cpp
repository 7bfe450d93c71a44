#include "solvers/preconditioners/gamg/multigrid.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "kernels/reference/vector_ops.hpp"
#include "linalg/block_vectors.hpp"
#include "linalg/timing.hpp"
#include "solvers/distributed/distributed_operator.hpp"
#include "solvers/preconditioners/gamg/dense_inverse.hpp"
#include "solvers/preconditioners/gamg/multigrid_ops.hpp"
#include "solvers/preconditioners/triangular/triangular_solve.hpp"

namespace fvmmini {

std::vector<double> inverse_diagonal(const LduMatrix& m, const Permutation& numbering) {
  std::vector<double> inv(m.n_rows());
  permute_to_new(numbering, m.diag, inv);
  for (double& d : inv) d = 1.0 / d;
  return inv;
}

bool builds_on_device(const GamgSettings& g, bool across_ranks) {
  return g.agglomerator != Agglomerator::algebraic_pair && g.smoother == Smoother::jacobi && !across_ranks;
}

label cells_to_gather(const GamgSettings& g, bool cuda) {
  if (g.n_cells_to_gather >= 0) return g.n_cells_to_gather;
  return cuda ? cuda_cells_to_gather : reference_cells_to_gather;
}

PreparedFormat prepare_level(const LduMatrix& m, const SolverSettings& s, const std::string& fallback_format,
                             const PreparedFormat* model) {
  try {
    return prepare_format(m, s.format, s.ordering, s.format_parameters, 1, {}, model);
  } catch (const std::invalid_argument&) {
    if (s.format == fallback_format) throw;
    return prepare_format(m, fallback_format, s.ordering, s.format_parameters, 1, {}, model);
  }
}

SolverSettings gathered_settings(const SolverSettings& settings) {
  SolverSettings s = settings;
  s.gamg.n_vcycles = 1;
  return s;
}

WholeCoarsest coarsest_solve(const LduMatrix& coarsest, const GamgHierarchy& h) {
  static const std::vector<ProcessorInterface> no_interfaces;
  static const std::vector<std::vector<label>> no_rows;
  // the coarsest level's operator numbering: its LDU's below the finest, the solver's when the
  // hierarchy has one level
  const Permutation& numbering = h.numbering.back();
  const std::span<const label> new_to_old =
      numbering.is_identity() ? std::span<const label>() : std::span<const label>(numbering.new_to_old);
  if (!h.across_ranks())
    return whole_coarsest(coarsest, no_interfaces, no_rows, Communicator::serial(), new_to_old);
  return whole_coarsest(coarsest, h.interfaces(h.levels() - 1), h.coarsest_across, *h.comm, new_to_old);
}

std::string agglomeration_key(const GamgSettings& g) {
  return fmt::format("{}/{}/{}", g.agglomerator == Agglomerator::parallel_pair ? "parallelPair" : "algebraicPair",
                     g.merge_levels, g.n_cells_in_coarsest_level);
}

bool shares_agglomeration(const LduMatrix& fine, const GamgSettings& g, const GamgRanks& ranks,
                          const GamgHierarchy& model) {
  return !ranks.across() && !model.across_ranks() && fine.addressing &&
         model.fine_addressing.lock() == fine.addressing && model.agglomeration_key == agglomeration_key(g);
}

GamgHierarchy build_gamg_hierarchy(const LduMatrix& fine, const Permutation& op, const SolverSettings& s,
                                   const std::string& fallback_format, std::span<const label> sequence,
                                   GamgRanks ranks, const GamgHierarchy* model,
                                   std::span<const PreparedFormat* const> level_formats) {
  const GamgSettings& g = s.gamg;
  if (g.n_pre_sweeps != g.n_post_sweeps)
    throw std::invalid_argument(fmt::format(
        "GAMG: nPreSweeps ({}) and nPostSweeps ({}) must be equal: CG needs a symmetric V-cycle", g.n_pre_sweeps,
        g.n_post_sweeps));
  if (g.n_vcycles < 1) throw std::invalid_argument(fmt::format("GAMG: nVcycles {} (must be at least 1)", g.n_vcycles));
  if (g.smoother != Smoother::jacobi && g.smoother != Smoother::mcsgs)
    throw std::invalid_argument(
        fmt::format("GAMG: smoother {} is smoothSolver's (GAMG's: jacobi, mcsgs)", name(g.smoother)));
  GamgHierarchy h;
  PartTimer timer;
  h.fine_addressing = fine.addressing;
  h.agglomeration_key = agglomeration_key(g);
  h.shared = model && shares_agglomeration(fine, g, ranks, *model);
  const bool parallel = g.agglomerator == Agglomerator::parallel_pair;
  h.agglomeration = h.shared ? shared_agglomeration(fine, model->agglomeration)
                             : agglomerate(fine, g.n_cells_in_coarsest_level, g.merge_levels, parallel);
  timer.mark(h.shared ? "shared agglomeration" : "agglomeration");
  label gathered_at = 0;
  if (ranks.across()) {
    // --- as many levels on every rank, each with its interfaces, down to the gathered one
    h.comm = ranks.comm;
    pad_levels(fine, static_cast<label>(h.comm->max(static_cast<long long>(h.levels()))), h.agglomeration);
    std::vector<label> rows{fine.n_rows()};
    for (const LduMatrix& m : h.agglomeration.coarse) rows.push_back(m.n_rows());
    gathered_at = gathering_level(rows, ranks.cells_to_gather, *h.comm);
    if (gathered_at > 0) truncate_levels(gathered_at + 1, h.agglomeration);
    h.fine_interfaces = *ranks.interfaces;
    for (label l = 0; l + 1 < h.levels(); ++l)
      h.interface_transfers.push_back(
          agglomerate_interfaces(h.interfaces(l), h.agglomeration.agglomerations[l]->coarse_of, *h.comm));
    h.coarsest_across =
        h.levels() == 1 ? rows_across(h.fine_interfaces, *h.comm) : h.interface_transfers.back().rows_across;
    timer.mark("interfaces");
  }
  const label levels = h.levels();
  h.numbering.push_back(op);
  h.sequence.emplace_back(sequence.begin(), sequence.end());
  h.grid.push_back({fine.n_rows(), fine.addressing->nnz(), s.format});
  for (label l = 1; l < levels; ++l) {
    const LduMatrix& m = h.matrix(l, fine);
    if (l == levels - 1) {
      h.numbering.push_back(Permutation::identity(m.n_rows()));
      h.grid.push_back({m.n_rows(), m.addressing->nnz(), gathered_at > 0 ? "gathered" : "dense"});
      break;
    }
    const auto k = static_cast<std::size_t>(l - 1);
    PreparedFormat p = prepare_level(m, s, fallback_format,
                                     h.shared && k < level_formats.size() ? level_formats[k] : nullptr);
    h.numbering.push_back(p.permutation);
    h.sequence.push_back(p.position_before_grouping);
    h.grid.push_back({m.n_rows(), p.format.figures().nnz, p.format_name});
    h.prepared.push_back(std::move(p));
  }
  timer.mark("formats");
  std::vector<bool> numbered_as_model(static_cast<std::size_t>(levels));  // each level compared once
  for (label l = 0; l < levels; ++l)
    numbered_as_model[l] = h.shared && static_cast<std::size_t>(l) < model->numbering.size() &&
                           model->numbering[l].new_to_old == h.numbering[l].new_to_old;
  for (label l = 0; l + 1 < levels; ++l)
    h.transfers.push_back(
        numbered_as_model[l] && numbered_as_model[l + 1] && static_cast<std::size_t>(l) < model->transfers.size()
            ? model->transfers[l]
            : std::make_shared<const Transfer>(make_transfer(*h.agglomeration.agglomerations[l], h.numbering[l],
                                                             h.numbering[l + 1])));
  timer.mark("transfers");
  if (gathered_at > 0) {
    if (!ranks.global_rows.empty())  // its leading rows' places in the whole mesh: one rank's numbering
      for (label row : h.agglomeration.agglomerations.back()->leading_row)
        h.gathered_keys.push_back(ranks.global_rows[row]);
    h.gathered = gather_level(h.matrix(levels - 1, fine), h.interfaces(levels - 1), h.coarsest_across, *h.comm,
                              h.gathered_keys);
  } else {
    h.coarsest = coarsest_solve(h.matrix(levels - 1, fine), h);
  }
  timer.mark("coarsest");
  h.setup_parts = timer.parts();
  return h;
}

void refresh_gamg_hierarchy(const LduMatrix& fine, GamgHierarchy& h,
                            const std::vector<ProcessorInterface>* interfaces) {
  refresh_coarse_values(fine, h.agglomeration);
  if (h.across_ranks()) {
    if (interfaces) h.fine_interfaces = *interfaces;
    for (label l = 0; l + 1 < h.levels(); ++l) coarse_interface_values(h.interfaces(l), h.interface_transfers[l]);
  }
  const label last = h.levels() - 1;
  if (h.gathered)
    h.gathered = gather_level(h.matrix(last, fine), h.interfaces(last), h.coarsest_across, *h.comm, h.gathered_keys);
  else
    h.coarsest = coarsest_solve(h.matrix(last, fine), h);
}

// --- the reference backend's V-cycle

struct HostGamg::Level {
  label n = 0;                            ///< rows
  std::unique_ptr<ReferenceOperator> op;  ///< levels 1 .. coarsest - 1
  std::unique_ptr<DistributedOperator> across;  ///< op coupled to the other ranks (levels 1 .. coarsest - 1)
  std::optional<TriangularFactor> sgs;    ///< smoother mcsgs
  std::vector<double> inv_diag;           ///< smoother jacobi, the operator's numbering
  std::vector<double> x, b;               ///< levels >= 1: the cycle's solution and right-hand side (k_ vectors)
  std::vector<double> ax;                 ///< A x (k_ vectors); mcsgs's forward sums t before it
  std::vector<double> z;                  ///< across ranks, mcsgs's correction
};

struct HostGamg::Gathered {
  std::unique_ptr<ReferenceOperator> op;  ///< the whole gathered level, in its format and ordering
  std::unique_ptr<HostGamg> gamg;         ///< its GAMG, as on one rank
  std::vector<label> padded_rows;         ///< op row -> its place among the gathered right-hand sides
  std::vector<label> own_rows;            ///< this rank's row -> op row
  std::vector<double> b, x;
};

std::vector<PreconditionerInfo::GridLevel> with_whole_levels(std::vector<PreconditionerInfo::GridLevel> levels,
                                                             const std::vector<PreconditionerInfo::GridLevel>& whole) {
  levels.pop_back();
  for (PreconditionerInfo::GridLevel level : whole) {
    level.format += " (whole, every rank)";
    levels.push_back(std::move(level));
  }
  return levels;
}

HostGamg::HostGamg(const LduMatrix& fine, const Permutation& op, const SolverSettings& s,
                   std::span<const label> sequence, GamgRanks ranks, const HostGamg* model)
    : settings_(s.gamg), hierarchy_([&] {
        ranks.cells_to_gather = cells_to_gather(s.gamg, false);
        std::vector<const PreparedFormat*> model_formats;  // the model's levels, now its operators'
        if (model)
          for (std::size_t l = 1; l < model->levels_.size(); ++l)
            model_formats.push_back(model->levels_[l].op ? &model->levels_[l].op->prepared() : nullptr);
        return build_gamg_hierarchy(fine, op, s, auto_format("reference"), sequence, ranks,
                                    model ? &model->hierarchy() : nullptr, model_formats);
      }()) {
  PartTimer timer;  // from the hierarchy's end
  const label levels = hierarchy_.levels();
  levels_.resize(levels);
  for (label l = 0; l < levels; ++l) {
    Level& v = levels_[l];
    const LduMatrix& m = hierarchy_.matrix(l, fine);
    const label n = m.n_rows();
    v.n = n;
    if (l > 0) {
      v.x.resize(n);
      v.b.resize(n);
    }
    if (l == levels - 1) break;
    if (l > 0) {
      v.op = make_reference_operator(m, std::move(hierarchy_.prepared[l - 1]));
      if (hierarchy_.across_ranks())
        v.across = std::make_unique<DistributedOperator>(*v.op, hierarchy_.numbering[l].old_to_new,
                                                         hierarchy_.interfaces(l), *hierarchy_.comm);
    }
    v.ax.resize(n);
    if (settings_.smoother == Smoother::mcsgs) {
      v.sgs = build_triangular_factor(m, hierarchy_.numbering[l], multicolour_gauss_seidel, hierarchy_.sequence[l]);
      hierarchy_.grid[l].colours = v.sgs->colours;
      if (hierarchy_.across_ranks()) v.z.resize(n);
    }
  }
  hierarchy_.prepared.clear();  // moved into the operators
  refresh_diagonals(fine);
  timer.mark("levels");
  if (hierarchy_.gathered) {
    // --- the gathered level whole, and its GAMG as on one rank
    const GatheredLevel& g = *hierarchy_.gathered;
    const SolverSettings whole = gathered_settings(s);
    whole_ = std::make_unique<Gathered>();
    Gathered& w = *whole_;
    w.op = make_reference_operator(g.whole, prepare_level(g.whole, whole, auto_format("reference")));
    const PreparedFormat& p = w.op->prepared();
    w.gamg = std::make_unique<HostGamg>(g.whole, p.permutation, whole, p.position_before_grouping);
    w.padded_rows = g.padded_rows(p.permutation);
    w.own_rows = g.own_rows(p.permutation);
    w.b.resize(static_cast<std::size_t>(g.whole.n_rows()));
    w.x.resize(w.b.size());
    hierarchy_.grid = with_whole_levels(hierarchy_.grid, w.gamg->hierarchy().grid);
    timer.mark("gathered");
  }
  setup_parts_ = hierarchy_.setup_parts;
  setup_parts_.insert(setup_parts_.end(), timer.parts().begin(), timer.parts().end());
}

HostGamg::~HostGamg() = default;

void HostGamg::refresh_diagonals(const LduMatrix& fine) {
  if (settings_.smoother != Smoother::jacobi) return;
  for (label l = 0; l + 1 < hierarchy_.levels(); ++l)
    levels_[l].inv_diag = inverse_diagonal(hierarchy_.matrix(l, fine), hierarchy_.numbering[l]);
}

void HostGamg::refresh(const LduMatrix& fine, const std::vector<ProcessorInterface>* interfaces) {
  PartTimer timer;
  refresh_gamg_hierarchy(fine, hierarchy_, interfaces);
  timer.mark("coarse matrices");
  for (label l = 0; l + 1 < hierarchy_.levels(); ++l) {
    const LduMatrix& m = hierarchy_.matrix(l, fine);
    if (levels_[l].op) levels_[l].op->refresh_values(m);
    if (levels_[l].across) levels_[l].across->refresh_interfaces(hierarchy_.interfaces(l));
  }
  timer.mark("operators");
  for (label l = 0; l + 1 < hierarchy_.levels(); ++l)
    if (levels_[l].sgs) refresh_triangular_factor(hierarchy_.matrix(l, fine), *levels_[l].sgs);
  refresh_diagonals(fine);
  timer.mark("smoothers");
  if (whole_) {
    whole_->op->refresh_values(hierarchy_.gathered->whole);
    whole_->gamg->refresh(hierarchy_.gathered->whole);
    timer.mark("gathered");
  }
  refresh_parts_ = timer.parts();
}

void HostGamg::apply(const HostOperator& a, std::span<const double> r, std::span<double> z) { vcycles(a, 1, r, z); }

bool HostGamg::applies_block(const HostOperator& a, int k) const {
  if (k < 1 || k > max_block_vectors || settings_.smoother != Smoother::jacobi || hierarchy_.across_ranks() ||
      !a.has_multiply_block())
    return false;
  for (const Level& v : levels_)
    if (v.op && !v.op->has_multiply_block()) return false;
  return true;
}

void HostGamg::apply_block(const HostOperator& a, int k, std::span<const double> r, std::span<double> z) {
  if (!applies_block(a, k))
    throw std::logic_error("HostGamg::apply_block: not for " + std::to_string(k) + " vectors here");
  vcycles(a, k, r, z);
}

void HostGamg::vcycles(const HostOperator& a, int k, std::span<const double> r, std::span<double> z) {
  fine_op_ = &a;
  k_ = k;
  cycle(0, r, z);
  if (settings_.n_vcycles == 1) return;
  // --- each further V-cycle corrects from the residual: z += B (r - A z)
  residual_.resize(r.size());
  correction_.resize(r.size());
  for (int cycle_count = 1; cycle_count < settings_.n_vcycles; ++cycle_count) {
    multiply(0, z, residual_);
    reference::residual(r, residual_, residual_);
    cycle(0, residual_, correction_);
    reference::axpy(1.0, correction_, z);
  }
}

std::span<double> HostGamg::vectors(label l, std::vector<double>& v) {
  const auto size = static_cast<std::size_t>(levels_[l].n) * k_;
  if (v.size() < size) v.resize(size);
  return std::span<double>(v).first(size);
}

void HostGamg::multiply(label l, std::span<const double> x, std::span<double> y) const {
  if (k_ == 1)
    op(l).multiply(x, y);
  else
    op(l).multiply_block(k_, x, y);
}

void HostGamg::cycle_from(const HostOperator& a, label level, std::span<const double> r, std::span<double> z) {
  if (level < 0 || level >= hierarchy_.levels())
    throw std::out_of_range("HostGamg::cycle_from: no level " + std::to_string(level));
  fine_op_ = &a;
  k_ = 1;
  if (level == 0) return cycle(0, r, z);
  Level& v = levels_[level];
  cycle(level, vectors(level, v.b), vectors(level, v.x));
}

void HostGamg::cycle(label l, std::span<const double> b, std::span<double> x) {
  if (l == hierarchy_.levels() - 1) return solve_coarsest(b, x);
  Level& v = levels_[l];
  const std::span<double> ax = vectors(l, v.ax), coarse_b = vectors(l + 1, levels_[l + 1].b),
                          coarse_x = vectors(l + 1, levels_[l + 1].x);
  // --- pre-smooth from zero, restrict the residual (A x into ax), correct from the coarse
  // level, post-smooth
  const bool in_place = v.sgs && !hierarchy_.across_ranks();
  if (settings_.n_pre_sweeps == 0) {
    std::fill(x.begin(), x.end(), 0.0);
    std::fill(ax.begin(), ax.end(), 0.0);
  } else if (in_place) {
    // Gauss-Seidel in place: after a sweep A x costs the lower triangle alone
    reference::sgs_sweep(*v.sgs, b, x, ax, true);
    for (int sweep = 1; sweep < settings_.n_pre_sweeps; ++sweep) reference::sgs_sweep(*v.sgs, b, x, ax, false);
    reference::sgs_multiply(*v.sgs, ax, x, ax);
  } else {
    start(l, b, x);
    for (int sweep = 1; sweep < settings_.n_pre_sweeps; ++sweep) correct(l, b, x);
    multiply(l, x, ax);
  }
  reference::restrict_residual(*hierarchy_.transfers[l], b, ax, coarse_b, k_);
  cycle(l + 1, coarse_b, coarse_x);
  reference::prolong_add(*hierarchy_.transfers[l], settings_.correction_scale, coarse_x, x, k_);
  for (int sweep = 0; sweep < settings_.n_post_sweeps; ++sweep) {
    if (in_place)
      reference::sgs_sweep(*v.sgs, b, x, ax, false);
    else
      correct(l, b, x);
  }
}

const HostOperator& HostGamg::op(label l) const {
  if (l == 0) return *fine_op_;
  return levels_[l].across ? static_cast<const HostOperator&>(*levels_[l].across) : *levels_[l].op;
}

void HostGamg::start(label l, std::span<const double> b, std::span<double> x) {
  Level& v = levels_[l];
  if (v.sgs)
    reference::triangular_apply(*v.sgs, b, x);
  else
    reference::jacobi_start(jacobi_smoother_weight, v.inv_diag, b, x, k_);
}

void HostGamg::correct(label l, std::span<const double> b, std::span<double> x) {
  // --- x += M^-1 (b - A x), A x across the ranks
  Level& v = levels_[l];
  const std::span<double> ax = vectors(l, v.ax);
  multiply(l, x, ax);
  if (!v.sgs) return reference::jacobi_correct(jacobi_smoother_weight, v.inv_diag, b, ax, x, k_);
  reference::residual(b, ax, ax);
  reference::triangular_apply(*v.sgs, ax, v.z);
  reference::axpy(1.0, v.z, x);
}

void HostGamg::gather_coarsest(std::span<const double> b, label width) {
  padded_.assign(static_cast<std::size_t>(width), 0.0);
  std::copy(b.begin(), b.end(), padded_.begin());
  gathered_ = hierarchy_.comm->gather(std::span<const double>(padded_));
}

void HostGamg::solve_coarsest(std::span<const double> b, std::span<double> x) {
  if (whole_) {
    // --- every rank's right-hand side; the whole level's V-cycle; this rank's rows of it
    Gathered& w = *whole_;
    gather_coarsest(b, hierarchy_.gathered->width);
    for (std::size_t i = 0; i < w.b.size(); ++i) w.b[i] = gathered_[w.padded_rows[i]];
    w.gamg->apply(*w.op, w.b, w.x);
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = w.x[w.own_rows[j]];
    return;
  }
  const WholeCoarsest& c = hierarchy_.coarsest;
  if (c.ranks == 1) return reference::dense_multiply(c.inverse, b, x, k_);
  // --- every rank's right-hand side, then this rank's rows of the inverse
  gather_coarsest(b, c.width);
  reference::dense_multiply(c.inverse, gathered_, x);
}

}  // namespace fvmmini
