#pragma once
// Helpers shared by the mesh tests: fixture paths, scratch directories, file edits, and
// an expectation that a call throws MeshError naming a file (and line).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <unistd.h>

#include "mesh/mesh_error.hpp"
#include "tests/scoped_env.hpp"

namespace fvmmini::test {

inline std::filesystem::path fixtures() { return std::filesystem::path(FVMMINI_FIXTURES_DIR); }

/// A fresh directory under the system temp dir, removed when the object dies.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("fvmmini_mesh_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
             (info ? std::string(info->name()) : std::string("x")));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// Replace the first occurrence of `from` (which must exist) by `to`.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "test edit: '" << from << "' not found";
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

/// The 1-based line on which `needle` first occurs in `text`.
inline long line_of(const std::string& text, const std::string& needle) {
  const auto pos = text.find(needle);
  EXPECT_NE(pos, std::string::npos) << "'" << needle << "' not found";
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

/// Expect `f` to throw MeshError whose file ends with `file_suffix`, whose line is `line`
/// (-1: any line > 0; 0: no line), and whose message contains `fragment`.
inline void expect_mesh_error(const std::function<void()>& f, const std::string& file_suffix, long line,
                              const std::string& fragment = "") {
  try {
    f();
    ADD_FAILURE() << "expected MeshError naming " << file_suffix;
  } catch (const MeshError& e) {
    const std::string file = e.file();
    EXPECT_TRUE(file.size() >= file_suffix.size() && file.compare(file.size() - file_suffix.size(), file_suffix.size(), file_suffix) == 0)
        << "error names '" << file << "', expected it to end in '" << file_suffix << "': " << e.what();
    if (line < 0) {
      EXPECT_GT(e.line(), 0) << e.what();
    } else {
      EXPECT_EQ(e.line(), line) << e.what();
    }
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    if (!fragment.empty()) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
}

}  // namespace fvmmini::test
