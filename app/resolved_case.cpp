#include "app/resolved_case.hpp"

#include <stdexcept>

#include "app/key_path.hpp"
#include "app/scalar_text.hpp"

namespace fvmmini {

namespace {

[[noreturn]] void wrong_type(std::string_view path, const char* expected) {
  throw std::logic_error("case key '" + std::string(path) + "' is not " + expected);
}

}  // namespace

ResolvedCase::ResolvedCase(std::filesystem::path case_file, YAML::Node tree,
                           std::map<std::string, SourceLocation> locations)
    : case_file_(std::move(case_file)), tree_(tree), locations_(std::move(locations)) {}

ResolvedCase::ResolvedCase(const ResolvedCase& other)
    : case_file_(other.case_file_), tree_(YAML::Clone(other.tree_)), locations_(other.locations_) {}

ResolvedCase& ResolvedCase::operator=(const ResolvedCase& other) {
  if (this != &other) {
    case_file_ = other.case_file_;
    tree_.reset(YAML::Clone(other.tree_));
    locations_ = other.locations_;
  }
  return *this;
}

ResolvedCase::ResolvedCase(ResolvedCase&& other) noexcept
    : case_file_(std::move(other.case_file_)), locations_(std::move(other.locations_)) {
  tree_.reset(other.tree_);
}

ResolvedCase& ResolvedCase::operator=(ResolvedCase&& other) noexcept {
  case_file_ = std::move(other.case_file_);
  tree_.reset(other.tree_);
  locations_ = std::move(other.locations_);
  return *this;
}

std::filesystem::path ResolvedCase::case_directory() const {
  return std::filesystem::absolute(case_file_).parent_path();
}

std::filesystem::path ResolvedCase::resolve_path(const std::string& path) const {
  const std::filesystem::path given(path);
  return given.is_absolute() ? given : (case_directory() / given).lexically_normal();
}

YAML::Node ResolvedCase::node(std::string_view path) const {
  // --- Walk a const view: a non-const operator[] would insert missing keys.
  YAML::Node current = tree_;
  for (const auto& key : split_key_path(path)) {
    const YAML::Node& view = current;
    const YAML::Node child = view.IsMap() ? view[key] : YAML::Node(YAML::NodeType::Undefined);
    if (!child.IsDefined()) throw std::out_of_range("case key '" + std::string(path) + "' is not in the resolved case");
    current.reset(child);
  }
  return current;
}

bool ResolvedCase::has(std::string_view path) const {
  try {
    node(path);
    return true;
  } catch (const std::out_of_range&) {
    return false;
  }
}

bool ResolvedCase::get_bool(std::string_view path) const {
  const auto value = parse_bool(node(path).Scalar());
  if (!value) wrong_type(path, "a bool");
  return *value;
}

std::int64_t ResolvedCase::get_int(std::string_view path) const {
  const auto value = parse_integer(node(path).Scalar());
  if (!value) wrong_type(path, "an integer");
  return *value;
}

double ResolvedCase::get_real(std::string_view path) const {
  const auto value = parse_real(node(path).Scalar());
  if (!value) wrong_type(path, "a number");
  return *value;
}

std::string ResolvedCase::get_string(std::string_view path) const {
  const YAML::Node value = node(path);
  if (!value.IsScalar()) wrong_type(path, "a scalar");
  return value.Scalar();
}

Vec3 ResolvedCase::get_real3(std::string_view path) const {
  const YAML::Node value = node(path);
  if (!value.IsSequence() || value.size() != 3) wrong_type(path, "a list of 3 numbers");
  Vec3 out;
  for (int i = 0; i < 3; ++i) {
    const auto component = parse_real(value[i].Scalar());
    if (!component) wrong_type(path, "a list of 3 numbers");
    out[i] = *component;
  }
  return out;
}

std::array<std::int64_t, 3> ResolvedCase::get_int3(std::string_view path) const {
  const YAML::Node value = node(path);
  if (!value.IsSequence() || value.size() != 3) wrong_type(path, "a list of 3 integers");
  std::array<std::int64_t, 3> out{};
  for (int i = 0; i < 3; ++i) {
    const auto component = parse_integer(value[i].Scalar());
    if (!component) wrong_type(path, "a list of 3 integers");
    out[i] = *component;
  }
  return out;
}

std::vector<std::string> ResolvedCase::get_list(std::string_view path) const {
  const YAML::Node value = node(path);
  if (!value.IsSequence()) wrong_type(path, "a list");
  std::vector<std::string> out;
  for (const auto& item : value) out.push_back(item.Scalar());
  return out;
}

std::vector<std::string> ResolvedCase::entry_names(std::string_view path) const {
  const YAML::Node value = node(path);
  if (!value.IsMap()) wrong_type(path, "a map");
  std::vector<std::string> names;
  for (auto it = value.begin(); it != value.end(); ++it) names.push_back(it->first.Scalar());
  return names;
}

bool ResolvedCase::is_number(std::string_view path) const {
  return parse_real(get_string(path)).has_value();
}

SourceLocation ResolvedCase::where(std::string_view path) const {
  std::string key(path);
  while (true) {
    const auto found = locations_.find(key);
    if (found != locations_.end()) {
      // --- a --set names only its own key: a defaulted key beside it points at the case file
      if (key != path && found->second.origin.rfind("--set", 0) == 0) return SourceLocation{case_file_.string(), 0, 0};
      return found->second;
    }
    key = parent_key_path(key);
    if (key.empty()) return SourceLocation{case_file_.string(), 0, 0};
  }
}

void ResolvedCase::set_scalar(std::string_view path, const std::string& text) {
  YAML::Node target = node(path);
  if (!target.IsScalar()) wrong_type(path, "a scalar");
  target = text;
}

std::string ResolvedCase::to_yaml() const {
  YAML::Emitter out;
  out << tree_;
  return std::string(out.c_str()) + "\n";
}

}  // namespace fvmmini
