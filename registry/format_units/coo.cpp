// "coo": coordinate triples in row order.

#include "kernels/reference/coo_spmv.hpp"
#include "registry/format_unit.hpp"
#include "linalg/formats/coo_matrix.hpp"

namespace fvmmini {

const FormatUnit& format_unit_coo() {
  static const FormatUnit unit{
      .name = "coo",
      .summary = "coordinate triples (row, column, value) in row order",
      .build = [](FormatBuildInput in) -> StoredFormat { return build_coo(in.csr); },
      .multiply = multiply_as<CooMatrix, reference::coo_spmv>,
  };
  return unit;
}

}  // namespace fvmmini
