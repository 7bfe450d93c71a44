#pragma once
// The one name -> factory table of storage formats, and the host-side set-up every
// backend shares: ordering, permuted CSR with its slot map, the format struct, and
// the reference (CPU) operator on top of it.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/coo_matrix.hpp"
#include "linalg/formats/csr_format.hpp"
#include "linalg/formats/ell_matrix.hpp"
#include "linalg/formats/sell_matrix.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "linalg/formats/symmetric_matrix.hpp"
#include "linalg/host_operator.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

/// One built format (the struct the entry's builder makes).
using HostFormat = std::variant<CsrFormat, CooMatrix, EllMatrix, SellMatrix, StaircaseMatrix, SymmetricMatrix>;

struct FormatEntry {
  std::string name;     ///< as in case files
  std::string summary;  ///< one line for --help and errors
  bool reference = true;       ///< has a reference (CPU) kernel; false: CUDA-only (cuSPARSE baselines)
  bool groups_rows = false;    ///< the ordering is followed by a stable grouping by row length (staircase)
  /// Build the struct from the CSR in the final ordering. @throws std::invalid_argument on bad parameters
  std::function<HostFormat(CsrMatrix csr, const FormatParameters& parameters)> build;
};

/// The table, in the order names are listed in errors.
const std::vector<FormatEntry>& format_table();

/// The entry named `name`. @throws std::invalid_argument listing the known names
const FormatEntry& find_format(const std::string& name);

/// Everything the host builds before a backend takes over, in the operator's numbering.
struct PreparedFormat {
  std::string format_name;
  std::string ordering_name;
  FormatParameters parameters;
  /// new -> old rows of the operator's numbering relative to the mesh (ordering, then for
  /// staircase the grouping by row length)
  Permutation permutation;
  /// Mesh-order LDU rows/faces -> slots of the permuted CSR. compose_value_map moves it into
  /// value_map for formats with their own slot order (and leaves it empty then).
  LduToCsrMap csr_map;
  /// Mesh-order LDU rows/faces -> slots of the format's values; empty until compose_value_map.
  LduToCsrMap value_map;
  HostFormat format;
  double ordering_seconds = 0.0;  ///< ordering (and grouping)
  double csr_seconds = 0.0;       ///< permuted CSR with its slot map
  double build_seconds = 0.0;     ///< the format struct from the CSR
};

/// The parameters with "auto" values made concrete for a matrix of n_rows rows: staircase alpha
/// <= 0 becomes max(0.01, slice_height / n_rows) (at most 1).
FormatParameters resolve_format_parameters(const std::string& format, FormatParameters parameters, label n_rows);

/// Order, permute and build. @param[in] seed for the "random" ordering
/// @throws std::invalid_argument for an unknown format or ordering or bad format parameters
PreparedFormat prepare_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                              const FormatParameters& parameters, std::uint64_t seed = 1);

/// The ordering `format` is built on: make_ordering's, except that a format which groups rows by
/// length (staircase) given the staircase ordering gets its Cuthill-McKee part (the grouping
/// follows anyway), so that its slices know their place in the mesh (slice_position).
Permutation format_ordering(const std::string& format, const std::string& ordering, const LduAddressing& addressing,
                            std::uint64_t seed = 1);

/// prepare_format after the ordering: `base` is the ordering's permutation (for staircase the
/// grouping by row length follows), made in `ordering_seconds` (added to the figure).
/// @throws std::invalid_argument for an unknown format or bad format parameters
PreparedFormat prepare_ordered_format(const LduMatrix& matrix, const std::string& format, const std::string& ordering,
                                      const FormatParameters& parameters, Permutation base,
                                      double ordering_seconds = 0.0);

/// The format's value array (what a backend uploads after a refresh).
std::span<const double> format_values(const HostFormat& format);

/// value_map = the format's value_slot applied to csr_map (one indirection per refresh instead of
/// two); csr_map is released. For csr and coo (CSR slot order) value_map is csr_map itself.
/// prepare_format calls it; call it when assembling a PreparedFormat by hand.
void compose_value_map(PreparedFormat& prepared);

/// Copy new mesh-order LDU coefficients into the format's values through value_map (or through
/// csr_map and value_slot when value_map has not been composed).
void refresh_format_values(const LduMatrix& matrix, PreparedFormat& prepared);

/// Stored entries, nnz, padding ratio and footprint of the built format.
struct FormatFigures {
  std::int64_t nnz = 0;
  std::int64_t stored_entries = 0;
  double padding_ratio = 1.0;
  std::int64_t footprint_bytes = 0;
};
/// The figures of a built format.
FormatFigures format_figures(const HostFormat& format);

/// One line: "staircase (sh 32, alpha 0.01), ordering staircase: padding 1.04, 12.3 MB, setup 45 ms".
std::string describe(const PreparedFormat& prepared);

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
