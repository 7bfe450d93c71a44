#pragma once
// When the builders and the reference kernels go parallel: below this many rows a parallel region costs
// more than the loop (and, on a busy machine, a thread barrier can cost milliseconds).

#include <cstddef>

namespace fvmmini {

inline constexpr std::ptrdiff_t min_parallel_rows = 8192;

}  // namespace fvmmini
