#pragma once
// A settings struct's case keys, declared once. Next to each struct, one function names every key
// with its member, doc and constraints:
//
//   template <class Keys> void declare_keys(Keys& keys, SteadyStateSettings& s) {
//     keys.add("stop", s.stop, "end the run once the flow is steady");
//     keys.add("residualTolerance", s.residual_tolerance, "...").min(0, false);
//   }
//
// Called with SchemaKeys it adds the keys to a map of the schema, each typed by its member and
// its default written from the member of a default-built struct (the member's initialiser is the
// only default); called with CaseKeys it fills the struct from the resolved case. The visitor is
// a template parameter, so the lower layers declare their structs' keys without including app/.

#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/case_schema.hpp"
#include "app/resolved_case.hpp"

namespace fvmmini {

/// The constraints of one declared key: they shape its schema entry; the reader ignores them (the
/// schema has enforced them before any key is read).
class KeyConstraints {
 public:
  /// @param[in] spec the schema entry, or null for the reader
  explicit KeyConstraints(KeySpec* spec) : spec_(spec) {}
  /// The case must give the key (it has no default).
  KeyConstraints& required() { return apply([](KeySpec& s) { s.required(); }); }
  KeyConstraints& min(double bound, bool inclusive = true) {
    return apply([&](KeySpec& s) { s.min(bound, inclusive); });
  }
  KeyConstraints& max(double bound, bool inclusive = true) {
    return apply([&](KeySpec& s) { s.max(bound, inclusive); });
  }
  /// Apply only when sibling key `key` holds one of `values`.
  KeyConstraints& when(std::string key, std::vector<std::string> values) {
    return apply([&](KeySpec& s) { s.when(std::move(key), std::move(values)); });
  }

 private:
  template <class F>
  KeyConstraints& apply(F f) {
    if (spec_) f(*spec_);
    return *this;
  }
  KeySpec* spec_;
};

/// A member a key fills by its type: bool, an integer (an integer key needs a max() its member can
/// hold; the reader checks), double or Vec3. Enumerations name their words (enumeration()).
template <class M>
concept KeyMember = std::integral<M> || std::same_as<M, double> || std::same_as<M, Vec3>;

/// The YAML text of a default: the shortest round-trip number, its exponent without padding (1e-6).
std::string default_text(double value);
/// "[x, y, z]", each as default_text(double).
std::string default_text(const Vec3& value);
/// A member's value as the schema writes its default.
template <KeyMember M>
std::string member_text(const M& value) {
  if constexpr (std::same_as<M, bool>) return value ? "true" : "false";
  else if constexpr (std::integral<M>) return std::to_string(value);
  else return default_text(value);
}

/// Adds the declared keys to one map of the schema, defaults from the members it is given.
class SchemaKeys {
 public:
  explicit SchemaKeys(KeySpec& map) : map_(map) {}

  template <KeyMember M>
  KeyConstraints add(const std::string& name, const M& member, const std::string& doc) {
    const KeyType type = std::same_as<M, bool>     ? KeyType::boolean
                         : std::integral<M>        ? KeyType::integer
                         : std::same_as<M, double> ? KeyType::real
                                                   : KeyType::real3;
    return add(name, type, doc, member_text(member));
  }
  /// A bool written as one of two words: `off` (false) or `on` (true).
  KeyConstraints boolean_word(const std::string& name, const bool& member, const std::string& doc,
                              const std::string& off, const std::string& on) {
    return add(name, KeyType::enumeration, doc, member ? on : off, {off, on});
  }
  /// An enum member written as one of `words`; `word` names a value, `parse` reads one.
  template <class E>
  KeyConstraints enumeration(const std::string& name, const E& member, const std::string& doc,
                             const std::vector<std::string>& words, std::type_identity_t<E (*)(const std::string&)>,
                             std::type_identity_t<const std::string& (*)(E)> word) {
    return add(name, KeyType::enumeration, doc, word(member), words);
  }

 private:
  KeyConstraints add(const std::string& name, KeyType type, const std::string& doc, std::string default_yaml,
                     const std::vector<std::string>& words = {});
  KeySpec& map_;
};

/// Reads the declared keys under one map of the resolved case into their members. A key the case
/// does not hold (its condition is off) leaves its member as it is.
class CaseKeys {
 public:
  /// @param[in] path the map's dotted path ("solvers.T")
  /// @param[in] given_only read only the keys the case gives (not the schema's defaults)
  CaseKeys(const ResolvedCase& resolved, const std::string& path, bool given_only = false)
      : case_(resolved), prefix_(path + "."), given_only_(given_only) {}

  /// @throws std::logic_error when an integer does not fit its member (the key lacks a max())
  template <KeyMember M>
  KeyConstraints add(const std::string& name, M& member, const std::string&) {
    const std::string path = prefix_ + name;
    if (!holds(path)) return KeyConstraints(nullptr);
    if constexpr (std::same_as<M, bool>) member = case_.get_bool(path);
    else if constexpr (std::integral<M>) member = narrow<M>(path, case_.get_int(path));
    else if constexpr (std::same_as<M, double>) member = case_.get_real(path);
    else member = case_.get_real3(path);
    return KeyConstraints(nullptr);
  }
  KeyConstraints boolean_word(const std::string& name, bool& member, const std::string&, const std::string&,
                              const std::string& on) {
    if (holds(prefix_ + name)) member = case_.get_string(prefix_ + name) == on;
    return KeyConstraints(nullptr);
  }
  template <class E>
  KeyConstraints enumeration(const std::string& name, E& member, const std::string&, const std::vector<std::string>&,
                             std::type_identity_t<E (*)(const std::string&)> parse,
                             std::type_identity_t<const std::string& (*)(E)>) {
    if (holds(prefix_ + name)) member = parse(case_.get_string(prefix_ + name));
    return KeyConstraints(nullptr);
  }

 private:
  template <class I>
  static I narrow(const std::string& path, std::int64_t value) {
    if (!std::in_range<I>(value)) throw_does_not_fit(path, value);
    return static_cast<I>(value);
  }
  [[noreturn]] static void throw_does_not_fit(const std::string& path, std::int64_t value);
  bool holds(const std::string& path) const { return given_only_ ? case_.given(path) : case_.has(path); }

  const ResolvedCase& case_;
  std::string prefix_;
  bool given_only_ = false;
};

/// Add the keys declare_keys(keys, settings, args...) names to a map of the schema, each default from
/// a default-built Settings.
template <class Settings, class... Args>
void add_settings_keys(KeySpec& map, Args... args) {
  Settings defaults;
  SchemaKeys keys(map);
  declare_keys(keys, defaults, args...);
}

/// A default-built Settings filled from the keys declare_keys(keys, settings, args...) names under
/// `path`; a key the case does not hold keeps its default.
template <class Settings, class... Args>
Settings read_settings(const ResolvedCase& resolved, const std::string& path, Args... args) {
  Settings settings;
  CaseKeys keys(resolved, path);
  declare_keys(keys, settings, args...);
  return settings;
}

}  // namespace fvmmini
