#include "policies/keyed_pass.h"

#include <iterator>

namespace dlsim {

void KeyedPass::arrive(const View& view, JobId j) {
  if (keys_.size() < view.job_count()) keys_.resize(view.job_count());
  keys_[j] = key_of_(view, j);
  order_.insert(keys_[j]);
}

void KeyedPass::finish(JobId j) {
  order_.erase(keys_[j]);
  holders_.erase(j);
}

// Moves j to its current key, reusing its tree node (no allocation). Keys of running jobs only
// grow, so the new place is often where the old one was: the insert is tried there first.
void KeyedPass::rekey(const View& view, JobId j) {
  PassKey key = key_of_(view, j);
  if (key == keys_[j]) return;
  auto it = order_.find(keys_[j]);
  auto next = std::next(it);
  auto node = order_.extract(it);
  node.value() = key;
  keys_[j] = key;
  order_.insert(next, std::move(node)); // a wrong hint costs a plain insert
}

void KeyedPass::decide(Control& control, Placement placement, bool preempt,
                       const BeforeApply& before_apply) {
  for (JobId j : holders_)
    rekey(control, j); // running jobs' keys moved since the last decision
  pass_.decide(
      control,
      [&](const auto& offer) {
        for (const PassKey& k : order_) {
          if (!offer(std::get<2>(k))) break;
        }
      },
      holders_, preempt);
  if (before_apply) before_apply(control, pass_);
  pass_.apply(control, placement, holders_, preempt);
  // A suspended job stopped where it is now, a started one may now count as a holder.
  for (JobId j : pass_.suspended())
    rekey(control, j);
  for (JobId j : pass_.started())
    rekey(control, j);
}

namespace {

class KeyedPassPolicy final : public Policy {
public:
  KeyedPassPolicy(Placement placement, PassKeyOf key_of)
      : placement_(placement), pass_(std::move(key_of)) {}

  void on_arrival(JobId j, const View& view) override { pass_.arrive(view, j); }
  void on_finish(JobId j, const View&) override { pass_.finish(j); }
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
