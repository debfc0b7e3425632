#include "sim/config/yaml_reader.h"

#include "sim/engine/error.h"
#include "sim/engine/utf8.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ios>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace dlsim {

namespace {

std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

// A list index of --set: digits, read without std::stoul's out_of_range for "99999999999999999999"
// (any index past the list's end is reported the same way by the caller).
std::size_t list_index(const std::string& digits) {
  std::size_t idx = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), idx);
  return ec == std::errc() && end == digits.data() + digits.size() ? idx : SIZE_MAX;
}

// The nodes that --set put into a document, each with the key path it was set at. Their marks count
// lines of the value's own text, so an error about one of them names the --set instead of a line of
// the file the value was merged into. (A node is recognised by identity: yaml-cpp's assignment
// shares the parsed node with the tree, and every reader reads that tree.)
struct SetOrigin {
  YAML::Node node;
  std::string key;
  std::string label; // how the user gave it: "--set KEY", or a flag such as "--until"
};

std::vector<SetOrigin>& set_origins() {
  static std::vector<SetOrigin> origins;
  return origins;
}

void remember_set_nodes(const std::vector<YAML::Node>& nodes, const std::string& key,
                        const std::string& label) {
  for (const YAML::Node& node : nodes) // keys too: an unknown key is reported at its key node
    set_origins().push_back({node, key, label});
}

const SetOrigin* set_origin_of(const YAML::Node& node) {
  if (!node.IsDefined()) return nullptr;
  for (const SetOrigin& origin : set_origins()) {
    if (origin.node.is(node)) return &origin;
  }
  return nullptr;
}

std::string describe(const YamlWhere& where, const YAML::Node& node) {
  if (const SetOrigin* origin = set_origin_of(node)) {
    std::string out = origin->label + ": ";
    if (!where.path.empty() && where.path != origin->key) out += where.path + ": ";
    return out;
  }
  std::string out = where.file.empty() ? std::string("<config>") : where.file;
  if (node.IsDefined() && node.Mark().line >= 0) out += fmt::format(":{}", node.Mark().line + 1);
  out += ": ";
  if (!where.path.empty()) out += where.path + ": ";
  return out;
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, bool>)
    return "true or false";
  else if constexpr (std::is_integral_v<T>)
    return "an integer";
  else if constexpr (std::is_floating_point_v<T>)
    return "a number";
  else
    return "a string";
}

} // namespace

void yaml_fail(const YamlWhere& where, const YAML::Node& node, const std::string& what) {
  throw InputError(describe(where, node) + what);
}

// A missing key reads as an empty mapping: every key takes its default. (A missing key's node
// is "invalid" in yaml-cpp, and assigning to one throws, hence the choice at construction.)
YamlMap::YamlMap(const YAML::Node& node, YamlWhere where)
    : node_(node.IsDefined() ? node : YAML::Node(YAML::NodeType::Null)), where_(std::move(where)) {
  if (node_.IsDefined() && !node_.IsNull() && !node_.IsMap()) {
    yaml_fail(where_, node_, "expected a mapping of keys to values");
  }
}

bool YamlMap::has(const std::string& key) const {
  return node_.IsMap() && node_[key].IsDefined() && !node_[key].IsNull();
}

YAML::Node YamlMap::child(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  if (!node_.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  // Look up without inserting: operator[] on a const node never adds a key.
  const YAML::Node& const_node = node_;
  YAML::Node found = const_node[key];
  // A missing key gives an "invalid" node on which most calls throw; hand back a valid
  // undefined one instead.
  return found.IsDefined() ? found : YAML::Node(YAML::NodeType::Undefined);
}

YamlWhere YamlMap::where_of(const std::string& key) const {
  return YamlWhere{where_.file, join_path(where_.path, key)};
}

void YamlMap::done() const {
  if (!node_.IsMap()) return;
  for (const auto& kv : node_) {
    auto key = kv.first.as<std::string>();
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      std::vector<std::string> valid = known_;
      std::sort(valid.begin(), valid.end());
      yaml_fail(where_of(key), kv.first,
                fmt::format("unknown key (valid here: {})", fmt::join(valid, ", ")));
    }
  }
}

