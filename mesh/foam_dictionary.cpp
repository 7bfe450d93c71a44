#include "mesh/foam_dictionary.hpp"

#include <algorithm>
#include <optional>
#include <regex>

#include "base/printable.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/text_reader.hpp"

namespace fvmmini {

std::string FoamEntry::text() const {
  std::string joined;
  for (const std::string& token : tokens) joined += (joined.empty() ? "" : " ") + token;
  return joined;
}

std::string FoamDictionary::path_of(std::string_view keyword) const {
  return path_.empty() ? std::string(keyword) : path_ + "." + std::string(keyword);
}

const FoamEntry* FoamDictionary::find(std::string_view keyword) const {
  for (auto e = entries_.rbegin(); e != entries_.rend(); ++e)
    if (!e->pattern && e->keyword == keyword) return &*e;
  return nullptr;
}

const FoamEntry* FoamDictionary::find_matching(std::string_view keyword) const {
  if (const FoamEntry* exact = find(keyword)) return exact;
  for (auto e = entries_.rbegin(); e != entries_.rend(); ++e) {
    if (!e->pattern) continue;
    if (e->keyword.size() > max_pattern_bytes)  // (std::regex compiles recursively: bounded)
      throw MeshError(file_, e->line, "a pattern longer than " + std::to_string(max_pattern_bytes) + " bytes");
    try {
      if (std::regex_match(keyword.begin(), keyword.end(), std::regex(e->keyword, std::regex::extended))) return &*e;
    } catch (const std::regex_error&) {
      throw MeshError(file_, e->line, "'" + printable(e->keyword) + "' is not a regular expression");
    }
  }
  return nullptr;
}

/// OpenFOAM's tokens: ; { } ( ) [ ] on their own, "strings", numbers, and words that may hold
/// balanced parentheses (div(phi,U), grad(U)); // and /* */ comments.
class FoamDictionaryParser {
 public:
  FoamDictionaryParser(std::string text, std::string file) : text_(std::move(text)), file_(std::move(file)) {}

  std::shared_ptr<FoamDictionary> parse() {
    auto root = std::make_shared<FoamDictionary>(file_, "");
    scope_.push_back(root.get());
    parse_entries(*root, false);
    return root;
  }

 private:
  struct Token {
    std::string text;
    long line = 0;
    bool quoted = false;
  };

  [[noreturn]] void fail(long line, const std::string& message) const { throw MeshError(file_, line, message); }

  static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
  static bool punctuation(char c) {
    return c == ';' || c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ']';
  }

  /// The next token, or false at the end of the text.
  bool next(Token& token) {
    if (peeked_) {
      token = std::move(*peeked_);
      peeked_.reset();
      return true;
    }
    for (;;) {  // blanks and comments
      while (pos_ < text_.size() && blank(text_[pos_])) line_ += text_[pos_++] == '\n';
      if (text_.compare(pos_, 2, "//") == 0) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (text_.compare(pos_, 2, "/*") == 0) {
        const long start = line_;
        const std::size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string::npos) fail(start, "unterminated /* comment");
        line_ += std::count(text_.begin() + pos_, text_.begin() + end, '\n');
        pos_ = end + 2;
      } else {
        break;
      }
    }
    if (pos_ >= text_.size()) return false;
    token = Token{{}, line_, false};
    const char c = text_[pos_];
    if (punctuation(c)) {
      token.text = std::string(1, c);
      ++pos_;
    } else if (c == '"') {
      const std::size_t end = text_.find('"', pos_ + 1);
      if (end == std::string::npos) fail(line_, "unterminated string");
      token.text = text_.substr(pos_ + 1, end - pos_ - 1);
      token.quoted = true;
      line_ += std::count(token.text.begin(), token.text.end(), '\n');
      pos_ = end + 1;
    } else {  // a number stops at '(' (1(wall): a count and its list); a word keeps balanced ones
      const bool number = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
      const std::size_t start = pos_;
      int depth = 0;
      while (pos_ < text_.size() && !blank(text_[pos_]) && text_[pos_] != '"' && text_.compare(pos_, 2, "//") != 0 &&
             text_.compare(pos_, 2, "/*") != 0) {
        const char d = text_[pos_];
        if (d == '(' && !number) ++depth;
        else if (d == ')' && depth > 0) --depth;
        else if (punctuation(d)) break;
        ++pos_;
      }
      token.text = text_.substr(start, pos_ - start);
    }
    return true;
  }

  const Token* peek() {
    if (!peeked_) {
      Token token;
      if (!next(token)) return nullptr;
      peeked_ = std::move(token);
    }
    return &*peeked_;
  }

  /// The entry `name` refers to ($name), looked up in the dictionaries being read, innermost first.
  const FoamEntry& referenced(const Token& token) {
    const std::string name = token.text.substr(1);
    for (auto dict = scope_.rbegin(); dict != scope_.rend(); ++dict)
      if (const FoamEntry* entry = (*dict)->find(name)) return *entry;
    fail(token.line, "'" + printable(token.text) + "': no entry '" + printable(name) + "' before it");
  }

