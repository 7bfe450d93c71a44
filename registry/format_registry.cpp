#include "registry/format_registry.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernels/reference/vector_ops.hpp"
#include "linalg/ordering/matrix_statistics.hpp"
#include "linalg/ordering/orderings.hpp"
#include "linalg/timing.hpp"

namespace fvmmini {

// The units listed in registry/CMakeLists.txt (FVMMINI_FORMAT_UNITS): declarations of
// format_unit_<file>() and listed_format_units().
#include "format_units.inc"

namespace {

bool same_spec(const ParameterSpec& a, const ParameterSpec& b) {
  return a.type == b.type && a.default_value == b.default_value && a.words == b.words && a.min == b.min &&
         a.max == b.max && a.min_inclusive == b.min_inclusive && a.max_inclusive == b.max_inclusive &&
         a.multiple_of == b.multiple_of && a.tune_values == b.tune_values;
}

/// The table, checked once: names unique, a key shared by two units declared alike, defaults valid.
std::vector<FormatUnit> checked_table() {
  std::vector<FormatUnit> table;
  for (const FormatUnit* unit : listed_format_units()) table.push_back(*unit);
  std::map<std::string, const ParameterSpec*> keys;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const FormatUnit& unit = table[i];
    if (!unit.build) throw std::logic_error(fmt::format("format unit '{}' has no builder", unit.name));
    for (std::size_t j = 0; j < i; ++j)
      if (table[j].name == unit.name) throw std::logic_error(fmt::format("two format units named '{}'", unit.name));
    for (const ParameterSpec& spec : unit.parameters) {
      parse_parameter(spec, spec.default_value);
      for (const auto& value : spec.test_values) parse_parameter(spec, value);
      if (!spec.tune_values.empty()) {
        if (std::find(spec.words.begin(), spec.words.end(), "auto") == spec.words.end() ||
            spec.tunes(parse_parameter(spec, spec.default_value)))
          throw std::logic_error(fmt::format("format parameter '{}' is tuned: auto must be a word, not the default",
                                             spec.key));
        for (const auto& value : spec.tune_values)
          if (!std::holds_alternative<double>(parse_parameter(spec, value)))
            throw std::logic_error(fmt::format("format parameter '{}': tune value '{}' is not a number", spec.key, value));
      }
      const auto [it, fresh] = keys.emplace(spec.key, &spec);
      if (!fresh && !same_spec(*it->second, spec))
        throw std::logic_error(fmt::format("format parameter '{}' is declared twice, differently", spec.key));
    }
  }
  return table;
}

/// The rows' length histogram a unit's grouping reads (empty for a unit that groups none).
std::vector<label> grouping_input(const FormatUnit& unit, const LduAddressing& addressing) {
  return unit.row_grouping ? row_length_stats(addressing).histogram : std::vector<label>{};
}

RowGrouping grouping_of(const FormatUnit& unit, const FormatParameters& parameters, std::span<const label> row_lengths) {
  return unit.row_grouping ? unit.row_grouping(parameters, row_lengths) : RowGrouping::none;
}

// The reference operator: one format struct, its unit's kernel, and the diagonal in its numbering.
class FormatOperator final : public ReferenceOperator {
 public:
  FormatOperator(const LduMatrix& m, PreparedFormat prepared)
      : prepared_(std::move(prepared)), unit_(find_format(prepared_.format_name)) {
    if (prepared_.arrays_on_device)
      throw std::logic_error("format " + prepared_.format_name + ": a shape whose arrays are on the device");
    diag_.resize(m.n_rows());
    permute_to_new(prepared_.permutation, m.diag, diag_);
  }
  label n_rows() const override { return static_cast<label>(diag_.size()); }
  void multiply(std::span<const double> x, std::span<double> y) const override {
    unit_.multiply(prepared_.format, x, y);
  }
  double multiply_dot(std::span<const double> x, std::span<double> y) const override {
    if (unit_.multiply_dot) return unit_.multiply_dot(prepared_.format, x, y);
    multiply(x, y);
    return reference::dot(x, y);
  }
  bool has_multiply_block() const override { return static_cast<bool>(unit_.multiply_block); }
  void multiply_block(int k, std::span<const double> x, std::span<double> y) const override {
    if (!unit_.multiply_block) return HostOperator::multiply_block(k, x, y);  // throws: it has none
    unit_.multiply_block(prepared_.format, k, x, y);
  }
  bool has_cg_sweep() const override { return static_cast<bool>(unit_.cg_sweep); }
  reference::CgSweepSums cg_sweep(double alpha, double beta, std::span<double> x, std::span<double> r,
                                  std::span<double> p, std::span<double> q, bool jacobi) const override {
    if (unit_.cg_sweep) return unit_.cg_sweep(prepared_.format, alpha, beta, x, r, p, q, jacobi);
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
  const FormatUnit& unit_;
  std::vector<double> diag_;
};

}  // namespace

double HostOperator::multiply_dot(std::span<const double> x, std::span<double> y) const {
  multiply(x, y);
  return reference::dot(x, y);
}

void HostOperator::multiply_block(int, std::span<const double>, std::span<double>) const {
  throw std::logic_error(fmt::format("format '{}' has no multi-vector SpMV", format_name()));
}

reference::CgSweepSums HostOperator::cg_sweep(double, double, std::span<double>, std::span<double>, std::span<double>,
                                              std::span<double>, bool) const {
  throw std::logic_error(fmt::format("format '{}' has no fused CG sweep", format_name()));
}

const std::vector<FormatUnit>& format_table() {
  static const std::vector<FormatUnit> table = checked_table();
  return table;
}

const FormatUnit& find_format(const std::string& name) {
  for (const auto& unit : format_table())
    if (unit.name == name) return unit;
  throw std::invalid_argument(fmt::format("unknown format '{}' (known: {})", name, fmt::join(format_names(), ", ")));
}

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const auto& unit : format_table()) names.push_back(unit.name);
  return names;
}

FormatParameters default_format_parameters() {
  static const FormatParameters defaults = [] {
    FormatParameters p;
    for (const auto& unit : format_table())
      for (const auto& spec : unit.parameters) p.set(spec.key, parse_parameter(spec, spec.default_value));
    return p;
  }();
  return defaults;
}

std::vector<ParameterReaders> format_parameter_keys() {
  std::vector<ParameterReaders> keys;
  for (const auto& unit : format_table())
    for (const auto& spec : unit.parameters) {
      auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.spec->key == spec.key; });
      if (it == keys.end()) it = keys.insert(keys.end(), {&spec, {}});
      it->formats.push_back(unit.name);
    }
  return keys;
}

std::vector<FormatParameters> parameter_combinations(
    const FormatUnit& unit, const std::function<std::vector<std::string>(const ParameterSpec&)>& values) {
  std::vector<FormatParameters> combinations{FormatParameters{}};
  for (const auto& spec : unit.parameters) {
    std::vector<std::string> texts = values(spec);
    if (texts.empty()) texts.push_back(spec.default_value);
    std::vector<FormatParameters> next;
    for (const auto& text : texts) {
      const ParameterValue value = parse_parameter(spec, text);
      for (FormatParameters p : combinations) {
        p.set(spec.key, value);
        next.push_back(std::move(p));
      }
    }
    combinations = std::move(next);
  }
  return combinations;
}

const std::string& auto_format(const std::string& backend) {
  for (const auto& unit : format_table())
    for (const auto& b : unit.auto_on)
      if (b == backend) return unit.name;
  throw std::invalid_argument(fmt::format("no format is the auto choice of backend '{}'", backend));
}

std::string format_parameter_text(const FormatUnit& unit, const FormatParameters& parameters, bool only_non_default) {
  const FormatParameters defaults = default_format_parameters();
  std::string text;
  for (const auto& spec : unit.parameters) {
    if (!parameters.has(spec.key)) continue;
    if (only_non_default && defaults.text(spec.key) == parameters.text(spec.key)) continue;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", spec.key, parameters.text(spec.key));
  }
  return text;
}

FormatParameters resolve_format_parameters(const std::string& format, FormatParameters parameters, label n_rows) {
  const FormatUnit& unit = find_format(format);
  // --- a key not given takes its default, so that a caller may set only what it changes
  const FormatParameters defaults = default_format_parameters();
  for (const auto& spec : unit.parameters) {
    if (!parameters.has(spec.key) || spec.tunes(parameters.values().at(spec.key)))
      parameters.set(spec.key, defaults.values().at(spec.key));
    check_parameter(spec, parameters.values().at(spec.key));
  }
  if (unit.resolve) parameters = unit.resolve(std::move(parameters), n_rows);
  if (unit.check) unit.check(parameters, n_rows);
  return parameters;
}

