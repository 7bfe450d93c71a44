#include "app/case_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "app/key_path.hpp"
#include "base/printable.hpp"

namespace fvmmini {

namespace {

SourceLocation location_of(const YAML::Mark& mark, const std::string& origin) {
  return SourceLocation{origin, mark.line + 1, mark.column + 1};
}

/// Builds SourceNodes from yaml-cpp's parser events, counting nodes (an alias as the nodes it stands
/// for) and depth as it goes, so that nothing past CaseLimits is ever built.
class SourceBuilder final : public YAML::EventHandler {
 public:
  SourceBuilder(std::string origin, std::size_t max_nodes, int max_depth)
      : origin_(std::move(origin)), max_nodes_(max_nodes), max_depth_(max_depth) {}

  /// The document's root (null for an empty document).
  SourceNode take_root() { return std::move(root_); }
  YAML::Mark document_start() const { return document_start_; }

  void OnDocumentStart(const YAML::Mark& mark) override { document_start_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    add(leaf(mark, SourceNode::Kind::null, {}), anchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    add(leaf(mark, SourceNode::Kind::scalar, value), anchor);
  }
  void OnAnchor(const YAML::Mark&, const std::string& name) override { anchor_name_ = name; }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto found = anchors_.find(anchor);
    if (found == anchors_.end())
      throw CaseError(location_of(mark, origin_), "an alias refers to the list or map that contains it");
    spend(found->second.nodes, location_of(mark, origin_));
    add(found->second.node, YAML::NullAnchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, SourceNode::Kind::sequence, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, SourceNode::Kind::map, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    SourceNode node;
    YAML::anchor_t anchor;
    std::string anchor_name;
    std::size_t nodes_before;        ///< nodes spent before this one: its size when it closes
    std::optional<SourceEntry> key;  ///< a map's key waiting for its value
  };
  struct Anchored {
    SourceNode node;
    std::size_t nodes;
  };

  void spend(std::size_t count, const SourceLocation& where) {
    if (count > max_nodes_ - nodes_)
      throw CaseError(where, fmt::format("more than {} YAML nodes in the case file and its --set values (lists, "
                                         "maps and values, each alias counted as what it stands for): a case "
                                         "holds at most {}",
                                         CaseLimits::nodes, CaseLimits::nodes));
    nodes_ += count;
  }

  SourceNode leaf(const YAML::Mark& mark, SourceNode::Kind kind, const std::string& text) {
    spend(1, location_of(mark, origin_));
    SourceNode node;
    node.kind = kind;
    node.text = text;
    node.where = location_of(mark, origin_);
    return node;
  }

  void open(const YAML::Mark& mark, SourceNode::Kind kind, YAML::anchor_t anchor) {
    if (static_cast<int>(open_.size()) >= max_depth_)
      throw CaseError(location_of(mark, origin_),
                      fmt::format("lists and maps nested more than {} deep: a case nests at most {} levels",
                                  CaseLimits::depth, CaseLimits::depth));
    const std::size_t before = nodes_;
    SourceNode node = leaf(mark, kind, {});
    open_.push_back(Open{std::move(node), anchor, std::exchange(anchor_name_, {}), before, std::nullopt});
  }

  void close() {
    Open done = std::move(open_.back());
    open_.pop_back();
    if (done.anchor != YAML::NullAnchor) remember(done.anchor, done.node, nodes_ - done.nodes_before);
    place(std::move(done.node));
  }

  void add(SourceNode node, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) remember(anchor, node, node_count(node));
    anchor_name_.clear();
    place(std::move(node));
  }

  /// An anchored node is kept for its aliases; the copy is counted like any other node.
  void remember(YAML::anchor_t anchor, const SourceNode& node, std::size_t nodes) {
    spend(nodes, node.where);
    anchors_[anchor] = Anchored{node, nodes};
  }

