#pragma once
// A case document as read, before validation: the YAML structure with the place
// every key and value came from (file:line:column, or the --set argument).

#include <filesystem>
#include <string>
#include <vector>

#include "app/case_error.hpp"

namespace fvmmini {

struct SourceEntry;

/// One YAML node with its location. Maps keep their entries in file order, duplicates included.
struct SourceNode {
  enum class Kind { null, scalar, sequence, map };
  Kind kind = Kind::null;
  std::string text;                  ///< scalar text
  std::vector<SourceNode> items;     ///< sequence items
  std::vector<SourceEntry> entries;  ///< map entries
  SourceLocation where;

  /// The first entry with this key, or nullptr.
  const SourceEntry* find(const std::string& key) const;
  SourceEntry* find(const std::string& key);
};

struct SourceEntry {
  std::string key;
  SourceLocation key_where;
  SourceNode value;
};

/// Read a YAML case file. @param[in] shown_name the name used in messages (the path as the user typed it).
/// Throws CaseError for an unreadable file or a YAML syntax error (with line and column).
SourceNode read_case_source(const std::filesystem::path& file, const std::string& shown_name);

/// Parse YAML text (a --set value, a schema default) into a tree whose every node is at `where`.
/// Empty text is the empty string. Throws CaseError at `where` on a syntax error.
SourceNode source_from_text(const std::string& yaml_text, const SourceLocation& where);

/// Apply one "key.path=value" override: the value is parsed as YAML ("[8, 8, 1]", "exact", "1e-8"),
/// intermediate maps are created. Throws CaseError naming the --set argument when it is malformed.
void apply_override(SourceNode& document, const std::string& assignment);

}  // namespace fvmmini
