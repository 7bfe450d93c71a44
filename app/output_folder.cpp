#include "app/output_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "app/atomic_file.hpp"
#include "base/printable.hpp"

namespace fvmmini {

namespace {

// --- What the signal handler removes: plain data, as a handler may only unlink.
char lock_path_for_handler[PATH_MAX];
std::atomic<bool> lock_held{false};
constexpr int cleaned_signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous_actions[std::size(cleaned_signals)];

extern "C" void remove_and_stop(int signal) {
  remove_temporaries_in_progress();
  if (lock_held.load()) ::unlink(lock_path_for_handler);
  ::raise(signal);  // SA_RESETHAND: the default action now ends the process, as without us
}

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = remove_and_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (std::size_t i = 0; i < std::size(cleaned_signals); ++i)
    ::sigaction(cleaned_signals[i], &action, &previous_actions[i]);
}

void restore_handlers() {
  for (std::size_t i = 0; i < std::size(cleaned_signals); ++i)
    ::sigaction(cleaned_signals[i], &previous_actions[i], nullptr);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

/// When process `pid` started, in clock ticks since boot (/proc/<pid>/stat's 22nd field): with the
/// pid it names one process, though the system reuses pids. 0 when it cannot be read.
unsigned long long start_ticks(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);
  const auto name_end = text.rfind(')');  // the command name may hold spaces and parentheses
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(name_end + 1));
  std::string field;
  for (int k = 3; k <= 22 && fields >> field; ++k)
    if (k == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

/// The run a lock file names: "<pid> <host> <start ticks>" (the ticks since lock files had them).
struct Holder {
  long pid = 0;
  std::string host;
  unsigned long long started = 0;
};

/// The holder a lock file names, read through no link and no more than a line of it.
Holder read_holder(const std::filesystem::path& lock) {
  Holder holder;
  const int fd = ::open(lock.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return holder;
  char text[320] = {};
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return holder;
  std::istringstream in(std::string(text, static_cast<std::size_t>(n)));
  in >> holder.pid >> holder.host >> holder.started;
  return holder;
}

/// Why the holder, a process of this host, no longer holds the lock ("" when it may): it has
/// ended, or its pid now belongs to a process that started at another time.
std::string stale_reason(const Holder& holder) {
  if (holder.pid <= 0 || holder.host != host_name()) return "";
  if (::kill(static_cast<pid_t>(holder.pid), 0) != 0 && errno == ESRCH) return "which no longer runs";
  if (holder.started != 0 && start_ticks(holder.pid) != holder.started)
    return "which no longer runs (its pid now belongs to another process)";
  return "";
}

/// Create the lock file, or say who holds it; a dead holder's lock is taken over (once: a run
/// that takes it at the same moment wins).
void take_lock(const std::filesystem::path& directory, const std::filesystem::path& lock) {
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string text = fmt::format("{} {} {}\n", ::getpid(), host_name(), start_ticks(::getpid()));
      const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      const int error = errno;
      ::close(fd);
      if (!written) {
        ::unlink(lock.c_str());
        throw std::runtime_error(write_error(lock, error));
      }
      return;
    }
    if (errno != EEXIST)
      throw std::runtime_error(fmt::format("cannot lock the output folder {}: {}: {}", directory.string(),
                                           lock.string(), std::strerror(errno)));
    struct stat entry {};
    if (::lstat(lock.c_str(), &entry) == 0 && !S_ISREG(entry.st_mode))
      throw std::runtime_error(fmt::format(
          "cannot lock the output folder {}: {} is not a lock file fvmmini wrote (it is a {}); remove it, or set "
          "output.directory to another folder",
          directory.string(), lock.string(), S_ISLNK(entry.st_mode) ? "symbolic link" : "special file"));
    const Holder holder = read_holder(lock);
    if (const std::string reason = stale_reason(holder); attempt == 0 && !reason.empty()) {
      std::cerr << printable_message(fmt::format(
          "fvmmini: warning: taking over the lock of the output folder {} from process {} on {}, {}\n",
          directory.string(), holder.pid, holder.host, reason));
      ::unlink(lock.c_str());
      continue;
    }
    const std::string who = holder.pid > 0 ? fmt::format("process {} on host {}", holder.pid, holder.host)
                                           : "a run that did not say who it is";
    throw std::runtime_error(fmt::format(
        "the output folder {} is in use by another fvmmini run ({}; lock file {}): wait for it to end, or set "
        "output.directory to another folder; if no fvmmini run uses this folder, remove the lock file",
        directory.string(), who, lock.string()));
  }
}

/// An input's identity, the same for every name of its file.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileIdentity&) const = default;
};

