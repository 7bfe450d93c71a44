#include "app/settings_keys.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "app/scalar_text.hpp"

namespace fvmmini {

std::string default_text(double value) {
  // to_chars writes 1e-06; a case file writes 1e-6
  const std::string text = format_real(value);
  const auto e = text.find('e');
  if (e == std::string::npos) return text;
  const std::size_t digits = text[e + 1] == '-' || text[e + 1] == '+' ? e + 2 : e + 1;
  return text.substr(0, digits) + text.substr(std::min(text.find_first_not_of('0', digits), text.size() - 1));
}

std::string default_text(const Vec3& value) {
  return fmt::format("[{}, {}, {}]", default_text(value.x), default_text(value.y), default_text(value.z));
}

KeyConstraints SchemaKeys::add(const std::string& name, KeyType type, const std::string& doc,
                               std::string default_yaml, const std::vector<std::string>& words) {
  KeySpec& key = map_.add(name, type, doc).default_value(std::move(default_yaml));
  if (!words.empty()) key.values(words);
  return KeyConstraints(&key);
}

void CaseKeys::throw_does_not_fit(const std::string& path, std::int64_t value) {
  throw std::logic_error("case key '" + path + "' = " + std::to_string(value) +
                         " does not fit its member: declare a max() the member can hold");
}

}  // namespace fvmmini
