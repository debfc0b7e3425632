// The registry built from the list of every policy (policies/policy_list.h: a new policy is one
// line there), and the lookup by name. It includes no policy's header: the list declares each
// entry function, and the types a policy is written against (PolicyEntry, ParamSpec,
// PolicyParams) are registry.h's, so no policy depends on another through this file.
#include "policies/registry.h"

#include "policies/policy_list.h"
#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"

#include <string>
#include <vector>

namespace dlsim {

#define DLSIM_DECLARE_POLICY(name) PolicyEntry name##_policy();
DLSIM_POLICIES(DLSIM_DECLARE_POLICY)
#undef DLSIM_DECLARE_POLICY

const std::vector<PolicyEntry>& policy_registry() {
#define DLSIM_POLICY_ENTRY(name) name##_policy(),
  static const std::vector<PolicyEntry> entries = {DLSIM_POLICIES(DLSIM_POLICY_ENTRY)};
#undef DLSIM_POLICY_ENTRY
  return entries;
}

const PolicyEntry& find_policy(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& e : policy_registry()) {
    if (e.name == name) return e;
    names.push_back(e.name);
  }
  throw InputError("policy.name: " + unknown_name_message("policy", name, names));
}

} // namespace dlsim