  /// Entries up to the end of the text (top level) or the closing '}'.
  void parse_entries(FoamDictionary& dict, bool braced) {
    if (static_cast<int>(scope_.size()) > FoamDictionary::max_depth)
      fail(line_, "dictionaries nested deeper than " + std::to_string(FoamDictionary::max_depth));
    for (Token token; next(token);) {
      if (!token.quoted && token.text == "}") {
        if (braced) return;
        fail(token.line, "'}' without its '{'");
      }
      if (!token.quoted && token.text.front() == '#')
        fail(token.line, "the directive " + printable(token.text) +
                             " is not read: fvmmini maps a self-contained case (write its entries out)");
      if (!token.quoted && punctuation(token.text.front()))
        fail(token.line, "'" + token.text + "' where a keyword was expected");
      // --- $name; at the head: the referenced dictionary's entries, copied
      if (!token.quoted && token.text.front() == '$' && peek() && peek()->text == ";") {
        const FoamEntry& from = referenced(token);
        if (!from.dictionary) fail(token.line, "'" + printable(token.text) + "' is not a dictionary");
        for (const FoamEntry& entry : from.dictionary->entries_) add(dict, FoamEntry(entry), token.line);
        next(token);
        continue;
      }
      FoamEntry entry{token.text, token.quoted, token.line, {}, nullptr, {}, {}};
      const Token* after = peek();
      if (after && !after->quoted && after->text == "{") {
        next(token);
        entry.dictionary = std::make_shared<FoamDictionary>(file_, dict.path_of(entry.keyword));
        scope_.push_back(entry.dictionary.get());
        parse_entries(*entry.dictionary, true);
        scope_.pop_back();
      } else {
        read_value(dict, entry);
      }
      add(dict, std::move(entry), token.line);
    }
    if (braced) fail(line_, "the dictionary ends without its '}'");
  }

  /// Every entry counted: copies by $name; cannot grow the tree past max_entries.
  void add(FoamDictionary& dict, FoamEntry&& entry, long line) {
    count(line);
    dict.entries_.push_back(std::move(entry));
  }
  void count(long line) {
    if (++entries_ > FoamDictionary::max_entries)
      fail(line, "more than " + std::to_string(FoamDictionary::max_entries) + " entries (with those $name copies)");
  }

  /// Whether '{' next in `entry`'s value opens a named dictionary of a list: inside ( ), after a name.
  static bool opens_element(const FoamEntry& entry, const std::vector<char>& open) {
    if (open.empty() || open.back() != ')' || entry.tokens.empty()) return false;
    const std::string& name = entry.tokens.back();
    return name != "{...}" && !(name.size() == 1 && punctuation(name[0]));
  }

  /// An entry's value: its tokens up to ';' outside ( ) and [ ], $name spliced in, and each
  /// `name { ... }` of a list read as an element (its name and "{...}" in the tokens).
  void read_value(const FoamDictionary& dict, FoamEntry& entry) {
    std::vector<char> open;
    for (Token token;;) {
      if (!next(token)) fail(entry.line, "'" + printable(entry.keyword) + "' has no ';' to end its value");
      if (!token.quoted && token.text == "{" && opens_element(entry, open)) {
        const std::string& name = entry.tokens.back();
        FoamEntry element{name, false, entry.lines.back(), {}, nullptr, {}, {}};
        element.dictionary = std::make_shared<FoamDictionary>(file_, dict.path_of(entry.keyword) + "." + name);
        scope_.push_back(element.dictionary.get());
        parse_entries(*element.dictionary, true);
        scope_.pop_back();
        count(element.line);
        entry.elements.push_back(std::move(element));
        entry.tokens.push_back("{...}");
        entry.lines.push_back(token.line);
        continue;
      }
      if (!token.quoted && token.text.size() == 1) {
        const char c = token.text[0];
        if (c == ';' && open.empty()) return;
        if (c == '{' || c == '}' || c == ';')
          fail(token.line, "'" + token.text + "' inside the value of '" + printable(entry.keyword) + "'");
        if (c == '(' || c == '[') open.push_back(c == '(' ? ')' : ']');
        if (c == ')' || c == ']') {
          if (open.empty() || open.back() != c) fail(token.line, "unbalanced '" + token.text + "'");
          open.pop_back();
        }
      }
      if (!token.quoted && token.text.front() == '$') {
        const FoamEntry& from = referenced(token);
        if (from.dictionary) fail(token.line, "'" + printable(token.text) + "' is a dictionary, not a value");
        entry.tokens.insert(entry.tokens.end(), from.tokens.begin(), from.tokens.end());
        entry.lines.insert(entry.lines.end(), from.tokens.size(), token.line);
        entry.elements.insert(entry.elements.end(), from.elements.begin(), from.elements.end());
      } else {
        entry.tokens.push_back(std::move(token.text));
        entry.lines.push_back(token.line);
      }
      if (entry.tokens.size() > FoamDictionary::max_value_tokens)
        fail(entry.line, "the value of '" + printable(entry.keyword) + "' is longer than " +
                             std::to_string(FoamDictionary::max_value_tokens) +
                             " tokens (a list of values per cell or face: fvmmini maps uniform values)");
    }
  }

  std::string text_, file_;
  std::size_t pos_ = 0;
  long line_ = 1;
  std::optional<Token> peeked_;
  std::vector<FoamDictionary*> scope_;
  std::size_t entries_ = 0;
};

std::shared_ptr<const FoamDictionary> read_foam_dictionary(const std::filesystem::path& file,
                                                           const std::string& shown_name) {
  return FoamDictionaryParser(read_text_file(file), shown_name).parse();
}

}  // namespace fvmmini
