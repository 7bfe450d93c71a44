// "sell": SELL-C-sigma (Kreutzer et al. 2014).

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/reference/sell_spmv.hpp"
#include "registry/format_unit.hpp"
#include "registry/format_units/sell_parameters.hpp"
#include "linalg/formats/sell_matrix.hpp"

namespace fvmmini {

ParameterSpec sell_chunk_size_parameter() {
  return {.key = "chunkSize",
          .type = ParameterSpec::Type::integer,
          .default_value = "32",
          .words = {"auto"},
          .min = 1,
          .max = 2147483647,
          .doc = "the chunk height C (rows per chunk); auto: the fastest of 16, 32, 64, 128 timed on the matrix "
                 "at set-up",
          .test_values = {"1", "4", "32", "64"},
          .tune_values = {"16", "32", "64", "128"}};
}

std::uint64_t sell_storage_bytes(label n_rows, std::int64_t nnz, int chunk_size) {
  if (n_rows <= 0 || chunk_size <= 0) return csr_storage_bytes(n_rows, nnz);
  // --- in floating point: a chunk height near 2^31 times a row's width times 12 bytes is past 64 bits
  const double n = n_rows, c = chunk_size;
  const double chunks = std::ceil(n / c);
  const double width = std::ceil(static_cast<double>(nnz) / n);  // the mean row, rounded up
  const double stored = std::max(static_cast<double>(nnz), chunks * c * width);
  const double bytes = 12.0 * stored + 4.0 * static_cast<double>(nnz) + 8.0 * (chunks + 1) + 4.0 * n;
  return bytes >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(bytes);
}

const FormatUnit& format_unit_sell() {
  static const FormatUnit unit{
      .name = "sell",
      .summary = "SELL-C-sigma: rows sorted by length within windows of sigma, chunks of C rows",
      .parameters = {sell_chunk_size_parameter(),
                     {.key = "sortWindow",
                      .type = ParameterSpec::Type::integer,
                      .default_value = "1024",
                      .words = {"auto"},
                      .min = 1,
                      .max = 2147483647,
                      .doc = "rows are sorted by length within windows of sigma rows (1: no sort); auto: the "
                             "fastest of 1, 32, 1024, 32768 timed on the matrix at set-up",
                      .test_values = {"1", "8", "1024"},
                      .tune_values = {"1", "32", "1024", "32768"}}},
      .storage_bytes = [](const FormatParameters& p, label n_rows, std::int64_t nnz) {
        return sell_storage_bytes(n_rows, nnz, p.integer("chunkSize"));
      },
      .build = [](FormatBuildInput in) -> StoredFormat {
        return build_sell(in.csr, in.parameters.integer("chunkSize"), in.parameters.integer("sortWindow"));
      },
      .multiply = multiply_as<SellMatrix, reference::sell_spmv>,
      .multiply_block = multiply_block_as<SellMatrix, reference::sell_spmv_block>,
  };
  return unit;
}

}  // namespace fvmmini
