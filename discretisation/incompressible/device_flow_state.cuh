#pragma once
// The fields of a flow step resident on the GPU: made there at the start (FlowOperators::
// initial_state's, without a host copy to upload) and copied back to the host
// (FlowStep::state()); shared by the projection's device step and PISO's.

#include <array>

#include "discretisation/incompressible/flow_operators.hpp"
#include "kernels/cuda/device_memory.cuh"

namespace fvmmini {

/// The initial fields on the device, FlowOperators::initial_state's: U and p uniform (the ghosts
/// too), grad p zero, each face's flux of the interpolated U (initial_flux), each buffer sized
/// here. F and C are the step's device views of ops' face and cell data. Queued on the default
/// stream, complete on return.
/// @return the Courant number of the fluxes for dt = 1 over all ranks (total_volume: all ranks')
CourantNumber make_initial_flow_state(const FlowOperators& ops, const flow::Faces& F, const flow::Cells& C,
                                      double total_volume, std::array<cuda::DeviceBuffer<double>, 3>& velocity,
                                      cuda::DeviceBuffer<double>& pressure, cuda::DeviceBuffer<Vec3>& grad_p,
                                      cuda::DeviceBuffer<double>& flux);

/// `out` = the device fields, each as long as its buffer, once the work queued on `stream` is done.
inline void download_flow_state(const std::array<cuda::DeviceBuffer<double>, 3>& velocity,
                                const cuda::DeviceBuffer<double>& pressure, const cuda::DeviceBuffer<Vec3>& grad_p,
                                const cuda::DeviceBuffer<double>& flux, cudaStream_t stream, FlowState& out) {
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (int i = 0; i < 3; ++i) {
    out.velocity[i].resize(velocity[i].size());
    velocity[i].download(out.velocity[i]);
  }
  out.pressure.resize(pressure.size());
  pressure.download(out.pressure);
  out.pressure_gradient.resize(grad_p.size());
  grad_p.download(out.pressure_gradient);
  out.flux.resize(flux.size());
  flux.download(out.flux);
}

}  // namespace fvmmini