std::uint64_t estimated_format_bytes(const std::string& format, FormatParameters given, label n_rows,
                                     std::int64_t nnz) {
  const FormatUnit& unit = find_format(format);
  for (const auto& spec : unit.parameters) {
    if (!given.has(spec.key) || !spec.tunes(given.values().at(spec.key))) continue;
    // --- auto: set-up may keep any value it times, the largest included
    std::optional<ParameterValue> largest;
    for (const auto& text : spec.tune_values) {
      const ParameterValue value = parse_parameter(spec, text);
      if (std::holds_alternative<double>(value) &&
          (!largest || std::get<double>(value) > std::get<double>(*largest)))
        largest = value;
    }
    if (largest) given.set(spec.key, *largest);
  }
  const FormatParameters resolved = resolve_format_parameters(format, std::move(given), n_rows);
  return unit.storage_bytes ? unit.storage_bytes(resolved, n_rows, nnz) : csr_storage_bytes(n_rows, nnz);
}

FormatParameters mixed_precision_parameters(const std::string& format, const FormatParameters& given,
                                            const LduAddressing& addressing) {
  const FormatUnit& unit = find_format(format);
  if (!unit.narrow_keys) return given;
  return unit.narrow_keys(given, row_length_stats(addressing).histogram);
}

Permutation format_ordering(const std::string& format, const FormatParameters& parameters, const std::string& ordering,
                            const LduAddressing& addressing, std::uint64_t seed) {
  // --- an ordering whose second stage is a grouping by length (staircase) leaves it to a format that
  //     groups the rows anyway
  const FormatUnit& unit = find_format(format);
  const OrderingUnit& order = find_ordering(ordering);
  if (order.before_grouping && grouping_of(unit, resolve_format_parameters(format, parameters, addressing.n_rows),
                                           grouping_input(unit, addressing)) != RowGrouping::none)
    return order.before_grouping(addressing);
  return order.make(addressing, seed);
}

namespace {

/// The last ordering prepare_format made, and what it was made from: the flow step's velocity and
/// pressure matrices share one mesh's addressing, so the second set-up takes the first's ordering
/// (Cuthill-McKee is about 1.8 s on 8 M rows) instead of making it again; `none`, the identity,
/// is made afresh (its log line says nothing of a previous solver). Held until another
/// ordering replaces it; never taken for an addressing that has been freed since.
struct LastOrdering {
  std::weak_ptr<const LduAddressing> addressing;
  std::string key;  ///< format, its resolved keys, ordering, seed
  Permutation permutation;
};

/// PreparedFormat::key: the format, its resolved keys, the ordering and the seed.
std::string format_key(const std::string& format, const FormatParameters& resolved, const std::string& ordering,
                       std::uint64_t seed) {
  return fmt::format("{} ({}) {} {}", format, format_parameter_text(find_format(format), resolved), ordering, seed);
}

std::mutex last_ordering_mutex;
LastOrdering last_ordering;

std::vector<std::string> tuned_keys(const FormatUnit& unit, const FormatParameters& parameters);

}  // namespace

bool shapes_for_device(const std::string& format, const FormatParameters& parameters, const SpmvTimer& timer) {
  const FormatUnit& unit = find_format(format);
  return unit.build_shape && !(timer.milliseconds && !tuned_keys(unit, parameters).empty());
}

bool fits_model(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                const FormatParameters& parameters, std::uint64_t seed, const SpmvTimer& timer,
                const PreparedFormat& model, FormatArrays arrays) {
  const FormatParameters resolved = resolve_format_parameters(format, parameters, matrix.n_rows());
  const bool tuned = timer.milliseconds && !tuned_keys(find_format(format), parameters).empty();
  return !tuned && !model.tuning.done() && !model.key.empty() &&
         model.arrays_on_device == (arrays == FormatArrays::device) &&
         model.key == format_key(format, resolved, ordering, seed) && matrix.addressing &&
         model.addressing.lock() == matrix.addressing;
}

