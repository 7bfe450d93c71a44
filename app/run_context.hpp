#pragma once
// What the command line tells a run besides the case itself.

#include <filesystem>
#include <string>

#include "comm/communicator.hpp"

namespace fvmmini {

struct RunContext {
  /// Absolute output folder (output.directory against the current folder). main() does not
  /// create it: the run creates it once the mesh and setup have succeeded, so a case that
  /// fails early leaves nothing behind.
  std::filesystem::path output_directory;
  bool quiet = false;  ///< --quiet: no log lines, progress or timing table; errors still go to stderr
  bool tty = false;    ///< standard output is a terminal: a progress line may be drawn (unless quiet)
  std::string version;       ///< "0.1.0"
  std::string command_line;  ///< the arguments as given, for the summary
  /// The ranks of the run (mpirun -np N: N, each running this case on its part of the mesh).
  const Communicator* ranks = &Communicator::serial();
  /// Only the root writes the log, the progress line and the summary.
  bool speaks() const { return ranks->is_root(); }
};

}  // namespace fvmmini
