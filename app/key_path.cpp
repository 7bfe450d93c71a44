#include "app/key_path.hpp"

namespace fvmmini {

std::string key_path_component(std::string_view name) {
  std::string component;
  const bool quoted = name.find('.') != std::string_view::npos || name.starts_with('"');
  component.reserve(name.size() + 2);
  if (quoted) component += '"';
  component += name;
  if (quoted) component += '"';
  return component;
}

std::string key_path(std::string_view parent, std::string_view name) {
  std::string path(parent);
  if (!path.empty()) path += '.';
  return path + key_path_component(name);
}

std::vector<std::string> split_key_path(std::string_view path) {
  std::vector<std::string> keys(1);
  bool quoted = false;
  for (const char c : path) {
    if (c == '"') quoted = !quoted;
    else if (c == '.' && !quoted) keys.emplace_back();
    else keys.back() += c;
  }
  return keys;
}

std::string parent_key_path(std::string_view path) {
  bool quoted = false;
  std::size_t last_dot = std::string_view::npos;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '"') quoted = !quoted;
    else if (path[i] == '.' && !quoted) last_dot = i;
  }
  return last_dot == std::string_view::npos ? std::string() : std::string(path.substr(0, last_dot));
}

}  // namespace fvmmini
