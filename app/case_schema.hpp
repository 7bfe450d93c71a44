#pragma once
// A small schema engine for case files: a tree of key specifications (type,
// required or default, range, allowed values, one-line doc), with keys that
// apply only when a discriminating key has certain values (mesh.type: box
// enables mesh.cells). Validation reports every problem at once, each with its
// file:line:column and key path, and yields a ResolvedCase with defaults filled in.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/case_source.hpp"
#include "app/resolved_case.hpp"

namespace fvmmini {

enum class KeyType {
  boolean,
  integer,
  real,
  string,
  enumeration,   ///< one word out of values()
  real3,         ///< [x, y, z]
  int3,          ///< [i, j, k]
  enum_list,     ///< a non-empty list of distinct words out of values()
  real_or_word,  ///< a number, or one word out of values() (boundaryField value: exact)
  integer_or_word,  ///< an integer, or one word out of values() (sliceHeight: auto)
  map,           ///< fixed keys, specified by children()
  named_map,     ///< user-named entries, each specified by entry()
};

/// The largest magnitude a real key may take: the run multiplies keys with each other and with the
/// mesh's sizes (U U, nu dt / V), and 1e100 cubed is still a double.
inline constexpr double real_magnitude_limit = 1e100;

/// How a type is named in messages and in the reference ("a real number").
const char* describe(KeyType type);

/// A key applies only when the discriminating key holds one of `values`.
struct KeyCondition {
  std::string key;  ///< a key of the same map, or a dotted path from the root when `from_root`
  bool from_root = false;
  std::vector<std::string> values;
};

class KeySpec {
 public:
  KeySpec(std::string name, KeyType type, std::string doc);

  // --- Building (each returns *this, or the new child, so definitions chain).

  /// Add a key to this map and return it. Two keys may share a name when their conditions never overlap.
  KeySpec& add(std::string name, KeyType type, std::string doc);
  /// The specification of every entry of this named_map (return it to add the entry's keys).
  KeySpec& entry(KeyType type, std::string doc);
  /// The case must give the key (drops any default).
  KeySpec& required();
  /// The default, written as YAML ("0", "[0, 0, 0]", "csr").
  KeySpec& default_value(std::string yaml_text);
  /// Allowed words (enumeration, enum_list items, real_or_word and integer_or_word words).
  KeySpec& values(std::vector<std::string> allowed);
  KeySpec& add_value(std::string allowed);
  /// Inclusive or exclusive lower and upper bounds (numbers, each component of real3/int3).
  KeySpec& min(double bound, bool inclusive = true);
  KeySpec& max(double bound, bool inclusive = true);
  /// Apply only when sibling key `key` holds one of `values`.
  KeySpec& when(std::string key, std::vector<std::string> values);
  /// Apply only when the key at root path `path` holds one of `values`.
  KeySpec& when_root(std::string path, std::vector<std::string> values);
  /// An extra rule on the resolved value: returns "" when fine, else the problem ("must be a multiple of 32").
  KeySpec& rule(std::function<std::string(const YAML::Node& value)> check);

  // --- Reading (what the builders above set).

  /// The key's name ("<name>" for the entry spec of a named_map).
  const std::string& name() const { return name_; }
  KeyType type() const { return type_; }
  /// The one-line description.
  const std::string& doc() const { return doc_; }
  bool is_required() const { return required_; }
  /// The default as YAML text, if any.
  const std::optional<std::string>& default_text() const { return default_; }
  /// Allowed words (enumeration, enum_list, real_or_word, integer_or_word).
  const std::vector<std::string>& allowed_values() const { return values_; }
  /// All must hold for the key to apply.
  const std::vector<KeyCondition>& conditions() const { return conditions_; }
  /// The keys of a map, in definition order.
  const std::vector<std::unique_ptr<KeySpec>>& children() const { return children_; }
  /// The spec of each entry of a named_map (nullptr otherwise).
  const KeySpec* entry_spec() const { return entry_.get(); }
  /// Extra rules on the resolved value.
  const std::vector<std::function<std::string(const YAML::Node&)>>& rules() const { return rules_; }
  /// Every child with this name (usually one).
  std::vector<const KeySpec*> children_named(const std::string& name) const;
  std::vector<KeySpec*> children_named(const std::string& name);
  /// "> 0", ">= 0 and < 1", or "" without bounds.
  std::string range_text() const;
  /// True when the number lies within the bounds.
  bool in_range(double value) const;

 private:
  std::string name_;
  KeyType type_;
  std::string doc_;
  bool required_ = false;
  std::optional<std::string> default_;
  std::vector<std::string> values_;
  std::optional<double> min_, max_;
  bool min_inclusive_ = true, max_inclusive_ = true;
  std::vector<KeyCondition> conditions_;
  std::vector<std::unique_ptr<KeySpec>> children_;
  std::unique_ptr<KeySpec> entry_;
  std::vector<std::function<std::string(const YAML::Node&)>> rules_;
};

class CaseSchema {
 public:
  CaseSchema();

  /// The top-level map; sections are its children.
  KeySpec& root() { return *root_; }
  const KeySpec& root() const { return *root_; }
  /// The spec at a dotted path (the first one where names repeat); throws std::out_of_range.
  KeySpec& at(const std::string& path);

  /// A rule over several keys (endTime > startTime), run after every key is valid.
  using CrossCheck = std::function<void(const ResolvedCase& resolved, std::vector<CaseProblem>& problems)>;
  void add_check(CrossCheck check);

  /// Validate a document against the schema. Throws CaseError listing every problem;
  /// otherwise returns the resolved case. @param[in] case_file the file as the user gave it.
  ResolvedCase resolve(const SourceNode& document, const std::filesystem::path& case_file) const;

 private:
  std::unique_ptr<KeySpec> root_;
  std::vector<CrossCheck> checks_;
};

/// The closest candidate within a small edit distance (case-insensitive), or "" (for "did you mean").
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace fvmmini
