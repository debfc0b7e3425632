// Reading and checking the keys of a declared configuration (config_key.h).
#include "sim/config/config_key.h"

#include "sim/config/yaml_reader.h"
#include "sim/engine/duration.h"
#include "sim/engine/error.h"
#include "sim/engine/time.h"

#include <fmt/format.h>

#include <deque>
#include <limits>

namespace dlsim {

namespace {

struct Section {
  std::string path; // dotted from the root
  YamlMap map;
};

// The mapping at `path`, opened (and kept, so that its unknown keys are checked at the end)
// the first time a key inside it is read. A deque keeps references stable as it grows.
YamlMap& open_section(std::deque<Section>& open, YamlMap& top, const std::string& path) {
  if (path.empty()) return top;
  for (Section& s : open) {
    if (s.path == path) return s.map;
  }
  auto dot = path.rfind('.');
  YamlMap& parent = open_section(open, top, dot == std::string::npos ? "" : path.substr(0, dot));
  std::string key = dot == std::string::npos ? path : path.substr(dot + 1);
  open.push_back(Section{path, YamlMap(parent.child(key), parent.where_of(key))});
  return open.back().map;
}

[[noreturn]] void fail(YamlMap& section, const std::string& key, const std::string& what) {
  yaml_fail(section.where_of(key), section.child(key), what);
}

// A key of seconds also takes a duration with a unit (30s, 90m, 2h, 7d; engine/duration.h).
double seconds_or_duration(YamlMap& section, const std::string& key, double field) {
  YAML::Node n = section.child(key);
  if (!n.IsDefined() || !n.IsScalar()) return section.get<double>(key, field);
  if (auto s = parse_duration_s(n.Scalar())) return *s;
  fail(section, key,
       fmt::format("expected seconds: a number, or a duration such as 30s, 90m, 2h or 7d; got {}",
                   quote_input(n.Scalar())));
}

void read_real(const ConfigKey& k, YamlMap& section, const std::string& key, double& field) {
  double v = k.type == KeyType::kSeconds ? seconds_or_duration(section, key, field)
                                         : section.get<double>(key, field);
  if (!k.unset || v != *k.unset) {
    bool low = k.min_open ? !(v > k.min) : !(v >= k.min);
    bool high = k.type == KeyType::kNumber && v > k.max;
    if (low || high) fail(section, key, fmt::format("must {}, got {}", key_requirement(k), v));
    if (k.type == KeyType::kSeconds && v > kMaxSeconds)
      fail(section, key,
           fmt::format("{} s is beyond dlsim's time limit of {} s (about 126 years; "
                       "docs/runtime.md, \"Time and its limit\")",
                       v, kMaxSeconds));
  }
  field = v;
}

// A whole number in the key's range; a negative one is read as such, to say it is out of range.
template <class T>
void read_integer(const ConfigKey& k, YamlMap& section, const std::string& key, T& field) {
  YAML::Node n = section.child(key);
  if (!n.IsDefined() || n.IsNull()) return;
  double max = std::min(k.max, static_cast<double>(std::numeric_limits<T>::max()));
  if (n.IsScalar() && n.Scalar().starts_with('-')) {
    auto v = yaml_as<std::int64_t>(n, section.where_of(key));
    fail(section, key, fmt::format("must {}, got {}", key_requirement(k), v));
  }
  auto v = yaml_as<std::uint64_t>(n, section.where_of(key));
  if (static_cast<double>(v) < k.min || static_cast<double>(v) > max)
    fail(section, key, fmt::format("must {}, got {}", key_requirement(k), v));
  field = static_cast<T>(v);
}

void read_text(const ConfigKey& k, YamlMap& section, const std::string& key, std::string& field) {
  field = k.required ? section.require<std::string>(key) : section.get<std::string>(key, field);
  if (k.choices.empty()) return;
  for (const std::string& c : k.choices) {
    if (c == field) return;
  }
  fail(section, key, fmt::format("must {}, got {}", key_requirement(k), quote_input(field)));
}

void read_key(const ConfigKey& k, YamlMap& section, const std::string& key) {
  switch (k.type) {
  case KeyType::kSeconds:
  case KeyType::kNumber:
    read_real(k, section, key, *std::get<double*>(k.field));
    return;
  case KeyType::kInteger:
    if (auto* u = std::get_if<unsigned*>(&k.field))
      read_integer(k, section, key, **u);
    else
      read_integer(k, section, key, *std::get<std::uint64_t*>(k.field));
    return;
  case KeyType::kFlag: {
    bool& field = *std::get<bool*>(k.field);
    field = section.get<bool>(key, field);
    return;
  }
  case KeyType::kText:
    read_text(k, section, key, *std::get<std::string*>(k.field));
    return;
  case KeyType::kNode:
    (void)section.child(key); // known here; its own reader reads it
    return;
  case KeyType::kIgnored:
    (void)section.get<std::string>(key, "");
    return;
  }
}

} // namespace

void read_config_keys(const YAML::Node& root, const std::string& file,
                      const std::vector<ConfigKey>& keys) {
  YamlMap top(root, YamlWhere{file, ""});
  std::deque<Section> open;
  for (const ConfigKey& k : keys) {
    auto dot = k.path.rfind('.');
    YamlMap& section =
        open_section(open, top, dot == std::string::npos ? "" : k.path.substr(0, dot));
    read_key(k, section, dot == std::string::npos ? k.path : k.path.substr(dot + 1));
  }
  // Innermost first, then the root: an unknown key is reported where it was written.
  for (auto s = open.rbegin(); s != open.rend(); ++s)
    s->map.done();
  top.done();
}

} // namespace dlsim
