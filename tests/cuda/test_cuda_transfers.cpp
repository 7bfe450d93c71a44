// Host <-> device copies (kernels/cuda/host_transfer): the staged path over several pinned chunks
// and a part-filled last one, against the bytes sent, into poisoned memory both ways; and the
// stream-ordered scratch buffers (kernels/cuda/device_memory) a build makes and drops; the device
// buffers' high-water mark the run summary reports.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/host_transfer.hpp"
#include "tests/cuda/cuda_test_support.hpp"

namespace fvmmini {
namespace {

using CudaTransfers = test::CudaTest;

std::vector<std::uint64_t> pattern(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> v(n);
  std::uint64_t x = seed;
  for (auto& e : v) e = x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return v;
}

TEST_F(CudaTransfers, EveryByteArrivesBothWaysStagedOrNot) {
  const std::size_t chunk = cuda::transfer_chunk_bytes() / sizeof(std::uint64_t);
  // one value; under the staged threshold; one chunk exactly; two chunks and a part of a third
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, chunk, 2 * chunk + 12345}) {
    const std::size_t bytes = n * sizeof(std::uint64_t);
    if (n >= chunk) {
      EXPECT_TRUE(cuda::staged_transfer(bytes)) << n;
    }
    const auto sent = pattern(n, n);
    cuda::DeviceBuffer<std::uint64_t> device(n);
    FVMMINI_CUDA_CHECK(cudaMemset(device.data(), 0xff, bytes));
    device.upload(sent);
    // --- check on the device's side with a plain copy, then back through download
    std::vector<std::uint64_t> plain(n, 0);
    FVMMINI_CUDA_CHECK(cudaMemcpy(plain.data(), device.data(), bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::memcmp(plain.data(), sent.data(), bytes), 0) << "upload of " << n << " values";
    std::vector<std::uint64_t> back(n, ~std::uint64_t{0});
    device.download(back);
    EXPECT_EQ(std::memcmp(back.data(), sent.data(), bytes), 0) << "download of " << n << " values";
  }
}

TEST_F(CudaTransfers, ANarrowedUploadArrivesStagedOrNotAndRefusesAValuePast32Bits) {
  const std::size_t chunk = cuda::transfer_chunk_bytes() / sizeof(std::int32_t);
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, chunk, 2 * chunk + 12345}) {
    const auto bits = pattern(n, n + 1);
    std::vector<std::int64_t> sent(n);  // every 32-bit value, both ends included
    for (std::size_t k = 0; k < n; ++k) sent[k] = static_cast<std::int64_t>(bits[k] >> 32) - (std::int64_t{1} << 31);
    sent[0] = -(std::int64_t{1} << 31);
    if (n > 1) sent[1] = (std::int64_t{1} << 31) - 1;
    cuda::DeviceBuffer<std::int32_t> device(n);
    FVMMINI_CUDA_CHECK(cudaMemset(device.data(), 0xff, device.bytes()));
    ASSERT_TRUE(cuda::copy_narrowed_to_device(device.data(), sent.data(), n)) << n;
    std::vector<std::int32_t> back(n, 0);
    FVMMINI_CUDA_CHECK(cudaMemcpy(back.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost));
    std::vector<std::int32_t> expected(sent.begin(), sent.end());
    EXPECT_EQ(back, expected) << n << " values";
    // --- one value past 32 bits, in the last chunk
    sent[n - 1] = std::int64_t{1} << 31;
    EXPECT_FALSE(cuda::copy_narrowed_to_device(device.data(), sent.data(), n)) << n;
    sent[n - 1] = -(std::int64_t{1} << 31) - 1;
    EXPECT_FALSE(cuda::copy_narrowed_to_device(device.data(), sent.data(), n)) << n;
  }
}

TEST_F(CudaTransfers, AStagedUploadWaitsForQueuedKernelsOnOtherStreams) {
  // a memset queued on a non-blocking stream over the buffer must land before the upload, not after
  const std::size_t n = 2 * cuda::transfer_chunk_bytes() / sizeof(std::uint64_t) + 7;
  const auto sent = pattern(n, 3);
  cuda::DeviceBuffer<std::uint64_t> device(n);
  cuda::Stream stream;
  for (int k = 0; k < 8; ++k)
    FVMMINI_CUDA_CHECK(cudaMemsetAsync(device.data(), k, device.bytes(), stream.get()));
  device.upload(sent);
  std::vector<std::uint64_t> back(n, 0);
  device.download(back);
  EXPECT_EQ(std::memcmp(back.data(), sent.data(), device.bytes()), 0);
}

