#include "app/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace fvmmini {

namespace {

/// The temporaries being written, as plain paths a signal handler may unlink. A slot is filled,
/// then marked in use; a path too long or a table full is not recorded (the next run removes it).
struct TemporarySlot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
std::array<TemporarySlot, 8> temporaries;

/// Records a temporary for the lifetime of the write.
class RecordedTemporary {
 public:
  explicit RecordedTemporary(const std::filesystem::path& path) {
    const std::string& text = path.native();
    if (text.size() >= PATH_MAX) return;
    for (auto& candidate : temporaries) {
      if (candidate.used.load()) continue;
      std::memcpy(candidate.path, text.c_str(), text.size() + 1);
      candidate.used.store(true);
      slot_ = &candidate;
      return;
    }
  }
  ~RecordedTemporary() {
    if (slot_ != nullptr) slot_->used.store(false);
  }
  RecordedTemporary(const RecordedTemporary&) = delete;
  RecordedTemporary& operator=(const RecordedTemporary&) = delete;

 private:
  TemporarySlot* slot_ = nullptr;
};

const std::string temporary_infix = ".part";

}  // namespace

std::filesystem::path temporary_path_for(const std::filesystem::path& target) {
  std::string name = ".";
  name += target.filename().string();
  name += temporary_infix;
  name += std::to_string(::getpid());
  return target.parent_path() / name;
}

bool is_temporary_name(std::string_view name) {
  const auto infix = name.rfind(temporary_infix);
  if (name.size() < 2 || name.front() != '.' || infix == std::string_view::npos || infix < 2) return false;
  const std::string_view pid = name.substr(infix + temporary_infix.size());
  return !pid.empty() && pid.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string write_error(const std::filesystem::path& file, int error) {
  return "cannot write " + file.string() + ": " + std::strerror(error);
}

namespace {

/// A file descriptor closed on every way out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  /// Close now; the system's reason when that fails (a delayed write error), else 0.
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

/// Create `name` in the folder `folder` for writing, as a new file: never through a link or onto
/// a file someone else put there. An entry already under that name (a link or file planted in a
/// shared folder, or this process's own leftover) is removed and the creation tried again.
int create_new_file(int folder, const std::string& name, const std::filesystem::path& target) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = ::openat(folder, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) throw std::runtime_error(write_error(target, errno));
    if (::unlinkat(folder, name.c_str(), 0) != 0 && errno != ENOENT)
      throw std::runtime_error(write_error(target, errno));
  }
  throw std::runtime_error("cannot write " + target.string() + ": an entry named " + name +
                           " keeps appearing in its folder while it is written");
}

}  // namespace

void replace_file_atomically(const std::filesystem::path& target,
                             const std::function<void(const std::filesystem::path&)>& write_temporary) {
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
  const Descriptor directory(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory.get() < 0) throw std::runtime_error(write_error(target, errno));
  const std::string name = target.filename().string();
  const std::string temporary = temporary_path_for(target).filename().string();
  const RecordedTemporary recorded(folder / temporary);
  Descriptor file(create_new_file(directory.get(), temporary, target));
  try {
    // --- the writer opens the very file created above, whatever its name points to by now
    write_temporary("/proc/self/fd/" + std::to_string(file.get()));
    struct stat written {};
    if (::fstat(file.get(), &written) != 0) throw std::runtime_error(write_error(target, errno));
    if (written.st_size == 0) throw std::runtime_error("cannot write " + target.string() + ": nothing was written");
    if (const int error = file.close(); error != 0) throw std::runtime_error(write_error(target, error));
    if (::renameat(directory.get(), temporary.c_str(), directory.get(), name.c_str()) != 0)
      throw std::runtime_error(write_error(target, errno));
  } catch (...) {
    ::unlinkat(directory.get(), temporary.c_str(), 0);
    throw;
  }
}

void write_stream_atomically(const std::filesystem::path& target, const std::function<void(std::ostream&)>& write) {
  replace_file_atomically(target, [&](const std::filesystem::path& temporary) {
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(write_error(target, errno != 0 ? errno : EIO));
    write(out);
    out.close();  // flushes: a full disk shows here
    if (out.fail()) throw std::runtime_error(write_error(target, errno != 0 ? errno : EIO));
  });
}

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
  replace_file_atomically(target, [&](const std::filesystem::path& temporary) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(write_error(target, errno));
    int error = 0;
    for (std::size_t done = 0; done < content.size();) {
      const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error = n < 0 ? errno : EIO;
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 && error == 0) error = errno;
    if (error != 0) throw std::runtime_error(write_error(target, error));
  });
}

void remove_temporaries_in_progress() noexcept {
  for (auto& slot : temporaries)
    if (slot.used.load()) ::unlink(slot.path);
}

}  // namespace fvmmini
