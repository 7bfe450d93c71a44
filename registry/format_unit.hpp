#pragma once
// A storage format as one unit: its name, its parameters, how it is built from the CSR matrix
// in the final ordering (or from its rows without the CSR), and its reference (CPU) kernel. One file per format in
// registry/format_units/ defines one, and the list in registry/CMakeLists.txt is the registry
// (format_registry.hpp reads it). A backend other than the reference one adds its own kernel
// for a format by name (the CUDA library: kernels/cuda/device_formats.cuh).
// docs/architecture.md, "Adding a format", walks through one.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kernels/reference/symmetric_spmv.hpp"
#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_parameters.hpp"
#include "linalg/formats/stored_format.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

/// How the registry renumbers the rows after the ordering, before the format is built.
enum class RowGrouping {
  none,
  by_length_ascending,   ///< stable, shortest rows first (Staircase SELL's grouping)
  by_length_descending,  ///< stable, longest rows first (ELL-WARP's renumbered variant)
};

/// What a builder gets.
struct FormatBuildInput {
  CsrMatrix csr;                        ///< P A P^T in the final numbering (the builder may move it)
  const FormatParameters& parameters;   ///< resolved (no auto left), checked against the specs
  /// Per row of the final numbering, its place in the ordering before the row grouping; empty
  /// unless the unit groups rows.
  std::span<const label> position_before_grouping;
};

/// What a builder from the rows gets (FormatUnit::build_rows).
struct FormatRowsInput {
  const PermutedRows& rows;            ///< P A P^T a mesh row at a time, in the final numbering
  const FormatParameters& parameters;  ///< as FormatBuildInput's
  std::span<const label> position_before_grouping;  ///< as FormatBuildInput's
  LduToCsrMap& value_map;  ///< receives every LDU coefficient's slot in the built struct's values
};

/// What a shape builder gets (FormatUnit::build_shape).
struct FormatShapeInput {
  std::span<const label> row_lengths;  ///< each row's entries, in the final numbering
  std::int64_t nnz;                    ///< the matrix's structural nonzeros
  const FormatParameters& parameters;  ///< as FormatBuildInput's
  std::span<const label> position_before_grouping;  ///< as FormatBuildInput's
};

using ReferenceMultiply = std::function<void(const StoredFormat&, std::span<const double> x, std::span<double> y)>;

struct FormatUnit {
  std::string name{};    ///< as in case files
  std::string summary{};  ///< one line for --help, the docs and errors
  std::vector<ParameterSpec> parameters{};  ///< the case keys it reads (declared once, here)
  /// Holds symmetric matrices only (one triangle): set-up refuses an asymmetric matrix.
  bool symmetric_only = false;
  /// The backends whose `format: auto` means this format.
  std::vector<std::string> auto_on{};
  /// Renumbering of the rows after the ordering, given the resolved parameters (auto where set-up
  /// tunes) and the matrix's row-length histogram (rows with k entries at k); null: none.
  std::function<RowGrouping(const FormatParameters&, std::span<const label> row_lengths)> row_grouping{};
  /// The keys for a float32 twin with 16-bit column offsets (precision mixed), from the keys the
  /// case gave (each kept) and the row-length histogram: those that keep the ordering's rows in
  /// place where that costs little; null: the keys given.
  std::function<FormatParameters(FormatParameters given, std::span<const label> row_lengths)> narrow_keys{};
  /// Make auto values concrete for a matrix of n_rows rows; null: the values stay as given.
  std::function<FormatParameters(FormatParameters, label n_rows)> resolve{};
  /// Check resolved values that depend on each other or on n_rows (before the ordering is made);
  /// null: the per-key ranges are all. @throws std::invalid_argument saying why
  std::function<void(const FormatParameters&, label n_rows)> check{};
  /// The bytes the built struct holds for n_rows rows of nnz entries under these (resolved) keys,
  /// about (rows of the mean length): what a key that sizes padding (chunkSize) costs is in it.
  /// The app asks the memory limit with it before set-up, and --dry-run prints it
  /// (estimated_format_bytes); null: CSR-sized (csr_storage_bytes).
  std::function<std::uint64_t(const FormatParameters&, label n_rows, std::int64_t nnz)> storage_bytes{};
  /// Build the struct. @throws std::invalid_argument when the format does not apply to the matrix
  std::function<StoredFormat(FormatBuildInput)> build{};
  /// Build the struct straight from the rows, its value map written as it goes (no CSR in between:
  /// one pass, and neither the CSR nor its slot map held beside the format); null: the registry
  /// builds the CSR and calls build. Set-up takes it where nothing is tuned.
  std::function<StoredFormat(FormatRowsInput)> build_rows{};
  /// The struct's shape from the rows' lengths, its arrays left empty for a backend that builds
  /// them on its own device from the rows (the CUDA unit's place_rows): the host holds neither the
  /// arrays nor the value map. null: the format is built on the host only.
  std::function<StoredFormat(FormatShapeInput)> build_shape{};
  /// The reference kernel y = A x; null: the format has no reference kernel (a library baseline).
  ReferenceMultiply multiply{};
  /// Y = A X for k vectors interleaved by row (linalg/block_vectors.hpp: 1 <= k <=
  /// max_block_vectors), the matrix read once; null: the format multiplies one vector at a time.
  std::function<void(const StoredFormat&, int k, std::span<const double> x, std::span<double> y)> multiply_block{};
  /// y = A x and x . y in one pass; null: multiply, then a dot product.
  std::function<double(const StoredFormat&, std::span<const double> x, std::span<double> y)> multiply_dot{};
  /// One fused CG pass (reference::symmetric_cg_sweep's contract); null: the reference CG's usual steps.
  std::function<reference::CgSweepSums(const StoredFormat&, double alpha, double beta, std::span<double> x,
                                       std::span<double> r, std::span<double> p, std::span<double> q, bool jacobi)>
      cg_sweep{};
};

/// A CSR-sized format's bytes: a value, a column and a slot per entry, an offset per row.
inline std::uint64_t csr_storage_bytes(label n_rows, std::int64_t nnz) {
  return 16 * static_cast<std::uint64_t>(nnz > 0 ? nnz : 0) +
         8 * (static_cast<std::uint64_t>(n_rows > 0 ? n_rows : 0) + 1);
}

/// A ReferenceMultiply calling kernel(format.as<T>(), x, y).
template <class T, void (*Kernel)(const T&, std::span<const double>, std::span<double>)>
void multiply_as(const StoredFormat& format, std::span<const double> x, std::span<double> y) {
  Kernel(format.as<T>(), x, y);
}

/// A multiply_block calling kernel(format.as<T>(), k, x, y).
template <class T, void (*Kernel)(const T&, int, std::span<const double>, std::span<double>)>
void multiply_block_as(const StoredFormat& format, int k, std::span<const double> x, std::span<double> y) {
  Kernel(format.as<T>(), k, x, y);
}

}  // namespace fvmmini
