#pragma once
// The benches' format options, made from the format units: one option per parameter key
// (--slice-height for sliceHeight), each taking a comma-separated list of values; a format runs
// once per combination of the values of its own parameters.

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "registry/format_registry.hpp"
#include "tools/bench/split.hpp"

namespace fvmmini::bench {

/// Parameter key -> the option's text ("32,64"); keys not given are absent.
using FormatOptionValues = std::map<std::string, std::string>;

/// Add every format parameter as an option of `app`, writing into `values`.
void add_format_options(CLI::App& app, FormatOptionValues& values);

/// The parameter sets `unit` runs with: every combination of the listed values of its own
/// parameters (its defaults where none is given), but that auto runs once: with every key whose list
/// has it at auto, never with some of them. @throws std::invalid_argument naming the option
std::vector<FormatParameters> format_variants(const FormatUnit& unit, const FormatOptionValues& values);

}  // namespace fvmmini::bench
