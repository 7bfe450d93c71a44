// "sell": SELL-C-sigma (Kreutzer et al. 2014).

#include "kernels/reference/sell_spmv.hpp"
#include "registry/format_unit.hpp"
#include "registry/format_units/sell_parameters.hpp"
#include "linalg/formats/sell_matrix.hpp"

namespace fvmmini {

ParameterSpec sell_chunk_size_parameter() {
  return {.key = "chunkSize",
          .type = ParameterSpec::Type::integer,
          .default_value = "32",
          .min = 1,
          .max = 2147483647,
          .doc = "the chunk height C (rows per chunk)",
          .test_values = {"1", "4", "32", "64"}};
}

const FormatUnit& format_unit_sell() {
  static const FormatUnit unit{
      .name = "sell",
      .summary = "SELL-C-sigma: rows sorted by length within windows of sigma, chunks of C rows",
      .parameters = {sell_chunk_size_parameter(),
                     {.key = "sortWindow",
                      .type = ParameterSpec::Type::integer,
                      .default_value = "1024",
                      .min = 1,
                      .max = 2147483647,
                      .doc = "rows are sorted by length within windows of sigma rows (1: no sort)",
                      .test_values = {"1", "8", "1024"}}},
      .build = [](FormatBuildInput in) -> StoredFormat {
        return build_sell(in.csr, in.parameters.integer("chunkSize"), in.parameters.integer("sortWindow"));
      },
      .multiply = multiply_as<SellMatrix, reference::sell_spmv>,
  };
  return unit;
}

}  // namespace fvmmini
