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

}  // namespace fvmmini
