#include "discretisation/incompressible/device_flow_state.cuh"

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini {

namespace {

#define FVMMINI_GRID_STRIDE(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

__global__ void initial_cells_kernel(label n, Vec3 u0, double p0, flow::Components<double> u, double* __restrict__ p,
                                     Vec3* __restrict__ grad_p) {
  FVMMINI_GRID_STRIDE(c, n) {
    for (int i = 0; i < 3; ++i) u.c[i][c] = u0[i];
    p[c] = p0;
    grad_p[c] = Vec3{};
  }
}

__global__ void initial_flux_kernel(flow::Faces F, flow::Components<const double> u, double* __restrict__ phi) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) { phi[f] = flow::initial_flux(F, u, f); }
}

/// Block partials of sum_c sum_f |phi| and of max_c sum_f |phi| / V (courant_sums').
__global__ void __launch_bounds__(cuda::reduce_block)
    courant_partials_kernel(flow::Cells C, const double* __restrict__ phi, double* __restrict__ sum_partials,
                            double* __restrict__ max_partials) {
  cuda::Sums<1> s{}, m{};
  FVMMINI_GRID_STRIDE(c, C.n) {
    const double flux_sum = flow::cell_absolute_flux(C, phi, c);
    s.v[0] += flux_sum;
    m.v[0] = fmax(m.v[0], flux_sum / C.volume[c]);
  }
  cuda::write_block_partials<1>(s, sum_partials, gridDim.x, blockIdx.x);
  __syncthreads();  // block_sum's shared memory is reused below
  cuda::write_block_partials<1, cuda::MaxOp>(m, max_partials, gridDim.x, blockIdx.x);
}

/// out = {the sum, the maximum} of the partials (one block, fixed order).
__global__ void __launch_bounds__(1024) courant_totals_kernel(const double* __restrict__ sum_partials,
                                                              const double* __restrict__ max_partials, int count,
                                                              double* __restrict__ out) {
  const cuda::Sums<1> s = cuda::reduce_partials<1>(sum_partials, count);
  __syncthreads();
  const cuda::Sums<1> m = cuda::reduce_partials<1, cuda::MaxOp>(max_partials, count);
  if (threadIdx.x != 0) return;
  out[0] = s.v[0];
  out[1] = m.v[0];
}

#undef FVMMINI_GRID_STRIDE

}  // namespace

CourantNumber make_initial_flow_state(const FlowOperators& ops, const flow::Faces& F, const flow::Cells& C,
                                      double total_volume, std::array<cuda::DeviceBuffer<double>, 3>& velocity,
                                      cuda::DeviceBuffer<double>& pressure, cuda::DeviceBuffer<Vec3>& grad_p,
                                      cuda::DeviceBuffer<double>& flux) {
  const label n_all = ops.cells_with_ghosts();
  for (auto& u : velocity) u = cuda::DeviceBuffer<double>(n_all);
  pressure = cuda::DeviceBuffer<double>(n_all);
  grad_p = cuda::DeviceBuffer<Vec3>(n_all);
  flux = cuda::DeviceBuffer<double>(F.n_faces);
  const int block = cuda::reduce_block;
  initial_cells_kernel<<<cuda::vector_grid(n_all), block>>>(n_all, ops.settings.initial_velocity,
                                                            ops.settings.initial_pressure,
                                                            {{velocity[0].data(), velocity[1].data(), velocity[2].data()}},
                                                            pressure.data(), grad_p.data());
  FVMMINI_CUDA_CHECK_LAUNCH(initial_cells_kernel);
  initial_flux_kernel<<<cuda::vector_grid(F.n_faces), block>>>(
      F, {{velocity[0].data(), velocity[1].data(), velocity[2].data()}}, flux.data());
  FVMMINI_CUDA_CHECK_LAUNCH(initial_flux_kernel);
  // --- the Courant number of these fluxes for dt = 1, as FlowOperators::courant_number sums it
  const int grid = cuda::vector_grid(C.n);
  cuda::DeviceBuffer<double> sum_partials(grid), max_partials(grid), totals(2);
  courant_partials_kernel<<<grid, block>>>(C, flux.data(), sum_partials.data(), max_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(courant_partials_kernel);
  courant_totals_kernel<<<1, 1024>>>(sum_partials.data(), max_partials.data(), grid, totals.data());
  FVMMINI_CUDA_CHECK_LAUNCH(courant_totals_kernel);
  std::array<double, 2> host{};
  totals.download(host);  // synchronous: the fields are complete too
  const double flux_sum = ops.comm.sum(host[0]), max_ratio = ops.comm.max(host[1]);
  return courant_from_sums(flux_sum, max_ratio, total_volume, 1.0);
}

}  // namespace fvmmini
