#pragma once
// The output folder of a run: one run at a time, and only this run's files in it. A lock file
// names the run that holds the folder; what an earlier run wrote there is removed before this
// one writes; a SIGINT or SIGTERM removes the temporaries being written and the lock on its way out.

#include <cstddef>
#include <filesystem>
#include <string>

namespace fvmmini {

/// The names a run writes in its output folder, besides the summary (output.summary).
inline constexpr const char* fields_basename = "fields";  ///< fields.pvd and fields_NNNNNN.vtu
inline constexpr const char* centrelines_name = "centrelines.csv";
inline constexpr const char* lock_name = ".fvmmini.lock";

class OutputFolder {
 public:
  /// Create `directory`, take its lock, then remove what an earlier run wrote there: fields.pvd,
  /// fields_<number>.vtu, centrelines.csv, `summary_name` (unless empty) and the temporaries of
  /// an interrupted run. Other files are left alone. Installs the SIGINT/SIGTERM clean-up.
  /// @throws std::runtime_error naming the folder and the reason when it cannot be created or
  ///         locked, or naming the holder (pid and host) when another live run holds it. The lock
  ///         of a process that no longer runs on this host is taken over with a warning on stderr.
  OutputFolder(std::filesystem::path directory, const std::string& summary_name);
  /// Releases the lock and restores the signal handlers.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  const std::filesystem::path& path() const { return directory_; }
  /// How many files of an earlier run were removed.
  std::size_t removed() const { return removed_; }

 private:
  void release() noexcept;
  std::filesystem::path directory_;
  std::size_t removed_ = 0;
};

}  // namespace fvmmini
