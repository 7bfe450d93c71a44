#include "linalg/linear_solver.hpp"

#include <fmt/format.h>

#include "kernels/reference/csr_spmv.hpp"
#include "linalg/csr_matrix.hpp"
#include "linalg/reference_cg.hpp"

namespace fvmmini {

namespace {

/// CSR in mesh order on the CPU.
class CsrHostOperator final : public HostOperator {
 public:
  explicit CsrHostOperator(const LduMatrix& m) : csr_(ldu_to_csr(m, &map_)), diag_(m.diag) {}
  label n_rows() const override { return csr_.n_rows; }
  void multiply(std::span<const double> x, std::span<double> y) const override { reference::csr_spmv(csr_, x, y); }
  std::span<const double> diagonal() const override { return diag_; }
  void refresh_values(const LduMatrix& m) override {
    refresh_csr_values(m, map_, csr_.values);
    diag_ = m.diag;
  }
  std::string format_name() const override { return "csr"; }

 private:
  LduToCsrMap map_;
  CsrMatrix csr_;
  std::vector<double> diag_;
};

class ReferenceSolver final : public LinearSolver {
 public:
  ReferenceSolver(const LduMatrix& m, const SolverSettings& s, std::string note)
      : settings_(s), op_(std::make_unique<CsrHostOperator>(m)), note_(std::move(note)) {}

  SolverPerformance solve(std::span<double> x, std::span<const double> b, const std::string& field) override {
    auto perf = reference_cg(*op_, x, b, settings_, work_);
    perf.field = field;
    return perf;
  }
  void update_coefficients(const LduMatrix& m) override { op_->refresh_values(m); }
  std::string describe() const override {
    return fmt::format("backend reference, format {}, ordering none, preconditioner {}{}", op_->format_name(),
                       settings_.preconditioner, note_);
  }

 private:
  SolverSettings settings_;
  std::unique_ptr<HostOperator> op_;
  CgWorkspace work_;
  std::string note_;
};

}  // namespace

std::unique_ptr<LinearSolver> make_linear_solver(const LduMatrix& matrix, const SolverSettings& s) {
  if (s.solver != "CG") throw std::invalid_argument(fmt::format("unknown solver '{}' (known: CG)", s.solver));
  if (s.preconditioner != "none" && s.preconditioner != "jacobi")
    throw std::invalid_argument(fmt::format("unknown preconditioner '{}' (known: none, jacobi)", s.preconditioner));
  if (s.backend == "cuda") throw std::invalid_argument("backend 'cuda': this build has no CUDA backend");
  if (s.backend != "reference" && s.backend != "auto")
    throw std::invalid_argument(fmt::format("unknown backend '{}' (known: reference, cuda, auto)", s.backend));
  if (s.format != "csr") throw std::invalid_argument(fmt::format("unknown format '{}' (known: csr)", s.format));
  if (s.ordering != "none") throw std::invalid_argument(fmt::format("unknown ordering '{}' (known: none)", s.ordering));
  const std::string note = s.backend == "auto" ? " (auto: no CUDA backend in this build)" : "";
  return std::make_unique<ReferenceSolver>(matrix, s, note);
}

}  // namespace fvmmini
