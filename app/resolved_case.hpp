#pragma once
// A validated case with every default filled in, read through typed getters by
// dotted key path ("solvers.T.tolerance"). An entry name of a map-of-named-entries
// section (boundaryField, mesh.patches) that holds a dot is one quoted component
// (boundaryField."inlet.left".type): app/key_path.hpp builds and splits the paths.

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "app/case_error.hpp"
#include "mesh/vec3.hpp"

namespace fvmmini {

class ResolvedCase {
 public:
  ResolvedCase() = default;
  /// @param[in] case_file the case file as the user gave it; @param[in] tree the resolved values
  /// (canonical scalar text); @param[in] locations where each key path was written (absent: a default).
  ResolvedCase(std::filesystem::path case_file, YAML::Node tree, std::map<std::string, SourceLocation> locations);
  /// Copies are deep (yaml-cpp nodes alone would share the tree; assigning one would write through).
  ResolvedCase(const ResolvedCase& other);
  ResolvedCase& operator=(const ResolvedCase& other);
  ResolvedCase(ResolvedCase&& other) noexcept;
  ResolvedCase& operator=(ResolvedCase&& other) noexcept;

  /// The case file as given on the command line.
  const std::filesystem::path& case_file() const { return case_file_; }
  /// The absolute folder holding the case file; relative paths in the case (mesh.file) start here.
  std::filesystem::path case_directory() const;
  /// A path written in the case, made absolute against case_directory().
  std::filesystem::path resolve_path(const std::string& path) const;

  /// True when the key is present after resolution (enabled, and given or defaulted).
  bool has(std::string_view path) const;
  /// True when the case file or a --set wrote the key (false where it took its default).
  bool given(std::string_view path) const { return locations_.count(std::string(path)) > 0; }

  // --- Typed values. Each throws std::out_of_range naming the path when the key is absent
  //     (check has() for optional keys) and std::logic_error when it holds another type.

  /// A bool key.
  bool get_bool(std::string_view path) const;
  /// An int key.
  std::int64_t get_int(std::string_view path) const;
  /// A real key (also a number-or-word key holding a number).
  double get_real(std::string_view path) const;
  /// Strings and enumeration values (and the word of a number-or-word key).
  std::string get_string(std::string_view path) const;
  /// A list of 3 numbers.
  Vec3 get_real3(std::string_view path) const;
  /// A list of 3 integers.
  std::array<std::int64_t, 3> get_int3(std::string_view path) const;
  /// A list of enumeration values (mesh.patches.<name>.sides).
  std::vector<std::string> get_list(std::string_view path) const;
  /// The entry names of a map section, in file order (boundaryField -> patch names).
  std::vector<std::string> entry_names(std::string_view path) const;
  /// For a number-or-word key (boundaryField.<patch>.value): true when it holds a number.
  bool is_number(std::string_view path) const;

  /// Where the key was written; for a defaulted key, the nearest ancestor written in the case
  /// file (or the file itself: a --set of a sibling key is not where a default comes from).
  SourceLocation where(std::string_view path) const;

  /// Replace a scalar value (the loader fills derived defaults such as output.directory).
  void set_scalar(std::string_view path, const std::string& text);

  /// The whole resolved case as YAML, in schema order.
  std::string to_yaml() const;
  const YAML::Node& tree() const { return tree_; }

 private:
  /// The node at path; throws std::out_of_range naming the path when it is absent.
  YAML::Node node(std::string_view path) const;

  std::filesystem::path case_file_;
  YAML::Node tree_;
  std::map<std::string, SourceLocation> locations_;
};

}  // namespace fvmmini
