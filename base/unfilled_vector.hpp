#pragma once
// A std::vector whose resize leaves the new elements as the allocation found them, for the
// set-up's large arrays that a loop on every thread writes whole right after. std::vector's own
// value-initialisation is one thread's fill before that loop: 12 GB/s on one core of an H100
// host against 60-70 GB/s on its 16 (docs/performance.md, "Running"), and the geometry alone is
// 11 GB at 64 M cells. (The executables' operator new has already touched a large block's pages
// on every thread.) For element types without a constructor of their own to run (scalars, Vec3);
// the owner writes every element before anything reads it.

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace fvmmini {

template <class T>
struct NoFillAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoFillAllocator<U>;
  };
  NoFillAllocator() noexcept = default;
  template <class U>
  NoFillAllocator(const NoFillAllocator<U>&) noexcept {}  // NOLINT: the rebinding copy

  /// Value-initialisation (resize, the count constructor): nothing written.
  template <class U>
  void construct(U*) noexcept {
    static_assert(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>,
                  "an unfilled element must need no constructor");
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector whose resize does not fill: its owner writes every element.
template <class T>
using UnfilledVector = std::vector<T, NoFillAllocator<T>>;

/// n copies of value, written on every thread.
template <class T>
UnfilledVector<T> filled_on_every_thread(std::size_t n, const T& value) {
  UnfilledVector<T> v(n);
  const auto size = static_cast<std::ptrdiff_t>(n);
#if defined(_OPENMP)  // a translation unit without OpenMP (a CUDA one) fills on one thread
#pragma omp parallel for schedule(static) if (size > 65536)
#endif
  for (std::ptrdiff_t i = 0; i < size; ++i) v[i] = value;
  return v;
}

/// A copy of values, written on every thread.
template <class T>
UnfilledVector<T> copied_on_every_thread(std::span<const T> values) {
  UnfilledVector<T> v(values.size());
  const auto size = static_cast<std::ptrdiff_t>(values.size());
#if defined(_OPENMP)  // a translation unit without OpenMP (a CUDA one) fills on one thread
#pragma omp parallel for schedule(static) if (size > 65536)
#endif
  for (std::ptrdiff_t i = 0; i < size; ++i) v[i] = values[i];
  return v;
}

}  // namespace fvmmini
