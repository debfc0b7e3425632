// Vetting a dotted key path given on the command line (--set, sweeps) against a declared
// configuration, with the nearest declared keys for a misspelt one.
#include "sim/config/config_key.h"
#include "sim/config/nearest_name.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

namespace {

std::string last_segment(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

bool is_known(const std::vector<ConfigKey>& keys, const std::string& path) {
  return std::any_of(keys.begin(), keys.end(), [&](const ConfigKey& k) {
    return k.path == path || k.path.starts_with(path + ".") ||
           (k.type == KeyType::kNode && path.starts_with(k.path + "."));
  });
}

// The longest leading part of `path` that is a section of declared keys ("" for the root).
std::string known_section(const std::vector<ConfigKey>& keys, const std::string& path) {
  std::string section;
  for (auto dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
    if (!is_known(keys, path.substr(0, dot))) break;
    section = path.substr(0, dot);
  }
  return section;
}

// The names declared directly in `section`, sorted: keys and sub-sections.
std::vector<std::string> children(const std::vector<ConfigKey>& keys, const std::string& section) {
  std::vector<std::string> names;
  std::string prefix = section.empty() ? "" : section + ".";
  for (const ConfigKey& k : keys) {
    if (!k.path.starts_with(prefix)) continue;
    std::string rest = k.path.substr(prefix.size());
    names.push_back(rest.substr(0, rest.find('.')));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

} // namespace

std::string unknown_key_problem(const std::vector<ConfigKey>& keys, const std::string& path) {
  if (is_known(keys, path)) return "";
  // Near: the whole path, or its last segment alone, is a few edits from a declared key's (at
  // most a quarter of the segment's letters differ). The last segment is matched in any section
  // when the path has none ("max_jobs_per_device"), else in its own ("runtime.speed" is not
  // "seed").
  std::string last = last_segment(path);
  std::string section = known_section(keys, path);
  bool own_section =
      path.find('.') != std::string::npos && path.size() == section.size() + 1 + last.size();
  std::size_t allowed = 1 + last.size() / 4;
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const ConfigKey& k : keys) {
    std::size_t d = edit_distance(path, k.path);
    if (!own_section || k.path.starts_with(section + "."))
      d = std::min(d, edit_distance(last, last_segment(k.path)));
    if (d <= allowed) near.emplace_back(d, k.path);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (std::size_t i = 0; i < near.size() && i < 3; ++i)
    names.push_back(near[i].second);
  if (!names.empty()) return fmt::format("unknown key (did you mean {}?)", fmt::join(names, ", "));
  return fmt::format("unknown key (valid {}: {}; `dlsim list keys` lists all)",
                     section.empty() ? "at the top" : "in " + section,
                     fmt::join(children(keys, section), ", "));
}

void check_key_path(const std::vector<ConfigKey>& keys, const std::string& path) {
  std::string problem = unknown_key_problem(keys, path);
  if (problem.empty()) return;
  throw InputError(
      fmt::format("{}: {}", path.size() <= 100 ? path : quote_input(path, 100), problem));
}

} // namespace dlsim
