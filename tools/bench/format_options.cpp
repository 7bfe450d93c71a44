#include "tools/bench/format_options.hpp"

#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvmmini::bench {

std::vector<std::string> split(const std::string& list, char separator) {
  std::vector<std::string> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, separator))
    if (!item.empty()) out.push_back(item);
  return out;
}

void add_format_options(CLI::App& app, FormatOptionValues& values) {
  // --- one option per key, its help naming every format that reads it
  std::map<std::string, std::vector<std::string>> readers;
  std::vector<const ParameterSpec*> specs;
  for (const auto& unit : format_table())
    for (const auto& spec : unit.parameters) {
      if (readers[spec.key].empty()) specs.push_back(&spec);
      readers[spec.key].push_back(unit.name);
    }
  for (const ParameterSpec* spec : specs)
    app.add_option(spec->option(), values[spec->key],
                   fmt::format("{}: {} ({}; default {}); a comma-separated list runs each", fmt::join(readers[spec->key], ", "),
                               spec->doc, spec->range_text(), spec->default_value))
        ->group("Format parameters");
}

std::vector<FormatParameters> format_variants(const FormatUnit& unit, const FormatOptionValues& values) {
  std::vector<FormatParameters> variants{FormatParameters{}};
  for (const auto& spec : unit.parameters) {
    const auto given = values.find(spec.key);
    const std::vector<std::string> texts =
        given != values.end() && !given->second.empty() ? split(given->second) : std::vector{spec.default_value};
    std::vector<FormatParameters> next;
    for (const auto& text : texts) {
      ParameterValue value;
      try {
        value = parse_parameter(spec, text);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("{}: {}", spec.option(), e.what()));
      }
      for (FormatParameters p : variants) {
        p.set(spec.key, value);
        next.push_back(std::move(p));
      }
    }
    variants = std::move(next);
  }
  return variants;
}

}  // namespace fvmmini::bench
