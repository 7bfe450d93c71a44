#include "linalg/formats/format_parameters.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvmmini {

namespace {
/// Whole numbers in full (2147483647, not 2.14748e+09), others in the shortest form.
std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:g}", v);
}
}  // namespace

std::string ParameterSpec::option() const {
  std::string flag = "--";
  for (char c : key) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      flag += '-';
      flag += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flag += c;
    }
  }
  return flag;
}

std::string ParameterSpec::range_text() const {
  if (type == Type::word) return fmt::format("one of {}", fmt::join(words, ", "));
  std::string text = type == Type::integer ? "an integer" : "a number";
  if (min && max)
    text += fmt::format(" in {}{}, {}{}", min_inclusive ? '[' : '(', number_text(*min), number_text(*max),
                        max_inclusive ? ']' : ')');
  else if (min)
    text += fmt::format(" {} {}", min_inclusive ? ">=" : ">", number_text(*min));
  else if (max)
    text += fmt::format(" {} {}", max_inclusive ? "<=" : "<", number_text(*max));
  if (multiple_of > 0) text += fmt::format(", a multiple of {}", multiple_of);
  if (!words.empty()) text += fmt::format(", or {}", fmt::join(words, ", "));
  return text;
}

bool ParameterSpec::tunes(const ParameterValue& value) const {
  const std::string* word = std::get_if<std::string>(&value);
  return word && *word == "auto" && !tune_values.empty();
}

const ParameterValue& FormatParameters::at(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw std::invalid_argument(fmt::format("format parameter '{}' is not set", key));
  return it->second;
}

int FormatParameters::integer(const std::string& key) const { return static_cast<int>(std::lround(real(key))); }

double FormatParameters::real(const std::string& key) const {
  const ParameterValue& v = at(key);
  if (const double* number = std::get_if<double>(&v)) return *number;
  throw std::invalid_argument(fmt::format("format parameter '{}' is '{}', not a number", key, std::get<std::string>(v)));
}

bool FormatParameters::is_word(const std::string& key) const { return std::holds_alternative<std::string>(at(key)); }

const std::string& FormatParameters::word(const std::string& key) const {
  const ParameterValue& v = at(key);
  if (const std::string* word = std::get_if<std::string>(&v)) return *word;
  throw std::invalid_argument(
      fmt::format("format parameter '{}' is {}, not a word", key, number_text(std::get<double>(v))));
}

std::string FormatParameters::text(const std::string& key) const { return parameter_text(at(key)); }

std::string parameter_text(const ParameterValue& value) {
  if (const std::string* word = std::get_if<std::string>(&value)) return *word;
  return number_text(std::get<double>(value));
}

void check_parameter(const ParameterSpec& spec, const ParameterValue& value) {
  auto fail = [&] {
    throw std::invalid_argument(
        fmt::format("{}: '{}' is not {}", spec.key, parameter_text(value), spec.range_text()));
  };
  if (const std::string* word = std::get_if<std::string>(&value)) {
    for (const auto& w : spec.words)
      if (w == *word) return;
    fail();
  }
  if (spec.type == ParameterSpec::Type::word) fail();
  const double v = std::get<double>(value);
  if (!std::isfinite(v)) fail();
  if (spec.type == ParameterSpec::Type::integer && v != std::floor(v)) fail();
  if (spec.min && (spec.min_inclusive ? v < *spec.min : v <= *spec.min)) fail();
  if (spec.max && (spec.max_inclusive ? v > *spec.max : v >= *spec.max)) fail();
  if (spec.multiple_of > 0 && std::fmod(v, spec.multiple_of) != 0.0) fail();
}

ParameterValue parse_parameter(const ParameterSpec& spec, const std::string& text) {
  ParameterValue value = text;
  if (spec.type != ParameterSpec::Type::word) {
    // --- a number when the whole text reads as one; anything else stays a word for the check
    try {
      std::size_t used = 0;
      const double number = std::stod(text, &used);
      if (used == text.size()) value = number;
    } catch (const std::exception&) {
    }
  }
  check_parameter(spec, value);
  return value;
}

}  // namespace fvmmini