PreparedFormat prepare_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                              const FormatParameters& parameters, std::uint64_t seed, const SpmvTimer& timer,
                              const PreparedFormat* model, FormatArrays arrays) {
  // --- fail on an unknown format or bad parameters before the (expensive) ordering; the ordering
  //     does not depend on the keys set-up tunes
  const FormatParameters resolved = resolve_format_parameters(format, parameters, matrix.n_rows());
  if (find_format(format).symmetric_only) require_symmetric(matrix, "format " + format);
  const std::string key = format_key(format, resolved, ordering, seed);
  const auto t0 = std::chrono::steady_clock::now();
  // --- the model's structure, where it is this matrix's pattern in this format
  if (arrays == FormatArrays::device && !shapes_for_device(format, parameters, timer))
    throw std::logic_error(fmt::format("format '{}': its arrays cannot be left to the device with these keys", format));
  if (model && fits_model(matrix, format, ordering, parameters, seed, timer, *model, arrays)) {
    PreparedFormat p = *model;
    if (!p.arrays_on_device) refresh_format_values(matrix, p);  // a shape holds none
    p.ordering_seconds = p.csr_seconds = 0.0;
    p.build_seconds = seconds_since(t0);
    p.ordering_reused = false;
    p.copied = true;
    return p;
  }
  std::optional<Permutation> base;
  {
    const std::lock_guard lock(last_ordering_mutex);
    if (!find_ordering(ordering).identity && last_ordering.key == key && matrix.addressing &&
        last_ordering.addressing.lock() == matrix.addressing)
      base = last_ordering.permutation;
  }
  const bool reused = base.has_value();
  if (!reused) {
    base = format_ordering(format, resolved, ordering, *matrix.addressing, seed);
    const std::lock_guard lock(last_ordering_mutex);
    last_ordering = {matrix.addressing, key, *base};
  }
  PreparedFormat p = prepare_ordered_format(matrix, format, ordering, parameters, std::move(*base), seconds_since(t0),
                                            timer, arrays);
  p.ordering_reused = reused;
  p.key = key;
  return p;
}

namespace {

/// The keys of `unit` that `parameters` set to auto and set-up tunes, in the unit's order.
std::vector<std::string> tuned_keys(const FormatUnit& unit, const FormatParameters& parameters) {
  std::vector<std::string> keys;
  for (const auto& spec : unit.parameters)
    if (parameters.has(spec.key) && spec.tunes(parameters.values().at(spec.key))) keys.push_back(spec.key);
  return keys;
}

/// Every combination of the tuned keys' tune_values (the other keys as given), each resolved for
/// n_rows rows; settings the unit refuses are dropped, repeats (auto values resolving alike) merged.
std::vector<FormatParameters> tuning_grid(const FormatUnit& unit, const FormatParameters& parameters, label n_rows) {
  const std::vector<FormatParameters> combinations = parameter_combinations(unit, [&](const ParameterSpec& spec) {
    if (!parameters.has(spec.key)) return std::vector<std::string>{};
    return spec.tunes(parameters.values().at(spec.key)) ? spec.tune_values
                                                        : std::vector<std::string>{parameters.text(spec.key)};
  });
  std::vector<FormatParameters> grid;
  for (const FormatParameters& combination : combinations) {
    try {
      FormatParameters resolved = resolve_format_parameters(unit.name, combination, n_rows);
      if (std::find(grid.begin(), grid.end(), resolved) == grid.end()) grid.push_back(std::move(resolved));
    } catch (const std::invalid_argument&) {
      // not a setting for this matrix (e.g. slices taller than it)
    }
  }
  // --- the first key varies slowest, as the log lists them
  const std::vector<std::string> keys = tuned_keys(unit, parameters);
  std::stable_sort(grid.begin(), grid.end(), [&](const FormatParameters& a, const FormatParameters& b) {
    for (const auto& key : keys)
      if (a.real(key) != b.real(key)) return a.real(key) < b.real(key);
    return false;
  });
  return grid;
}

}  // namespace

