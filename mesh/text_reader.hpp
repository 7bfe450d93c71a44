#pragma once
// Reading mesh text files: the whole file (plain or gzip, told apart by content) and a
// tokenizer that remembers the line of every token, so readers can name file and line.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "mesh/mesh_error.hpp"

namespace fvmmini {

/// The contents of a text file, decompressed when it is gzip (zlib). Throws MeshError
/// naming the file when it is missing, unreadable (with the system's reason: "too many levels
/// of symbolic links"), a corrupt gzip stream, or larger (once decompressed) than half the
/// memory limit of mesh_size.hpp (which honours `ulimit -v`); the text is never grown past that.
std::string read_text_file(const std::filesystem::path& path);

/// Whether `path` exists (following links): false when it, or a folder on the way, does not;
/// throws MeshError naming `path` and the system's reason for any other failure to look (a
/// symbolic link loop, a folder that may not be searched), so that neither a raw
/// std::filesystem message nor "no such file" stands for it.
bool path_exists(const std::filesystem::path& path);

/// The system's reason for `error` as a message continues it: "too many levels of symbolic links".
std::string system_reason(const std::error_code& error);

/// Splits text into tokens with their 1-based line numbers.
///
/// Plain syntax: tokens are runs of non-blank characters and "double-quoted strings".
/// OpenFOAM syntax adds // and /* */ comments and the punctuation ( ) { } [ ] ; as tokens
/// of their own, so `4(0 1 2 3)` is six tokens.
class Tokenizer {
 public:
  enum class Syntax { plain, openfoam };
  struct Token {
    std::string_view text;  ///< for strings: the contents without the quotes
    long line = 0;
    bool quoted = false;
  };
  /// A place in the text to scan again from (a reader that keeps no line per entry finds an
  /// entry's line, when it must report one, by tokenizing its list again from its start).
  struct Position {
    std::size_t offset = 0;
    long line = 1;
  };

  /// @param[in] text the whole file (must outlive the tokenizer); @param[in] file name for errors
  Tokenizer(std::string_view text, std::string file, Syntax syntax);
  /// The same, scanning from `from` (a position() of a tokenizer of the same text).
  Tokenizer(std::string_view text, std::string file, Syntax syntax, Position from);

  /// True when no token is left.
  bool at_end();
  /// The next token without consuming it; throws MeshError at the end of the file.
  const Token& peek();
  /// Consume and return the next token; throws MeshError at the end of the file.
  Token next();
  /// Consume the next token and check that it is `expected`.
  void expect(std::string_view expected);
  /// The next token as a label (int32); throws MeshError if it is not one.
  std::int32_t next_label();
  /// The next token as a 64-bit integer; throws MeshError if it is not one.
  std::int64_t next_int64();
  /// The next token as a double; throws MeshError if it is not a number.
  double next_double();
  /// The next token as a count of `what` (e.g. "nodes"), each taking at least `bytes_each`
  /// characters of the file; throws MeshError naming the line and the count when it is
  /// negative or when the rest of the file cannot hold that many (see require_room).
  std::int64_t next_count(std::string_view what, std::int64_t bytes_each);
  /// Throw MeshError at `line` when `count` items of at least `bytes_each` characters each
  /// cannot fit in what is left of the file: a count is checked so before anything is sized by it.
  void require_room(std::int64_t count, std::int64_t bytes_each, long line, std::string_view what) const;

  /// The next `count` bytes as they are, right after the last token consumed (OpenFOAM's binary
  /// lists: the raw block follows its '(' directly); nothing may have been peeked. Throws
  /// MeshError at `line` naming `what` when fewer bytes are left.
  std::string_view take_bytes(std::int64_t count, long line, std::string_view what);

  /// Where the next token's scan starts (before it when it has been peeked).
  Position position() const;

  /// The line the next token starts on (or the last line at the end).
  long line();
  const std::string& file() const { return file_; }
  /// Throw MeshError at `line` of this file.
  [[noreturn]] void fail(long line, const std::string& message) const;

 private:
  void scan();

  std::string_view text_;
  std::string file_;
  Syntax syntax_;
  size_t pos_ = 0;
  long line_ = 1;
  Position scan_start_;  ///< where the scan of the peeked token started
  Token current_;
  bool has_current_ = false;
};

}  // namespace fvmmini
