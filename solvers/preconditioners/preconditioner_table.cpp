#include "solvers/preconditioners/preconditioner_table.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvmmini {

// The units listed in solvers/CMakeLists.txt (FVMMINI_PRECONDITIONER_UNITS): declarations of
// preconditioner_unit_<file>() and listed_preconditioner_units().
#include "preconditioner_units.inc"

namespace {

/// The table, checked once: every name and alias names one unit, and a unit the CG applies sets
/// itself up.
std::vector<PreconditionerUnit> checked_table() {
  std::vector<PreconditionerUnit> table;
  std::vector<std::string> words;
  for (const PreconditionerUnit* unit : listed_preconditioner_units()) {
    if (unit->cg_step == CgStep::applied && !unit->make)
      throw std::logic_error(fmt::format("preconditioner unit '{}' is applied but has no set-up", unit->name));
    std::vector<std::string> own{unit->name};
    own.insert(own.end(), unit->aliases.begin(), unit->aliases.end());
    for (const std::string& word : own) {
      if (std::find(words.begin(), words.end(), word) != words.end())
        throw std::logic_error(fmt::format("two preconditioner units answer to '{}'", word));
      words.push_back(word);
    }
    table.push_back(*unit);
  }
  return table;
}

}  // namespace

const std::vector<PreconditionerUnit>& preconditioner_table() {
  static const std::vector<PreconditionerUnit> table = checked_table();
  return table;
}

const PreconditionerUnit& find_preconditioner(const std::string& name) {
  for (const PreconditionerUnit& unit : preconditioner_table())
    if (unit.name == name || std::find(unit.aliases.begin(), unit.aliases.end(), name) != unit.aliases.end())
      return unit;
  throw std::invalid_argument(
      fmt::format("unknown preconditioner '{}' (known: {})", name, fmt::join(preconditioner_names(), ", ")));
}

std::vector<std::string> preconditioner_names() {
  std::vector<std::string> names;
  for (const PreconditionerUnit& unit : preconditioner_table()) names.push_back(unit.name);
  return names;
}

std::vector<std::string> preconditioner_words() {
  std::vector<std::string> words = preconditioner_names();
  for (const PreconditionerUnit& unit : preconditioner_table())
    words.insert(words.end(), unit.aliases.begin(), unit.aliases.end());
  return words;
}

std::string parse_preconditioner(const std::string& word) { return find_preconditioner(word).name; }

CgStep cg_step(const SolverSettings& settings) { return find_preconditioner(settings.preconditioner).cg_step; }

std::string solver_name(const SolverSettings& s, const std::string& format) {
  const PreconditionerUnit& unit = find_preconditioner(s.preconditioner);
  // --- OpenFOAM's words: CG preconditioned is PCG ("DICPCG"); a method named P... keeps its name
  const bool named_preconditioned = !s.solver.empty() && s.solver.front() == 'P';
  const std::string method = unit.cg_step == CgStep::none || named_preconditioned ? s.solver : "P" + s.solver;
  return fmt::format("{}{}[{}]", unit.cg_step == CgStep::none ? "" : unit.name, method, format);
}

std::string preconditioner_across_ranks(const SolverSettings& settings, int ranks) {
  const PreconditionerUnit& unit = find_preconditioner(settings.preconditioner);
  return unit.across_ranks ? unit.across_ranks(settings, ranks) : "preconditioner on each rank's block";
}

std::vector<std::pair<std::string, std::vector<std::string>>> preconditioner_keys() {
  std::vector<std::pair<std::string, std::vector<std::string>>> keys;
  for (const PreconditionerUnit& unit : preconditioner_table())
    for (const std::string& key : unit.keys) {
      auto known = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == key; });
      if (known == keys.end()) known = keys.insert(keys.end(), {key, {}});
      known->second.push_back(unit.name);
    }
  return keys;
}

}  // namespace fvmmini
