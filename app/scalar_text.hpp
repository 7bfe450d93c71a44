#pragma once
// Strict conversions between case-file scalar text and numbers (the whole text must
// be the number; no NaN or infinity), and the canonical text written back.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fvmmini {

/// "1", "-2", "+3" -> integer; nullopt for anything else ("1.0", "1e3", "3 cells").
std::optional<std::int64_t> parse_integer(const std::string& text);
/// "1", "0.5", "1e-6", ".5" -> finite double; nullopt for anything else ("nan", "inf", "1,5").
std::optional<double> parse_real(const std::string& text);
/// "true"/"false" (also True/TRUE/False/FALSE); nullopt otherwise.
std::optional<bool> parse_bool(const std::string& text);
/// The byte offset of the first byte that is not valid UTF-8 (a stray byte, an overlong or
/// truncated sequence, a surrogate), nullopt when the whole text is UTF-8.
std::optional<std::size_t> first_non_utf8(std::string_view text);
/// The shortest text that reads back as exactly this value ("0.01", "1e-06", "1").
std::string format_real(double value);

}  // namespace fvmmini
