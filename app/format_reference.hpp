#pragma once
// The storage formats as users read about them, made from the format units: the tables of
// docs/cases.md (fvmmini --list-formats prints them) and the --help footer.

#include <string>

namespace fvmmini {

/// Markdown: the formats (name, backends, what) and their case keys (type, default, range, doc).
std::string format_reference_markdown();

/// One line per format for --help: "  staircase   reference, cuda   Staircase SELL: ...".
std::string format_help_text();

}  // namespace fvmmini
