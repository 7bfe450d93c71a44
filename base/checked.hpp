#pragma once
// Arithmetic on counts and sizes that an input drives (a file's list sizes, a key's value): every
// product and sum of such counts goes through here, so that a wrap becomes an error naming what
// was being sized instead of a small, wrong size that runs for a minute and crashes.

#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace fvmmini {

/// A count or size past the range of the integer that holds it.
class CountOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

namespace detail {
template <class T>
[[noreturn]] void count_overflow(std::string_view what, const char* operation, T a, T b) {
  throw CountOverflow(std::string(what) + ": " + std::to_string(a) + operation + std::to_string(b) +
                      " is past the range of a " + std::to_string(std::numeric_limits<T>::digits +
                                                                  std::numeric_limits<T>::is_signed) +
                      "-bit integer (at most " + std::to_string(std::numeric_limits<T>::max()) + ")");
}
}  // namespace detail

/// a * b. @throws CountOverflow naming `what` when it does not fit T
template <class T>
  requires std::is_integral_v<T>
T checked_product(T a, T b, std::string_view what) {
  T result;
  if (__builtin_mul_overflow(a, b, &result)) detail::count_overflow(what, " x ", a, b);
  return result;
}

/// a + b. @throws CountOverflow naming `what` when it does not fit T
template <class T>
  requires std::is_integral_v<T>
T checked_sum(T a, T b, std::string_view what) {
  T result;
  if (__builtin_add_overflow(a, b, &result)) detail::count_overflow(what, " + ", a, b);
  return result;
}

/// `value` as a To. @throws CountOverflow naming `what` when it does not fit
template <class To, class From>
  requires std::is_integral_v<To> && std::is_integral_v<From>
To checked_cast(From value, std::string_view what) {
  To result;
  if (__builtin_add_overflow(value, From{0}, &result))
    throw CountOverflow(std::string(what) + ": " + std::to_string(value) + " is past the range of a " +
                        std::to_string(std::numeric_limits<To>::digits + std::numeric_limits<To>::is_signed) +
                        "-bit integer (" + std::to_string(std::numeric_limits<To>::min()) + " to " +
                        std::to_string(std::numeric_limits<To>::max()) + ")");
  return result;
}

}  // namespace fvmmini