PreparedFormat prepare_ordered_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                                      const FormatParameters& parameters, Permutation base, double ordering_seconds,
                                      const SpmvTimer& timer, FormatArrays arrays) {
  const FormatUnit& unit = find_format(format);
  if (unit.symmetric_only) require_symmetric(matrix, "format " + format);
  PreparedFormat p;
  p.format_name = format;
  p.ordering_name = ordering;
  p.addressing = matrix.addressing;
  p.parameters = resolve_format_parameters(format, parameters, matrix.n_rows());
  const std::vector<std::string> keys = timer.milliseconds ? tuned_keys(unit, parameters) : std::vector<std::string>{};
  const std::vector<FormatParameters> grid = keys.empty() ? std::vector<FormatParameters>{}
                                                          : tuning_grid(unit, parameters, matrix.n_rows());

  // --- the shape alone (its arrays the device's), or a unit that builds from the rows: their face
  //     lists once, for the rows and their lengths
  const bool shape_only = arrays == FormatArrays::device;
  if (shape_only && !(grid.empty() && unit.build_shape))
    throw std::logic_error(fmt::format("format '{}': no shape to leave its arrays to the device", format));
  const bool from_rows = !shape_only && grid.empty() && unit.build_rows;
  auto t0 = std::chrono::steady_clock::now();
  RowFaces faces = from_rows ? row_faces(*matrix.addressing) : RowFaces{};
  const double faces_seconds = seconds_since(t0);

  // --- sigma = ordering, then the unit's stable grouping by row length
  t0 = std::chrono::steady_clock::now();
  const std::vector<label> lengths = !unit.row_grouping && !shape_only ? std::vector<label>{}
                                     : from_rows                       ? row_lengths(faces)
                                                                       : row_lengths(*matrix.addressing);
  const std::vector<label> histogram = unit.row_grouping ? row_length_stats(lengths).histogram : std::vector<label>{};
  const RowGrouping grouping = grouping_of(unit, p.parameters, histogram);
  if (grouping != RowGrouping::none) {
    p.permutation = group_by_row_length(lengths, base, grouping == RowGrouping::by_length_descending);
    p.position_before_grouping.resize(p.permutation.size());
#pragma omp parallel for schedule(static)
    for (label i = 0; i < p.permutation.size(); ++i)
      p.position_before_grouping[i] = base.old_to_new[p.permutation.new_to_old[i]];
  } else {
    p.permutation = std::move(base);
  }
  p.ordering_seconds = ordering_seconds + seconds_since(t0);

  // --- the shape from the rows' lengths in the final numbering: no arrays, no value map
  if (shape_only) {
    t0 = std::chrono::steady_clock::now();
    std::vector<label> final_lengths(lengths.size());
#pragma omp parallel for schedule(static)
    for (label i = 0; i < p.permutation.size(); ++i) final_lengths[i] = lengths[p.permutation.new_to_old[i]];
    p.format = unit.build_shape(
        FormatShapeInput{final_lengths, matrix.addressing->nnz(), p.parameters, p.position_before_grouping});
    p.build_seconds = seconds_since(t0);
    p.arrays_on_device = true;
    return p;
  }

  // --- P A P^T straight into a unit that builds from the rows, its value map as it goes
  if (from_rows) {
    const PermutedRows rows(matrix, p.permutation, std::move(faces));
    p.csr_seconds = faces_seconds;
    t0 = std::chrono::steady_clock::now();
    LduToCsrMap map;
    p.format = unit.build_rows(FormatRowsInput{rows, p.parameters, p.position_before_grouping, map});
    p.value_map = std::make_shared<const LduToCsrMap>(std::move(map));
    p.build_seconds = seconds_since(t0);
    p.from_rows = true;
    return p;
  }

  // --- P A P^T in CSR with the mesh-order slot map
  t0 = std::chrono::steady_clock::now();
  CsrMatrix csr = permuted_csr(matrix, p.permutation, &p.csr_map);
  p.csr_seconds = seconds_since(t0);

  if (grid.empty()) {
    t0 = std::chrono::steady_clock::now();
    p.format = unit.build(FormatBuildInput{std::move(csr), p.parameters, p.position_before_grouping});
    compose_value_map(p);
    p.build_seconds = seconds_since(t0);
    return p;
  }

  // --- tuning: each setting built from a copy of the CSR and timed; the fastest kept
  const auto tuning_start = std::chrono::steady_clock::now();
  p.tuning.keys = keys;
  p.tuning.timer = timer.description;
  double best_ms = std::numeric_limits<double>::infinity();
  for (const FormatParameters& setting : grid) {
    // --- every setting is built on the rows as grouped for the auto keys: a format that groups
    //     none takes any row order, but one that groups must find its rows grouped
    if (grouping == RowGrouping::none && grouping_of(unit, setting, histogram) != RowGrouping::none)
      throw std::logic_error(fmt::format("format '{}': a tuned key needs a row grouping the auto keys did not", format));
    t0 = std::chrono::steady_clock::now();
    StoredFormat built = unit.build(FormatBuildInput{csr, setting, p.position_before_grouping});
    const double build_seconds = seconds_since(t0);
    const double ms = timer.milliseconds(format, built, setting, matrix.n_rows());
    p.tuning.trials.push_back({setting, ms});
    if (ms < best_ms) {
      best_ms = ms;
      p.tuning.chosen = p.tuning.trials.size() - 1;
      p.format = std::move(built);
      p.parameters = setting;
      p.build_seconds = build_seconds;
    }
  }
  compose_value_map(p);
  p.tuning.seconds = seconds_since(tuning_start) - p.build_seconds;
  return p;
}

