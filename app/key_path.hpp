#pragma once
// The syntax of a key path ("boundaryField.inlet.type"), owned here: components joined by '.', a
// component that holds a '.' itself (a patch named inlet.left, valid in OpenFOAM and Gmsh) in
// double quotes: boundaryField."inlet.left".type. Every path built from a user's name (a patch,
// an entry of a named map) goes through key_path; every path read goes through split_key_path.

#include <string>
#include <string_view>
#include <vector>

namespace fvmmini {

/// The name as one component of a key path: itself, or in double quotes when it holds a '.' (or
/// starts with a quote). Entry names never hold a '"' (the schema refuses them), so this is exact.
std::string key_path_component(std::string_view name);

/// parent.name, the name made one component (key_path("boundaryField", "inlet.left") is
/// boundaryField."inlet.left"); parent is a path already, left as it is ("" for the top level).
std::string key_path(std::string_view parent, std::string_view name);

/// The components of a path: split at the dots outside double quotes, the quotes taken off
/// (an unclosed quote runs to the end). "a.\"b.c\".d" -> a, b.c, d.
std::vector<std::string> split_key_path(std::string_view path);

/// The path of the parent of the last component ("" for a path of one component).
std::string parent_key_path(std::string_view path);

}  // namespace fvmmini
