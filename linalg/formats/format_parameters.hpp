#pragma once
// The parameters of the storage formats: each format declares its own (ParameterSpec: the case
// key, type, default, range and one line of doc) and reads their values from FormatParameters,
// a bag of values by key. The case schema, fvmmini-bench's options, the docs and the test sweeps
// are all made from the declarations (docs/architecture.md, "Adding a format").

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fvmmini {

/// A parameter's value: a number or a word.
using ParameterValue = std::variant<double, std::string>;

/// One parameter a format declares.
struct ParameterSpec {
  enum class Type {
    integer,  ///< a whole number (min/max/multiple_of), or one of `words` (e.g. auto)
    real,     ///< a number (min/max), or one of `words` (e.g. auto)
    word,     ///< one of `words`
  };
  std::string key{};          ///< as in case files (camelCase): "sliceHeight"
  Type type = Type::integer;
  std::string default_value{};  ///< as written in a case file: "32", "auto", "interleaved"
  std::vector<std::string> words{};  ///< word: the values; integer, real: words accepted besides numbers
  std::optional<double> min{}, max{};
  bool min_inclusive = true, max_inclusive = true;
  int multiple_of = 0;        ///< integer: the value must be a multiple of this (0: any)
  std::string doc{};          ///< one line, without the format's name
  /// Values the test suite sweeps (every combination of a format's sweeps is tested); empty: the default only.
  std::vector<std::string> test_values{};
  /// The values `auto` times at set-up on the matrix (registry: prepare_format with a timer);
  /// non-empty: the word auto is one of `words` and the default is a value, not auto.
  std::vector<std::string> tune_values{};

  /// Whether `value` is the word auto of a key the set-up tunes.
  bool tunes(const ParameterValue& value) const;
  /// The command-line option: "--slice-height" for sliceHeight.
  std::string option() const;
  /// The range as a phrase for docs and errors: "an integer in [32, 1024], a multiple of 32".
  std::string range_text() const;
};

/// Parameter values by key (the union of every format's parameters: each format reads its own).
class FormatParameters {
 public:
  void set(const std::string& key, ParameterValue value) { values_[key] = std::move(value); }
  void set(const std::string& key, double value) { values_[key] = value; }
  void set(const std::string& key, const char* word) { values_[key] = std::string(word); }
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  /// The value as a whole number. @throws std::invalid_argument when absent or not a number
  int integer(const std::string& key) const;
  /// The value as a number. @throws std::invalid_argument when absent or a word
  double real(const std::string& key) const;
  /// Whether the value is a word (e.g. auto).
  bool is_word(const std::string& key) const;
  /// The value as a word. @throws std::invalid_argument when absent or a number
  const std::string& word(const std::string& key) const;
  /// The value as written: "32", "0.01", "auto".
  std::string text(const std::string& key) const;
  const std::map<std::string, ParameterValue>& values() const { return values_; }

  bool operator==(const FormatParameters&) const = default;

 private:
  const ParameterValue& at(const std::string& key) const;
  std::map<std::string, ParameterValue> values_;
};

/// Parse `text` as a value of `spec`. @throws std::invalid_argument naming the key and its range
ParameterValue parse_parameter(const ParameterSpec& spec, const std::string& text);

/// Check a value against `spec` (type and range). @throws std::invalid_argument naming the key and its range
void check_parameter(const ParameterSpec& spec, const ParameterValue& value);

/// A value as written (numbers in the shortest form that reads back: 0.01, 32).
std::string parameter_text(const ParameterValue& value);

}  // namespace fvmmini
