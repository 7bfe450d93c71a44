// The executables' operator new (app/large_pages.cpp; of the tests, only this one links it):
// large allocations start on a 2 MiB boundary, are backed by huge pages once touched where the
// kernel's THP mode grants them on request, and come with their pages already touched (by every
// OpenMP thread) outside parallel regions, not inside them; freed memory stays in malloc's heap
// for the next allocations instead of going back to the kernel.
#include <gtest/gtest.h>
#include <malloc.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool replaced = false;
#else
constexpr bool replaced = true;
#endif

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  return line;
}

/// AnonHugePages (kB) of the mapping that holds `address`, from /proc/self/smaps.
long huge_kb_at(const void* address) {
  std::ifstream in("/proc/self/smaps");
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= a && a < to;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  }
  return -1;
}

TEST(LargePages, LargeAllocationsStartOnAHugePage) {
  if (!replaced) GTEST_SKIP() << "sanitized build: operator new is the sanitizer's";
  for (std::size_t mib : {2, 3, 8, 9, 64}) {
    std::vector<char> v(mib << 20);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % huge_page, 0u) << mib << " MiB";
  }
  auto array = std::make_unique<double[]>(std::size_t{2} << 20);  // 16 MiB through new[]
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(array.get()) % huge_page, 0u);
  // small ones stay with malloc, and every size (zero too) gives a distinct usable block
  std::vector<std::unique_ptr<int>> small;
  for (int k = 0; k < 1000; ++k) small.push_back(std::make_unique<int>(k));
  for (int k = 0; k < 1000; ++k) EXPECT_EQ(*small[k], k);
  void* zero = ::operator new(0);
  void* other = ::operator new(0);
  EXPECT_NE(zero, other);
  ::operator delete(zero);
  ::operator delete(other);
}

/// Of the pages of [p, p + size), how many are resident (mincore).
std::size_t resident_pages(const void* p, std::size_t size) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t from = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const std::size_t pages = (reinterpret_cast<std::uintptr_t>(p) + size - from + page - 1) / page;
  std::vector<unsigned char> in_core(pages);
  if (mincore(reinterpret_cast<void*>(from), pages * page, in_core.data()) != 0) return 0;
  std::size_t resident = 0;
  for (unsigned char c : in_core) resident += c & 1;
  return resident;
}

TEST(LargePages, LargeAllocationsComeWithTheirPagesTouchedOutsideParallelRegions) {
  if (!replaced) GTEST_SKIP() << "sanitized build: operator new is the sanitizer's";
  constexpr std::size_t size = std::size_t{48} << 20;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  // --- new char[] leaves its bytes alone: any resident page was touched by operator new
  std::unique_ptr<char[]> outside(new char[size]);
  EXPECT_EQ(resident_pages(outside.get(), size), size / page);
  std::unique_ptr<char[]> inside;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    inside.reset(new char[size]);
  }
  EXPECT_LT(resident_pages(inside.get(), size), size / page / 2);
}

TEST(LargePages, FreedMemoryStaysInTheHeapForTheNextAllocations) {
  if (!replaced) GTEST_SKIP() << "sanitized build: operator new is the sanitizer's";
  constexpr std::size_t size = std::size_t{160} << 20;  // far past malloc's own mapping threshold
  const struct mallinfo2 before = mallinfo2();
  {
    std::vector<char> block(size, 1);
    EXPECT_EQ(mallinfo2().hblkhd, before.hblkhd) << "a block mapped alone";
    EXPECT_GE(mallinfo2().arena, before.arena + size);
  }
  const struct mallinfo2 after = mallinfo2();
  EXPECT_GE(after.arena, before.arena + size) << "the heap was trimmed";
  EXPECT_GE(after.fordblks, size) << "the freed block is not free in the heap";
  // --- the next allocations take it: the heap does not grow
  std::vector<double> vectors[4];
  for (auto& v : vectors) v.resize(size / sizeof(double) / 5);
  EXPECT_EQ(mallinfo2().arena, after.arena);
}

TEST(LargePages, TouchedLargeAllocationsAreHugePagesWhereTheKernelGrantsThem) {
  if (!replaced) GTEST_SKIP() << "sanitized build: operator new is the sanitizer's";
  const std::string mode = thp_mode();
  if (mode.find("[madvise]") == std::string::npos && mode.find("[always]") == std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off on this machine: " << mode;
  std::vector<double> v(std::size_t{8} << 20, 1.0);  // 64 MiB, touched
  EXPECT_GT(huge_kb_at(v.data()), 0) << "THP mode " << mode;
}

}  // namespace
