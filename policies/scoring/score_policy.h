// The six placement policies of the FGD paper's evaluation (Weng et al., USENIX ATC'23, §6.1), as
// Kubernetes scheduler score plugins: jobs are taken one at a time in arrival order, every node
// where the job fits is scored (policies/scoring/scorers.h), the highest score wins, and among
// equals the first node of an order drawn once per run (as FGD's simulator breaks ties; with
// random_ties, drawn at each decision, as upstream Kubernetes does). A job that fits nowhere is
// cancelled at once, as a pod fails in FGD's simulator, unless `retry` is set
// (docs/fragmentation.md).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry score_random_policy();
PolicyEntry score_dot_product_policy();
PolicyEntry score_gpu_clustering_policy();
PolicyEntry score_gpu_packing_policy();
PolicyEntry score_best_fit_policy();
PolicyEntry fgd_policy();

} // namespace dlsim
