#pragma once
// A settings struct's case keys, declared once. Next to each struct, one function names every key
// with its member, doc and constraints:
//
//   template <class Keys> void declare_keys(Keys& keys, SteadyStateSettings& s) {
//     keys.boolean("stop", s.stop, "end the run once the flow is steady");
//     keys.real("residualTolerance", s.residual_tolerance, "...").min(0, false);
//   }
//
// Called with SchemaKeys it adds the keys to a map of the schema, each default written from the
// member of a default-built struct (the member's initialiser is the only default); called with
// CaseKeys it fills the struct from the resolved case. The visitor is a template parameter, so
// the lower layers declare their structs' keys without including app/.

#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/case_schema.hpp"
#include "app/resolved_case.hpp"

namespace fvmmini {

/// The YAML text of a default: the shortest round-trip number, its exponent without padding (1e-6).
std::string default_text(double value);
/// "[x, y, z]", each as default_text(double).
std::string default_text(const Vec3& value);

/// The constraints of one declared key: they shape its schema entry; the reader ignores them (the
/// schema has enforced them before any key is read).
class KeyConstraints {
 public:
  /// @param[in] spec the schema entry, or null for the reader
  explicit KeyConstraints(KeySpec* spec) : spec_(spec) {}
  /// The case must give the key (it has no default).
  KeyConstraints& required();
  KeyConstraints& min(double bound, bool inclusive = true);
  KeyConstraints& max(double bound, bool inclusive = true);
  /// Apply only when sibling key `key` holds one of `values`.
  KeyConstraints& when(std::string key, std::vector<std::string> values);

 private:
  KeySpec* spec_;
};

/// An integer member (not a bool).
template <class I>
concept IntegerMember = std::integral<I> && !std::same_as<I, bool>;

/// Adds the declared keys to one map of the schema, defaults from the members it is given.
class SchemaKeys {
 public:
  explicit SchemaKeys(KeySpec& map) : map_(map) {}

  KeyConstraints real(const std::string& name, const double& member, const std::string& doc);
  /// An integer key needs a max() its member can hold (the reader checks every value fits).
  template <IntegerMember I>
  KeyConstraints integer(const std::string& name, const I& member, const std::string& doc) {
    return add(name, KeyType::integer, doc, std::to_string(member));
  }
  KeyConstraints boolean(const std::string& name, const bool& member, const std::string& doc);
  KeyConstraints real3(const std::string& name, const Vec3& member, const std::string& doc);
  /// A bool written as one of two words: `off` (false) or `on` (true).
  KeyConstraints boolean_word(const std::string& name, const bool& member, const std::string& doc,
                              const std::string& off, const std::string& on);
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
  CaseKeys(const ResolvedCase& resolved, const std::string& path) : case_(resolved), prefix_(path + ".") {}

  KeyConstraints real(const std::string& name, double& member, const std::string& doc);
  /// @throws std::logic_error when the value does not fit the member (the key lacks a max())
  template <IntegerMember I>
  KeyConstraints integer(const std::string& name, I& member, const std::string&) {
    if (has(name)) member = narrow<I>(name, case_.get_int(prefix_ + name));
    return KeyConstraints(nullptr);
  }
  KeyConstraints boolean(const std::string& name, bool& member, const std::string& doc);
  KeyConstraints real3(const std::string& name, Vec3& member, const std::string& doc);
  KeyConstraints boolean_word(const std::string& name, bool& member, const std::string& doc, const std::string& off,
                              const std::string& on);
  template <class E>
  KeyConstraints enumeration(const std::string& name, E& member, const std::string&, const std::vector<std::string>&,
                             std::type_identity_t<E (*)(const std::string&)> parse,
                             std::type_identity_t<const std::string& (*)(E)>) {
    if (has(name)) member = parse(case_.get_string(prefix_ + name));
    return KeyConstraints(nullptr);
  }

 private:
  bool has(const std::string& name) const { return case_.has(prefix_ + name); }
  template <class I>
  I narrow(const std::string& name, std::int64_t value) const {
    if (!std::in_range<I>(value)) throw_does_not_fit(name, value);
    return static_cast<I>(value);
  }
  [[noreturn]] void throw_does_not_fit(const std::string& name, std::int64_t value) const;

  const ResolvedCase& case_;
  std::string prefix_;
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
