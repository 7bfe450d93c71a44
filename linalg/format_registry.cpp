#include "linalg/format_registry.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "kernels/reference/coo_spmv.hpp"
#include "kernels/reference/csr_spmv.hpp"
#include "kernels/reference/ell_spmv.hpp"
#include "kernels/reference/sell_spmv.hpp"
#include "kernels/reference/staircase_spmv.hpp"
#include "kernels/reference/symmetric_spmv.hpp"
#include "kernels/reference/vector_ops.hpp"
#include "linalg/ordering/orderings.hpp"

namespace fvmmini {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

HostFormat build_csr_entry(CsrMatrix csr, const FormatParameters&) { return build_csr_format(std::move(csr)); }
HostFormat build_sell_entry(CsrMatrix csr, const FormatParameters& p) {
  return build_sell(csr, p.chunk_size, p.sort_window);
}
// cuSPARSE's sliced ELL has no row permutation: C from the case, no sorting (sigma = 1).
HostFormat build_sell_cusparse_entry(CsrMatrix csr, const FormatParameters& p) { return build_sell(csr, p.chunk_size, 1); }

// The CSR value slot -> format value slot map; csr and coo keep CSR order (identity, not stored).
const std::vector<std::int64_t>* value_slot_of(const HostFormat& f) {
  return std::visit(
      [](const auto& m) -> const std::vector<std::int64_t>* {
        if constexpr (requires { m.value_slot; })
          return &m.value_slot;
        else
          return nullptr;
      },
      f);
}

std::vector<double>& values_of(HostFormat& f) {
  return std::visit(
      [](auto& m) -> std::vector<double>& {
        if constexpr (requires { m.matrix; })
          return m.matrix.values;
        else
          return m.values;
      },
      f);
}

std::string parameter_text(const std::string& name, const FormatParameters& p) {
  if (name == "sell") return fmt::format(" (C {}, sigma {})", p.chunk_size, p.sort_window);
  if (name == "sell-cusparse") return fmt::format(" (C {}, sigma 1)", p.chunk_size);
  if (name == "staircase") {
    const bool shown = p.staircase_launch != FormatParameters{}.staircase_launch;  // the default is not shown
    return fmt::format(" (sh {}, alpha {:g}{})", p.slice_height, p.alpha,
                       shown ? ", launch " + staircase_launch_name(p.staircase_launch) : "");
  }
  return "";
}

// The reference operator: one format struct, its kernel, and the diagonal in its numbering.
class FormatOperator final : public ReferenceOperator {
 public:
  FormatOperator(const LduMatrix& m, PreparedFormat prepared) : prepared_(std::move(prepared)) {
    diag_.resize(m.n_rows());
    permute_to_new(prepared_.permutation, m.diag, diag_);
  }
  label n_rows() const override { return static_cast<label>(diag_.size()); }
  void multiply(std::span<const double> x, std::span<double> y) const override {
    std::visit(
        [&](const auto& m) {
          using T = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<T, CsrFormat>)
            reference::csr_spmv(m.matrix, x, y);
          else if constexpr (std::is_same_v<T, CooMatrix>)
            reference::coo_spmv(m, x, y);
          else if constexpr (std::is_same_v<T, EllMatrix>)
            reference::ell_spmv(m, x, y);
          else if constexpr (std::is_same_v<T, SellMatrix>)
            reference::sell_spmv(m, x, y);
          else if constexpr (std::is_same_v<T, StaircaseMatrix>)
            reference::staircase_spmv(m, x, y);
          else
            reference::symmetric_spmv(m, x, y);
        },
        prepared_.format);
  }
  double multiply_dot(std::span<const double> x, std::span<double> y) const override {
    if (const auto* m = std::get_if<SymmetricMatrix>(&prepared_.format)) return reference::symmetric_spmv(*m, x, y);
    multiply(x, y);
    return reference::dot(x, y);
  }
  bool has_cg_sweep() const override { return std::holds_alternative<SymmetricMatrix>(prepared_.format); }
  reference::CgSweepSums cg_sweep(double alpha, double beta, std::span<double> x, std::span<double> r,
                                  std::span<double> p, std::span<double> q, bool jacobi) const override {
    if (const auto* m = std::get_if<SymmetricMatrix>(&prepared_.format))
      return reference::symmetric_cg_sweep(*m, alpha, beta, x, r, p, q, jacobi);
    return HostOperator::cg_sweep(alpha, beta, x, r, p, q, jacobi);
  }
  std::span<const double> diagonal() const override { return diag_; }
  void refresh_values(const LduMatrix& m) override {
    refresh_format_values(m, prepared_);
    permute_to_new(prepared_.permutation, m.diag, diag_);
  }
  std::string format_name() const override { return prepared_.format_name; }
  const PreparedFormat& prepared() const override { return prepared_; }