template <class T>
T yaml_as(const YAML::Node& node, const YamlWhere& where) {
  if (!node.IsScalar()) yaml_fail(where, node, fmt::format("expected {}", type_name<T>()));
  try {
    T value = node.as<T>();
    if constexpr (std::is_unsigned_v<T> && std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!node.Scalar().empty() && node.Scalar()[0] == '-') throw YAML::BadConversion(node.Mark());
    }
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // yaml-cpp reads a leading 0 as octal (`count: 010` is 8 nodes): a silently wrong number.
      const std::string& text = node.Scalar();
      std::size_t digits = text.find_first_not_of("+-");
      if (digits != std::string::npos && text.size() > digits + 1 && text[digits] == '0' &&
          text[digits + 1] >= '0' && text[digits + 1] <= '9') {
        yaml_fail(where, node,
                  fmt::format("{}: a leading 0 reads as octal in YAML (this is {}); write it "
                              "without the 0",
                              quote_input(text), value));
      }
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(value)) throw YAML::BadConversion(node.Mark());
    }
    return value;
  } catch (const YAML::BadConversion&) {
    yaml_fail(where, node,
              fmt::format("expected {}, got {}", type_name<T>(), quote_input(node.Scalar())));
  }
}

template bool yaml_as<bool>(const YAML::Node&, const YamlWhere&);
template int yaml_as<int>(const YAML::Node&, const YamlWhere&);
template std::int64_t yaml_as<std::int64_t>(const YAML::Node&, const YamlWhere&);
template std::uint32_t yaml_as<std::uint32_t>(const YAML::Node&, const YamlWhere&);
template std::uint64_t yaml_as<std::uint64_t>(const YAML::Node&, const YamlWhere&);
template double yaml_as<double>(const YAML::Node&, const YamlWhere&);
template std::string yaml_as<std::string>(const YAML::Node&, const YamlWhere&);

