// Writing a declared configuration (run.yaml) and describing it (the key reference).
#include "sim/config/config_key.h"

#include <fmt/format.h>

namespace dlsim {

namespace {

std::string last_segment(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string type_text(const ConfigKey& k) {
  switch (k.type) {
  case KeyType::kSeconds:
    return "seconds";
  case KeyType::kNumber:
    return "number";
  case KeyType::kInteger:
    return "integer";
  case KeyType::kFlag:
    return "true/false";
  case KeyType::kText:
  case KeyType::kIgnored:
    return "string";
  case KeyType::kNode:
    return "mapping";
  }
  return "";
}

std::string default_value_text(const ConfigKey& k) {
  if (!k.default_text.empty()) return k.default_text;
  if (k.required) return "**required**";
  struct Text {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const double* v) const { return fmt::format("{}", *v); }
    std::string operator()(const unsigned* v) const { return fmt::format("{}", *v); }
    std::string operator()(const std::uint64_t* v) const { return fmt::format("{}", *v); }
    std::string operator()(const bool* v) const { return *v ? "true" : "false"; }
    std::string operator()(const std::string* v) const {
      return v->empty() ? "" : fmt::format("`{}`", *v);
    }
  };
  return std::visit(Text{}, k.field);
}

struct Write {
  YAML::Node parent;
  std::string key;
  void operator()(std::monostate) { parent[key] = YAML::Node(YAML::NodeType::Null); }
  template <class T>
  void operator()(T* field) {
    parent[key] = *field;
  }
};

} // namespace

std::string key_requirement(const ConfigKey& k) {
  switch (k.type) {
  case KeyType::kSeconds:
  case KeyType::kNumber:
  case KeyType::kInteger: {
    if (k.min == -HUGE_VAL && k.max == HUGE_VAL) return "";
    if (k.max == HUGE_VAL || k.type == KeyType::kSeconds) {
      if (k.min == 0) return k.min_open ? "be positive" : "not be negative";
      return fmt::format("be {} {}", k.min_open ? "greater than" : "at least", k.min);
    }
    if (k.type == KeyType::kInteger) return fmt::format("be {} to {}", k.min, k.max);
    return fmt::format("be in {}{}, {}]", k.min_open ? "(" : "[", k.min, k.max);
  }
  case KeyType::kText:
    return k.choices.empty() ? "" : fmt::format("be {}", fmt::join(k.choices, " or "));
  case KeyType::kFlag:
  case KeyType::kNode:
  case KeyType::kIgnored:
    return "";
  }
  return "";
}

YAML::Node node_at(const YAML::Node& root, const std::string& path) {
  YAML::Node node = root; // a handle: reassigning it below never touches the tree
  std::size_t start = 0;
  while (start <= path.size()) {
    auto dot = std::min(path.find('.', start), path.size());
    const YAML::Node& parent = node; // const lookups never insert
    if (!parent.IsMap() || !parent[path.substr(start, dot - start)].IsDefined())
      return YAML::Node(YAML::NodeType::Undefined);
    node.reset(parent[path.substr(start, dot - start)]);
    start = dot + 1;
  }
  return node;
}

void write_config_keys(const std::vector<ConfigKey>& keys, YAML::Node& root) {
  // A default-made node has no storage yet, and a copy of it would get its own: make it now.
  if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
  for (const ConfigKey& k : keys) {
    if (k.type == KeyType::kIgnored) continue;
    if (k.unset && *k.unset == *std::get<double*>(k.field)) continue;
    // Copies of yaml-cpp handles share their node, and assigning to one writes into the tree:
    // walk down with a chain of handles, each made once.
    std::vector<YAML::Node> chain{root};
    std::size_t start = 0;
    for (auto dot = k.path.find('.'); dot != std::string::npos; dot = k.path.find('.', start)) {
      chain.push_back(chain.back()[k.path.substr(start, dot - start)]);
      start = dot + 1;
    }
    std::visit(Write{chain.back(), last_segment(k.path)}, k.field);
  }
}

std::string config_keys_markdown(const std::vector<ConfigKey>& keys) {
  std::string out = "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const ConfigKey& k : keys) {
    std::string allowed = key_requirement(k);
    if (allowed.starts_with("be ")) allowed = allowed.substr(3);
    if (allowed == "not be negative") allowed = "not negative";
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.path, type_text(k),
                       default_value_text(k), allowed, k.doc);
  }
  return out;
}

} // namespace dlsim