SpmvTimer reference_spmv_timer() {
  return {"reference SpMV, median of 5 or more runs",
          [](const std::string& name, const StoredFormat& format, const FormatParameters&, label n_rows) {
            const FormatUnit& unit = find_format(name);
            if (!unit.multiply)
              throw std::invalid_argument(fmt::format("format '{}' has no reference kernel to time", name));
            std::vector<double> x(n_rows), y(n_rows);
            for (label i = 0; i < n_rows; ++i) x[i] = 1.0 + 0.125 * (i % 7);
            for (int warm = 0; warm < 2; ++warm) unit.multiply(format, x, y);
            std::vector<double> ms;
            double total_ms = 0.0;
            while (ms.size() < 5 || (total_ms < 50.0 && ms.size() < 101)) {
              const auto t0 = std::chrono::steady_clock::now();
              unit.multiply(format, x, y);
              ms.push_back(1e3 * seconds_since(t0));
              total_ms += ms.back();
            }
            std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
            return ms[ms.size() / 2];
          }};
}

void compose_value_map(PreparedFormat& p) {
  const std::vector<std::int64_t>* slot = p.format.value_slot();
  if (!slot) {
    p.value_map = std::make_shared<const LduToCsrMap>(std::move(p.csr_map));
    p.csr_map = LduToCsrMap{};
    return;
  }
  // --- value_map = value_slot o csr_map
  const std::int64_t* s = slot->data();
  auto compose = [s](UnfilledVector<std::int64_t>& slots) {
    const auto count = static_cast<std::int64_t>(slots.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < count; ++k) slots[k] = s[slots[k]];
  };
  LduToCsrMap map = std::move(p.csr_map);
  p.csr_map = LduToCsrMap{};
  compose(map.diag_slot);
  compose(map.upper_slot);
  compose(map.lower_slot);
  p.value_map = std::make_shared<const LduToCsrMap>(std::move(map));
}

namespace {
/// Mesh-order coefficients into the format's values (or a copy of them) through the maps.
void write_format_values(const LduMatrix& m, const PreparedFormat& p, std::span<double> values) {
  if (p.arrays_on_device)
    throw std::logic_error("format " + p.format_name +
                           ": its values are built on the device, the host holds its shape");
  if (!m.symmetric() && find_format(p.format_name).symmetric_only) require_symmetric(m, "format " + p.format_name);
  if (p.value_map && p.value_map->diag_slot.size() == static_cast<size_t>(m.n_rows())) {
    refresh_csr_values(m, *p.value_map, values);
    return;
  }
  const std::vector<std::int64_t>* slot = p.format.value_slot();
  if (!slot) {
    refresh_csr_values(m, p.csr_map, values);
    return;
  }
  // --- values[slot[csr_slot]] = coefficient, for the diagonal and each side of each face
  const auto& map = p.csr_map;
  const std::int64_t* s = slot->data();
  const label n = m.n_rows();
  const label n_faces = static_cast<label>(m.upper.size());
  const Coefficients& lower = m.lower_coeffs();
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) values[s[map.diag_slot[i]]] = m.diag[i];
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    values[s[map.upper_slot[f]]] = m.upper[f];
    values[s[map.lower_slot[f]]] = lower[f];
  }
}
}  // namespace

void refresh_format_values(const LduMatrix& m, PreparedFormat& p) { write_format_values(m, p, p.format.values()); }

std::unique_ptr<double[]> format_values(const LduMatrix& m, const PreparedFormat& p) {
  const std::span<const double> model = p.format.values();
  const auto n = static_cast<std::int64_t>(model.size());
  std::unique_ptr<double[]> values(new double[n]);  // not zeroed: every value is written
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) values[k] = model[k];
  write_format_values(m, p, std::span<double>(values.get(), static_cast<std::size_t>(n)));
  return values;
}

