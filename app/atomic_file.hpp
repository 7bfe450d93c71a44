#pragma once
// Files that appear complete or not at all: each is written under a temporary name
// in the same folder and renamed over the target once fully written, so an
// interrupted run never leaves a truncated file under the real name. The temporary is always
// a new file (O_EXCL | O_NOFOLLOW): a link planted under its name in a shared folder is removed,
// never followed. Temporaries being written are recorded, so that a signal handler can remove them.

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace fvmmini {

/// The temporary name used for `target`: a hidden file beside it (".<name>.part<pid>").
std::filesystem::path temporary_path_for(const std::filesystem::path& target);

/// Whether `name` (a file name, no folder) has the form temporary_path_for gives, of any process.
bool is_temporary_name(std::string_view name);

/// Produce `target` by calling `write_temporary(path)`, which must write the whole file at `path`
/// (a /proc/self/fd path to the new temporary, which it opens, truncates and writes as any file),
/// then rename it into place (a link at `target` is replaced, not followed). If the writer throws,
/// or writes nothing, the temporary is removed, `target` is left as it was, and the error
/// propagates (std::runtime_error naming the file).
void replace_file_atomically(const std::filesystem::path& target,
                             const std::function<void(const std::filesystem::path&)>& write_temporary);

/// Write `target` atomically through a stream: `write(out)` writes the whole file. Throws
/// std::runtime_error naming the file and the system's reason when it cannot be written.
void write_stream_atomically(const std::filesystem::path& target, const std::function<void(std::ostream&)>& write);

/// Write `content` to `target` atomically. Throws std::runtime_error naming the file and the
/// system's reason (strerror: no space, permission) on failure.
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

/// "cannot write <file>: <strerror(error)>".
std::string write_error(const std::filesystem::path& file, int error);

/// Remove every temporary being written now. Async-signal-safe (unlink only): for a signal handler.
void remove_temporaries_in_progress() noexcept;

}  // namespace fvmmini
