#include "app/case_loader.hpp"

#include "app/case_keys.hpp"
#include "app/case_source.hpp"
#include "base/printable.hpp"

namespace fvmmini {

namespace {

/// The overrides over the document, validated; out/<stem> for an empty output.directory.
ResolvedCase resolve_case(SourceNode document, const std::filesystem::path& case_file,
                          const std::vector<std::string>& overrides) {
  // --- Every malformed --set is reported, not just the first.
  std::vector<CaseProblem> problems;
  std::size_t nodes = node_count(document);
  for (const auto& assignment : overrides) {
    try {
      apply_override(document, assignment, nodes);
    } catch (const CaseError& e) {
      problems.insert(problems.end(), e.problems().begin(), e.problems().end());
    }
  }
  if (!problems.empty()) throw CaseError(std::move(problems));

  ResolvedCase resolved = case_schema().resolve(document, case_file);
  if (resolved.get_string("output.directory").empty()) {
    // --- out/<stem>: a stem of "." or ".." would make it out/ or the current folder itself
    const std::string stem = case_file.stem().string();
    if (stem.empty() || stem == "." || stem == "..")
      throw CaseError(resolved.where("output.directory"),
                      "output.directory: the case file's name '" + printable(case_file.filename().string()) +
                          "' gives no folder for the default out/<case file stem>; set output.directory");
    resolved.set_scalar("output.directory", (std::filesystem::path("out") / stem).string());
  }
  return resolved;
}

}  // namespace

ResolvedCase load_case(const std::filesystem::path& case_file, const std::vector<std::string>& overrides) {
  return resolve_case(read_case_source(case_file, case_file.string()), case_file, overrides);
}

ResolvedCase load_case_text(const std::string& yaml_text, const std::filesystem::path& case_file,
                            const std::vector<std::string>& overrides) {
  return resolve_case(source_from_text(yaml_text, SourceLocation{case_file.string()}), case_file, overrides);
}

std::filesystem::path output_directory(const ResolvedCase& resolved) {
  const std::filesystem::path folder =
      std::filesystem::absolute(resolved.get_string("output.directory")).lexically_normal();
  return folder.has_filename() || folder == folder.root_path() ? folder : folder.parent_path();  // "a/." is "a/"
}

}  // namespace fvmmini
