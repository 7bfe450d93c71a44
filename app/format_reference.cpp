#include "app/format_reference.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "linalg/ordering/orderings.hpp"
#include "registry/format_registry.hpp"
#include "solvers/krylov/krylov_table.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

namespace {

std::string quoted(const std::vector<std::string>& words) {
  std::vector<std::string> q;
  for (const auto& w : words) q.push_back("`" + w + "`");
  return fmt::format("{}", fmt::join(q, ", "));
}

const char* type_name(const ParameterSpec& spec) {
  switch (spec.type) {
    case ParameterSpec::Type::integer:
      return spec.words.empty() ? "int" : "int or word";
    case ParameterSpec::Type::real:
      return spec.words.empty() ? "real" : "real or word";
    case ParameterSpec::Type::word:
      return "word";
  }
  return "";
}

}  // namespace

std::string format_reference_markdown() {
  std::string text = "| format | backends | what | keys |\n| --- | --- | --- | --- |\n";
  for (const auto& unit : format_table()) {
    std::vector<std::string> keys;
    for (const auto& spec : unit.parameters) keys.push_back(spec.key);
    text += fmt::format("| `{}` | {} | {} | {} |\n", unit.name, fmt::join(format_backends(unit.name), ", "),
                        unit.summary, keys.empty() ? "" : quoted(keys));
  }
  // --- each key once, with the formats that read it
  text += "\n| key | formats | type | default | range / values | meaning |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& [spec, formats] : format_parameter_keys())
    text += fmt::format("| `{}` | {} | {} | `{}` | {} | {} |\n", spec->key, quoted(formats),
                        type_name(*spec), spec->default_value,
                        spec->type == ParameterSpec::Type::word ? quoted(spec->words) : spec->range_text(), spec->doc);
  return text;
}

std::string format_help_text() {
  std::string text = "Storage formats (solvers.<field>.format; fvmmini --list-formats for their keys):\n";
  std::size_t width = 0;
  for (const auto& unit : format_table()) width = std::max(width, unit.name.size());
  for (const auto& unit : format_table())
    text += fmt::format("  {:<{}}  {:<15}  {}\n", unit.name, width,
                        fmt::format("{}", fmt::join(format_backends(unit.name), ", ")), unit.summary);
  return text;
}

std::string solver_help_text() {
  std::string text = "\nKrylov methods (solvers.<field>.solver):\n";
  std::size_t width = 0;
  for (const auto& unit : krylov_table()) width = std::max(width, unit.name.size());
  for (const auto& unit : krylov_table())
    text += fmt::format("  {:<{}}  {:<15}  {}\n", unit.name, width,
                        fmt::format("{}", fmt::join(krylov_backends(unit.name), ", ")), unit.summary);
  text += "\nPreconditioners (solvers.<field>.preconditioner):\n";
  width = 0;
  for (const auto& unit : preconditioner_table()) width = std::max(width, unit.name.size());
  for (const auto& unit : preconditioner_table()) {
    const std::string aliases =
        unit.aliases.empty() ? "" : fmt::format(" (alias {})", fmt::join(unit.aliases, ", "));
    text += fmt::format("  {:<{}}  {:<15}  {}{}\n", unit.name, width,
                        fmt::format("{}", fmt::join(preconditioner_backends(unit.name), ", ")), unit.summary, aliases);
  }
  text += "\nOrderings (solvers.<field>.ordering):\n";
  width = 0;
  for (const auto& unit : ordering_table()) width = std::max(width, unit.name.size());
  for (const auto& unit : ordering_table()) text += fmt::format("  {:<{}}  {}\n", unit.name, width, unit.summary);
  return text;
}

}  // namespace fvmmini
