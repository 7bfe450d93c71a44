// "staircase": Staircase SELL (the Staircase SELL thesis (Wikberg 2025), README "References"): rows grouped by
// length after the ordering, each group cut into slices of sliceHeight rows.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "kernels/reference/staircase_spmv.hpp"
#include "registry/format_unit.hpp"
#include "linalg/formats/staircase_matrix.hpp"

namespace fvmmini {

namespace {
/// m with the interleaved launch's slice order, where the rows' places before the grouping are known.
StaircaseMatrix with_slice_positions(StaircaseMatrix m, std::span<const label> position_before_grouping) {
  if (!position_before_grouping.empty()) m.slice_position = staircase_slice_positions(m, position_before_grouping);
  return m;
}
}  // namespace

const FormatUnit& format_unit_staircase() {
  static const FormatUnit unit{
      .name = "staircase",
      .summary = "Staircase SELL: rows grouped by length, slices of sliceHeight rows, small groups merged by alpha",
      .parameters =
          {{.key = "sliceHeight",
            .type = ParameterSpec::Type::integer,
            .default_value = "32",
            .words = {"auto"},
            .min = 32,
            .max = 1024,
            .multiple_of = 32,
            .doc = "rows per slice (threads per block on the GPU); auto: the fastest of 32, 64, .. 1024 timed on "
                   "the matrix at set-up",
            .test_values = {"32", "64", "1024"},
            .tune_values = {"32", "64", "128", "256", "512", "1024"}},
           {.key = "alpha",
            .type = ParameterSpec::Type::real,
            .default_value = "0.01",
            .words = {"auto"},
            .min = 0,
            .max = 1,
            .min_inclusive = false,
            .doc = "row groups smaller than alpha x rows merge upward; below sliceHeight/rows it is raised to "
                   "that (a group is at least one slice); where every shorter length merges into the longest "
                   "(one padded group) the rows keep the ordering instead of being grouped by length, which "
                   "under precision mixed lets every slice of a banded ordering take 16-bit column offsets; "
                   "auto: the fastest of 0.001, 0.01, 0.1 timed on the matrix at set-up",
            .test_values = {"0.01", "1"},
            .tune_values = {"0.001", "0.01", "0.1"}},
           {.key = "launch",
            .type = ParameterSpec::Type::word,
            .default_value = "interleaved",
            .words = {"interleaved", "groups"},
            .doc = "cuda: interleaved (one launch over every slice, visited by their place in the mesh so that one "
                   "block sums one stretch of it in every group) or groups (Wikberg 2025: one launch per row-length "
                   "group, each on its own stream)",
            .test_values = {"interleaved", "groups"}}},
      .auto_on = {"cuda"},
      // one group (every shorter length merged into the longest, padded): the rows keep the ordering,
      // which sorting by length would only break (a box's boundary rows sent away from their
      // neighbours, so that no slice next to the boundary can take 16-bit column offsets)
      .row_grouping = [](const FormatParameters& p, std::span<const label> row_lengths) {
        if (p.is_word("sliceHeight") || p.is_word("alpha")) return RowGrouping::by_length_ascending;
        const std::vector<label> histogram(row_lengths.begin(), row_lengths.end());
        const label n_rows = std::accumulate(histogram.begin(), histogram.end(), label{0});
        return staircase_index(histogram, n_rows, p.integer("sliceHeight"), p.real("alpha")).n_groups() > 1
                   ? RowGrouping::by_length_ascending
                   : RowGrouping::none;
      },
      // one group where it pads at most 1 % more entries (a box's boundary rows): the rows keep the
      // ordering and every slice of a banded one takes 16-bit offsets (200^3 box, CM, H100: the
      // mixed SpMV 0.596 x double against 0.643 grouped, the CG 0.758 against 0.787)
      .narrow_keys = [](FormatParameters p, std::span<const label> row_lengths) {
        if (p.has("alpha") || row_lengths.empty()) return p;
        const auto longest = static_cast<label>(row_lengths.size()) - 1;
        std::int64_t shorter = 0, padding = 0, entries = 0;
        for (label k = 0; k <= longest; ++k) {
          entries += static_cast<std::int64_t>(k) * row_lengths[k];
          if (k < longest) {
            shorter += row_lengths[k];
            padding += static_cast<std::int64_t>(longest - k) * row_lengths[k];
          }
        }
        if (shorter == 0 || 100 * padding > entries) return p;
        p.set("alpha", std::min(1.0, (static_cast<double>(shorter) + 1.0) / static_cast<double>(shorter + row_lengths[longest])));
        return p;
      },
      // Wikberg (2025): alpha never below sh/n, so that no group is shorter than a slice
      .resolve = [](FormatParameters p, label n_rows) {
        const double lowest = static_cast<double>(p.integer("sliceHeight")) / std::max<label>(1, n_rows);
        p.set("alpha", std::min(1.0, std::max(p.real("alpha"), lowest)));
        return p;
      },
      .check = [](const FormatParameters& p,
                  label n_rows) { validate_staircase_parameters(n_rows, p.integer("sliceHeight"), p.real("alpha")); },
      .build = [](FormatBuildInput in) -> StoredFormat {
        return with_slice_positions(
            build_staircase(in.csr, in.parameters.integer("sliceHeight"), in.parameters.real("alpha")),
            in.position_before_grouping);
      },
      .build_rows = [](FormatRowsInput in) -> StoredFormat {
        return with_slice_positions(build_staircase(in.rows, in.parameters.integer("sliceHeight"),
                                                    in.parameters.real("alpha"), in.value_map),
                                    in.position_before_grouping);
      },
      .build_shape = [](FormatShapeInput in) -> StoredFormat {
        return with_slice_positions(staircase_shape(in.row_lengths, in.nnz, in.parameters.integer("sliceHeight"),
                                                    in.parameters.real("alpha")),
                                    in.position_before_grouping);
      },
      .multiply = multiply_as<StaircaseMatrix, reference::staircase_spmv>,
      .multiply_block = multiply_block_as<StaircaseMatrix, reference::staircase_spmv_block>,
  };
  return unit;
}

}  // namespace fvmmini
