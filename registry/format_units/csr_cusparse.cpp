// "csr-cusparse": the CSR arrays handed to cuSPARSE (a baseline: no reference kernel of its own).

#include "registry/format_unit.hpp"
#include "linalg/formats/csr_format.hpp"

namespace fvmmini {

const FormatUnit& format_unit_csr_cusparse() {
  static const FormatUnit unit{
      .name = "csr-cusparse",
      .summary = "cuSPARSE generic SpMV on the CSR arrays (a baseline: cuda only)",
      .build = [](FormatBuildInput in) -> StoredFormat { return build_csr_format(std::move(in.csr)); },
  };
  return unit;
}

}  // namespace fvmmini
