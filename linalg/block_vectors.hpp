#pragma once
// Several vectors at once (the three velocity components of one momentum matrix): k vectors of n
// rows stored interleaved by row, x[i * k + j], so that a kernel reading row i's entries once
// applies them to every vector. The most vectors the multi-vector kernels of both backends take.

#include <stdexcept>
#include <string>

namespace fvmmini {

inline constexpr int max_block_vectors = 3;

/// fn.template operator()<K>() with K = k, 1 <= k <= max_block_vectors.
/// @throws std::invalid_argument for any other k
template <class Fn>
void dispatch_block(int k, Fn&& fn) {
  switch (k) {
    case 1: return fn.template operator()<1>();
    case 2: return fn.template operator()<2>();
    case 3: return fn.template operator()<3>();
    default:
      throw std::invalid_argument("multi-vector SpMV of " + std::to_string(k) + " vectors (1 to " +
                                  std::to_string(max_block_vectors) + ")");
  }
}

}  // namespace fvmmini
