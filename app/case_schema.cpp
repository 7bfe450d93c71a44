#include "app/case_schema.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "app/key_path.hpp"
#include "app/scalar_text.hpp"
#include "base/printable.hpp"

namespace fvmmini {

namespace {

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

/// "solvers.T", or "the top level" for the root map.
std::string shown_path(const std::string& path) { return path.empty() ? "the top level" : path; }

std::string join_words(const std::vector<std::string>& words, const std::string& separator) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

std::string kind_name(const SourceNode& node) {
  switch (node.kind) {
    case SourceNode::Kind::null: return "nothing";
    case SourceNode::Kind::scalar: return "'" + printable(node.text) + "'";
    case SourceNode::Kind::sequence: return "a list";
    case SourceNode::Kind::map: return "a map";
  }
  return "?";
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // --- Levenshtein distance, one row at a time.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string match = closest_match(word, candidates);
  return match.empty() ? "" : " (did you mean '" + match + "'?)";
}

YAML::Node flow_sequence() {
  YAML::Node node(YAML::NodeType::Sequence);
  node.SetStyle(YAML::EmitterStyle::Flow);
  return node;
}

YAML::Node empty_map() {
  YAML::Node node(YAML::NodeType::Map);
  node.SetStyle(YAML::EmitterStyle::Flow);
  return node;
}

enum class Truth { yes, no, unknown };

/// The state of a key's conditions, with the words for messages.
struct ConditionState {
  Truth truth = Truth::yes;
  std::string actual;  ///< "mesh.type is polyMesh" for the failing condition
  std::string wanted;  ///< "mesh.type is box"
  std::string single_path;                  ///< the discriminator, when there is one condition
  std::vector<std::string> single_values;  ///< its values
};

/// "mesh.type is box or gmsh" when every state has one condition on the same key; else each joined by ", or ".
std::string wanted_text(const std::vector<ConditionState>& states) {
  std::vector<std::string> values, each;
  bool same_key = true;
  for (const auto& state : states) {
    same_key = same_key && !state.single_path.empty() && state.single_path == states.front().single_path;
    values.insert(values.end(), state.single_values.begin(), state.single_values.end());
    each.push_back(state.wanted);
  }
  if (same_key) return states.front().single_path + " is " + join_words(values, " or ");
  return join_words(each, ", or ");
}

/// Walks a document and its schema together, collecting problems and building the resolved tree.
class Resolver {
 public:
  Resolver(const KeySpec& root_spec, const SourceNode& root_source, std::vector<CaseProblem>& problems,
           std::map<std::string, SourceLocation>& locations)
      : root_spec_(root_spec), root_source_(root_source), problems_(problems), locations_(locations) {}

