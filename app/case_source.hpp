#pragma once
// A case document as read, before validation: the YAML structure with the place
// every key and value came from (file:line:column, or the --set argument).

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "app/case_error.hpp"

namespace fvmmini {

struct SourceEntry;

/// What a case may hold, checked while it is read, before validation: no input makes fvmmini read,
/// parse or build without bound (docs/cases.md, "Limits").
struct CaseLimits {
  static constexpr std::size_t file_bytes = std::size_t{1} << 20;  ///< the case file: 1 MiB
  /// YAML nodes (scalars, lists, maps) of the file and every --set value together, each alias
  /// counted as the nodes it stands for
  static constexpr std::size_t nodes = 100'000;
  static constexpr int depth = 64;  ///< lists and maps nested in one another
};

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

/// Read a YAML case file: one regular file of at most CaseLimits::file_bytes holding one YAML
/// document within CaseLimits. @param[in] shown_name the name used in messages (the path as the
/// user typed it). Throws CaseError for a file that is not a regular file (checked before it is
/// opened: a FIFO is never opened), an unreadable or oversized file, a control character, a YAML
/// syntax error, a second document, or a document past the limits (with line and column).
SourceNode read_case_source(const std::filesystem::path& file, const std::string& shown_name);

/// Parse YAML text (a --set value, a schema default) into a tree whose every node is at `where`.
/// Empty text is the empty string. Throws CaseError at `where` on a syntax error or a value of more
/// than `max_nodes` nodes or `max_depth` levels.
SourceNode source_from_text(const std::string& yaml_text, const SourceLocation& where,
                            std::size_t max_nodes = CaseLimits::nodes, int max_depth = CaseLimits::depth);

/// The nodes of a tree, itself and map keys included.
std::size_t node_count(const SourceNode& node);

/// Apply one "key.path=value" override: the value is parsed as YAML ("[8, 8, 1]", "exact", "1e-8"),
/// intermediate maps are created. Throws CaseError naming the --set argument when it is malformed
/// or would take the document past CaseLimits. @param[in,out] nodes node_count(document), kept up to date
void apply_override(SourceNode& document, const std::string& assignment, std::size_t& nodes);

}  // namespace fvmmini
