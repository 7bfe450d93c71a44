#pragma once
// Problems found in a case (file, --set override, or the case against its mesh),
// each with the place that caused it. A CaseError carries all of them at once.

#include <stdexcept>
#include <string>
#include <vector>

namespace fvmmini {

/// Where a value came from: a file with 1-based line and column, or a --set argument (line 0).
struct SourceLocation {
  std::string origin;  ///< the case file as given, or "--set key=value"
  int line = 0;        ///< 1-based; 0 when not line-specific
  int column = 0;      ///< 1-based; 0 when not line-specific

  /// "cases/x.yaml:12:5", "cases/x.yaml" or "--set a.b=1"; "system/fvSolution:12" without a column.
  std::string str() const;
};

/// One problem: where, and what (the message names the key path).
struct CaseProblem {
  SourceLocation where;
  std::string message;

  /// "cases/x.yaml:12:5: unknown key 'tolerence' in solvers.T (did you mean 'tolerance'?)".
  std::string str() const;
};

/// A case that cannot run as written (exit status 2). what() lists every problem, one per line.
class CaseError : public std::runtime_error {
 public:
  explicit CaseError(std::vector<CaseProblem> problems);
  /// A single problem.
  CaseError(SourceLocation where, const std::string& message);
  const std::vector<CaseProblem>& problems() const { return problems_; }

 private:
  std::vector<CaseProblem> problems_;
};

}  // namespace fvmmini
