#pragma once
// The registry of storage formats (one FormatUnit per format, listed in registry/CMakeLists.txt),
// and the host-side set-up every backend shares: ordering, row grouping, permuted CSR with its
// slot map, the format struct, and the reference (CPU) operator on top of it.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"
#include "registry/format_unit.hpp"
#include "registry/host_operator.hpp"

namespace fvmmini {

/// Every format, in the order names are listed in errors, --help and the docs.
const std::vector<FormatUnit>& format_table();

/// The unit named `name`. @throws std::invalid_argument listing the known names
const FormatUnit& find_format(const std::string& name);

/// The names of format_table(), in order.
std::vector<std::string> format_names();

/// Every format's parameters at their defaults (a key two units read, declared alike by both, once).
FormatParameters default_format_parameters();

/// One parameter key with the formats that read it.
struct ParameterReaders {
  const ParameterSpec* spec = nullptr;
  std::vector<std::string> formats;
};

/// Every format parameter key once (a key two units read, once), in table order, with its readers:
/// what the case schema, the docs and the benches' options list.
std::vector<ParameterReaders> format_parameter_keys();

/// Every combination of the unit's parameter values; `values(spec)` gives one key's text values
/// (none: its default). @throws std::invalid_argument naming the key for a value out of its range
std::vector<FormatParameters> parameter_combinations(
    const FormatUnit& unit, const std::function<std::vector<std::string>(const ParameterSpec&)>& values);

/// The format `format: auto` means on `backend` (the unit whose auto_on names it).
/// @throws std::invalid_argument when no unit claims the backend
const std::string& auto_format(const std::string& backend);

/// "sliceHeight 32, alpha 0.01": the unit's own parameters with their values (all of them, or only
/// those that differ from the defaults).
std::string format_parameter_text(const FormatUnit& unit, const FormatParameters& parameters,
                                  bool only_non_default = false);

/// What set-up timed when format keys were auto (PreparedFormat::tuning).
struct FormatTuning {
  struct Trial {
    FormatParameters parameters;  ///< resolved
    double spmv_ms = 0.0;
  };
  std::vector<std::string> keys;  ///< the keys that were auto, in the unit's order
  std::string timer;              ///< how each setting was timed (SpmvTimer::description)
  std::vector<Trial> trials;      ///< every setting of the grid the unit accepts, in grid order
  std::size_t chosen = 0;         ///< the fastest
  double seconds = 0.0;           ///< the builds and timings, but the chosen setting's build

