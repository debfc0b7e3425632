// The list of every policy (docs/adding-a-policy.md: a new policy is one line here) and the
// lookup by name. It is the one file of policies/ that includes every policy's header; the types
// a policy is written against (PolicyEntry, ParamSpec, PolicyParams) are registry.h's, so no
// policy depends on another through this list.
#include "policies/registry.h"

#include "policies/aiturbo/aiturbo.h"
#include "policies/drf.h"
#include "policies/elastic_kubeflow.h"
#include "policies/external/external.h"
#include "policies/fifo.h"
#include "policies/fifo_backfill.h"
#include "policies/gandiva/gandiva.h"
#include "policies/gavel/gavel_policy.h"
#include "policies/gpu_share.h"
#include "policies/hot_spares.h"
#include "policies/k8s_default.h"
#include "policies/kube_batch/kube_batch.h"
#include "policies/las.h"
#include "policies/max_throughput.h"
#include "policies/scoring/score_policy.h"
#include "policies/search_sessions.h"
#include "policies/shortest_gpu_time.h"
#include "policies/sjf.h"
#include "policies/srtf.h"
#include "policies/tiresias.h"
#include "policies/util_packing.h"
#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"

#include <string>
#include <vector>

namespace dlsim {

// Every policy, in the order `dlsim list policies` prints them: one line each.
const std::vector<PolicyEntry>& policy_registry() {
  static const std::vector<PolicyEntry> entries = {
      fifo_policy(),
      hot_spares_policy(),
      sjf_policy(),
      srtf_policy(),
      fifo_backfill_policy(),
      shortest_gpu_time_policy(),
      tiresias_policy(),
      las_policy(),
      max_throughput_policy(),
      gavel_max_min_policy(),
      gavel_throughput_policy(),
      gavel_finish_time_policy(),
      gavel_makespan_policy(),
      drf_policy(),
      k8s_default_policy(),
      elastic_kubeflow_policy(),
      kube_batch_policy("kube-batch"),
      kube_batch_policy("volcano"),
      gandiva_policy(),
      automl_policy(),
      gpu_share_policy(),
      score_random_policy(),
      score_dot_product_policy(),
      score_gpu_clustering_policy(),
      score_gpu_packing_policy(),
      score_best_fit_policy(),
      fgd_policy(),
      util_slot_policy(),
      util_reactive_policy(),
      util_proactive_policy(),
      aiturbo_policy(),
      optimus_policy(),
      external_policy(),
  };
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
