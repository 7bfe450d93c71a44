#pragma once
// A shell command run as a user would run fvmmini: its exit status and what it printed.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_folder.hpp"

namespace fvmmini::testing {

struct Outcome {
  int status = -1;  ///< the exit status, -1 when killed by a signal
  std::string out, err;
};

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `command` through the shell, its standard output and error into files of a folder of
/// their own (outside the folder the command writes in).
inline Outcome run_command(const std::string& command) {
  static const TempFolder logs;
  const int raw = std::system((command + " > '" + (logs.path() / "out").string() + "' 2> '" +
                               (logs.path() / "err").string() + "'")
                                  .c_str());
  Outcome outcome;
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  outcome.out = read_text(logs.path() / "out");
  outcome.err = read_text(logs.path() / "err");
  return outcome;
}

}  // namespace fvmmini::testing
