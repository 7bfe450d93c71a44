#pragma once
// The output folder of a run: one run at a time, and only this run's files in it. A lock file
// names the run that holds the folder; what an earlier run wrote there is removed before this
// one writes (a link under such a name is removed, never followed; an input under such a name
// stops the run); a SIGINT, SIGTERM or SIGHUP removes the temporaries being written and the lock
// on its way out.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace fvmmini {

/// The names a run writes in its output folder, besides the summary (output.summary).
inline constexpr const char* fields_basename = "fields";  ///< fields.pvd and fields_NNNNNN.vtu
inline constexpr const char* centrelines_name = "centrelines.csv";
inline constexpr const char* lock_name = ".fvmmini.lock";

/// Whether `name` is a file some run writes in its output folder: the fields' series, the
/// centrelines, `summary_name` (unless empty), a temporary of an atomic write.
bool is_run_output(const std::string& name, const std::string& summary_name);

/// Why `name` cannot be output.summary ("" when it can): a path, '.' or '..', a hidden name (the
/// lock's and the temporaries' form), control characters, or a file the run writes itself.
std::string summary_name_problem(const std::string& name);

class OutputFolder {
 public:
  /// Create `directory`, take its lock, then remove what an earlier run wrote there: fields.pvd,
  /// fields_<number>.vtu, centrelines.csv, `summary_name` (unless empty) and the temporaries of
  /// an interrupted run (links under those names too). Other files are left alone. Installs the
  /// SIGINT/SIGTERM/SIGHUP clean-up.
  /// @param[in] inputs the files the run read (the case, the mesh's): an output's name that is one
  ///   of them stops the run untouched
  /// @throws std::runtime_error naming the folder and the reason when it cannot be created or
  ///         locked (a link that another user owns, a lock that is not a file), when an input has
  ///         an output's name there, or naming the holder (pid and host) when another live run
  ///         holds it. The lock of a process of this host that no longer runs (or whose pid now
  ///         belongs to a process started later) is taken over with a warning on stderr.
  OutputFolder(std::filesystem::path directory, const std::string& summary_name,
               const std::vector<std::filesystem::path>& inputs = {});
  /// Releases the lock and restores the signal handlers.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  const std::filesystem::path& path() const { return directory_; }
  /// How many files of an earlier run were removed.
  std::size_t removed() const { return removed_; }

 private:
  void remove_earlier_output(const std::string& summary_name, const std::vector<std::filesystem::path>& inputs);
  void release() noexcept;
  std::filesystem::path directory_;
  std::size_t removed_ = 0;
};

}  // namespace fvmmini
