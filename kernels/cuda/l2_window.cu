#include "kernels/cuda/l2_window.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"

namespace fvmmini::cuda {

namespace {

cudaAccessPolicyWindow policy_of(const L2Window& w) {
  cudaAccessPolicyWindow p{};
  p.base_ptr = const_cast<void*>(w.base);
  p.num_bytes = w.bytes;
  p.hitRatio = static_cast<float>(w.hit_ratio);
  p.hitProp = cudaAccessPropertyPersisting;
  p.missProp = cudaAccessPropertyStreaming;
  return p;
}

}  // namespace

PersistingL2 persisting_l2() {
  int device = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  int set_aside = 0, window = 0;
  FVMMINI_CUDA_CHECK(cudaDeviceGetAttribute(&set_aside, cudaDevAttrMaxPersistingL2CacheSize, device));
  FVMMINI_CUDA_CHECK(cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, device));
  return {static_cast<std::size_t>(set_aside), static_cast<std::size_t>(window)};
}

L2Window l2_window_over(const void* base, std::size_t bytes) {
  const PersistingL2 device = persisting_l2();
  if (device.max_set_aside_bytes == 0 || device.max_window_bytes == 0 || bytes == 0) return {};
  L2Window w;
  w.base = base;
  w.bytes = std::min(bytes, device.max_window_bytes);
  w.hit_ratio = std::min(1.0, static_cast<double>(device.max_set_aside_bytes) / static_cast<double>(w.bytes));
  return w;
}

bool l2_window_pays(std::size_t bytes) {
  int device = 0, l2 = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  FVMMINI_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const auto cache = static_cast<std::size_t>(l2);
  return persisting_l2().max_set_aside_bytes > 0 && bytes > cache / 16 && bytes <= cache / 3;
}

std::size_t persisting_l2_set_aside_bytes() {
  std::size_t bytes = 0;
  FVMMINI_CUDA_CHECK(cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize));
  return bytes;
}

void apply_l2_window(CUgraph_st* graph, const L2Window& window) {
  std::size_t count = 0;
  FVMMINI_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) FVMMINI_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  cudaLaunchAttributeValue value{};
  value.accessPolicyWindow = policy_of(window);
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    FVMMINI_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel)
      FVMMINI_CUDA_CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeAccessPolicyWindow, &value));
  }
}

std::size_t stream_l2_window_bytes(CUstream_st* stream) {
  cudaLaunchAttributeValue value{};
  FVMMINI_CUDA_CHECK(cudaStreamGetAttribute(stream, cudaLaunchAttributeAccessPolicyWindow, &value));
  return value.accessPolicyWindow.num_bytes;
}

L2WindowScope::L2WindowScope(CUstream_st* stream, const L2Window& window) : stream_(stream), set_(!window.empty()) {
  if (!set_) return;
  // no more set aside than the window can fill: the rest of L2 stays normal
  const std::size_t set_aside = std::min(persisting_l2().max_set_aside_bytes, window.bytes);
  FVMMINI_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside));
  cudaLaunchAttributeValue value{};
  value.accessPolicyWindow = policy_of(window);
  FVMMINI_CUDA_CHECK(cudaStreamSetAttribute(stream_, cudaLaunchAttributeAccessPolicyWindow, &value));
}

L2WindowScope::~L2WindowScope() {
  if (!set_) return;
  // --- no throw from a destructor: a failure here shows at the next checked call
  cudaLaunchAttributeValue value{};
  value.accessPolicyWindow.num_bytes = 0;
  cudaStreamSetAttribute(stream_, cudaLaunchAttributeAccessPolicyWindow, &value);
  cudaCtxResetPersistingL2Cache();
  // a set-aside left in place costs every later kernel that L2 (H200: the 200^3 box's staircase
  // SpMV fell from 95 to 59 % of copy bandwidth in the same process)
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
}

}  // namespace fvmmini::cuda