TEST_F(CudaTransfers, StreamOrderedScratchHoldsItsDataAndThePoolIsEmptiedAfterTheBuild) {
  cudaMemPool_t pool = nullptr;
  int device = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  FVMMINI_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  const auto attribute = [&](cudaMemPoolAttr which) {
    std::uint64_t value = 0;
    FVMMINI_CUDA_CHECK(cudaMemPoolGetAttribute(pool, which, &value));
    return value;
  };
  const std::uint64_t threshold = attribute(cudaMemPoolAttrReleaseThreshold);
  cuda::Stream stream;
  const std::size_t n = 3 * cuda::transfer_chunk_bytes() / sizeof(std::uint64_t) + 5;
  const auto sent = pattern(n, 9);
  {
    const cuda::RetainedPool retained(stream.get());
    EXPECT_EQ(attribute(cudaMemPoolAttrReleaseThreshold), ~std::uint64_t{0});
    for (int round = 0; round < 3; ++round) {  // made and dropped, as a build's passes do
      cuda::DeviceBuffer<std::uint64_t> scratch(n, stream.get());
      EXPECT_TRUE(scratch.stream_ordered());
      cuda::DeviceBuffer<std::uint64_t> moved = std::move(scratch);
      EXPECT_TRUE(moved.stream_ordered());
      EXPECT_FALSE(scratch.stream_ordered());
      FVMMINI_CUDA_CHECK(cudaMemsetAsync(moved.data(), 0xff, moved.bytes(), stream.get()));
      FVMMINI_CUDA_CHECK(cudaMemcpyAsync(moved.data(), sent.data(), moved.bytes(), cudaMemcpyHostToDevice,
                                         stream.get()));
      std::vector<std::uint64_t> back(n, 0);
      FVMMINI_CUDA_CHECK(cudaMemcpyAsync(back.data(), moved.data(), moved.bytes(), cudaMemcpyDeviceToHost,
                                         stream.get()));
      stream.synchronize();
      EXPECT_EQ(std::memcmp(back.data(), sent.data(), moved.bytes()), 0) << "round " << round;
    }
    stream.synchronize();
    EXPECT_GE(attribute(cudaMemPoolAttrReservedMemCurrent), n * sizeof(std::uint64_t)) << "kept between rounds";
  }
  EXPECT_EQ(attribute(cudaMemPoolAttrReleaseThreshold), threshold);
  EXPECT_EQ(attribute(cudaMemPoolAttrReservedMemCurrent), 0u) << "emptied after the build";
}

// device_bytes_peak: the most held at once, plain and stream-ordered buffers alike, a moved buffer
// counted once; what is freed leaves the peak where it was.
TEST_F(CudaTransfers, ThePeakOfDeviceBytesCountsWhatIsHeldAtOnce) {
  const std::size_t mib = std::size_t{1} << 20;
  cuda::Stream stream;
  const std::size_t before = cuda::device_bytes_peak();
  std::size_t held = 0;  // (what was held before is at most `before`)
  {
    cuda::DeviceBuffer<char> a(before + 64 * mib);
    cuda::DeviceBuffer<char> b(32 * mib, stream.get());
    cuda::DeviceBuffer<char> moved = std::move(b);
    held = a.bytes() + moved.bytes();
    EXPECT_GE(cuda::device_bytes_peak(), held);
    EXPECT_LE(cuda::device_bytes_peak(), held + before) << "a moved buffer is counted once";
    stream.synchronize();
  }
  const std::size_t peak = cuda::device_bytes_peak();
  EXPECT_GE(peak, held);
  cuda::DeviceBuffer<char> small(mib);
  EXPECT_EQ(cuda::device_bytes_peak(), peak) << "the freed buffers are no longer counted: 1 MiB stays below the peak";
}

}  // namespace
}  // namespace fvmmini
