// "dia": diagonal storage (CDS with 1x1 blocks: Godwin, Holewinski & Sadayappan 2012, README
// "References"). No column indices: only for matrices whose nonzeros lie on few diagonals, a
// structured mesh in natural ordering; any other matrix is declined with the reason.

#include "kernels/reference/dia_spmv.hpp"
#include "registry/format_unit.hpp"
#include "linalg/formats/dia_matrix.hpp"

namespace fvmmini {

const FormatUnit& format_unit_dia() {
  static const FormatUnit unit{
      .name = "dia",
      .summary = "diagonal storage, no column indices: structured meshes in natural ordering (ordering: none)",
      .parameters = {{.key = "maxDiagonals",
                      .type = ParameterSpec::Type::integer,
                      .default_value = "27",
                      .min = 1,
                      .max = 1000,
                      .doc = "the most distinct diagonals accepted (27: a 3-D 27-point stencil); more is a case error"}},
      .build = [](FormatBuildInput in) -> StoredFormat {
        return build_dia(in.csr, in.parameters.integer("maxDiagonals"));
      },
      .multiply = multiply_as<DiaMatrix, reference::dia_spmv>,
      .multiply_block = multiply_block_as<DiaMatrix, reference::dia_spmv_block>,
  };
  return unit;
}

}  // namespace fvmmini