  bool done() const { return !trials.empty(); }
};

/// Where a format's arrays are built: on the host, or on the backend's device from the rows, the
/// host holding the struct's shape only (FormatUnit::build_shape).
enum class FormatArrays { host, device };

/// Everything the host builds before a backend takes over, in the operator's numbering.
struct PreparedFormat {
  std::string format_name;
  std::string ordering_name;
  FormatParameters parameters;  ///< resolved (no auto left)
  /// new -> old rows of the operator's numbering relative to the mesh (ordering, then the unit's
  /// row grouping)
  Permutation permutation;
  /// Per row of the operator's numbering, its position in the ordering before the unit's grouping
  /// by row length; empty when the unit does not group (the ordering is the numbering). The
  /// preconditioners schedule by it, so that grouping does not split a colour ordering's colours.
  std::vector<label> position_before_grouping;
  /// Mesh-order LDU rows/faces -> slots of the permuted CSR. compose_value_map moves it into
  /// value_map for formats with their own slot order (and leaves it empty then); never made for a
  /// format built from the rows (from_rows).
  LduToCsrMap csr_map;
  /// Mesh-order LDU rows/faces -> slots of the format's values; null until compose_value_map.
  /// Shared by the copies of a PreparedFormat (one map a pattern: 56 bytes a cell of a hexahedral
  /// mesh), as the maps never change once composed.
  std::shared_ptr<const LduToCsrMap> value_map;
  StoredFormat format;
  double ordering_seconds = 0.0;  ///< ordering (and grouping)
  /// prepare_format took the ordering it made last, for the same addressing and keys (the flow
  /// step's second field on one mesh) instead of making it again.
  bool ordering_reused = false;
  /// prepare_format copied this from a model built on the same addressing with the same keys
  /// (the reference backend's flow step: the velocity solver's for its pressure solver; the cuda
  /// backend shares the model instead) and refreshed the values: build_seconds is the copy's
  /// time, ordering and csr none.
  bool copied = false;
  /// The addressing it was built on (a model must share it; one freed since matches none).
  std::weak_ptr<const LduAddressing> addressing;
  std::string key;  ///< format, its resolved keys, ordering and seed (a model must match it); empty: none
  double csr_seconds = 0.0;       ///< permuted CSR with its slot map (from_rows: the rows' face lists)
  /// The unit built the format straight from the rows (FormatUnit::build_rows): value_map was
  /// written with it, no CSR or csr_map was made.
  bool from_rows = false;
  /// The format is its shape (FormatArrays::device): no values, no value map on the host; a
  /// backend builds them from the rows on its device, in device_seconds.
  bool arrays_on_device = false;
  double build_seconds = 0.0;     ///< the format struct from the CSR (arrays_on_device: its shape)
  double device_seconds = 0.0;    ///< arrays_on_device: the backend's build of the arrays
  FormatTuning tuning;            ///< empty unless a key was auto and a timer was given
};

/// Times y = A x of a built format on the backend that is to run it, for the keys set to auto.
struct SpmvTimer {
  std::string description;  ///< for the log: "cuda SpMV with the CG's dot product, median of 20 runs"
  /// Milliseconds per SpMV of `format` (named `name`, built with `parameters`, n_rows rows).
  std::function<double(const std::string& name, const StoredFormat& format, const FormatParameters& parameters,
                       label n_rows)>
      milliseconds;
};

/// The reference backend's timer: the unit's CPU kernel, two runs to warm up, the median of at
/// least five (more on small matrices, up to 50 ms of runs).
SpmvTimer reference_spmv_timer();

/// The parameters with the format's auto values made concrete for a matrix of n_rows rows, each of
/// the format's keys checked against its spec, and the unit's own check run. A key that set-up
/// tunes (ParameterSpec::tune_values) left at auto takes its default here: nothing timed it.
/// @throws std::invalid_argument naming the key and why
FormatParameters resolve_format_parameters(const std::string& format, FormatParameters parameters, label n_rows);

/// The bytes `format` holds built for n_rows rows of nnz entries with the keys `given` (those not
/// given at their defaults; a key set to auto that set-up tunes at the largest value it times): the
/// unit's storage_bytes, or CSR-sized. What a key such as chunkSize costs is known so before
/// anything is built. @throws std::invalid_argument as resolve_format_parameters does
std::uint64_t estimated_format_bytes(const std::string& format, FormatParameters given, label n_rows,
                                     std::int64_t nnz);

/// The keys a solve under precision mixed builds `format` with: the unit's narrow_keys of those
/// given (staircase: one group where that pads little, so that the rows keep the ordering), else
/// those given.
FormatParameters mixed_precision_parameters(const std::string& format, const FormatParameters& given,
                                            const LduAddressing& addressing);

/// Order, permute and build. Keys set to auto that set-up tunes (sliceHeight, alpha, chunkSize,
/// sortWindow, threshold: ParameterSpec::tune_values) are tuned when `timer` is given: one
/// ordering and one permuted CSR, then a build per setting of the grid of their tune_values (those
/// the unit accepts for this matrix, repeats merged), each timed by `timer`, the fastest kept
/// (PreparedFormat::tuning). Without a timer they take their defaults.
/// @param[in] seed for the "random" ordering
/// @param[in] model a format prepared before: where it was built on matrix's addressing with the
///   same format, resolved keys, ordering and seed, and nothing is tuned, it is copied and its
///   values refreshed from matrix instead (the same pattern's ordering, CSR and build made once)
/// @param[in] arrays FormatArrays::device: the shape alone (builds_on_device must hold)
/// @throws std::invalid_argument for an unknown format or ordering or bad format parameters
PreparedFormat prepare_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                              const FormatParameters& parameters, std::uint64_t seed = 1,
                              const SpmvTimer& timer = {}, const PreparedFormat* model = nullptr,
                              FormatArrays arrays = FormatArrays::host);

