// Fuzz harness: the case loader (YAML reading, --set overrides, validation, resolution).
//
// Input: a case file, optionally followed by a line "#--set" and then one --set argument
// per line ("key.path=value"). The marker is a YAML comment, so the input without it is
// an ordinary case file.

#include <string>
#include <string_view>
#include <vector>

#include "app/case_error.hpp"
#include "app/case_loader.hpp"
#include "tests/fuzz/scratch_folder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fvmmini;
  static constexpr std::string_view marker = "\n#--set\n";
  const std::string_view input = fuzz::as_bytes(data, size);
  const size_t at = input.find(marker);
  std::vector<std::string> overrides;
  if (at != std::string_view::npos)
    for (const auto line : fuzz::split(input.substr(at + marker.size()), '\n'))
      if (!line.empty()) overrides.emplace_back(line);
  const auto file = fuzz::write_scratch_file("case.yaml", input.substr(0, at));
  try {
    load_case(file, overrides);
  } catch (const CaseError&) {
    // the documented answer to a bad case; anything else escaping is a finding
  }
  return 0;
}
