#include "linalg/solver_settings.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>


namespace fvmmini {

namespace {

template <class E>
E parse_name(const std::vector<std::string>& names, const std::string& text, const char* what) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<E>(i);
  throw std::invalid_argument(fmt::format("unknown {} '{}' (known: {})", what, text, fmt::join(names, ", ")));
}

}  // namespace

const std::vector<std::string>& triangular_solve_names() {
  static const std::vector<std::string> names{"levels", "cusparse"};
  return names;
}
const std::vector<std::string>& smoother_names() {
  static const std::vector<std::string> names{"jacobi", "mcsgs", "GaussSeidel", "symGaussSeidel"};
  return names;
}
const std::vector<std::string>& gamg_smoother_names() {
  static const std::vector<std::string> names{"jacobi", "mcsgs"};
  return names;
}
const std::vector<std::string>& smooth_solver_smoother_names() {
  static const std::vector<std::string> names{"GaussSeidel", "symGaussSeidel"};
  return names;
}
const std::vector<std::string>& agglomerator_names() {
  static const std::vector<std::string> names{"auto", "algebraicPair", "parallelPair"};
  return names;
}
const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names{"reference", "cuda", "auto"};
  return names;
}
const std::vector<std::string>& l2_window_names() {
  static const std::vector<std::string> names{"auto", "on", "off"};
  return names;
}
const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names{"double", "mixed"};
  return names;
}
const std::vector<std::string>& transport_names() {
  static const std::vector<std::string> names{"auto", "nccl", "mpi", "ipc"};
  return names;
}
const std::string& name(Backend backend) { return backend_names().at(static_cast<std::size_t>(backend)); }
const std::string& name(TriangularSolve solve) {
  return triangular_solve_names().at(static_cast<std::size_t>(solve));
}
const std::string& name(Smoother smoother) { return smoother_names().at(static_cast<std::size_t>(smoother)); }
Smoother parse_smoother(const std::string& text) { return parse_name<Smoother>(smoother_names(), text, "smoother"); }
const std::string& name(Agglomerator agglomerator) {
  return agglomerator_names().at(static_cast<std::size_t>(agglomerator));
}
Agglomerator parse_agglomerator(const std::string& text) {
  return parse_name<Agglomerator>(agglomerator_names(), text, "agglomerator");
}
TriangularSolve parse_triangular_solve(const std::string& text) {
  return parse_name<TriangularSolve>(triangular_solve_names(), text, "triangularSolve");
}
Backend parse_backend(const std::string& text) { return parse_name<Backend>(backend_names(), text, "backend"); }
const std::string& name(L2WindowSetting setting) { return l2_window_names().at(static_cast<std::size_t>(setting)); }
L2WindowSetting parse_l2_window(const std::string& text) {
  return parse_name<L2WindowSetting>(l2_window_names(), text, "l2Window");
}
const std::string& name(Precision precision) { return precision_names().at(static_cast<std::size_t>(precision)); }
Precision parse_precision(const std::string& text) { return parse_name<Precision>(precision_names(), text, "precision"); }
const std::string& name(Transport transport) { return transport_names().at(static_cast<std::size_t>(transport)); }
Transport parse_transport(const std::string& text) { return parse_name<Transport>(transport_names(), text, "transport"); }

std::vector<std::pair<label, label>> level_size_histogram(const std::vector<label>& level_sizes) {
  std::vector<std::pair<label, label>> buckets;  // by ascending 2^k
  for (label size : level_sizes) {
    label bucket = 1;
    while (bucket <= size / 2) bucket *= 2;
    auto at = std::lower_bound(buckets.begin(), buckets.end(), std::pair<label, label>{bucket, 0});
    if (at == buckets.end() || at->first != bucket) at = buckets.insert(at, {bucket, 0});
    ++at->second;
  }
  return buckets;
}

double PreconditionerInfo::operator_complexity() const {
  if (grid_levels.empty()) return 1.0;
  double nnz = 0.0;
  for (const GridLevel& level : grid_levels) nnz += static_cast<double>(level.nnz);
  return nnz / static_cast<double>(grid_levels.front().nnz);
}

std::string format_solve_line(const SolverPerformance& p) {
  return fmt::format("{}: Solving for {}, Initial residual = {:.6g}, Final residual = {:.6g}, No Iterations {}",
                     p.solver_name, p.field, p.initial_residual, p.final_residual, p.iterations);
}

}  // namespace fvmmini
