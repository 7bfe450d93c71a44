#pragma once
// The persisting-L2 window (CUDA's access policy window) over the vector an SpMV gathers: the
// lines of it that kernels touch stay in the part of L2 set aside for persisting accesses, so
// the matrix entries streaming past do not evict them. DeviceCg sets one over p for a solve
// (SolverSettings::l2_window), the benchmark over x. Plain C++: the CUDA types stay in the .cu.

#include <cstddef>

struct CUstream_st;
struct CUgraph_st;

namespace fvmmini::cuda {

/// What the current device allows: the most L2 it sets aside for persisting accesses and the
/// largest window (both 0 on a device without persisting L2).
struct PersistingL2 {
  std::size_t max_set_aside_bytes = 0;
  std::size_t max_window_bytes = 0;
};
PersistingL2 persisting_l2();

/// A window: its first byte, its length (0: none) and the fraction of its lines that may persist.
struct L2Window {
  const void* base = nullptr;
  std::size_t bytes = 0;
  double hit_ratio = 0.0;
  bool empty() const { return bytes == 0; }
  bool operator==(const L2Window&) const = default;
};

/// The window over [base, base + bytes) on the current device: the length capped at the largest
/// window, the hit ratio the largest set-aside over the length (at most 1); empty on a device
/// without persisting L2.
L2Window l2_window_over(const void* base, std::size_t bytes);

/// What `l2Window: auto` decides, for CG and Jacobi-PCG (DeviceSolver), for a gathered vector of
/// `bytes`: on when it takes more than a sixteenth and at most a third of the device's L2 (and
/// the device has persisting L2). H200, `tools/gpu-check l2window`, CM ordering, CG per
/// iteration: vectors of 4, 8 and 16 MB (the 80^3, 100^3, 128^3 boxes) gained up to 5 % and
/// lost at most 1 %; 64 MB ones (the 200^3 box, the polyhedral-like matrix) lost up to 16 %
/// with 15 MB set aside, 30-89 % with 37.5 MB. Smaller vectors are left alone (unmeasured: they
/// stay in L2 unaided, and a window costs calls per solve).
bool l2_window_pays(std::size_t bytes);

/// The L2 the device sets aside for persisting accesses now (0 outside an L2WindowScope).
std::size_t persisting_l2_set_aside_bytes();

/// `window` on every kernel node of `graph` (graphs replay kernels with their nodes' attributes).
void apply_l2_window(CUgraph_st* graph, const L2Window& window);

/// The window set on `stream` now (0: none).
std::size_t stream_l2_window_bytes(CUstream_st* stream);

/// Sets aside persisting L2 (the device's largest, at most the window's bytes) and sets `window` on `stream` for the scope's
/// life (nothing when it is empty); on leaving, clears the stream's window, returns persisting
/// lines to normal (cudaCtxResetPersistingL2Cache) and the set-aside to 0, so that no later work
/// on the device runs with less L2.
class L2WindowScope {
 public:
  L2WindowScope(CUstream_st* stream, const L2Window& window);
  ~L2WindowScope();
  L2WindowScope(const L2WindowScope&) = delete;
  L2WindowScope& operator=(const L2WindowScope&) = delete;

 private:
  CUstream_st* stream_;
  bool set_;
};

}  // namespace fvmmini::cuda
