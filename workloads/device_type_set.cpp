#include "workloads/device_type_set.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

namespace {

// `any-<kind>` names every catalog type of that kind; `any` every type.
bool add_kind(std::string_view token, const Cluster& cluster, std::vector<DeviceTypeId>& out) {
  if (token == "any") {
    for (DeviceTypeId t = 0; t < cluster.types.size(); ++t)
      out.push_back(t);
    return true;
  }
  if (token.substr(0, 4) != "any-") return false;
  auto kind = parse_device_kind(token.substr(4));
  if (!kind) return false;
  for (DeviceTypeId t = 0; t < cluster.types.size(); ++t) {
    if (cluster.types[t].kind == *kind) out.push_back(t);
  }
  return true;
}

} // namespace

DeviceTypeChoice parse_device_type_choice(std::string_view text, const Cluster& cluster) {
  DeviceTypeChoice c;
  if (text == "any-gpu") {
    c.any_gpu = true;
    return c;
  }
  std::size_t start = 0;
  while (true) {
    std::size_t bar = text.find('|', start);
    std::string_view token =
        text.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (token.empty()) {
      c.error =
          fmt::format("empty device type in '{}' (types are separated by a single '|')", text);
      return c;
    }
    if (auto t = find_device_type(cluster.types, token)) {
      c.types.push_back(*t);
    } else if (!add_kind(token, cluster, c.types)) {
      c.error =
          fmt::format("unknown device type '{}'{} (see dlsim list devices; kinds: any, "
                      "any-gpu, any-cpu, any-xeonphi, any-fpga)",
                      token, token.size() == text.size() ? "" : fmt::format(" in '{}'", text));
      return c;
    }
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  std::sort(c.types.begin(), c.types.end());
  c.types.erase(std::unique(c.types.begin(), c.types.end()), c.types.end());
  return c;
}

} // namespace dlsim
