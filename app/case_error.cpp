#include "app/case_error.hpp"

namespace fvmmini {

namespace {

std::string join_problems(const std::vector<CaseProblem>& problems) {
  std::string text;
  for (const auto& problem : problems) {
    if (!text.empty()) text += '\n';
    text += problem.str();
  }
  return text;
}

}  // namespace

std::string SourceLocation::str() const {
  if (line <= 0) return origin;
  const std::string at = origin + ":" + std::to_string(line);
  return column > 0 ? at + ":" + std::to_string(column) : at;  // (a dictionary entry: its line)
}

std::string CaseProblem::str() const {
  const std::string place = where.str();
  return place.empty() ? message : place + ": " + message;
}

CaseError::CaseError(std::vector<CaseProblem> problems)
    : std::runtime_error(join_problems(problems)), problems_(std::move(problems)) {}

CaseError::CaseError(SourceLocation where, const std::string& message)
    : CaseError(std::vector<CaseProblem>{CaseProblem{std::move(where), message}}) {}

}  // namespace fvmmini
