#include "sim/cli/policy_setup.h"

#include "sim/cli/experiment.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dlsim {

PolicySetup make_policy_setup(const PolicyEntry& entry, Placement placement,
                              const YAML::Node& given) {
  PolicySetup setup{placement, resolve_params(entry, given)};
  for (const ParamSpec& p : entry.params) {
    if (p.type != ParamType::kDataFile) continue;
    std::string path = setup.params.text(p.key);
    if (path.empty()) continue; // the policy says whether it needs one
    std::string file = find_data_file(path, "");
    if (!path_exists(file)) {
      throw InputError(fmt::format("policy.params.{}: {}: no such file (looked in the current "
                                   "directory and in dlsim's source tree)",
                                   p.key, path));
    }
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) {
      throw InputError(fmt::format("policy.params.{}: {}: cannot be read", p.key, path));
    }
    setup.data_files.push_back({p.key, path, text.str()});
  }
  return setup;
}

} // namespace dlsim
