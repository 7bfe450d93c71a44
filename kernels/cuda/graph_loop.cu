// The while loops of GraphExec::capture_while: a conditional while node (CUDA 12.4+) whose
// handle a one-thread kernel sets from a device flag, before the node and at the end of each
// pass of its body; and the switch that turns them off (FVMMINI_DEVICE_LOOP).

#include "kernels/cuda/device_memory.cuh"

#include <cstdlib>
#include <string>
#include <string_view>

#include "kernels/cuda/cuda_backend.hpp"

namespace fvmmini::cuda {

namespace {

__global__ void test_flag(cudaGraphConditionalHandle handle, const int* flag, int value) {
  cudaGraphSetConditional(handle, *flag == value ? 1u : 0u);
}

}  // namespace

bool device_loops_enabled() {
  const char* value = std::getenv("FVMMINI_DEVICE_LOOP");
  if (!value || std::string_view(value) == "on") return true;
  if (std::string_view(value) == "off") return false;
  throw CudaError(std::string("FVMMINI_DEVICE_LOOP='") + value + "': expected on or off");
}

bool begin_while_loop(cudaStream_t stream, const int* flag, int value, WhileLoop& loop) {
  loop = WhileLoop{};
  if (!device_loops_enabled()) return false;
  cudaGraph_t graph = nullptr;
  const auto give_up = [&] {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    loop = WhileLoop{};
    return false;
  };
  if (cudaGraphCreate(&graph, 0) != cudaSuccess) return give_up();
  cudaGraphConditionalHandle handle{};
  if (cudaGraphConditionalHandleCreate(&handle, graph, 0, 0) != cudaSuccess) return give_up();
  // --- the test before the first pass
  void* args[] = {&handle, const_cast<int**>(&flag), &value};
  cudaKernelNodeParams test{};
  test.func = reinterpret_cast<void*>(test_flag);
  test.gridDim = dim3(1);
  test.blockDim = dim3(1);
  test.kernelParams = args;
  cudaGraphNode_t test_node = nullptr;
  if (cudaGraphAddKernelNode(&test_node, graph, nullptr, 0, &test) != cudaSuccess) return give_up();
  // --- the loop, its body captured from `stream`
  cudaGraphNodeParams node{};
  node.type = cudaGraphNodeTypeConditional;
  node.conditional.handle = handle;
  node.conditional.type = cudaGraphCondTypeWhile;
  node.conditional.size = 1;
  cudaGraphNode_t while_node = nullptr;
  if (cudaGraphAddNode(&while_node, graph, &test_node, nullptr, 1, &node) != cudaSuccess) return give_up();
  cudaGraph_t body = node.conditional.phGraph_out[0];
  if (cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    return give_up();
  loop = {graph, body, handle};
  return true;
}

void end_while_pass(const WhileLoop& loop, const int* flag, int value, cudaStream_t stream) {
  test_flag<<<1, 1, 0, stream>>>(loop.handle, flag, value);
  FVMMINI_CUDA_CHECK_LAUNCH(test_flag);
}

}  // namespace fvmmini::cuda
