// "csr": compressed sparse row, the plain CsrMatrix plus its row-length figures.

#include "kernels/reference/csr_spmv.hpp"
#include "registry/format_unit.hpp"
#include "linalg/formats/csr_format.hpp"

namespace fvmmini {

namespace {
void multiply(const StoredFormat& f, std::span<const double> x, std::span<double> y) {
  reference::csr_spmv(f.as<CsrFormat>().matrix, x, y);
}
void multiply_block(const StoredFormat& f, int k, std::span<const double> x, std::span<double> y) {
  reference::csr_spmv_block(f.as<CsrFormat>().matrix, k, x, y);
}
}  // namespace

const FormatUnit& format_unit_csr() {
  static const FormatUnit unit{
      .name = "csr",
      .summary = "compressed sparse row (on the GPU a sub-warp per row sized from the row lengths)",
      .auto_on = {"reference"},
      .build = [](FormatBuildInput in) -> StoredFormat { return build_csr_format(std::move(in.csr)); },
      .multiply = multiply,
      .multiply_block = multiply_block,
  };
  return unit;
}

}  // namespace fvmmini
