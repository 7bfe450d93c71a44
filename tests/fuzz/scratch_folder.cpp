#include "tests/fuzz/scratch_folder.hpp"

#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace fvmmini::fuzz {
namespace {

class ScratchFolder {
 public:
  ScratchFolder()
      : path_(std::filesystem::temp_directory_path() / ("fvmmini-fuzz-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

const std::filesystem::path& scratch_folder() {
  static const ScratchFolder folder;
  return folder.path();
}

std::filesystem::path write_scratch_file(const std::string& name, std::string_view bytes) {
  const auto path = scratch_folder() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("fuzz harness: cannot write " + path.string());
  return path;
}

void remove_scratch_file(const std::string& name) {
  std::error_code ignored;
  std::filesystem::remove(scratch_folder() / name, ignored);
}

std::vector<std::string_view> split(std::string_view bytes, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = bytes.find(separator);
    parts.push_back(bytes.substr(0, at));
    if (at == std::string_view::npos) return parts;
    bytes.remove_prefix(at + 1);
  }
}

}  // namespace fvmmini::fuzz