namespace {

// How many nodes aliases may add to a document when expanded. A legitimate file repeats a block a
// few times; nested anchors (`b: [*a, *a]`, `c: [*b, *b]`, ...) double the expanded size per
// level, and every walker of the tree (the readers, the copy in run.yaml) pays that size.
constexpr std::uint64_t kMaxAliasExpansion = 1'000'000;
constexpr std::uint64_t kSizeCap = std::uint64_t{1} << 62; // sums of two stay below 2^64

// Every distinct node of a parsed document (an aliased node is one node, shared), reached in one
// walk with an explicit stack (no recursion, so deep nesting cannot overflow it). Nodes are told
// apart by identity; their parse position narrows the search.
class DistinctNodes {
public:
  // The node's expanded size if it has been seen (UINT64_MAX while its children are in progress).
  std::uint64_t* find(const YAML::Node& node) {
    auto it = by_pos_.find(node.Mark().pos);
    if (it == by_pos_.end()) return nullptr;
    for (std::size_t i : it->second) {
      if (nodes_[i].is(node)) return &sizes_[i];
    }
    return nullptr;
  }
  void add(const YAML::Node& node) {
    by_pos_[node.Mark().pos].push_back(nodes_.size());
    nodes_.push_back(node);
    sizes_.push_back(UINT64_MAX);
  }
  const std::vector<YAML::Node>& nodes() const { return nodes_; }

private:
  std::unordered_map<int, std::vector<std::size_t>> by_pos_;
  std::vector<YAML::Node> nodes_;
  std::vector<std::uint64_t> sizes_;
};

// A node to visit, at its path; children_done: its children were visited, its size is due.
struct Frame {
  YAML::Node node;
  std::string path;
  bool children_done;
};

// A node's keys and values, or items, in document order, each at its path; a key given twice is
// refused.
std::vector<Frame> children_of(const YAML::Node& node, const std::string& path,
                               const std::string& where) {
  std::vector<Frame> next;
  if (node.IsMap()) {
    std::vector<std::pair<std::string, int>> keys; // key, line
    for (const auto& kv : node) {
      std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("<complex key>");
      int line = kv.first.Mark().line + 1;
      for (const auto& [other, other_line] : keys) {
        if (other == key) {
          throw InputError(fmt::format("{}:{}: {}: duplicate key (first given at line {})", where,
                                       line, join_path(path, key), other_line));
        }
      }
      keys.emplace_back(key, line);
      next.push_back({kv.first, join_path(path, key), false});
      next.push_back({kv.second, join_path(path, key), false});
    }
  } else if (node.IsSequence()) {
    std::size_t i = 0;
    for (const auto& item : node)
      next.push_back({item, join_path(path, std::to_string(i++)), false});
  }
  return next;
}

// yaml-cpp keeps both entries of a repeated key and lookups find the first: a second
// `seed: 2` would be silently ignored. Every scalar must be UTF-8. Each distinct node is checked
// once, where it is written, and the document's size with aliases expanded is bounded (a 521-byte
// file of nested anchors expanded to minutes of work). Returns the distinct nodes, keys included.
std::vector<YAML::Node> check_unique_keys(const YAML::Node& root, const std::string& file,
                                          const std::string& base_path = "") {
  const std::string where = file.empty() ? std::string("<config>") : file;
  // An empty document is a node with no identity (not even is() itself): nothing to check.
  if (!root.is(root)) return {};
  DistinctNodes seen;
  std::vector<Frame> todo{{root, base_path, false}};
  std::uint64_t distinct = 0;
  while (!todo.empty()) {
    Frame frame = std::move(todo.back());
    todo.pop_back();
    const YAML::Node& node = frame.node;
    std::vector<YAML::Node> children;
    if (node.IsMap()) {
      for (const auto& kv : node) {
        children.push_back(kv.first);
        children.push_back(kv.second);
      }
    } else if (node.IsSequence()) {
      for (const auto& item : node)
        children.push_back(item);
    }
    if (frame.children_done) {
      std::uint64_t size = 1;
      for (const YAML::Node& child : children) {
        std::uint64_t* child_size = seen.find(child);
        if (child_size == nullptr || *child_size == UINT64_MAX) {
          throw InputError(fmt::format("{}:{}: {}: an alias (*name) refers to a node that "
                                       "contains it",
                                       where, child.Mark().line + 1, frame.path));
        }
        size = std::min(size + *child_size, kSizeCap);
      }
      *seen.find(node) = size;
      continue;
    }
    if (std::uint64_t* size = seen.find(node)) {
      if (*size == UINT64_MAX) {
        throw InputError(
            fmt::format("{}:{}: {}: an alias (*name) refers to a node that contains it", where,
                        node.Mark().line + 1, frame.path));
      }
      continue; // an alias of a node already checked
    }
    seen.add(node);
    ++distinct;
    if (node.IsScalar()) {
      // YAML is UTF-8, and names and values end up in JSON files, which must be too.
      std::string problem = utf8_problem(node.Scalar());
      if (!problem.empty()) {
        throw InputError(
            fmt::format("{}:{}: {}: {}", where, node.Mark().line + 1, frame.path, problem));
      }
    }
    todo.push_back({node, frame.path, true});
    // Children are pushed last first, so that they are visited in document order: an anchored
    // node is then first reached where it is written (an anchor precedes its aliases), and an
    // error in it names that path. (Never std::reverse on nodes: assigning a YAML::Node writes
    // through to the node it refers to.)
    std::vector<Frame> next = children_of(node, frame.path, where);
    for (auto it = next.rbegin(); it != next.rend(); ++it)
      todo.push_back(*it);
  }
  std::uint64_t expanded = *seen.find(root);
  if (expanded > distinct + kMaxAliasExpansion) {
    throw InputError(fmt::format("{}: aliases (*name) expand the document to more than {} nodes "
                                 "beyond the {} written; repeat less, or write the values out",
                                 where, kMaxAliasExpansion, distinct));
  }
  return seen.nodes();
}

// Where a second document starts in a YAML stream, if there is one. Counted with an event handler
// that builds nothing, stopping at two: yaml-cpp 0.7's LoadAll loops forever on some text after
// the first document (a lone ',' is enough), adding a null document per turn until memory runs
// out (jbeder/yaml-cpp PR #1319, in releases after 0.8.0); a fuzzed experiment file hung dlsim.
std::optional<YAML::Mark> second_document(std::istream& in) {
  struct DocumentStarts final : YAML::EventHandler {
    std::vector<YAML::Mark> starts;
    void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  } handler;
  YAML::Parser parser(in);
  for (int documents = 0; documents < 2 && parser.HandleNextDocument(handler); ++documents) {
  }
  if (handler.starts.size() < 2) return std::nullopt;
  return handler.starts[1];
}

} // namespace

