#pragma once
// The byte counts both benches measure against: the one definition of an SpMV's minimum traffic
// and of a CG iteration's floor. (CG time per iteration, the other side of the ratio:
// tools/bench/cg_timing.hpp.)

#include <cstdint>

namespace fvmmini::bench {

/// The format-independent minimum of an SpMV of k vectors at once: each nonzero's value and column
/// index once, the k vectors x once and y once, a 4-byte row pointer per row.
inline double spmv_min_bytes(std::int64_t n, std::int64_t nnz, int k = 1) {
  return static_cast<double>(nnz) * (8.0 + 4.0) + static_cast<double>(n) * (16.0 * k + 4.0) + 4.0;
}
inline constexpr const char* spmv_min_bytes_text =
    "nnz*(8+4) + n*(8k+8k+4) + 4: values and column indices once, the k vectors x and y once, a 4-byte row "
    "pointer";

/// The floor of one CG iteration: the SpMV minimum plus 7 vector passes of 8n bytes (x, r, p
/// read and written, q read once), plus the inverse diagonal read once for Jacobi.
inline double cg_floor_bytes(std::int64_t n, std::int64_t nnz, bool jacobi) {
  return spmv_min_bytes(n, nnz) + (jacobi ? 8.0 : 7.0) * 8.0 * static_cast<double>(n);
}
inline constexpr const char* cg_floor_text =
    "SpMV minimum bytes + 7 vector passes of 8n bytes (8 with Jacobi: the inverse diagonal), at the copy bandwidth";

}  // namespace fvmmini::bench
