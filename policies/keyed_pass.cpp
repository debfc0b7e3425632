#include "policies/keyed_pass.h"

#include <iterator>

namespace dlsim {

void KeyedPass::arrive(const View& view, JobId j) {
  if (keys_.size() < view.job_count()) {
    keys_.resize(view.job_count());
    pos_.resize(view.job_count());
    waits_.resize(view.job_count(), 0);
  }
  // A host task holds no device for the pass to weigh: it starts on View::host_fit's nodes when
  // they have room and is never preempted (docs/runtime.md#host-tasks).
  if (is_host_task(view.request(j))) {
    host_waiting_.push_back(j);
    return;
  }
  keys_[j] = key_of_(view, j);
  pos_[j] = order_.insert(keys_[j]).first;
  waiting_.insert(keys_[j]);
  waits_[j] = 1;
  demand_ += view.request(j).devices();
}

void KeyedPass::finish(const View& view, JobId j) {
  if (is_host_task(view.request(j))) return;
  order_.erase(pos_[j]);
  if (waits_[j]) waiting_.erase(keys_[j]);
  waits_[j] = 0;
  holders_.erase(j);
  demand_ -= view.request(j).devices();
}

// Moves j to its current key, reusing its tree node (no allocation). Keys of running jobs only
// grow, so the new place is often where the old one was: the insert is tried there first.
void KeyedPass::rekey(const View& view, JobId j, bool waits) {
  PassKey key = key_of_(view, j);
  if (key == keys_[j] && waits == static_cast<bool>(waits_[j])) return;
  if (waits_[j]) waiting_.erase(keys_[j]);
  if (key != keys_[j]) {
    auto next = std::next(pos_[j]);
    auto node = order_.extract(pos_[j]);
    node.value() = key;
    keys_[j] = key;
    pos_[j] = order_.insert(next, std::move(node)); // a wrong hint costs a plain insert
  }
  if (waits) waiting_.insert(key);
  waits_[j] = waits ? 1 : 0;
}

void KeyedPass::decide(Control& control, Placement placement, bool preempt,
                       const BeforeApply& before_apply) {
  start_host_tasks(control, host_waiting_);
  // Nobody waits: the pass would keep every holder and start nothing.
  if (!someone_waits()) return;
  // Every job fits the one device type together: the pass keeps every holder, and only the
  // waiting jobs' order matters (PriorityPass::decide, holders_kept).
  const bool holders_kept = !before_apply && demand_ < single_type_devices(control);
  if (!holders_kept) {
    for (JobId j : holders_)
      rekey(control, j, false); // running jobs' keys moved since the last decision
  }
  const std::set<PassKey>& walked = holders_kept ? waiting_ : order_;
  auto next = walked.begin();
  pass_.decide(
      control,
      [&](JobId& j) {
        if (next == walked.end()) return false;
        j = std::get<2>(*next++);
        return true;
      },
      holders_, preempt, holders_kept);
  if (before_apply) before_apply(control, pass_);
  pass_.apply(control, placement, holders_, preempt);
  // A suspended job stopped where it is now, a started one may now count as a holder.
  for (JobId j : pass_.suspended())
    rekey(control, j, true);
  for (JobId j : pass_.started())
    rekey(control, j, false);
}

namespace {

class KeyedPassPolicy final : public Policy {
public:
  KeyedPassPolicy(Placement placement, PassKeyOf key_of)
      : placement_(placement), pass_(std::move(key_of)) {}

  void on_arrival(JobId j, const View& view) override { pass_.arrive(view, j); }
  void on_finish(JobId j, const View& view) override { pass_.finish(view, j); }
  void schedule(Control& control) override { pass_.decide(control, placement_); }

private:
  Placement placement_;
  KeyedPass pass_;
};

} // namespace

std::unique_ptr<Policy> make_keyed_pass_policy(Placement placement, PassKeyOf key_of) {
  return std::make_unique<KeyedPassPolicy>(placement, std::move(key_of));
}

} // namespace dlsim
