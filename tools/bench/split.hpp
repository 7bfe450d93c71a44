#pragma once
// A command-line list split into its items (the benches' comma-separated options, GAMG's
// slash-separated keys).

#include <sstream>
#include <string>
#include <vector>

namespace fvmmini::bench {

/// The items of `list` between separators, empty ones dropped.
inline std::vector<std::string> split(const std::string& list, char separator = ',') {
  std::vector<std::string> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, separator))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace fvmmini::bench
