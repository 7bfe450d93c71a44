#pragma once
// The readers take paths, so a harness writes its input to files in a scratch folder:
// one per process (libFuzzer's -jobs and the replay driver's children each get their own),
// under the system temp folder, removed when the process exits normally.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fvmmini::fuzz {

/// The scratch folder of this process, created on first use.
const std::filesystem::path& scratch_folder();

/// Write `bytes` to `name` in the scratch folder (replacing it) and return its path.
std::filesystem::path write_scratch_file(const std::string& name, std::string_view bytes);

/// Remove `name` from the scratch folder if it is there.
void remove_scratch_file(const std::string& name);

/// Split `bytes` at every `separator` byte: n separators give n + 1 parts.
std::vector<std::string_view> split(std::string_view bytes, char separator);

/// The fuzzer's input as bytes.
inline std::string_view as_bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace fvmmini::fuzz

/// libFuzzer's entry point; each harness defines it, the replay driver and libFuzzer call it.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
