// "ellwarp": ELL-WARP (Wong, Kuhl & Darve, README "References"): rows sorted by length, warp-sized
// slices; kernel K1 (a thread per row) or K2 (long rows split over several lanes); the paper's
// "r" variant renumbers x and y by the sort (a symmetric permutation: no scatter of y), "rs" also
// sorts each row's columns.

#include <string>

#include "kernels/reference/ellwarp_spmv.hpp"
#include "registry/format_unit.hpp"
#include "linalg/formats/ellwarp_matrix.hpp"

namespace fvmmini {

namespace {
bool renumbered(const FormatParameters& p) { return p.word("variant") != "plain"; }
constexpr int default_threshold = 8;
}  // namespace

const FormatUnit& format_unit_ellwarp() {
  static const FormatUnit unit{
      .name = "ellwarp",
      .summary = "ELL-WARP: rows sorted by length, warp-sized slices; K1 a thread per row, K2 long rows over "
                 "several lanes",
      .parameters =
          {{.key = "kernel",
            .type = ParameterSpec::Type::word,
            .default_value = "k1",
            .words = {"k1", "k2"},
            .doc = "k1: a thread per row; k2: rows longer than threshold split over 2, 4, .. 32 lanes of a warp",
            .test_values = {"k1", "k2"}},
           {.key = "threshold",
            .type = ParameterSpec::Type::integer,
            .default_value = std::to_string(default_threshold),
            .words = {"auto"},
            .min = 1,
            .max = 1024,
            .doc = "k2: the most entries one lane sums (k1 has none: shown as the default); auto: the fastest of "
                   "2, 4, 8, 16, 32 timed on the matrix at set-up",
            .test_values = {"2", "8"},
            .tune_values = {"2", "4", "8", "16", "32"}},
           {.key = "variant",
            .type = ParameterSpec::Type::word,
            .default_value = "r",
            .words = {"plain", "r", "rs"},
            .doc = "plain: rows sorted inside the format, y scattered; r: x and y renumbered by the sort; rs: r "
                   "with each row's columns ascending (fvmmini's CSR already has them so)",
            .test_values = {"plain", "r", "rs"}},
           {.key = "visit",
            .type = ParameterSpec::Type::word,
            .default_value = "position",
            .words = {"position", "storage"},
            .doc = "cuda: slices visited by their place in the mesh (one block sums one stretch of it) or in "
                   "storage order (the paper)",
            .test_values = {"position", "storage"}}},
      .row_grouping = [](const FormatParameters& p, std::span<const label>) {
        return renumbered(p) ? RowGrouping::by_length_descending : RowGrouping::none;
      },
      // k1 reads no threshold: one value, so that tuning it times one setting
      .resolve = [](FormatParameters p, label) {
        if (p.word("kernel") == "k1") p.set("threshold", default_threshold);
        return p;
      },
      .build = [](FormatBuildInput in) -> StoredFormat {
        const FormatParameters& p = in.parameters;
        EllWarpParameters parameters;
        parameters.kernel = p.word("kernel") == "k2" ? EllWarpKernel::k2 : EllWarpKernel::k1;
        parameters.threshold = p.integer("threshold");
        parameters.sort_columns = p.word("variant") == "rs";
        parameters.visit_by_position = p.word("visit") == "position";
        EllWarpMatrix m = build_ellwarp(in.csr, parameters);
        // --- renumbered: the rows arrive sorted; their places in the mesh come from the registry
        if (renumbered(p) && parameters.visit_by_position)
          m.slice_position = ellwarp_slice_positions(m, in.position_before_grouping);
        return m;
      },
      .multiply = multiply_as<EllWarpMatrix, reference::ellwarp_spmv>,
  };
  return unit;
}

}  // namespace fvmmini
