#include "tools/bench/format_options.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvmmini::bench {

void add_format_options(CLI::App& app, FormatOptionValues& values) {
  // --- one option per key, its help naming every format that reads it
  for (const auto& [spec, formats] : format_parameter_keys())
    app.add_option(spec->option(), values[spec->key],
                   fmt::format("{}: {} ({}; default {}); a comma-separated list runs each (auto runs once, with "
                               "every key of the format that lists auto set to it)",
                               fmt::join(formats, ", "), spec->doc, spec->range_text(), spec->default_value))
        ->group("Format parameters");
}

std::vector<FormatParameters> format_variants(const FormatUnit& unit, const FormatOptionValues& values) {
  const ParameterSpec* current = nullptr;  // the key being read, for the error's option name
  std::vector<FormatParameters> combinations;
  std::vector<std::string> listing_auto;  // keys of the unit whose list has auto
  try {
    combinations = parameter_combinations(unit, [&](const ParameterSpec& spec) {
      current = &spec;
      const auto given = values.find(spec.key);
      std::vector<std::string> list = given != values.end() ? split(given->second) : std::vector<std::string>{};
      if (std::find(list.begin(), list.end(), "auto") != list.end()) listing_auto.push_back(spec.key);
      return list;
    });
  } catch (const std::invalid_argument& e) {
    if (!current) throw;
    throw std::invalid_argument(fmt::format("{}: {}", current->option(), e.what()));
  }
  // --- auto once: with all of those keys at auto, or none (the explicit grid)
  std::erase_if(combinations, [&](const FormatParameters& p) {
    const auto at_auto = std::count_if(listing_auto.begin(), listing_auto.end(), [&](const std::string& key) {
      return p.is_word(key) && p.word(key) == "auto";
    });
    return at_auto != 0 && at_auto != static_cast<std::ptrdiff_t>(listing_auto.size());
  });
  return combinations;
}

}  // namespace fvmmini::bench
