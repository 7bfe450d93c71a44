// The executables' operator new (fvmmini's and the benchmarks'): an allocation of 2 MiB or more
// (one huge page: a vector of 262 144 doubles) starts on a 2 MiB boundary and asks the kernel for
// transparent huge pages over its whole 2 MiB pages (madvise), which Debian's default THP mode
// (`madvise`) grants only on request. A mesh's, matrix's or vector's first touch then faults once
// per 2 MiB instead of once per 4 KiB, and the gathers miss the TLB less: a short run of the 100^3
// HPC cavity on the reference backend (2 threads) took 0.67 x the wall time on this project's
// build machine (a virtual machine, where page faults are slow).
// Only advice: where the kernel declines, the memory is ordinary. The kernel zeroes a page on
// the thread that first touches it, and a std::vector's value-initialisation is one thread's
// memset: so such an allocation's pages are first touched here by every OpenMP thread (outside a
// parallel region; inside one, the caller's threads are busy); a block reserved beyond what its
// owner fills is then resident in full.
// Memory freed stays with the process, in malloc's heap (no block of any size is mapped alone and
// unmapped when freed, and the heap's top is never handed back), for the next allocations: the
// set-up makes and drops many large temporaries, and a page the kernel hands out afresh costs a
// fault and its zeroing (about 0.4 GB/s on this project's build machine, a virtual machine,
// against 20 GB/s for a memset of resident memory). Left out of sanitized builds, whose runtimes
// own operator new.
#include <malloc.h>
#include <omp.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)

namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t large_allocation = huge_page;
constexpr std::size_t small_page = 4096;

void touch_on_every_thread(void* p, std::size_t size) {
  if (omp_in_parallel()) return;
  char* bytes = static_cast<char*>(p);
  const auto pages = static_cast<std::int64_t>((size + small_page - 1) / small_page);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < pages; ++k) bytes[k * small_page] = 0;
}

void* allocate(std::size_t size) {
  void* p = nullptr;
  if (size >= large_allocation) {
    if (posix_memalign(&p, huge_page, size) != 0) throw std::bad_alloc();
    madvise(p, size / huge_page * huge_page, MADV_HUGEPAGE);  // whole huge pages inside it only
    touch_on_every_thread(p, size);
    return p;
  }
  p = std::malloc(size > 0 ? size : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

/// Before main: mallopt(3)'s M_MMAP_MAX 0 (every block from the heap) and M_TRIM_THRESHOLD -1 (the
/// heap never trimmed).
const bool freed_memory_kept = [] { return mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, -1) == 1; }();

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

#endif
