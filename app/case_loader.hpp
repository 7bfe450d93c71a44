#pragma once
// From a case file on disk and the command line's --set overrides to a validated, resolved case.

#include <filesystem>
#include <string>
#include <vector>

#include "app/resolved_case.hpp"

namespace fvmmini {

/// Read, override and validate a case. Throws CaseError listing every problem found
/// (syntax, unknown keys, types, ranges, missing keys, bad --set arguments).
/// @param[in] case_file the case file as the user typed it (messages use this name)
/// @param[in] overrides "key.path=value" from --set, applied in order over the file's values
/// The empty output.directory becomes "out/<case file stem>".
ResolvedCase load_case(const std::filesystem::path& case_file, const std::vector<std::string>& overrides);

/// The same from YAML text made for the case (fvmmini --foam-case's mapping): every value's place
/// is `case_file` (no line), which also names the default output folder.
ResolvedCase load_case_text(const std::string& yaml_text, const std::filesystem::path& case_file,
                            const std::vector<std::string>& overrides);

/// The absolute output folder of a resolved case: output.directory against the current folder.
std::filesystem::path output_directory(const ResolvedCase& resolved);

}  // namespace fvmmini