/// The run's input files with their identities: what a file of the output folder must not be.
std::vector<std::pair<FileIdentity, std::filesystem::path>> input_files(
    const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::pair<FileIdentity, std::filesystem::path>> files;
  for (const auto& input : inputs) {
    struct stat info {};
    if (::stat(input.c_str(), &info) == 0 && S_ISREG(info.st_mode))
      files.push_back({{info.st_dev, info.st_ino}, input});
  }
  return files;
}

}  // namespace

bool is_run_output(const std::string& name, const std::string& summary_name) {
  // fields_NNNNNN.vtu, and on several ranks fields_NNNNNN_<rank>.vtu and fields_NNNNNN.pvtu
  const std::string series = std::string(fields_basename) + "_";
  for (const std::string extension : {".vtu", ".pvtu"}) {
    if (name.size() <= series.size() + extension.size() || !name.starts_with(series) || !name.ends_with(extension))
      continue;
    const std::string number = name.substr(series.size(), name.size() - series.size() - extension.size());
    const auto underscore = extension == ".vtu" ? number.find('_') : std::string::npos;
    const bool digits = number.find_first_not_of("0123456789_") == std::string::npos;
    if (digits && number.find('_', underscore == std::string::npos ? 0 : underscore + 1) == std::string::npos &&
        underscore != 0 && underscore + 1 != number.size())
      return true;
  }
  return name == std::string(fields_basename) + ".pvd" || name == centrelines_name ||
         (!summary_name.empty() && name == summary_name) || is_temporary_name(name);
}

std::string summary_name_problem(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return "must be a file name, not a path";
  if (name == "." || name == "..") return "must name a file, not the folder '" + name + "'";
  if (name.front() == '.') return "must not start with '.' (the output folder's lock and temporaries do)";
  if (std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return "must not hold control characters";
  if (is_run_output(name, "")) return "names a file the run writes itself (" + name + ")";
  return "";
}

OutputFolder::OutputFolder(std::filesystem::path directory, const std::string& summary_name,
                           const std::vector<std::filesystem::path>& inputs)
    : directory_(std::move(directory)) {
  // --- a link someone else made in a shared folder (/tmp) must not lead the run elsewhere
  struct stat link {};
  if (::lstat(directory_.c_str(), &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != ::geteuid())
    throw std::runtime_error("the output folder " + directory_.string() +
                             " is a symbolic link that another user owns; set output.directory to a folder of yours");
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) throw std::runtime_error("cannot create the output folder " + directory_.string() + ": " + ec.message());
  const std::filesystem::path lock = directory_ / lock_name;
  take_lock(directory_, lock);
  if (lock.native().size() < PATH_MAX) {
    std::memcpy(lock_path_for_handler, lock.c_str(), lock.native().size() + 1);
    lock_held.store(true);
  }
  install_handlers();
  try {
    remove_earlier_output(summary_name, inputs);
  } catch (...) {
    release();
    throw;
  }
}

void OutputFolder::remove_earlier_output(const std::string& summary_name,
                                         const std::vector<std::filesystem::path>& inputs) {
  const auto protected_files = input_files(inputs);
  try {
    for (const auto& entry : std::filesystem::directory_iterator(directory_)) {
      const std::string name = entry.path().filename().string();
      // --- a link under an output's name is removed, never followed (it may be planted)
      const auto type = entry.symlink_status().type();
      if (type != std::filesystem::file_type::regular && type != std::filesystem::file_type::symlink) continue;
      if (!is_run_output(name, summary_name)) continue;
      struct stat info {};
      if (type == std::filesystem::file_type::regular && ::lstat(entry.path().c_str(), &info) == 0)
        for (const auto& [identity, input] : protected_files)
          if (identity == FileIdentity{info.st_dev, info.st_ino})
            throw std::runtime_error(fmt::format(
                "the output folder {} holds {}, a file this run writes{}, but it is the input {}: set "
                "output.directory to another folder{}",
                directory_.string(), name, name == summary_name ? " (output.summary)" : "", input.string(),
                name == summary_name ? " or output.summary to another name" : ""));
      std::filesystem::remove(entry.path());
      ++removed_;
    }
  } catch (const std::filesystem::filesystem_error& e) {
    throw std::runtime_error("cannot remove an earlier run's output from " + directory_.string() + ": " +
                             e.code().message() + " (" + e.path1().string() + ")");
  }
}

OutputFolder::~OutputFolder() { release(); }

void OutputFolder::release() noexcept {
  restore_handlers();
  lock_held.store(false);
  ::unlink((directory_ / lock_name).c_str());
}

}  // namespace fvmmini
