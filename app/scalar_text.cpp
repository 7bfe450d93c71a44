#include "app/scalar_text.hpp"

#include <charconv>
#include <cmath>

namespace fvmmini {

namespace {

/// Drop one leading '+', which from_chars does not accept.
std::string_view without_plus(const std::string& text) {
  std::string_view view(text);
  if (!view.empty() && view.front() == '+') view.remove_prefix(1);
  return view;
}

}  // namespace

std::optional<std::int64_t> parse_integer(const std::string& text) {
  const std::string_view view = without_plus(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (view.empty() || ec != std::errc() || end != view.data() + view.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_real(const std::string& text) {
  const std::string_view view = without_plus(text);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (view.empty() || ec != std::errc() || end != view.data() + view.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::optional<bool> parse_bool(const std::string& text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

std::string format_real(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, ec == std::errc() ? end : buffer);
}

std::optional<std::size_t> first_non_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    std::uint32_t code = 0, least = 0;
    if (lead < 0x80) length = 1, code = lead;
    else if ((lead & 0xE0) == 0xC0) length = 2, code = lead & 0x1F, least = 0x80;
    else if ((lead & 0xF0) == 0xE0) length = 3, code = lead & 0x0F, least = 0x800;
    else if ((lead & 0xF8) == 0xF0) length = 4, code = lead & 0x07, least = 0x10000;
    else return i;
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return i;
      code = (code << 6) | (byte(i + k) & 0x3F);
    }
    if (code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return std::nullopt;
}

}  // namespace fvmmini
