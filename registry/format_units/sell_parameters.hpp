#pragma once
// The SELL-C-sigma chunk height, a key both "sell" and "sell-cusparse" read.

#include <cstdint>

#include "linalg/formats/format_parameters.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

/// chunkSize: the chunk height C.
ParameterSpec sell_chunk_size_parameter();

/// The bytes of SELL with chunks of chunk_size rows for n_rows rows of nnz entries, rows of the
/// mean length: the last chunk is padded to chunk_size rows, so a chunk height past the row count
/// stores chunk_size rows (chunkSize 2147483647 on a 2-cell mesh: about 48 GiB).
std::uint64_t sell_storage_bytes(label n_rows, std::int64_t nnz, int chunk_size);

}  // namespace fvmmini
