#include "policies/aiturbo/pauses.h"

namespace dlsim {

void PauseLog::issued(JobId j, ModelId model, PauseKind kind, SimTime now) {
  pending_[j] = {now, model, kind};
}

void PauseLog::done(JobId j, SimTime now) {
  auto it = pending_.find(j);
  if (it == pending_.end()) return;
  const Pending p = it->second;
  pending_.erase(it);
  const double s = to_seconds(now - p.at);
  const auto k = static_cast<std::size_t>(p.kind);
  if (by_model_[k].size() <= p.model) by_model_[k].resize(std::size_t{p.model} + 1);
  by_model_[k][p.model].sum += s;
  ++by_model_[k][p.model].n;
  all_[k].sum += s;
  ++all_[k].n;
}

double PauseLog::estimate(ModelId model, PauseKind kind) const {
  const auto k = static_cast<std::size_t>(kind);
  if (model < by_model_[k].size() && by_model_[k][model].n > 0)
    return by_model_[k][model].sum / by_model_[k][model].n;
  if (all_[k].n > 0) return all_[k].sum / all_[k].n;
  return kPausePriorS;
}

} // namespace dlsim
