#include "app/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace fvmmini {

std::filesystem::path temporary_path_for(const std::filesystem::path& target) {
  std::string name = ".";
  name += target.filename().string();
  name += ".part";
  name += std::to_string(::getpid());
  return target.parent_path() / name;
}

void replace_file_atomically(const std::filesystem::path& target,
                             const std::function<void(const std::filesystem::path&)>& write_temporary) {
  const std::filesystem::path temporary = temporary_path_for(target);
  std::error_code ignored;
  try {
    write_temporary(temporary);
    if (!std::filesystem::is_regular_file(temporary))
      throw std::runtime_error("cannot write " + target.string() + ": nothing was written");
    std::error_code ec;
    std::filesystem::rename(temporary, target, ec);
    if (ec) throw std::runtime_error("cannot write " + target.string() + ": " + ec.message());
  } catch (...) {
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
  replace_file_atomically(target, [&](const std::filesystem::path& temporary) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + target.string() + ": " + std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) throw std::runtime_error("cannot write " + target.string() + ": " + std::strerror(errno));
  });
}

}  // namespace fvmmini