 private:
  PreparedFormat prepared_;
  std::vector<double> diag_;
};

}  // namespace

double HostOperator::multiply_dot(std::span<const double> x, std::span<double> y) const {
  multiply(x, y);
  return reference::dot(x, y);
}

reference::CgSweepSums HostOperator::cg_sweep(double, double, std::span<double>, std::span<double>, std::span<double>,
                                              std::span<double>, bool) const {
  throw std::logic_error(fmt::format("format '{}' has no fused CG sweep", format_name()));
}

const std::vector<FormatEntry>& format_table() {
  static const std::vector<FormatEntry> table{
      {"csr", "compressed sparse row (vector CSR on the GPU)", true, false, build_csr_entry},
      {"csr-cusparse", "cuSPARSE SpMV on the CSR arrays (cuda only)", false, false, build_csr_entry},
      {"coo", "coordinate triples in row order", true, false,
       [](CsrMatrix csr, const FormatParameters&) -> HostFormat { return build_coo(csr); }},
      {"ell", "ELLPACK, column-major, padded to the longest row", true, false,
       [](CsrMatrix csr, const FormatParameters&) -> HostFormat { return build_ell(csr); }},
      {"sell", "SELL-C-sigma: chunks of C rows, rows sorted by length within windows of sigma", true, false,
       build_sell_entry},
      {"sell-cusparse", "cuSPARSE SpMV on sliced ELL, rows unsorted (cuda only)", false, false,
       build_sell_cusparse_entry},
      {"staircase", "Staircase SELL: groups by row length, slices of sh rows, small groups merged by alpha", true,
       true,
       [](CsrMatrix csr, const FormatParameters& p) -> HostFormat {
         return build_staircase(csr, p.slice_height, p.alpha);
       }},
      {"symmetric", "diagonal + upper triangle in CSR, each off-diagonal pair once (reference only)", true, false,
       [](CsrMatrix csr, const FormatParameters&) -> HostFormat { return build_symmetric(csr); }},
  };
  return table;
}

const FormatEntry& find_format(const std::string& name) {
  for (const auto& e : format_table())
    if (e.name == name) return e;
  std::string known;
  for (const auto& e : format_table()) known += (known.empty() ? "" : ", ") + e.name;
  throw std::invalid_argument(fmt::format("unknown format '{}' (known: {})", name, known));
}

FormatParameters resolve_format_parameters(const std::string& format, FormatParameters parameters, label n_rows) {
  // --- alpha "auto": the thesis's 0.01, raised to sh/n on matrices too small for it
  if (format == "staircase" && parameters.alpha <= 0.0)
    parameters.alpha =
        std::min(1.0, std::max(0.01, static_cast<double>(parameters.slice_height) / std::max<label>(1, n_rows)));
  return parameters;
}

Permutation format_ordering(const std::string& format, const std::string& ordering, const LduAddressing& addressing,
                            std::uint64_t seed) {
  // --- the staircase ordering is Cuthill-McKee and then the grouping the format does anyway
  if (ordering == "staircase" && find_format(format).groups_rows)
    return cuthill_mckee(addressing, CmStart::min_degree);
  return make_ordering(ordering, addressing, seed);
}

PreparedFormat prepare_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                              const FormatParameters& parameters, std::uint64_t seed) {
  // --- fail on an unknown format or bad Staircase parameters before the (expensive) ordering
  find_format(format);
  if (format == "staircase") {
    const FormatParameters p = resolve_format_parameters(format, parameters, matrix.n_rows());
    validate_staircase_parameters(matrix.n_rows(), p.slice_height, p.alpha);
  }
  const auto t0 = std::chrono::steady_clock::now();
  Permutation base = format_ordering(format, ordering, *matrix.addressing, seed);
  return prepare_ordered_format(matrix, format, ordering, parameters, std::move(base), seconds_since(t0));
}

