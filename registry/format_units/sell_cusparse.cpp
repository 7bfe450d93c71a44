// "sell-cusparse": cuSPARSE's sliced ELL on the SELL layout, unsorted (a baseline: no reference
// kernel of its own).

#include "registry/format_unit.hpp"
#include "registry/format_units/sell_parameters.hpp"
#include "linalg/formats/sell_matrix.hpp"

namespace fvmmini {

namespace {
ParameterSpec chunk_size() {
  ParameterSpec spec = sell_chunk_size_parameter();
  spec.test_values = {"4", "32"};
  return spec;
}
}  // namespace

const FormatUnit& format_unit_sell_cusparse() {
  static const FormatUnit unit{
      .name = "sell-cusparse",
      .summary = "cuSPARSE SpMV on sliced ELL, rows unsorted (a baseline: cuda only)",
      .parameters = {chunk_size()},
      .storage_bytes = [](const FormatParameters& p, label n_rows, std::int64_t nnz) {
        return sell_storage_bytes(n_rows, nnz, p.integer("chunkSize"));
      },
      // cuSPARSE's sliced ELL has no row permutation: no sorting (sigma = 1)
      .build = [](FormatBuildInput in) -> StoredFormat {
        return build_sell(in.csr, in.parameters.integer("chunkSize"), 1);
      },
  };
  return unit;
}

}  // namespace fvmmini
