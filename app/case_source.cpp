#include "app/case_source.hpp"

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace fvmmini {

namespace {

/// The location of a yaml-cpp mark (0-based) in 1-based terms; `fallback` when the mark is unset.
SourceLocation location_of(const YAML::Mark& mark, const std::string& origin, const SourceLocation& fallback) {
  if (mark.line < 0) return fallback;
  return SourceLocation{origin, mark.line + 1, mark.column + 1};
}

SourceNode convert(const YAML::Node& node, const std::string& origin, const SourceLocation& fallback) {
  SourceNode out;
  out.where = location_of(node.Mark(), origin, fallback);
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out.kind = SourceNode::Kind::scalar;
      out.text = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.kind = SourceNode::Kind::sequence;
      for (const auto& item : node) out.items.push_back(convert(item, origin, out.where));
      break;
    case YAML::NodeType::Map:
      out.kind = SourceNode::Kind::map;
      for (auto it = node.begin(); it != node.end(); ++it) {
        SourceEntry entry;
        entry.key_where = location_of(it->first.Mark(), origin, out.where);
        if (!it->first.IsScalar())
          throw CaseError(entry.key_where, "a map key must be a plain name, not a list or a map");
        entry.key = it->first.Scalar();
        // A key with no value ("key:") has its mark on the next token: point at the key instead.
        entry.value = convert(it->second, origin, entry.key_where);
        if (it->second.IsNull()) entry.value.where = entry.key_where;
        out.entries.push_back(std::move(entry));
      }
      break;
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out.kind = SourceNode::Kind::null;
      break;
  }
  return out;
}

/// Give every node of a tree the same location (values from --set have no line).
void relocate(SourceNode& node, const SourceLocation& where) {
  node.where = where;
  for (auto& item : node.items) relocate(item, where);
  for (auto& entry : node.entries) {
    entry.key_where = where;
    relocate(entry.value, where);
  }
}

}  // namespace

const SourceEntry* SourceNode::find(const std::string& key) const {
  for (const auto& entry : entries)
    if (entry.key == key) return &entry;
  return nullptr;
}

SourceEntry* SourceNode::find(const std::string& key) {
  for (auto& entry : entries)
    if (entry.key == key) return &entry;
  return nullptr;
}

SourceNode read_case_source(const std::filesystem::path& file, const std::string& shown_name) {
  const SourceLocation whole_file{shown_name, 0, 0};
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw CaseError(whole_file, "the case file is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CaseError(whole_file, "cannot open the case file (does it exist?)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw CaseError(whole_file, "cannot read the case file");

  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text.str());
  } catch (const YAML::ParserException& e) {
    throw CaseError(location_of(e.mark, shown_name, whole_file), "YAML syntax error: " + e.msg);
  }
  if (documents.empty() || documents.front().IsNull())
    throw CaseError(whole_file, "the case file is empty");
  if (documents.size() > 1) throw CaseError(whole_file, "the case file holds more than one YAML document");
  SourceNode root = convert(documents.front(), shown_name, SourceLocation{shown_name, 1, 1});
  if (root.kind != SourceNode::Kind::map)
    throw CaseError(root.where, "the case file must be a map of sections (mesh:, physics:, ...)");
  return root;
}

SourceNode source_from_text(const std::string& yaml_text, const SourceLocation& where) {
  SourceNode value;
  value.kind = SourceNode::Kind::scalar;
  if (!yaml_text.empty()) {
    try {
      value = convert(YAML::Load(yaml_text), where.origin, where);
    } catch (const YAML::ParserException& e) {
      throw CaseError(where, "YAML syntax error in the value: " + e.msg);
    }
  }
  relocate(value, where);
  return value;
}

void apply_override(SourceNode& document, const std::string& assignment) {
  const SourceLocation where{"--set " + assignment, 0, 0};
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw CaseError(where, "expected key.path=value (for example --set solvers.T.tolerance=1e-8)");
  const std::string path = assignment.substr(0, equals);
  const std::string value_text = assignment.substr(equals + 1);

  // --- Split the key path at dots; no component may be empty.
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    keys.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (keys.back().empty()) throw CaseError(where, "empty component in key path '" + path + "'");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }

  const SourceNode value = source_from_text(value_text, where);

  // --- Walk down, creating maps where the path is new.
  SourceNode* node = &document;
  std::string walked;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (node->kind == SourceNode::Kind::null) node->kind = SourceNode::Kind::map;
    if (node->kind != SourceNode::Kind::map)
      throw CaseError(where, "cannot set '" + path + "': '" + walked + "' is not a map");
    SourceEntry* entry = node->find(keys[i]);
    if (entry == nullptr) {
      node->entries.push_back(SourceEntry{keys[i], where, SourceNode{}});
      entry = &node->entries.back();
      entry->value.where = where;
    }
    entry->key_where = where;
    walked += (walked.empty() ? "" : ".") + keys[i];
    if (i + 1 == keys.size()) {
      entry->value = value;
    } else {
      node = &entry->value;
    }
  }
}

}  // namespace fvmmini
