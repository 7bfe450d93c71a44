#pragma once
// precision: mixed. A matrix's float32 twin for the CG's iterations: the values in float32 in the
// float64 format's slots, and per ELL slice (a staircase slice, a sell chunk) its columns either as
// 16-bit offsets from the entry's row (when every entry of the slice has |column - row| < 2^15) or,
// falling back, the float64 format's own 32-bit columns, read in place. Sums stay in float64. A
// slice of 7-point rows then reads 6 bytes an entry instead of 12. Offsets fit where the ordering's
// bandwidth is below 2^15 (Cuthill-McKee on the 200^3 box: 30 100); a grouping by row length that
// moves boundary rows away from their neighbours (staircase) sends the slices that touch them to the
// fallback. The kernels' side: mixed_rows.cuh.

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernels/cuda/device_memory.cuh"

namespace fvmmini::cuda {

/// The offset a narrow slice stores for a padding entry (real offsets are within +-32767).
constexpr short narrow_padding = SHRT_MIN;

/// One ELLPACK slice: entry k of lane t at slot entry_start + k * lanes + t.
struct EllSlice {
  std::int64_t entry_start;
  int lanes;
  int length;
};

/// The columns of a float32 twin, built on the host.
struct NarrowColumns {
  std::vector<short> offsets;        ///< per slot of the float64 format: column - row in a narrow slice
  std::vector<unsigned char> narrow;  ///< per slice: 1 when its columns are offsets
  std::int64_t narrow_entries = 0;   ///< stored entries (padding included) of the narrow slices
  std::int64_t entries = 0;          ///< stored entries of all slices
};

/// The offsets of every slice whose entries all lie within 16 bits of their row. row_of(s, t): the
/// row of lane t of slice s (-1: a padding lane). col: the float64 format's columns (padding -1).
NarrowColumns narrow_columns(std::span<const int> col, std::span<const EllSlice> slices,
                             const std::function<int(std::size_t slice, int lane)>& row_of);

/// The float32 values and 16-bit offsets on the device, and what the twin's kernels read of its
/// float64 format (its columns for the wide slices, its values to refresh from).
class MixedEntries {
 public:
  MixedEntries(const NarrowColumns& columns, const int* col, const double* source_values, std::size_t slots);

  /// values = float(source values), on the stream (after the float64 values changed).
  void refresh(cudaStream_t stream);
  /// Bytes of the twin's own arrays.
  std::size_t bytes() const { return values_.bytes() + offsets_.bytes() + narrow_.bytes(); }
  /// Share of the stored entries whose column is a 16-bit offset.
  double narrow_fraction() const { return narrow_fraction_; }

  const float* values() const { return values_.data(); }
  const short* offsets() const { return offsets_.data(); }
  const unsigned char* narrow() const { return narrow_.data(); }
  const int* columns() const { return col_; }

 private:
  DeviceBuffer<float> values_;
  DeviceBuffer<short> offsets_;
  DeviceBuffer<unsigned char> narrow_;
  const int* col_;
  const double* source_;
  double narrow_fraction_;
};

}  // namespace fvmmini::cuda
