// Strict reading of YAML mappings: every key read is checked off, unknown keys are errors, and
// every error names the file, the line and the dotted key path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace dlsim {

// Where a node came from, for error messages: "configs/clusters/a.yaml:12: nodes.0.count".
struct YamlWhere {
  std::string file;
  std::string path; // dotted key path from the document root; empty for the root
};

[[noreturn]] void yaml_fail(const YamlWhere& where, const YAML::Node& node,
                            const std::string& what);

// A mapping being read. Call `done()` after reading every key you know: it rejects the rest.
class YamlMap {
public:
  YamlMap(const YAML::Node& node, YamlWhere where);

  [[nodiscard]] bool has(const std::string& key) const;
  // Reads `key` as T, or returns `fallback` when the key is absent (or null).
  template <class T>
  T get(const std::string& key, T fallback);
  template <class T>
  T require(const std::string& key);
  // The raw child node (marks the key as known); an undefined node if absent.
  YAML::Node child(const std::string& key);
  [[nodiscard]] YamlWhere where_of(const std::string& key) const;
  [[nodiscard]] const YamlWhere& where() const { return where_; }
  [[nodiscard]] const YAML::Node& node() const { return node_; }
  // Errors on every key not read, listing the keys that are valid here.
  void done() const;

private:
  YAML::Node node_;
  YamlWhere where_;
  std::vector<std::string> known_;
};

// Converts a scalar node to T with an error naming the key when it is not a T.
template <class T>
T yaml_as(const YAML::Node& node, const YamlWhere& where);

template <class T>
T YamlMap::get(const std::string& key, T fallback) {
  YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) return fallback;
  return yaml_as<T>(n, where_of(key));
}

template <class T>
T YamlMap::require(const std::string& key) {
  YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) yaml_fail(where_, node_, "missing required key '" + key + "'");
  return yaml_as<T>(n, where_of(key));
}

// Loads a YAML file; a syntax error becomes an InputError naming the file and line.
YAML::Node load_yaml_file(const std::string& file);
// The same for YAML already read into `text` (a policy's data file): errors name `file`.
YAML::Node load_yaml_text(const std::string& text, const std::string& file);

// Sets the value at a dotted path ("policy.params.threshold"), creating maps on the way; a
// numeric segment indexes a sequence. The value is parsed as YAML ("3" is a number, "[1,2]" a
// list). Used for --set and for sweeps. `origin` names where the value came from in messages
// ("--until"); empty means "--set PATH".
void yaml_set_path(YAML::Node& root, const std::string& dotted_path, const std::string& value,
                   const std::string& origin = "");

} // namespace dlsim
