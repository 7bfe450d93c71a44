#pragma once
// An OpenFOAM icoFoam case directory as the fvmmini case it maps to (fvmmini --foam-case DIR):
// system/controlDict, fvSchemes and fvSolution, constant/transportProperties and polyMesh, and
// the U and p of the start time's folder, each entry icoFoam reads mapped to its case key
// (docs/cases.md, "An OpenFOAM case"). An entry that cannot be mapped is an error naming its
// file, line and entry; entries that only shape OpenFOAM's own output files are listed in the
// mapped case's comments, not silently dropped.

#include <filesystem>
#include <string>
#include <vector>

#include "app/resolved_case.hpp"

namespace fvmmini {

/// The mapped case as YAML text, its mesh the case's polyMesh, its output folder
/// out/<the directory's name>, a comment naming the source of each section.
/// @throws CaseError listing every entry that cannot be mapped, each with its file and line
std::string foam_case_yaml(const std::filesystem::path& case_directory);

/// foam_case_yaml's case with the --set overrides applied, validated as a case file is.
/// @param[out] yaml the mapped text (for --dry-run), or null
/// @throws CaseError as foam_case_yaml and load_case do
ResolvedCase load_foam_case(const std::filesystem::path& case_directory, const std::vector<std::string>& overrides,
                            std::string* yaml = nullptr);

}  // namespace fvmmini
