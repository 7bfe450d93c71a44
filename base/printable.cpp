#include "base/printable.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace fvmmini {

namespace {

/// The length of the valid UTF-8 sequence of a printable character (U+00A0 and above) at the
/// start of `text`, or 0 (a C1 control, an overlong, truncated or otherwise invalid sequence).
std::size_t utf8_printable_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  const std::uint8_t lead = byte(0);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i) & 0x3F);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  if (overlong || surrogate || code > 0x10FFFF || code < 0xA0) return 0;
  return length;
}

void append_escaped(std::string& out, std::string_view text, std::size_t max_bytes, bool keep_newlines) {
  std::size_t i = 0;
  for (; i < text.size() && i < max_bytes;) {
    const char c = text[i];
    const auto u = static_cast<std::uint8_t>(c);
    if (u >= 0x20 && u < 0x7F) {
      out += c;
      ++i;
      continue;
    }
    if (const std::size_t n = u >= 0x80 ? utf8_printable_length(text.substr(i)) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    if (c == '\n' && keep_newlines) out += '\n';
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else {
      char escape[5];
      std::snprintf(escape, sizeof escape, "\\x%02x", u);
      out += escape;
    }
    ++i;
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes in all)";
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 16);
  append_escaped(out, text, max_bytes, false);
  return out;
}

std::string printable_message(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  append_escaped(out, message, message.size(), true);
  return out;
}

}  // namespace fvmmini