YAML::Node load_yaml_file(const std::string& file) {
  // A directory opens as a stream and then fails to read.
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError(file + ": is a directory, not a YAML file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: cannot read", file));
  return load_yaml_text(text.str(), file);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& file) {
  try {
    YAML::Node root = YAML::Load(text); // the first document
    std::istringstream in(text);
    if (auto second = second_document(in)) {
      throw InputError(fmt::format("{}{}: a second YAML document (after '---'), or text after the "
                                   "end of the first: dlsim reads one document per file",
                                   file,
                                   second->line >= 0 ? fmt::format(":{}", second->line + 1) : ""));
    }
    check_unique_keys(root, file);
    return root;
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}: YAML syntax error: {}", file, e.mark.line + 1, e.msg));
  }
}

namespace {

// A --set value as YAML: one document.
YAML::Node parse_set_value(const std::string& value, const std::string& label) {
  YAML::Node parsed;
  try {
    parsed = YAML::Load(value); // the first document
    std::istringstream in(value);
    if (second_document(in))
      throw InputError(fmt::format("{}: the value holds more than one YAML document, or "
                                   "text after the end of the first",
                                   label));
  } catch (const YAML::ParserException& e) {
    throw InputError(
        fmt::format("{}: cannot parse value {}: {}", label, quote_input(value), e.msg));
  }
  return parsed;
}

std::vector<std::string> split_dotted(const std::string& dotted_path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = dotted_path.find('.', start);
    parts.push_back(dotted_path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

} // namespace

void yaml_set_path(YAML::Node& root, const std::string& dotted_path, const std::string& value,
                   const std::string& origin) {
  if (dotted_path.empty()) throw InputError("--set: empty key path");
  const std::string label = origin.empty() ? "--set " + dotted_path : origin;
  YAML::Node parsed = parse_set_value(value, label);
  remember_set_nodes(check_unique_keys(parsed, "--set", dotted_path), dotted_path, label);
  const std::vector<std::string> parts = split_dotted(dotted_path);
  // Walk with explicit node handles: yaml-cpp nodes are references, so assigning through the
  // last handle writes into the tree.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node cur = chain.back();
    const std::string& p = parts[i];
    bool is_index = !p.empty() && std::all_of(p.begin(), p.end(), ::isdigit);
    if (cur.IsSequence() && is_index) {
      std::size_t idx = list_index(p);
      if (idx >= cur.size()) {
        throw InputError(fmt::format("{}: index {} is out of range (the list has {} items)", label,
                                     p.size() <= 30 ? p : p.substr(0, 30) + "...", cur.size()));
      }
      chain.push_back(cur[idx]);
    } else {
      // yaml-cpp would turn the list into a mapping with this key: the file's reader would then
      // blame the file for the --set.
      if (cur.IsSequence()) {
        throw InputError(
            fmt::format("{}: '{}' is not an index of the list ({} items: 0 to {})", label,
                        p.size() <= 30 ? p : p.substr(0, 30) + "...", cur.size(),
                        cur.size() == 0 ? std::string("none") : std::to_string(cur.size() - 1)));
      }
      if (cur.IsScalar()) {
        throw InputError(fmt::format("{}: '{}' is a value, not a mapping", label, p));
      }
      YAML::Node next = cur[p];
      if (!next.IsDefined() || next.IsNull()) {
        cur[p] = YAML::Node(YAML::NodeType::Map);
        next = cur[p];
      }
      chain.push_back(next);
    }
  }
  YAML::Node parent = chain.back();
  const std::string& last = parts.back();
  if (parent.IsScalar()) {
    throw InputError(fmt::format("{}: the parent of '{}' is a value, not a mapping", label, last));
  }
  bool is_index = !last.empty() && std::all_of(last.begin(), last.end(), ::isdigit);
  if (parent.IsSequence() && !is_index) {
    throw InputError(
        fmt::format("{}: '{}' is not an index of the list ({} items: 0 to {})", label,
                    last.size() <= 30 ? last : last.substr(0, 30) + "...", parent.size(),
                    parent.size() == 0 ? std::string("none") : std::to_string(parent.size() - 1)));
  }
  if (parent.IsSequence() && is_index) {
    std::size_t idx = list_index(last);
    if (idx >= parent.size()) {
      throw InputError(fmt::format("{}: index {} is out of range (the list has {} items)", label,
                                   last.size() <= 30 ? last : last.substr(0, 30) + "...",
                                   parent.size()));
    }
    parent[idx] = parsed;
  } else {
    parent[last] = parsed;
  }
}

} // namespace dlsim
