#pragma once
// A unit's CUDA twin found by name in its backend's list (cmake/unit_table.cmake makes the list and
// the twins' file names): each twin is checked to be named as its file, its unit's name in lower
// case, so that a build without CUDA, which knows the files alone, names the same units.

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

namespace fvmmini {

/// The file a unit and its CUDA twin are named by: its name in lower case ("DIC": dic.cpp).
inline std::string unit_file_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

/// The twin named `name` among `twins` (in list order, `files` their files' names).
/// @param[in] folder where the twins' files are, for the message of one misnamed
/// @param[in] kind what a unit is, for the messages ("preconditioner", "solver")
/// @throws std::logic_error for a twin whose file bears another name; std::invalid_argument where
///         no twin has the name, naming those there are
template <class Twin>
const Twin& find_twin(const std::vector<const Twin*>& twins, const std::vector<std::string>& files,
                      const std::string& name, const std::string& folder, const std::string& kind) {
  std::string known;
  for (std::size_t i = 0; i < twins.size(); ++i) {
    const std::string file = unit_file_name(twins[i]->name);
    if (i >= files.size() || files[i] != file)
      throw std::logic_error(folder + (i < files.size() ? files[i] : "?") + ".cpp implements '" + twins[i]->name +
                             "': name the file " + file + ".cpp");
    known += (known.empty() ? "" : ", ") + twins[i]->name;
  }
  for (const Twin* twin : twins)
    if (twin->name == name) return *twin;
  throw std::invalid_argument(kind + " '" + name + "' has no cuda implementation (the cuda backend has: " + known +
                              ")");
}

}  // namespace fvmmini
