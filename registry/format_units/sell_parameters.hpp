#pragma once
// The SELL-C-sigma chunk height, a key both "sell" and "sell-cusparse" read.

#include "linalg/formats/format_parameters.hpp"

namespace fvmmini {

/// chunkSize: the chunk height C.
ParameterSpec sell_chunk_size_parameter();

}  // namespace fvmmini
