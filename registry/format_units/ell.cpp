// "ell": ELLPACK, every row padded to the longest.

#include "kernels/reference/ell_spmv.hpp"
#include "registry/format_unit.hpp"
#include "linalg/formats/ell_matrix.hpp"

namespace fvmmini {

const FormatUnit& format_unit_ell() {
  static const FormatUnit unit{
      .name = "ell",
      .summary = "ELLPACK: every row padded to the longest row, stored column-major",
      .build = [](FormatBuildInput in) -> StoredFormat { return build_ell(in.csr); },
      .multiply = multiply_as<EllMatrix, reference::ell_spmv>,
      .multiply_block = multiply_block_as<EllMatrix, reference::ell_spmv_block>,
  };
  return unit;
}

}  // namespace fvmmini