PreparedFormat prepare_ordered_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                                      const FormatParameters& parameters, Permutation base, double ordering_seconds) {
  const FormatEntry& entry = find_format(format);
  PreparedFormat p;
  p.format_name = format;
  p.ordering_name = ordering;
  p.parameters = resolve_format_parameters(format, parameters, matrix.n_rows());
  if (format == "staircase")
    validate_staircase_parameters(matrix.n_rows(), p.parameters.slice_height, p.parameters.alpha);

  // --- sigma = ordering, then (staircase) stable grouping by row length
  auto t0 = std::chrono::steady_clock::now();
  std::vector<label> position_before_grouping;  // per row of the final numbering
  if (entry.groups_rows) {
    p.permutation = group_by_row_length(*matrix.addressing, base);
    position_before_grouping.resize(p.permutation.size());
    for (label i = 0; i < p.permutation.size(); ++i)
      position_before_grouping[i] = base.old_to_new[p.permutation.new_to_old[i]];
  } else {
    p.permutation = std::move(base);
  }
  p.ordering_seconds = ordering_seconds + seconds_since(t0);

  // --- P A P^T in CSR with the mesh-order slot map
  t0 = std::chrono::steady_clock::now();
  CsrMatrix csr = permuted_csr(matrix, p.permutation, &p.csr_map);
  p.csr_seconds = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  p.format = entry.build(std::move(csr), p.parameters);
  if (auto* staircase = std::get_if<StaircaseMatrix>(&p.format))
    staircase->slice_position = staircase_slice_positions(*staircase, position_before_grouping);
  compose_value_map(p);
  p.build_seconds = seconds_since(t0);
  return p;
}

void compose_value_map(PreparedFormat& p) {
  const std::vector<std::int64_t>* slot = value_slot_of(p.format);
  if (!slot) {
    p.value_map = std::move(p.csr_map);
    p.csr_map = LduToCsrMap{};
    return;
  }
  // --- value_map = value_slot o csr_map
  const std::int64_t* s = slot->data();
  auto compose = [s](std::vector<std::int64_t>& slots) {
    const auto count = static_cast<std::int64_t>(slots.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < count; ++k) slots[k] = s[slots[k]];
  };
  p.value_map = std::move(p.csr_map);
  p.csr_map = LduToCsrMap{};
  compose(p.value_map.diag_slot);
  compose(p.value_map.upper_slot);
  compose(p.value_map.lower_slot);
}

std::span<const double> format_values(const HostFormat& format) {
  return std::visit(
      [](const auto& m) -> std::span<const double> {
        if constexpr (requires { m.matrix; })
          return m.matrix.values;
        else
          return m.values;
      },
      format);
}

void refresh_format_values(const LduMatrix& m, PreparedFormat& p) {
  std::vector<double>& values = values_of(p.format);
  if (p.value_map.diag_slot.size() == static_cast<size_t>(m.n_rows())) {
    refresh_csr_values(m, p.value_map, values);
    return;
  }
  const std::vector<std::int64_t>* slot = value_slot_of(p.format);
  if (!slot) {
    refresh_csr_values(m, p.csr_map, values);
    return;
  }
  // --- values[slot[csr_slot]] = coefficient, for the diagonal and both sides of each face
  const auto& map = p.csr_map;
  const std::int64_t* s = slot->data();
  const label n = m.n_rows();
  const label n_faces = static_cast<label>(m.upper.size());
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) values[s[map.diag_slot[i]]] = m.diag[i];
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    values[s[map.upper_slot[f]]] = m.upper[f];
    values[s[map.lower_slot[f]]] = m.upper[f];
  }
}

FormatFigures format_figures(const HostFormat& format) {
  return std::visit(
      [](const auto& m) {
        return FormatFigures{m.nnz(), m.stored_entries(), m.padding_ratio(), m.footprint_bytes()};
      },
      format);
}

std::string describe(const PreparedFormat& p) {
  const FormatFigures f = format_figures(p.format);
  return fmt::format("{}{}, ordering {}: padding {:.3f}, {:.1f} MB, setup {:.1f} ms (ordering {:.1f}, csr {:.1f}, build {:.1f})",
                     p.format_name, parameter_text(p.format_name, p.parameters), p.ordering_name, f.padding_ratio,
                     f.footprint_bytes / 1e6,
                     1e3 * (p.ordering_seconds + p.csr_seconds + p.build_seconds), 1e3 * p.ordering_seconds,
                     1e3 * p.csr_seconds, 1e3 * p.build_seconds);
}

std::unique_ptr<ReferenceOperator> make_reference_operator(const LduMatrix& matrix, PreparedFormat prepared) {
  if (!find_format(prepared.format_name).reference)
    throw std::invalid_argument(
        fmt::format("format '{}' has no reference kernel (it needs backend cuda)", prepared.format_name));
  return std::make_unique<FormatOperator>(matrix, std::move(prepared));
}

}  // namespace fvmmini