  /// A map: report unknown, duplicate and disabled keys, then resolve every enabled key in schema order.
  YAML::Node resolve_map(const KeySpec& spec, const SourceNode* source, const std::string& path,
                         const SourceLocation& where) {
    YAML::Node out(YAML::NodeType::Map);
    if (source != nullptr && source->kind == SourceNode::Kind::null) source = nullptr;
    if (source != nullptr && source->kind != SourceNode::Kind::map) {
      problem(source->where, shown_path(path) + ": expected a map of keys, got " + kind_name(*source));
      return out;
    }

    // --- Keys as written: duplicates, unknown names, keys the discriminators switch off.
    if (source != nullptr) {
      std::set<std::string> seen;
      for (const auto& entry : source->entries) {
        if (!seen.insert(entry.key).second) {
          problem(entry.key_where, "duplicate key '" + entry.key + "' in " + shown_path(path));
          continue;
        }
        const auto specs = spec.children_named(entry.key);
        if (specs.empty()) {
          problem(entry.key_where, "unknown key '" + printable(entry.key) + "' in " + shown_path(path) +
                                       did_you_mean(entry.key, child_names(spec)));
          continue;
        }
        bool enabled = false, unknown = false;
        std::vector<ConditionState> off;
        for (const KeySpec* candidate : specs) {
          const ConditionState state = conditions_of(*candidate, spec, source, path);
          enabled |= state.truth == Truth::yes;
          unknown |= state.truth == Truth::unknown;
          if (state.truth == Truth::no) off.push_back(state);
        }
        if (!enabled && !unknown)
          problem(entry.key_where, "key '" + entry.key + "' in " + shown_path(path) + " is not used when " +
                                       off.front().actual + " (it is used when " + wanted_text(off) + ")");
      }
    }

    // --- Keys of the schema, in schema order, with defaults filled in.
    std::set<std::string> done;
    for (const auto& child : spec.children()) {
      if (!done.insert(child->name()).second) continue;
      const KeySpec* chosen = nullptr;
      ConditionState chosen_state;
      for (const KeySpec* candidate : spec.children_named(child->name())) {
        const ConditionState state = conditions_of(*candidate, spec, source, path);
        if (state.truth == Truth::yes) {
          chosen = candidate;
          chosen_state = state;
          break;
        }
      }
      if (chosen == nullptr) continue;

      const std::string child_path = join_path(path, chosen->name());
      const SourceEntry* entry = source != nullptr ? source->find(chosen->name()) : nullptr;
      if (entry != nullptr) {
        locations_[child_path] = entry->key_where;
        if (auto value = resolve_value(*chosen, entry->value, child_path)) out[chosen->name()] = *value;
      } else if (chosen->is_required()) {
        const std::string why = chosen_state.wanted.empty() ? "" : " (needed when " + chosen_state.wanted + ")";
        const auto map_key = locations_.find(path);
        problem(map_key != locations_.end() ? map_key->second : where,
                "missing required key '" + chosen->name() + "' in " + shown_path(path) + why);
        failed_.insert(child_path);
      } else if (chosen->default_text()) {
        const SourceNode value = source_from_text(*chosen->default_text(), where);
        if (auto resolved = resolve_value(*chosen, value, child_path)) out[chosen->name()] = *resolved;
      } else if (chosen->type() == KeyType::map) {
        out[chosen->name()] = resolve_map(*chosen, nullptr, child_path, where);
      } else if (chosen->type() == KeyType::named_map) {
        out[chosen->name()] = empty_map();
      }
    }
    if (out.size() == 0) out.SetStyle(YAML::EmitterStyle::Flow);
    return out;
  }

  /// The keys that failed their own validation (or were required and missing): absent from the
  /// resolved case, so that a rule over several keys does not judge a default in their place.
  const std::set<std::string>& failed() const { return failed_; }

  /// One value against its spec; nullopt (and a problem) when it does not fit.
  std::optional<YAML::Node> resolve_value(const KeySpec& spec, const SourceNode& source, const std::string& path) {
    const std::size_t problems_before = problems_.size();
    std::optional<YAML::Node> out = resolve_checked(spec, source, path, problems_before);
    if (!out) failed_.insert(path);  // (a map keeps its valid keys: only the keys that failed are absent)
    return out;
  }

 private:
  std::optional<YAML::Node> resolve_checked(const KeySpec& spec, const SourceNode& source, const std::string& path,
                                            std::size_t problems_before) {
    std::optional<YAML::Node> out = convert_value(spec, source, path);
    if (out && problems_.size() == problems_before) {
      for (const auto& rule : spec.rules()) {
        const std::string message = rule(*out);
        if (!message.empty()) {
          problem(source.where, path + ": " + message);
          out.reset();
          break;
        }
      }
    }
    return out;
  }

  void problem(const SourceLocation& where, std::string message) {
    problems_.push_back(CaseProblem{where, std::move(message)});
  }

  static std::vector<std::string> child_names(const KeySpec& spec) {
    std::vector<std::string> names;
    for (const auto& child : spec.children())
      if (std::find(names.begin(), names.end(), child->name()) == names.end()) names.push_back(child->name());
    return names;
  }

  /// The discriminator's spec and written text (or default), when it can be known.
  struct Discriminator {
    const KeySpec* spec = nullptr;
    std::optional<std::string> text;
  };

