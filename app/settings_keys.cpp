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

KeyConstraints& KeyConstraints::required() {
  if (spec_) spec_->required();
  return *this;
}

KeyConstraints& KeyConstraints::min(double bound, bool inclusive) {
  if (spec_) spec_->min(bound, inclusive);
  return *this;
}

KeyConstraints& KeyConstraints::max(double bound, bool inclusive) {
  if (spec_) spec_->max(bound, inclusive);
  return *this;
}

KeyConstraints& KeyConstraints::when(std::string key, std::vector<std::string> values) {
  if (spec_) spec_->when(std::move(key), std::move(values));
  return *this;
}

KeyConstraints SchemaKeys::add(const std::string& name, KeyType type, const std::string& doc,
                               std::string default_yaml, const std::vector<std::string>& words) {
  KeySpec& key = map_.add(name, type, doc).default_value(std::move(default_yaml));
  if (!words.empty()) key.values(words);
  return KeyConstraints(&key);
}

KeyConstraints SchemaKeys::real(const std::string& name, const double& member, const std::string& doc) {
  return add(name, KeyType::real, doc, default_text(member));
}

KeyConstraints SchemaKeys::boolean(const std::string& name, const bool& member, const std::string& doc) {
  return add(name, KeyType::boolean, doc, member ? "true" : "false");
}

KeyConstraints SchemaKeys::real3(const std::string& name, const Vec3& member, const std::string& doc) {
  return add(name, KeyType::real3, doc, default_text(member));
}

KeyConstraints SchemaKeys::boolean_word(const std::string& name, const bool& member, const std::string& doc,
                                        const std::string& off, const std::string& on) {
  return add(name, KeyType::enumeration, doc, member ? on : off, {off, on});
}

KeyConstraints CaseKeys::real(const std::string& name, double& member, const std::string&) {
  if (has(name)) member = case_.get_real(prefix_ + name);
  return KeyConstraints(nullptr);
}

KeyConstraints CaseKeys::boolean(const std::string& name, bool& member, const std::string&) {
  if (has(name)) member = case_.get_bool(prefix_ + name);
  return KeyConstraints(nullptr);
}

KeyConstraints CaseKeys::real3(const std::string& name, Vec3& member, const std::string&) {
  if (has(name)) member = case_.get_real3(prefix_ + name);
  return KeyConstraints(nullptr);
}

KeyConstraints CaseKeys::boolean_word(const std::string& name, bool& member, const std::string&, const std::string&,
                                      const std::string& on) {
  if (has(name)) member = case_.get_string(prefix_ + name) == on;
  return KeyConstraints(nullptr);
}

void CaseKeys::throw_does_not_fit(const std::string& name, std::int64_t value) const {
  throw std::logic_error("case key '" + prefix_ + name + "' = " + std::to_string(value) +
                         " does not fit its member: declare a max() the member can hold");
}

}  // namespace fvmmini
