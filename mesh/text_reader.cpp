#include "mesh/text_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <new>
#include <stdexcept>
#include <system_error>

#include "base/printable.hpp"
#include "mesh/mesh_size.hpp"

namespace fvmmini {

std::string system_reason(const std::error_code& error) {
  std::string reason = error.message();
  if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  return reason;
}

bool path_exists(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    throw MeshError(path.string(), 0, "cannot open: " + system_reason(ec));
  return std::filesystem::exists(status);
}

std::string read_text_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!path_exists(path)) throw MeshError(name, 0, "cannot open: no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw MeshError(name, 0, "cannot open: not a regular file");

  // --- the text, its parse and the mesh must fit together: a file (or what a gzip file
  // decompresses to) over half the memory limit is refused before it fills memory
  const MemoryLimit limit = memory_limit();
  const std::uint64_t max_size = limit.bytes / 2;
  auto too_large = [&](const std::string& size) {
    return MeshError(name, 0, "is too large to read: " + size + ", and the text may take at most half the memory limit of " +
                                  format_bytes(limit.bytes) + " (" + describe_limit_source(limit) + ")");
  };
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (!ec && file_size > max_size) throw too_large(format_bytes(file_size));

  // --- gzread passes plain files through unchanged, so one path serves both
  errno = 0;
  gzFile in = gzopen(name.c_str(), "rb");
  if (in == nullptr)
    throw MeshError(name, 0, "cannot open for reading" +
                                 (errno != 0 ? ": " + system_reason(std::error_code(errno, std::generic_category()))
                                             : std::string()));
  std::string text;
  try {
    char buffer[1 << 16];
    for (;;) {
      const int n = gzread(in, buffer, sizeof buffer);
      if (n < 0) {
        int code = 0;
        const std::string message = gzerror(in, &code);
        gzclose(in);
        throw MeshError(name, 0, "read error: " + message);
      }
      if (n == 0) break;
      if (text.size() + static_cast<size_t>(n) > max_size) {
        gzclose(in);
        throw too_large("more than " + format_bytes(max_size) + " once decompressed");
      }
      // --- grown by doubling, never past the most that may be read: a plain file's size is
      // known, a gzip stream's only as it is decompressed
      if (text.size() + static_cast<size_t>(n) > text.capacity()) {
        const std::uint64_t wanted = gzdirect(in) && !ec ? file_size
                                                         : std::max<std::uint64_t>(2 * text.capacity(), 1 << 20);
        text.reserve(static_cast<size_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(wanted, text.size() + n),
                                                                 max_size)));
      }
      text.append(buffer, static_cast<size_t>(n));
    }
  } catch (const std::bad_alloc&) {
    gzclose(in);
    throw MeshError(name, 0, "out of memory reading its text (" + format_bytes(text.size()) + " read; memory limit " +
                                 format_bytes(limit.bytes) + ": " + describe_limit_source(limit) + ")");
  }
  int code = Z_OK;
  const std::string message = gzerror(in, &code);
  gzclose(in);
  if (code != Z_OK && code != Z_STREAM_END) throw MeshError(name, 0, "corrupt or truncated gzip data: " + message);
  return text;
}

Tokenizer::Tokenizer(std::string_view text, std::string file, Syntax syntax)
    : text_(text), file_(std::move(file)), syntax_(syntax) {}

Tokenizer::Tokenizer(std::string_view text, std::string file, Syntax syntax, Position from)
    : text_(text),
      file_(std::move(file)),
      syntax_(syntax),
      pos_(std::min(from.offset, text.size())),
      line_(from.line) {}

Tokenizer::Position Tokenizer::position() const { return has_current_ ? scan_start_ : Position{pos_, line_}; }

void Tokenizer::fail(long line, const std::string& message) const { throw MeshError(file_, line, message); }

