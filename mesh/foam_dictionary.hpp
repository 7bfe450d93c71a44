#pragma once
// OpenFOAM's dictionary files (system/controlDict, fvSchemes, fvSolution, constant/
// transportProperties, the fields of 0/) read into a tree of entries, each with its line: a
// keyword and either a value (its tokens up to ';') or a sub-dictionary. `$name` takes another
// entry's value, or at the head of a dictionary its entries (pFinal { $p; relTol 0; }), found as
// OpenFOAM finds it: in the dictionary, then in those around it. A list may hold named
// dictionaries (blockMeshDict's boundary ( movingWall { ... } )). Directives (#include, #calc,
// #codeStream, ...) are refused: a case fvmmini maps is self-contained.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fvmmini {

class FoamDictionary;

struct FoamEntry {
  std::string keyword;
  bool pattern = false;  ///< a quoted keyword: OpenFOAM's regular expression ("(U|k)")
  long line = 0;
  std::vector<std::string> tokens;              ///< the value, ( ) [ ] as tokens of their own; empty for a dictionary
  std::shared_ptr<FoamDictionary> dictionary;  ///< the sub-dictionary, or null for a value
  std::vector<long> lines;                     ///< each token's line
  /// The dictionaries in the value's lists, in order, each keyword its name (boundary ( movingWall
  /// { ... } )); in tokens each stands as its name and "{...}".
  std::vector<FoamEntry> elements;
  /// The value as one line, tokens joined by spaces ("Gauss linearUpwind grad(U)" as written:
  /// "Gauss linearUpwind grad ( U )").
  std::string text() const;
};

class FoamDictionary {
 public:
  /// The most tokens one value may hold: a field's list of values is refused there, not read
  /// (fvmmini maps uniform fields), which bounds what a hostile file costs.
  static constexpr std::size_t max_value_tokens = 4096;
  /// The deepest nesting of dictionaries, and the most entries in a file ($name's copies too).
  static constexpr int max_depth = 32;
  static constexpr std::size_t max_entries = 100000;
  /// The longest pattern keyword find_matching compiles.
  static constexpr std::size_t max_pattern_bytes = 256;

  FoamDictionary(std::string file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}

  const std::string& file() const { return file_; }
  /// Its place in the file's tree, dotted ("solvers.p"; "" for the file itself).
  const std::string& path() const { return path_; }
  /// "solvers.p.solver" for keyword "solver".
  std::string path_of(std::string_view keyword) const;
  const std::vector<FoamEntry>& entries() const { return entries_; }

  /// The entry of `keyword` written last (a later one overrides, as in OpenFOAM), or null.
  const FoamEntry* find(std::string_view keyword) const;
  /// find(), else the last pattern entry that matches `keyword` whole (OpenFOAM's order), or null.
  const FoamEntry* find_matching(std::string_view keyword) const;

 private:
  friend class FoamDictionaryParser;
  std::string file_, path_;
  std::vector<FoamEntry> entries_;
};

/// Read one dictionary file (plain or gzip) with its FoamFile header as the entry FoamFile.
/// @throws MeshError naming the file and line: missing or unreadable, unbalanced braces or
///         brackets, a value without ';', a `$name` nothing defines, a directive, a value longer
///         than max_value_tokens, nesting deeper than max_depth
std::shared_ptr<const FoamDictionary> read_foam_dictionary(const std::filesystem::path& file,
                                                           const std::string& shown_name);

}  // namespace fvmmini
