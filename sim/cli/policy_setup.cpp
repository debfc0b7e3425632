#include "sim/cli/policy_setup.h"

#include "sim/cli/experiment.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <filesystem>

namespace dlsim {

PolicySetup make_policy_setup(const PolicyEntry& entry, Placement placement,
                              const YAML::Node& given) {
  PolicySetup setup{placement, resolve_params(entry, given)};
  for (const ParamSpec& p : entry.params) {
    if (p.type != ParamType::kSessionsFile) continue;
    std::string path = setup.params.text(p.key);
    if (path.empty()) continue; // the policy says whether it needs one
    std::string file = find_data_file(path, "");
    if (!std::filesystem::exists(file)) {
      throw InputError(fmt::format("policy.params.{}: {}: no such file (looked in the current "
                                   "directory and in dlsim's source tree)",
                                   p.key, path));
    }
    setup.search_sessions = load_search_sessions(file);
  }
  return setup;
}

} // namespace dlsim
