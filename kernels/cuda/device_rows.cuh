#pragma once
// P A P^T on the device a row at a time, for formats whose arrays are built there from the mesh's
// LDU matrix (PreparedFormat::arrays_on_device): the rows' pattern (each entry's column in the
// operator's numbering and the face it comes from, in the order of the host's PermutedRows), the
// coefficients, and the map from each LDU coefficient to its slot in the format's values. The host
// then holds the format's shape only, and uploads the LDU (32 bytes a hexahedral cell) instead of
// the format and its map (140).

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/device_matrix.hpp"
#include "kernels/cuda/device_memory.cuh"
#include "linalg/formats/stored_format.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini::cuda {

/// The CSR pattern of P A P^T on the device: each row's diagonal and one entry a face end, sorted by
/// column (ties, two faces between one pair of cells, by face); face -1 marks the diagonal.
struct DeviceRowPattern {
  int n_rows = 0;
  DeviceBuffer<int> row_ptr, col, face;
  int widest = 0;  ///< the most off-diagonal entries of a row
};

/// The pattern from an addressing on the device (lower and upper of `faces` faces; old_to_new null
/// for the identity): each row's entries counted and placed from the faces, then sorted.
/// Synchronises `stream`.
DeviceRowPattern device_row_pattern(int n_rows, int faces, const int* lower, const int* upper, const int* old_to_new,
                                    cudaStream_t stream);

/// LduToCsrMap on the device: mesh rows and faces -> slots of a format's values.
struct DeviceSlotMap {
  DeviceBuffer<std::int64_t> diag, upper, lower;
};

/// What a CUDA format unit places (DeviceFormatUnit::place_rows), all on the device.
struct DeviceRows {
  const DeviceRowPattern* pattern = nullptr;  ///< P A P^T's rows in the operator's numbering
  const int* lower = nullptr;       ///< per face its lower (owner) cell: the row that takes its upper coefficient
  const int* new_to_old = nullptr;  ///< the operator's row -> the mesh's
  /// The LDU's coefficients in the mesh's numbering (lower_coeffs null: symmetric); all null: the
  /// slots alone are placed
  const double* diag = nullptr;
  const double* upper = nullptr;
  const double* lower_coeffs = nullptr;
};

/// Whether `format`'s CUDA unit builds its arrays on the device (DeviceFormatUnit::place_rows).
bool places_rows_on_device(const std::string& format);

/// The arrays of `shape` (the struct without them that the format unit made: FormatUnit::build_shape)
/// built on the device from `matrix` in op's numbering; `map` receives every coefficient's slot.
/// @throws std::invalid_argument for a format whose CUDA unit does not place rows
DeviceMatrix build_on_device(const std::string& format, const StoredFormat& shape, const FormatParameters& parameters,
                             const LduMatrix& matrix, const Permutation& op, DeviceSlotMap& map);

/// The slot map alone, as build_on_device writes it for a matrix on `addressing` (a refresh of
/// the face coefficients after the map was released).
DeviceSlotMap slots_on_device(const std::string& format, const StoredFormat& shape, const LduAddressing& addressing,
                              const Permutation& op);

}  // namespace fvmmini::cuda