  /// A finished node into its list or map, or as the root.
  void place(SourceNode node) {
    if (open_.empty()) {
      root_ = std::move(node);
      return;
    }
    Open& parent = open_.back();
    if (parent.node.kind == SourceNode::Kind::sequence) {
      parent.node.items.push_back(std::move(node));
    } else if (!parent.key) {
      if (node.kind != SourceNode::Kind::scalar)
        throw CaseError(node.where, "a map key must be a plain name, not a list or a map");
      parent.key = SourceEntry{std::move(node.text), node.where, SourceNode{}};
    } else {
      SourceEntry entry = std::move(*parent.key);
      parent.key.reset();
      // A key with no value ("key:") has its mark on the next token: point at the key instead.
      if (node.kind == SourceNode::Kind::null) node.where = entry.key_where;
      entry.value = std::move(node);
      parent.node.entries.push_back(std::move(entry));
    }
  }

  std::string origin_;
  std::size_t max_nodes_, nodes_ = 0;
  int max_depth_;
  std::vector<Open> open_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  std::string anchor_name_;
  SourceNode root_;
  YAML::Mark document_start_;
};

/// Stops the parser at the start of a document: where a second one would begin.
struct DocumentStart final : YAML::EventHandler {
  struct Found {
    YAML::Mark mark;
  };
  void OnDocumentStart(const YAML::Mark& mark) override { throw Found{mark}; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// The first document of `text`, built within the limits; a second document or text the parser
/// cannot get past is a CaseError at its place. The parser is asked for two documents at most:
/// yaml-cpp 0.7.0 returns an empty document for a stray ',' without moving on, forever.
SourceNode parse_one_document(const std::string& text, const std::string& origin, std::size_t max_nodes,
                              int max_depth) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  SourceBuilder builder(origin, max_nodes, max_depth);
  try {
    if (!parser.HandleNextDocument(builder)) return SourceNode{};
    DocumentStart probe;
    parser.HandleNextDocument(probe);
  } catch (const DocumentStart::Found& second) {
    const SourceLocation where = location_of(second.mark, origin);
    const std::size_t at = static_cast<std::size_t>(std::max(second.mark.pos, 0));
    if (text.compare(at, 3, "---") == 0)
      throw CaseError(where, "a second YAML document starts here: a case is one document");
    const unsigned char byte = at < text.size() ? static_cast<unsigned char>(text[at]) : 0;
    throw CaseError(where, fmt::format("YAML syntax error: unexpected {}",
                                       byte > 0x20 && byte < 0x7f ? fmt::format("'{}'", static_cast<char>(byte))
                                                                  : fmt::format("byte 0x{:02x}", byte)));
  } catch (const YAML::Exception& e) {
    throw CaseError(e.mark.line < 0 ? SourceLocation{origin, 0, 0} : location_of(e.mark, origin),
                    "YAML syntax error: " + e.msg);
  }
  return builder.take_root();
}

/// A control character (a NUL byte: a binary file?) is not YAML: name the first one with its place.
void check_text(const std::string& text, const std::string& origin) {
  int line = 1, column = 1;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\r' && c != '\t') || byte == 0x7f)
      throw CaseError(SourceLocation{origin, line, column},
                      fmt::format("control character 0x{:02x}{} in the case file: YAML is text (is this a binary file?)",
                                  byte, byte == 0 ? " (a NUL byte)" : ""));
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

/// The bytes of a regular case file. Its type and size are checked before it is opened (a FIFO is
/// never opened, /dev/zero never read), then again on the open file, which is read to the limit only.
std::string read_case_text(const std::filesystem::path& file, const SourceLocation& whole_file) {
  const auto kind = [](mode_t mode) -> std::string {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
  };
  const auto check = [&](const struct stat& info) {
    if (!S_ISREG(info.st_mode))
      throw CaseError(whole_file, "the case file is " + kind(info.st_mode) + ", not a regular file");
    if (static_cast<std::uintmax_t>(info.st_size) > CaseLimits::file_bytes)
      throw CaseError(whole_file, fmt::format("the case file is {} bytes: a case file is at most {} bytes (1 MiB)",
                                              info.st_size, CaseLimits::file_bytes));
  };
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) {
    if (errno == ENOENT) throw CaseError(whole_file, "cannot open the case file (does it exist?)");
    throw CaseError(whole_file, std::string("cannot open the case file: ") + std::strerror(errno));
  }
  check(info);
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw CaseError(whole_file, std::string("cannot open the case file: ") + std::strerror(errno));
  std::string text;
  int error = 0;
  if (::fstat(fd, &info) != 0) {
    error = errno;
  } else {
    check(info);  // replaced since the stat
    text.resize(CaseLimits::file_bytes + 1);
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error = errno;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  if (error != 0) throw CaseError(whole_file, std::string("cannot read the case file: ") + std::strerror(error));
  if (text.size() > CaseLimits::file_bytes)
    throw CaseError(whole_file, fmt::format("the case file is more than {} bytes: a case file is at most {} bytes (1 MiB)",
                                            CaseLimits::file_bytes, CaseLimits::file_bytes));
  return text;
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

std::size_t node_count(const SourceNode& node) {
  std::size_t count = 1;
  for (const auto& item : node.items) count += node_count(item);
  for (const auto& entry : node.entries) count += 1 + node_count(entry.value);
  return count;
}

SourceNode read_case_source(const std::filesystem::path& file, const std::string& shown_name) {
  const SourceLocation whole_file{shown_name, 0, 0};
  const std::string text = read_case_text(file, whole_file);
  check_text(text, shown_name);
  SourceNode root = parse_one_document(text, shown_name, CaseLimits::nodes, CaseLimits::depth);
  if (root.kind == SourceNode::Kind::null) throw CaseError(whole_file, "the case file is empty");
  if (root.kind != SourceNode::Kind::map)
    throw CaseError(root.where, "the case file must be a map of sections (mesh:, physics:, ...)");
  return root;
}

SourceNode source_from_text(const std::string& yaml_text, const SourceLocation& where, std::size_t max_nodes,
                            int max_depth) {
  SourceNode value;
  value.kind = SourceNode::Kind::scalar;
  if (!yaml_text.empty()) {
    try {
      value = parse_one_document(yaml_text, where.origin, max_nodes, max_depth);
    } catch (const CaseError& e) {
      std::string message = e.problems().front().message;
      if (message.rfind("YAML syntax error: ", 0) == 0) message.insert(17, " in the value");
      throw CaseError(where, message);
    }
  }
  relocate(value, where);
  return value;
}

void apply_override(SourceNode& document, const std::string& assignment, std::size_t& nodes) {
  const SourceLocation where{"--set " + printable(assignment, 200), 0, 0};
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw CaseError(where, "expected key.path=value (for example --set solvers.T.tolerance=1e-8)");
  const std::string path = assignment.substr(0, equals);
  const std::string value_text = assignment.substr(equals + 1);

  // --- Split the key path at the dots outside quotes (key_path.hpp); no component may be empty.
  if (std::count(path.begin(), path.end(), '"') % 2 != 0)
    throw CaseError(where, "key path '" + printable(path) + "' has an unclosed '\"' (a name with a '.' is one quoted "
                           "component of a --set path: boundaryField.\"inlet.left\".type)");
  const std::vector<std::string> keys = split_key_path(path);
  for (const auto& key : keys)
    if (key.empty()) throw CaseError(where, "empty component in key path '" + printable(path) + "'");
  if (keys.size() > static_cast<std::size_t>(CaseLimits::depth))
    throw CaseError(where, fmt::format("key path of more than {} components", CaseLimits::depth));

  // --- The value within what the document has left of the limits (the path's maps count too).
  const std::size_t left = CaseLimits::nodes - std::min(CaseLimits::nodes, nodes + 2 * keys.size());
  const SourceNode value =
      source_from_text(value_text, where, left, CaseLimits::depth - static_cast<int>(keys.size()));

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
      nodes += 2;
      entry = &node->entries.back();
      entry->value.where = where;
    }
    entry->key_where = where;
    walked += (walked.empty() ? "" : ".") + keys[i];
    if (i + 1 == keys.size()) {
      nodes = nodes - node_count(entry->value) + node_count(value);
      entry->value = value;
    } else {
      node = &entry->value;
    }
  }
}

}  // namespace fvmmini
