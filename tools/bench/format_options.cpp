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
  for (const auto& [spec, formats] : format_parameter_keys())
    app.add_option(spec->option(), values[spec->key],
                   fmt::format("{}: {} ({}; default {}); a comma-separated list runs each", fmt::join(formats, ", "),
                               spec->doc, spec->range_text(), spec->default_value))
        ->group("Format parameters");
}

std::vector<FormatParameters> format_variants(const FormatUnit& unit, const FormatOptionValues& values) {
  const ParameterSpec* current = nullptr;  // the key being read, for the error's option name
  try {
    return parameter_combinations(unit, [&](const ParameterSpec& spec) {
      current = &spec;
      const auto given = values.find(spec.key);
      return given != values.end() ? split(given->second) : std::vector<std::string>{};
    });
  } catch (const std::invalid_argument& e) {
    if (!current) throw;
    throw std::invalid_argument(fmt::format("{}: {}", current->option(), e.what()));
  }
}

}  // namespace fvmmini::bench
