#include "mesh/mesh_error.hpp"

#include <sstream>

#include "base/printable.hpp"

namespace fvmmini {

// A stream rather than string concatenation: GCC 12 warns falsely (-Wrestrict) on the latter.
std::string MeshError::format(const std::string& file, long line, const std::string& message) {
  std::ostringstream text;
  text << printable(file, 4096);
  if (line > 0) text << ':' << line;
  text << ": " << printable_message(message);
  return text.str();
}

}  // namespace fvmmini
