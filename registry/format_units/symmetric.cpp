// "symmetric": the diagonal and the upper triangle, each off-diagonal pair once, with a one-pass
// fused CG (reference backend only).

#include "kernels/reference/symmetric_spmv.hpp"
#include "registry/format_unit.hpp"
#include "linalg/formats/symmetric_matrix.hpp"

namespace fvmmini {

const FormatUnit& format_unit_symmetric() {
  static const FormatUnit unit{
      .name = "symmetric",
      .summary = "diagonal + upper triangle in CSR, each off-diagonal pair once; one-pass fused CG (reference only)",
      .symmetric_only = true,
      .build = [](FormatBuildInput in) -> StoredFormat { return build_symmetric(in.csr); },
      .multiply =
          [](const StoredFormat& f, std::span<const double> x, std::span<double> y) {
            reference::symmetric_spmv(f.as<SymmetricMatrix>(), x, y);
          },
      .multiply_dot = [](const StoredFormat& f, std::span<const double> x,
                         std::span<double> y) { return reference::symmetric_spmv(f.as<SymmetricMatrix>(), x, y); },
      .cg_sweep = [](const StoredFormat& f, double alpha, double beta, std::span<double> x, std::span<double> r,
                     std::span<double> p, std::span<double> q, bool jacobi) {
        return reference::symmetric_cg_sweep(f.as<SymmetricMatrix>(), alpha, beta, x, r, p, q, jacobi);
      },
  };
  return unit;
}

}  // namespace fvmmini
