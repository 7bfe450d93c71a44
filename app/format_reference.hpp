#pragma once
// The storage formats, Krylov methods, preconditioners and orderings as users read about them, made from their
// units: the tables of docs/cases.md (fvmmini --list-formats prints them) and the --help footer.

#include <string>

namespace fvmmini {

/// Markdown: the formats (name, backends, what) and their case keys (type, default, range, doc).
std::string format_reference_markdown();

/// One line per format for --help: "  staircase   reference, cuda   Staircase SELL: ...".
std::string format_help_text();
/// The --help lines of the Krylov methods and the preconditioners, with their backends ("  DIC
/// reference, cuda   incomplete Cholesky ..."), and of the orderings ("  cm   Cuthill-McKee ..."),
/// from their unit tables.
std::string solver_help_text();

}  // namespace fvmmini