namespace {
/// "staircase (sliceHeight 32, ...), ordering none: padding 1.000, 5364.5 MB, setup 1.0 ms (how)"
std::string describe(const PreparedFormat& p, double setup_seconds, const std::string& how) {
  const FormatFigures f = p.format.figures();
  const std::string parameters = format_parameter_text(find_format(p.format_name), p.parameters);
  return fmt::format("{}{}, ordering {}: padding {:.3f}, {:.1f} MB, setup {:.1f} ms ({})", p.format_name,
                     parameters.empty() ? "" : " (" + parameters + ")", p.ordering_name, f.padding_ratio,
                     f.footprint_bytes / 1e6, 1e3 * setup_seconds, how);
}
}  // namespace

std::string describe(const PreparedFormat& p) {
  const double tuning = p.tuning.seconds;
  if (p.copied) return describe(p, p.build_seconds, "the previous solver's, copied");
  if (p.arrays_on_device)
    return describe(p, p.ordering_seconds + p.build_seconds + p.device_seconds,
                    fmt::format("ordering {:.1f}{}, shape {:.1f}, arrays on the device {:.1f}",
                                1e3 * p.ordering_seconds, p.ordering_reused ? ", the previous solver's" : "",
                                1e3 * p.build_seconds, 1e3 * p.device_seconds));
  return describe(
      p, p.ordering_seconds + p.csr_seconds + p.build_seconds + tuning,
      fmt::format("ordering {:.1f}{}, {} {:.1f}, build {:.1f}{}", 1e3 * p.ordering_seconds,
                  p.ordering_reused ? ", the previous solver's" : "", p.from_rows ? "rows" : "csr",
                  1e3 * p.csr_seconds, 1e3 * p.build_seconds,
                  p.tuning.done()
                      ? fmt::format(", tuning {:.1f} over {} settings", 1e3 * tuning, p.tuning.trials.size())
                      : ""));
}

std::string describe_shared(const PreparedFormat& model, double seconds) {
  return describe(model, seconds, "the previous solver's, shared");
}

namespace {
/// "sliceHeight 512, alpha 0.01": the tuned keys of one trial.
std::string tuned_values(const FormatTuning& t, const FormatParameters& parameters) {
  std::vector<std::string> values;
  for (const auto& key : t.keys) values.push_back(key + " " + parameters.text(key));
  return fmt::format("{}", fmt::join(values, ", "));
}
}  // namespace

FormatInfo format_info(const PreparedFormat& p) {
  FormatInfo info;
  info.name = p.format_name;
  info.ordering = p.ordering_name;
  info.parameters = format_parameter_text(find_format(p.format_name), p.parameters);
  info.setup_seconds = p.ordering_seconds + p.csr_seconds + p.build_seconds + p.device_seconds + p.tuning.seconds;
  for (const auto& trial : p.tuning.trials) info.tuning.push_back({tuned_values(p.tuning, trial.parameters), trial.spmv_ms});
  info.chosen = p.tuning.chosen;
  info.tuning_timer = p.tuning.timer;
  info.tuning_seconds = p.tuning.seconds;
  return info;
}

std::string describe_tuning(const PreparedFormat& p) {
  const FormatTuning& t = p.tuning;
  if (!t.done()) return "";
  std::string text = fmt::format("\n  {} tuned: {} auto, each setting timed by the {}", p.format_name,
                                 fmt::join(t.keys, ", "), t.timer);
  for (std::size_t i = 0; i < t.trials.size(); ++i)
    text += fmt::format("\n    {:<36} {:9.4f} ms{}", tuned_values(t, t.trials[i].parameters), t.trials[i].spmv_ms,
                        i == t.chosen ? "  chosen" : "");
  return text;
}

std::unique_ptr<ReferenceOperator> make_reference_operator(const LduMatrix& matrix, PreparedFormat prepared) {
  if (!find_format(prepared.format_name).multiply)
    throw std::invalid_argument(
        fmt::format("format '{}' is not available on the reference backend (it needs backend cuda)",
                    prepared.format_name));
  return std::make_unique<FormatOperator>(matrix, std::move(prepared));
}

}  // namespace fvmmini
