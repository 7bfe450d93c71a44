#pragma once
// The error every mesh source throws: it names the file and, where known, the line.

#include <stdexcept>
#include <string>

namespace fvmmini {

class MeshError : public std::runtime_error {
 public:
  /// @param[in] file the file (or source) at fault; @param[in] line 1-based, 0 when not line-specific
  MeshError(const std::string& file, long line, const std::string& message)
      : std::runtime_error(format(file, line, message)), file_(file), line_(line), message_(message) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }
  /// The message without the file and line (to add to it and throw again).
  const std::string& message() const { return message_; }

 private:
  /// "file:line: message" (or "file: message" when line is 0), every byte a terminal would act
  /// on escaped (base/printable.hpp): a reader quotes input through printable() already, and
  /// this catches what it does not.
  static std::string format(const std::string& file, long line, const std::string& message);

  std::string file_;
  long line_;
  std::string message_;
};

}  // namespace fvmmini
