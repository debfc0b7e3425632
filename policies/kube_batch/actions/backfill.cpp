// The `backfill` action (kube-batch and Volcano pkg/scheduler/actions/backfill/backfill.go)
// places BestEffort tasks: pods that request no resources, which only have to pass the
// predicates. Every dlsim task asks for at least one device, so there is never one to place:
// the action is accepted so that configurations paste unchanged, and does nothing. (The
// backfilling of small jobs past a blocked gang that EASY-style schedulers do is, in kube-batch,
// a side effect of `allocate` discarding a gang that does not fit and going on to the next job.)
#include "policies/kube_batch/actions/actions.h"

namespace dlsim::kb {

void backfill(Session& /*s*/) {}

} // namespace dlsim::kb
