#pragma once
// Copies between pageable host memory and the device. A pageable cudaMemcpy runs at about 5 GB/s
// on the GPU hosts measured (one H200's, 16 cores); a large copy goes instead through two pinned
// chunks that every OpenMP thread fills (or empties) while the other is in flight: 15 to 20 GB/s
// there. A run at 64 M cells uploads about 13 GB of formats and fields at set-up.

#include <cstddef>
#include <cstdint>

namespace fvmmini::cuda {

/// Whether a copy of `bytes` goes through the pinned chunks (else one cudaMemcpy).
bool staged_transfer(std::size_t bytes);

/// The size of one pinned chunk: a staged copy of more bytes takes several.
std::size_t transfer_chunk_bytes();

/// Host -> device, complete on return. A staged copy first waits for all queued device work; a
/// plain one is a cudaMemcpy (ordered after the blocking streams' work).
void copy_to_device(void* device, const void* host, std::size_t bytes);

/// Host 64-bit integers -> device 32-bit ones, complete on return, ordered as copy_to_device: the
/// narrowing runs in the pinned chunks' fill, so no narrowed copy is made on the host. False where
/// a value does not fit in 32 bits (the device's copy is then incomplete).
bool copy_narrowed_to_device(std::int32_t* device, const std::int64_t* host, std::size_t count);

/// Device -> host, complete on return; ordered as copy_to_device.
void copy_to_host(void* host, const void* device, std::size_t bytes);

}  // namespace fvmmini::cuda
