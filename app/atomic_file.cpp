#include "app/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
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

void replace_file_atomically(const std::filesystem::path& target,
                             const std::function<void(const std::filesystem::path&)>& write_temporary) {
  const std::filesystem::path temporary = temporary_path_for(target);
  const RecordedTemporary recorded(temporary);
  std::error_code ignored;
  try {
    write_temporary(temporary);
    if (!std::filesystem::is_regular_file(temporary))
      throw std::runtime_error("cannot write " + target.string() + ": nothing was written");
    if (std::rename(temporary.c_str(), target.c_str()) != 0) throw std::runtime_error(write_error(target, errno));
  } catch (...) {
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
  replace_file_atomically(target, [&](const std::filesystem::path& temporary) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