/// Whether prepare_format may leave `format`'s arrays to the device with these keys: the unit
/// builds a shape (FormatUnit::build_shape) and `timer` tunes none of them.
bool shapes_for_device(const std::string& format, const FormatParameters& parameters, const SpmvTimer& timer);

/// Whether `model` is matrix's pattern prepared as asked: built on matrix's addressing with the
/// same format, resolved keys, ordering and seed, its arrays where asked, nothing tuned
/// (prepare_format then copies it; a backend may share it instead).
bool fits_model(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                const FormatParameters& parameters, std::uint64_t seed, const SpmvTimer& timer,
                const PreparedFormat& model, FormatArrays arrays = FormatArrays::host);

/// The ordering `format` is built on: make_ordering's, except that a format which groups rows by
/// length given the staircase ordering gets its Cuthill-McKee part (the grouping follows
/// anyway), so that the rows know their place in the mesh (position_before_grouping).
Permutation format_ordering(const std::string& format, const FormatParameters& parameters,
                            const std::string& ordering, const LduAddressing& addressing, std::uint64_t seed = 1);

/// prepare_format after the ordering: `base` is the ordering's permutation (the unit's row
/// grouping follows), made in `ordering_seconds` (added to the figure).
/// @throws std::invalid_argument for an unknown format or bad format parameters
PreparedFormat prepare_ordered_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                                      const FormatParameters& parameters, Permutation base,
                                      double ordering_seconds = 0.0, const SpmvTimer& timer = {},
                                      FormatArrays arrays = FormatArrays::host);

/// value_map = the format's value_slot applied to csr_map (one indirection per refresh instead of
/// two); csr_map is released. For formats in CSR slot order value_map is csr_map itself.
/// prepare_format calls it; call it when assembling a PreparedFormat by hand.
void compose_value_map(PreparedFormat& prepared);

/// Copy new mesh-order LDU coefficients into the format's values through value_map (or through
/// csr_map and value_slot when value_map has not been composed).
void refresh_format_values(const LduMatrix& matrix, PreparedFormat& prepared);
/// matrix's coefficients in prepared's format, where no coefficient maps (padding) prepared's own
/// values, in an array as long as prepared.format.values() (filled on every thread): the values
/// of a solver that shares another's prepared format.
std::unique_ptr<double[]> format_values(const LduMatrix& matrix, const PreparedFormat& prepared);

/// One line: "staircase (sliceHeight 32, alpha 0.01, launch interleaved), ordering staircase: padding
/// 1.040, 12.3 MB, setup 45.0 ms (ordering ..., csr ..., build ...)" ("rows" for "csr" where the
/// unit built from the rows); after tuning the setup ends "..., build ..., tuning 812.0 over 18
/// settings)"; with its arrays on the device "(ordering ..., shape ..., arrays on the device ...)".
std::string describe(const PreparedFormat& prepared);
/// The line of a solver that shares `model`, another solver's format, its values its own:
/// "..., setup 210.0 ms (the previous solver's, shared)".
std::string describe_shared(const PreparedFormat& model, double seconds);

/// The summary's record of a prepared format (FormatInfo).
FormatInfo format_info(const PreparedFormat& prepared);

/// After tuning, lines that start with a newline: the keys, the timer, then each setting with its
/// SpMV time, the chosen one marked; empty when nothing was tuned. The solvers' describe() ends
/// with them.
std::string describe_tuning(const PreparedFormat& prepared);

/// A HostOperator in the prepared numbering: vectors given to multiply() and diagonal() are
/// permuted (x_op[i] = x_mesh[permutation.new_to_old[i]]).
class ReferenceOperator : public HostOperator {
 public:
  virtual const PreparedFormat& prepared() const = 0;
};

/// The reference operator for a prepared format.
/// @throws std::invalid_argument when the format has no reference kernel
std::unique_ptr<ReferenceOperator> make_reference_operator(const LduMatrix& matrix, PreparedFormat prepared);

}  // namespace fvmmini
