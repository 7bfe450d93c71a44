#include "app/output_folder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "app/atomic_file.hpp"

namespace fvmmini {

namespace {

// --- What the SIGINT/SIGTERM handler removes: plain data, as a handler may only unlink.
char lock_path_for_handler[PATH_MAX];
std::atomic<bool> lock_held{false};
struct sigaction previous_interrupt, previous_terminate;

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
  ::sigaction(SIGINT, &action, &previous_interrupt);
  ::sigaction(SIGTERM, &action, &previous_terminate);
}

void restore_handlers() {
  ::sigaction(SIGINT, &previous_interrupt, nullptr);
  ::sigaction(SIGTERM, &previous_terminate, nullptr);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

/// The run a lock file names: "<pid> <host>".
struct Holder {
  long pid = 0;
  std::string host;
};

Holder read_holder(const std::filesystem::path& lock) {
  Holder holder;
  std::ifstream in(lock);
  in >> holder.pid >> holder.host;
  return holder;
}

/// Whether the holder is a process of this host that no longer runs.
bool is_stale(const Holder& holder) {
  return holder.pid > 0 && holder.host == host_name() && ::kill(static_cast<pid_t>(holder.pid), 0) != 0 &&
         errno == ESRCH;
}

/// Create the lock file, or say who holds it; a dead holder's lock is taken over (once: a run
/// that takes it at the same moment wins).
void take_lock(const std::filesystem::path& directory, const std::filesystem::path& lock) {
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string text = fmt::format("{} {}\n", ::getpid(), host_name());
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
    const Holder holder = read_holder(lock);
    if (attempt == 0 && is_stale(holder)) {
      std::cerr << fmt::format("fvmmini: warning: taking over the lock of the output folder {} from process {} on {}, "
                               "which no longer runs\n",
                               directory.string(), holder.pid, holder.host);
      ::unlink(lock.c_str());
      continue;
    }
    const std::string who = holder.pid > 0 ? fmt::format("process {} on host {}", holder.pid, holder.host)
                                           : "a run that did not say who it is";
    throw std::runtime_error(fmt::format(
        "the output folder {} is in use by another fvmmini run ({}; lock file {}): wait for it to end, or set "
        "output.directory to another folder{}",
        directory.string(), who, lock.string(),
        holder.host == host_name() ? "" : " (if that run has ended, remove the lock file)"));
  }
}

/// Whether `name` is a file some run writes in its output folder.
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

}  // namespace

OutputFolder::OutputFolder(std::filesystem::path directory, const std::string& summary_name)
    : directory_(std::move(directory)) {
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
    for (const auto& entry : std::filesystem::directory_iterator(directory_)) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || entry.is_symlink() || !is_run_output(name, summary_name)) continue;
      std::filesystem::remove(entry.path());
      ++removed_;
    }
  } catch (const std::filesystem::filesystem_error& e) {
    release();
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