void Tokenizer::scan() {
  const bool foam = syntax_ == Syntax::openfoam;
  auto is_punct = [&](char c) {
    return foam && (c == '(' || c == ')' || c == '{' || c == '}' || c == '[' || c == ']' || c == ';');
  };
  auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };

  // --- skip blanks and (OpenFOAM) comments, counting lines
  scan_start_ = {pos_, line_};
  for (;;) {
    while (pos_ < text_.size() && is_blank(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (foam && pos_ + 1 < text_.size() && text_[pos_] == '/' && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      continue;
    }
    if (foam && pos_ + 1 < text_.size() && text_[pos_] == '/' && text_[pos_ + 1] == '*') {
      const long start_line = line_;
      pos_ += 2;
      while (pos_ + 1 < text_.size() && !(text_[pos_] == '*' && text_[pos_ + 1] == '/')) {
        if (text_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (pos_ + 1 >= text_.size()) fail(start_line, "unterminated /* comment");
      pos_ += 2;
      continue;
    }
    break;
  }
  if (pos_ >= text_.size()) {
    has_current_ = false;
    return;
  }

  // --- one token: punctuation, quoted string or word
  current_ = Token{{}, line_, false};
  const char c = text_[pos_];
  if (is_punct(c)) {
    current_.text = text_.substr(pos_, 1);
    ++pos_;
  } else if (c == '"') {
    const size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ >= text_.size()) fail(current_.line, "unterminated string");
    current_.text = text_.substr(start, pos_ - start);
    current_.quoted = true;
    ++pos_;
  } else {
    const size_t start = pos_;
    while (pos_ < text_.size() && !is_blank(text_[pos_]) && !is_punct(text_[pos_])) {
      if (foam && text_[pos_] == '/' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*'))
        break;
      ++pos_;
    }
    current_.text = text_.substr(start, pos_ - start);
  }
  has_current_ = true;
}

bool Tokenizer::at_end() {
  if (!has_current_) scan();
  return !has_current_;
}

const Tokenizer::Token& Tokenizer::peek() {
  if (at_end()) fail(line_, "unexpected end of file");
  return current_;
}

Tokenizer::Token Tokenizer::next() {
  Token t = peek();
  has_current_ = false;
  return t;
}

long Tokenizer::line() {
  if (at_end()) return line_;
  return current_.line;
}

void Tokenizer::expect(std::string_view expected) {
  const Token t = next();
  if (t.text != expected || t.quoted)
    fail(t.line, "expected '" + std::string(expected) + "' but found '" + printable(t.text) + "'");
}

std::int64_t Tokenizer::next_int64() {
  const Token t = next();
  std::int64_t value = 0;
  const char* first = t.text.data();
  const char* last = first + t.text.size();
  if (first != last && *first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (t.quoted || ec != std::errc() || ptr != last || first == last)
    fail(t.line, "expected an integer but found '" + printable(t.text) + "'");
  return value;
}

std::int32_t Tokenizer::next_label() {
  const long line_of_token = line();
  const std::int64_t value = next_int64();
  if (value < INT32_MIN || value > INT32_MAX) fail(line_of_token, "integer " + std::to_string(value) + " does not fit a 32-bit label");
  return static_cast<std::int32_t>(value);
}

std::int64_t Tokenizer::next_count(std::string_view what, std::int64_t bytes_each) {
  const long count_line = line();
  const std::int64_t count = next_int64();
  if (count < 0) fail(count_line, "negative count " + std::to_string(count) + " of " + std::string(what));
  require_room(count, bytes_each, count_line, what);
  return count;
}

void Tokenizer::require_room(std::int64_t count, std::int64_t bytes_each, long line, std::string_view what) const {
  const std::int64_t left = static_cast<std::int64_t>(text_.size() - pos_);
  if (count > left / bytes_each)
    fail(line, std::to_string(count) + " " + std::string(what) + " cannot fit in the " + std::to_string(left) +
                   " bytes left in the file (each takes at least " + std::to_string(bytes_each) + ", so at most " +
                   std::to_string(left / bytes_each) + ")");
}

std::string_view Tokenizer::take_bytes(std::int64_t count, long line, std::string_view what) {
  if (has_current_) throw std::logic_error("Tokenizer::take_bytes after a peek");
  const std::int64_t left = static_cast<std::int64_t>(text_.size() - pos_);
  if (count < 0 || count > left)
    fail(line, "the " + std::string(what) + " needs " + std::to_string(count) + " bytes but the file has " +
                   std::to_string(left) + " left");
  const std::string_view bytes = text_.substr(pos_, static_cast<size_t>(count));
  line_ += static_cast<long>(std::count(bytes.begin(), bytes.end(), '\n'));  // the lines an editor shows after it
  pos_ += static_cast<size_t>(count);
  return bytes;
}

double Tokenizer::next_double() {
  const Token t = next();
  double value = 0.0;
  const char* first = t.text.data();
  const char* last = first + t.text.size();
  if (first != last && *first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (t.quoted || ec != std::errc() || ptr != last || first == last || !std::isfinite(value))
    fail(t.line, "expected a finite number but found '" + printable(t.text) + "'");
  return value;
}

}  // namespace fvmmini
