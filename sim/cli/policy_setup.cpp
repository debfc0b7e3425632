#include "sim/cli/policy_setup.h"

#include "sim/cli/experiment.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_set>

namespace dlsim {

PolicySetup make_policy_setup(const PolicyEntry& entry, Placement placement,
                              const YAML::Node& given) {
  PolicySetup setup{placement, resolve_params(entry, given)};
  for (const ParamSpec& p : entry.params) {
    if (p.type != ParamType::kSessionsFile && p.type != ParamType::kDataFile) continue;
    std::string path = setup.params.text(p.key);
    if (path.empty()) continue; // the policy says whether it needs one
    std::string file = find_data_file(path, "");
    if (!path_exists(file)) {
      throw InputError(fmt::format("policy.params.{}: {}: no such file (looked in the current "
                                   "directory and in dlsim's source tree)",
                                   p.key, path));
    }
    if (p.type == ParamType::kSessionsFile) {
      setup.search_sessions = load_search_sessions(file);
    } else {
      std::ifstream in(file, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      if (!in && !in.eof()) {
        throw InputError(fmt::format("policy.params.{}: {}: cannot be read", p.key, path));
      }
      setup.data_files.push_back({p.key, path, text.str()});
    }
  }
  return setup;
}

void check_search_trials(const PolicySetup& setup, const Workload& workload) {
  if (setup.search_sessions.empty()) return;
  std::unordered_set<std::string_view> names;
  for (std::size_t j = 0; j < workload.job_names.size(); ++j)
    names.insert(workload.job_names[j]);
  for (const SearchSession& s : setup.search_sessions) {
    for (const SearchTrial& t : draw_trials(s)) {
      if (names.count(t.job) == 0) {
        throw InputError(fmt::format(
            "policy.params.sessions: session '{}': trial job '{}' is not in the trace (add the "
            "sessions' trials with dlsim gen-trace --sessions)",
            s.name, t.job));
      }
    }
  }
}

} // namespace dlsim