  Discriminator find_discriminator(const KeyCondition& condition, const KeySpec& parent_spec,
                                   const SourceNode* parent_source) const {
    Discriminator found;
    const KeySpec* spec = &parent_spec;
    const SourceNode* source = parent_source;
    std::vector<std::string> keys{condition.key};
    if (condition.from_root) {
      spec = &root_spec_;
      source = &root_source_;
      keys.clear();
      std::size_t start = 0;
      while (true) {
        const auto dot = condition.key.find('.', start);
        keys.push_back(condition.key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
    }
    for (const auto& key : keys) {
      const auto specs = spec->children_named(key);
      if (specs.empty()) throw std::logic_error("case schema: condition on unknown key '" + condition.key + "'");
      spec = specs.front();
      const SourceEntry* entry =
          (source != nullptr && source->kind == SourceNode::Kind::map) ? source->find(key) : nullptr;
      source = entry != nullptr ? &entry->value : nullptr;
    }
    found.spec = spec;
    if (source != nullptr && source->kind == SourceNode::Kind::scalar) {
      found.text = source->text;
    } else if (source == nullptr && spec->default_text()) {
      found.text = *spec->default_text();
    }
    return found;
  }

  ConditionState conditions_of(const KeySpec& spec, const KeySpec& parent_spec, const SourceNode* parent_source,
                               const std::string& parent_path) const {
    ConditionState state;
    std::vector<std::string> wanted;
    for (const auto& condition : spec.conditions()) {
      const std::string shown = condition.from_root ? condition.key : join_path(parent_path, condition.key);
      wanted.push_back(shown + " is " + join_words(condition.values, " or "));
      const Discriminator discriminator = find_discriminator(condition, parent_spec, parent_source);
      const auto& allowed = discriminator.spec->allowed_values();
      if (!discriminator.text ||
          std::find(allowed.begin(), allowed.end(), *discriminator.text) == allowed.end()) {
        if (state.truth == Truth::yes) state.truth = Truth::unknown;
        continue;
      }
      if (std::find(condition.values.begin(), condition.values.end(), *discriminator.text) ==
          condition.values.end()) {
        state.truth = Truth::no;
        state.actual = shown + " is " + *discriminator.text;
      }
    }
    state.wanted = join_words(wanted, " and ");
    if (spec.conditions().size() == 1) {
      const auto& condition = spec.conditions().front();
      state.single_path = condition.from_root ? condition.key : join_path(parent_path, condition.key);
      state.single_values = condition.values;
    }
    return state;
  }

  void check_range(const KeySpec& spec, double value, const std::string& text, const SourceLocation& where,
                   const std::string& path) {
    if (!spec.in_range(value))
      problem(where, path + " = " + text + " is out of range (must be " + spec.range_text() + ")");
  }

  /// Text that is written out (paths, names, the JSON summary) must be UTF-8.
  bool utf8(const std::string& text, const SourceLocation& where, const std::string& what) {
    const auto bad = first_non_utf8(text);
    if (!bad) return true;
    problem(where, fmt::format("{}: not valid UTF-8 (byte 0x{:02x} at offset {}): case text must be UTF-8", what,
                               static_cast<unsigned char>(text[*bad]), *bad));
    return false;
  }

  std::optional<YAML::Node> scalar_of(const KeySpec& spec, const SourceNode& source, const std::string& path) {
    if (source.kind == SourceNode::Kind::scalar) return YAML::Node(source.text);
    problem(source.where, path + ": expected " + describe(spec.type()) + ", got " + kind_name(source));
    return std::nullopt;
  }

  std::optional<std::string> number_text(const KeySpec& spec, const SourceNode& item, const std::string& path,
                                         bool integer) {
    if (item.kind != SourceNode::Kind::scalar) {
      problem(item.where, path + ": expected " + (integer ? "an integer" : "a number") + ", got " + kind_name(item));
      return std::nullopt;
    }
    if (integer) {
      const auto value = parse_integer(item.text);
      if (!value) {
        problem(item.where, path + ": expected an integer, got '" + printable(item.text) + "'");
        return std::nullopt;
      }
      const std::string text = std::to_string(*value);
      check_range(spec, static_cast<double>(*value), text, item.where, path);
      return text;
    }
    const auto value = parse_real(item.text);
    if (!value) {
      problem(item.where, path + ": expected a number, got '" + printable(item.text) + "'");
      return std::nullopt;
    }
    const std::string text = format_real(*value);
    if (std::abs(*value) > real_magnitude_limit) {
      // --- finite, but the run's products of it (a velocity squared, a viscosity by a time step and
      //     the mesh's sizes) would overflow a double and show up as a wrong time step or worse
      problem(item.where, fmt::format("{} = {} is too large to compute with: the run multiplies it by other keys and "
                                      "the mesh's sizes, which would overflow a double (|value| at most {:g})",
                                      path, text, real_magnitude_limit));
      return std::nullopt;
    }
    check_range(spec, *value, text, item.where, path);
    return text;
  }

  std::optional<std::string> word(const KeySpec& spec, const SourceNode& item, const std::string& path) {
    if (item.kind != SourceNode::Kind::scalar) {
      problem(item.where, path + ": expected one of " + join_words(spec.allowed_values(), ", ") + ", got " +
                              kind_name(item));
      return std::nullopt;
    }
    const auto& allowed = spec.allowed_values();
    if (std::find(allowed.begin(), allowed.end(), item.text) != allowed.end()) return item.text;
    problem(item.where, "unknown value '" + item.text + "' for " + path + " (allowed: " + join_words(allowed, ", ") +
                            ")" + did_you_mean(item.text, allowed));
    return std::nullopt;
  }

  std::optional<YAML::Node> convert_value(const KeySpec& spec, const SourceNode& source, const std::string& path) {
    // --- An empty value: an empty section, an empty string, or a missing value.
    if (source.kind == SourceNode::Kind::null) {
      if (spec.type() == KeyType::map) return resolve_map(spec, nullptr, path, source.where);
      if (spec.type() == KeyType::named_map) return empty_map();
      if (spec.type() == KeyType::string) return YAML::Node(std::string());
      problem(source.where, path + ": missing value (expected " + describe(spec.type()) + ")");
      return std::nullopt;
    }
    const std::size_t problems_before = problems_.size();
    switch (spec.type()) {
      case KeyType::boolean: {
        if (!scalar_of(spec, source, path)) return std::nullopt;
        const auto value = parse_bool(source.text);
        if (!value) {
          problem(source.where, path + ": expected true or false, got '" + printable(source.text) + "'");
          return std::nullopt;
        }
        return YAML::Node(std::string(*value ? "true" : "false"));
      }
      case KeyType::integer:
      case KeyType::real: {
        const auto text = number_text(spec, source, path, spec.type() == KeyType::integer);
        if (!text || problems_.size() != problems_before) return std::nullopt;
        return YAML::Node(*text);
      }
      case KeyType::string:
        if (source.kind == SourceNode::Kind::scalar && !utf8(source.text, source.where, path)) return std::nullopt;
        return scalar_of(spec, source, path);
      case KeyType::enumeration: {
        const auto text = word(spec, source, path);
        if (!text) return std::nullopt;
        return YAML::Node(*text);
      }
      case KeyType::real3:
      case KeyType::int3: {
        if (source.kind != SourceNode::Kind::sequence || source.items.size() != 3) {
          const std::string got = source.kind == SourceNode::Kind::sequence
                                      ? "a list of " + std::to_string(source.items.size())
                                      : kind_name(source);
          problem(source.where, path + ": expected " + describe(spec.type()) + ", got " + got);
          return std::nullopt;
        }
        YAML::Node out = flow_sequence();
        for (std::size_t i = 0; i < 3; ++i) {
          const auto text = number_text(spec, source.items[i], path + "[" + std::to_string(i) + "]",
                                        spec.type() == KeyType::int3);
          if (text) out.push_back(*text);
        }
        if (problems_.size() != problems_before) return std::nullopt;
        return out;
      }
      case KeyType::enum_list: {
        if (source.kind != SourceNode::Kind::sequence || source.items.empty()) {
          problem(source.where, path + ": expected " + describe(spec.type()) + " out of " +
                                    join_words(spec.allowed_values(), ", ") + ", got " + kind_name(source));
          return std::nullopt;
        }
        YAML::Node out = flow_sequence();
        std::set<std::string> seen;
        for (std::size_t i = 0; i < source.items.size(); ++i) {
          const auto text = word(spec, source.items[i], path + "[" + std::to_string(i) + "]");
          if (!text) continue;
          if (!seen.insert(*text).second) problem(source.items[i].where, path + ": '" + *text + "' is listed twice");
          out.push_back(*text);
        }
        if (problems_.size() != problems_before) return std::nullopt;
        return out;
      }
      case KeyType::real_or_word:
      case KeyType::integer_or_word: {
        if (!scalar_of(spec, source, path)) return std::nullopt;
        const auto& words = spec.allowed_values();
        if (std::find(words.begin(), words.end(), source.text) != words.end()) return YAML::Node(source.text);
        const bool integer = spec.type() == KeyType::integer_or_word;
        if (integer ? parse_integer(source.text).has_value() : parse_real(source.text).has_value()) {
          const auto text = number_text(spec, source, path, integer);
          if (!text || problems_.size() != problems_before) return std::nullopt;
          return YAML::Node(*text);
        }
        problem(source.where, path + ": expected " + (integer ? "an integer" : "a number") + " or " +
                                  join_words(words, " or ") + ", got '" + printable(source.text) + "'" +
                                  did_you_mean(source.text, words));
        return std::nullopt;
      }
      case KeyType::map:
        // --- A map keeps its valid keys even when others fail, so rules over several keys still run.
        return resolve_map(spec, &source, path, source.where);
      case KeyType::named_map:
        return resolve_named_map(spec, source, path);
    }
    return std::nullopt;
  }

  std::optional<YAML::Node> resolve_named_map(const KeySpec& spec, const SourceNode& source, const std::string& path) {
    if (source.kind != SourceNode::Kind::map) {
      problem(source.where, path + ": expected " + describe(spec.type()) + ", got " + kind_name(source));
      return std::nullopt;
    }
    YAML::Node out(YAML::NodeType::Map);
    std::set<std::string> seen;
    for (const auto& entry : source.entries) {
      if (!seen.insert(entry.key).second) {
        problem(entry.key_where, "duplicate entry '" + entry.key + "' in " + path);
        continue;
      }
      if (entry.key.empty() || entry.key.find('"') != std::string::npos) {
        problem(entry.key_where, "entry name '" + printable(entry.key) + "' in " + path +
                                     " must be non-empty and hold no '\"' (a name with a '.' is one quoted "
                                     "component of a --set path: " + key_path(path, "inlet.left") + ".type)");
        continue;
      }
      if (!utf8(entry.key, entry.key_where, "entry name in " + path)) continue;
      const std::string entry_path = key_path(path, entry.key);
      locations_[entry_path] = entry.key_where;
      if (auto value = resolve_value(*spec.entry_spec(), entry.value, entry_path)) out[entry.key] = *value;
    }
    if (out.size() == 0) out.SetStyle(YAML::EmitterStyle::Flow);
    return out;
  }

  const KeySpec& root_spec_;
  const SourceNode& root_source_;
  std::vector<CaseProblem>& problems_;
  std::map<std::string, SourceLocation>& locations_;
  std::set<std::string> failed_;
};

/// Whether `message` names `path` as a whole key path (not a prefix of a longer one).
bool names_key(const std::string& message, const std::string& path) {
  const auto part_of_path = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_'; };
  for (std::size_t at = message.find(path); at != std::string::npos; at = message.find(path, at + 1)) {
    const std::size_t after = at + path.size();
    if ((at == 0 || !part_of_path(message[at - 1])) &&
        (after == message.size() || !part_of_path(message[after]) ||
         (message[after] == '.' && (after + 1 == message.size() || !part_of_path(message[after + 1])))))
      return true;
  }
  return false;
}

/// Whether a rule's problem blames a key that failed its own validation (it points at the key, or
/// names it): the key is said once, by its own problem, and a rule that judged a default in its
/// place says nothing of it.
bool blames_failed_key(const CaseProblem& problem, const std::set<std::string>& failed,
                       const std::map<std::string, SourceLocation>& locations) {
  for (const auto& path : failed) {
    const auto at = locations.find(path);
    if (at != locations.end() && at->second.line > 0 && at->second.origin == problem.where.origin &&
        at->second.line == problem.where.line && at->second.column == problem.where.column)
      return true;
    if (names_key(problem.message, path)) return true;
  }
  return false;
}

}  // namespace

const char* describe(KeyType type) {
  switch (type) {
    case KeyType::boolean: return "true or false";
    case KeyType::integer: return "an integer";
    case KeyType::real: return "a number";
    case KeyType::string: return "a string";
    case KeyType::enumeration: return "one word of a fixed set";
    case KeyType::real3: return "a list of 3 numbers";
    case KeyType::int3: return "a list of 3 integers";
    case KeyType::enum_list: return "a list of words";
    case KeyType::real_or_word: return "a number or a word";
    case KeyType::integer_or_word: return "an integer or a word";
    case KeyType::map: return "a map of keys";
    case KeyType::named_map: return "a map of named entries";
  }
  return "?";
}

KeySpec::KeySpec(std::string name, KeyType type, std::string doc)
    : name_(std::move(name)), type_(type), doc_(std::move(doc)) {}

KeySpec& KeySpec::add(std::string name, KeyType type, std::string doc) {
  if (type_ != KeyType::map) throw std::logic_error("case schema: '" + name_ + "' is not a map");
  children_.push_back(std::make_unique<KeySpec>(std::move(name), type, std::move(doc)));
  return *children_.back();
}

KeySpec& KeySpec::entry(KeyType type, std::string doc) {
  if (type_ != KeyType::named_map) throw std::logic_error("case schema: '" + name_ + "' is not a named map");
  entry_ = std::make_unique<KeySpec>("<name>", type, std::move(doc));
  return *entry_;
}

KeySpec& KeySpec::required() {
  required_ = true;
  default_.reset();  // the case gives it: a default would never be used
  return *this;
}

KeySpec& KeySpec::default_value(std::string yaml_text) {
  default_ = std::move(yaml_text);
  return *this;
}

KeySpec& KeySpec::values(std::vector<std::string> allowed) {
  values_ = std::move(allowed);
  return *this;
}

KeySpec& KeySpec::add_value(std::string allowed) {
  if (std::find(values_.begin(), values_.end(), allowed) == values_.end()) values_.push_back(std::move(allowed));
  return *this;
}

KeySpec& KeySpec::min(double bound, bool inclusive) {
  min_ = bound;
  min_inclusive_ = inclusive;
  return *this;
}

KeySpec& KeySpec::max(double bound, bool inclusive) {
  max_ = bound;
  max_inclusive_ = inclusive;
  return *this;
}

KeySpec& KeySpec::when(std::string key, std::vector<std::string> values) {
  conditions_.push_back(KeyCondition{std::move(key), false, std::move(values)});
  return *this;
}

KeySpec& KeySpec::when_root(std::string path, std::vector<std::string> values) {
  conditions_.push_back(KeyCondition{std::move(path), true, std::move(values)});
  return *this;
}

KeySpec& KeySpec::rule(std::function<std::string(const YAML::Node&)> check) {
  rules_.push_back(std::move(check));
  return *this;
}

std::vector<const KeySpec*> KeySpec::children_named(const std::string& name) const {
  std::vector<const KeySpec*> found;
  for (const auto& child : children_)
    if (child->name() == name) found.push_back(child.get());
  return found;
}

std::vector<KeySpec*> KeySpec::children_named(const std::string& name) {
  std::vector<KeySpec*> found;
  for (const auto& child : children_)
    if (child->name() == name) found.push_back(child.get());
  return found;
}

std::string KeySpec::range_text() const {
  std::string text;
  if (min_) text = (min_inclusive_ ? ">= " : "> ") + format_real(*min_);
  if (max_) text += (text.empty() ? "" : " and ") + std::string(max_inclusive_ ? "<= " : "< ") + format_real(*max_);
  return text;
}

bool KeySpec::in_range(double value) const {
  if (min_ && (min_inclusive_ ? value < *min_ : value <= *min_)) return false;
  if (max_ && (max_inclusive_ ? value > *max_ : value >= *max_)) return false;
  return true;
}

CaseSchema::CaseSchema() : root_(std::make_unique<KeySpec>("", KeyType::map, "a case")) {}

KeySpec& CaseSchema::at(const std::string& path) {
  KeySpec* spec = root_.get();
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const auto found = spec->children_named(key);
    if (found.empty()) throw std::out_of_range("case schema has no key '" + path + "'");
    spec = found.front();
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return *spec;
}

void CaseSchema::add_check(CrossCheck check) { checks_.push_back(std::move(check)); }

ResolvedCase CaseSchema::resolve(const SourceNode& document, const std::filesystem::path& case_file) const {
  std::vector<CaseProblem> problems;
  std::map<std::string, SourceLocation> locations;
  Resolver resolver(*root_, document, problems, locations);
  YAML::Node tree = resolver.resolve_map(*root_, &document, "", SourceLocation{case_file.string(), 0, 0});
  ResolvedCase resolved(case_file, tree, locations);  // a copy: the rules below are judged against it too

  // --- Rules over several keys; a rule whose keys failed above has nothing to check, and what a
  //     rule says of a key that failed its own validation (judging a default in its place) is
  //     dropped: each key is blamed once.
  for (const auto& check : checks_) {
    std::vector<CaseProblem> found;
    try {
      check(resolved, found);
    } catch (const std::out_of_range&) {
    }
    for (auto& problem : found)
      if (!blames_failed_key(problem, resolver.failed(), locations)) problems.push_back(std::move(problem));
  }
  if (!problems.empty()) {
    std::stable_sort(problems.begin(), problems.end(), [](const CaseProblem& a, const CaseProblem& b) {
      return std::pair(a.where.line, a.where.column) < std::pair(b.where.line, b.where.column);
    });
    throw CaseError(std::move(problems));
  }
  return resolved;
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string key = lower(word);
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(key, lower(candidate));
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  // --- Close enough: at most a third of the word, and never the whole word.
  const std::size_t limit = std::max<std::size_t>(1, key.size() / 3);
  if (best.empty() || best_distance > limit || best_distance >= key.size()) return "";
  return best;
}

}  // namespace fvmmini
