#pragma once
// The flow's operators made on the GPU from the mesh, lists and geometry already there
// (DeviceMeshGeometry), on one rank: the faces' weights, Laplacian coefficients, boundary
// velocities and Rhie-Chow times, the cells' gather lists, and the Helmholtz and pressure matrices
// with their boundary sources and the reference cell's pin. Each array is the host's
// FlowOperators' to the bit: the same formulas (face_interpolation.hpp, laplacian_formulas.hpp,
// flow_formulas.hpp), summed in the same order, compiled without contracted multiply-adds.
// The least-squares weights of the projection's velocity gradients are not made here (cells().lsq
// is null): a flow that needs them keeps the host's operators.
//
// Issue 67's next stage: the device steps still upload the host's arrays; these are made and
// tested against them (tests/cuda/test_device_flow_operators.cpp).

#include <array>
#include <memory>

#include "discretisation/device_mesh_check.hpp"
#include "discretisation/incompressible/flow_formulas.hpp"
#include "discretisation/incompressible/flow_operators.hpp"

namespace fvmmini {

/// A symmetric LDU matrix's coefficients in device memory.
struct DeviceLduView {
  const double* diag = nullptr;   ///< one per cell
  const double* upper = nullptr;  ///< one per internal face
};

class DeviceFlowOperators {
 public:
  /// @param on_device the mesh's lists and geometry (outlives this object)
  /// @param reference_cell the cell whose pressure is pinned (FlowOperators::reference_cell), or -1
  /// @throws std::invalid_argument for a mesh with processor patches (one rank only) or a reference
  ///   cell out of range; CudaError
  DeviceFlowOperators(const DeviceMeshGeometry& on_device, const Mesh& mesh, const FlowBoundary& boundary,
                      const IncompressibleSettings& settings, label reference_cell);
  ~DeviceFlowOperators();
  DeviceFlowOperators(const DeviceFlowOperators&) = delete;
  DeviceFlowOperators& operator=(const DeviceFlowOperators&) = delete;

  /// Whether every face is orthogonal (FlowOperators::orthogonal).
  bool orthogonal() const;
  /// The face data in device memory, as the formulas take it; correction null on an orthogonal mesh.
  flow::Faces faces() const;
  /// The volumes and gather lists in device memory (lsq null).
  flow::Cells cells() const;
  /// nu L + V (V for dt = 1 until a step sets its own), as FlowOperators::helmholtz_system.
  DeviceLduView helmholtz() const;
  const double* helmholtz_base_diagonal() const;  ///< nu L's diagonal alone
  std::array<const double*, 3> momentum_boundary_source() const;
  /// -div grad with the reference cell's pin, as FlowOperators::pressure_system.
  DeviceLduView pressure() const;
  const double* pressure_source() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini
