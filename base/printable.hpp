#pragma once
// Text from an input (a token of a mesh file, a YAML value, a file name) as a message may show
// it: bounded in length, and with no byte a terminal would act on.

#include <cstddef>
#include <string>
#include <string_view>

namespace fvmmini {

/// The longest a quoted input may be in a message before it is cut.
inline constexpr std::size_t printable_default_bytes = 80;

/// `text` with every byte that is not printable ASCII or part of valid UTF-8 of a printable
/// character written as an escape (\n, \t, \x1b, \x00, \xff), cut after `max_bytes` bytes of
/// the input with "... (N bytes in all)" added.
std::string printable(std::string_view text, std::size_t max_bytes = printable_default_bytes);

/// A whole message as it may reach a terminal: printable() with no length cut, newlines kept.
std::string printable_message(std::string_view message);

}  // namespace fvmmini
