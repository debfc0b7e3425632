#include "policies/keyed_pass.h"

#include <algorithm>

namespace dlsim {

void KeyedPass::arrive(const View& view, JobId j) {
  if (keys_.size() < view.job_count()) {
    keys_.resize(view.job_count());
    devices_.resize(view.job_count(), 0);
    class_.resize(view.job_count(), 0);
  }
  // A host task holds no device for the pass to weigh: it starts on View::host_fit's nodes when
  // they have room and is never preempted (docs/runtime.md#host-tasks).
  if (is_host_task(view.request(j))) {
    host_waiting_.push_back(j);
    return;
  }
  keys_[j] = key_of_(view, j);
  devices_[j] = view.request(j).devices();
  class_[j] = waiting_.number_of(job_shape(view, j));
  waiting_.insert(keys_[j], class_[j]);
  demand_ += devices_[j];
}

void KeyedPass::finish(const View& view, JobId j) {
  if (is_host_task(view.request(j))) return;
  if (holders_.erase(j) > 0) {
    held_.remove(j);
  } else {
    waiting_.erase(keys_[j], class_[j]);
  }
  demand_ -= view.request(j).devices();
}

std::span<const JobId>::iterator KeyedPass::first_not_below(std::span<const JobId>::iterator from,
                                                            std::span<const JobId>::iterator last,
                                                            const PassKey& w) {
  // The runs are mostly short: double the step from `from` until a holder is not below w, then
  // search the last step (O(log run) keys read instead of O(log holders)).
  auto below = [&](JobId h) { return held_.key_below(h, w); };
  const auto n = last - from;
  std::ptrdiff_t lo = 0;
  std::ptrdiff_t step = 1;
  while (step <= n && below(from[step - 1])) {
    lo = step;
    step *= 2;
  }
  return std::partition_point(from + lo, from + std::min(step, n), below);
}

void KeyedPass::sort_holders(const View& view) {
  // The holders the runtime changed since (started, rate changed, ...) move in a new way.
  const ChangeLog& log = view.changes().jobs;
  if (!log.for_each_since(stamp_, [&](JobId j) { held_.changed(j); })) held_.changed_all();
  stamp_ = log.stamp();
  held_.refresh(
      view.now(), [&](JobId j) { return key_of_(view, j); },
      [&](JobId j) { return motion_of_(view, j); });
}

void KeyedPass::decide(Control& control, Placement placement, bool preempt,
                       const BeforeApply& before_apply) {
  start_host_tasks(control, host_waiting_);
  // Nobody waits: the pass would keep every holder and start nothing.
  if (!someone_waits()) return;
  // Every job fits the one device type together: the pass keeps every holder, and only the
  // waiting jobs' order matters (PriorityPass::decide, holders_kept).
  const bool holders_kept = !before_apply && demand_ < single_type_devices(control);
  if (!holders_kept) sort_holders(control); // running jobs' keys moved since the last decision
  // The jobs by increasing key: the holders and the waiting jobs merged (only the waiting ones
  // with holders_kept).
  const std::span<const JobId> held = held_.jobs();
  auto next_held = holders_kept ? held.end() : held.begin();
  auto next_waiting = waiting_.begin();
  auto class_of = [&](const PassKey& k) { return class_[std::get<2>(k)]; };
  pass_.decide(
      control,
      [&](WalkItem& next) {
        // The waiting jobs that no round of the decision can give anything are passed over.
        next_waiting = waiting_.first_within(next_waiting, class_of, [&](const JobShape& s) {
          return PriorityPass::passes_over(next, s);
        });
        const bool any_held = next_held != held.end();
        if (next_waiting != waiting_.end() &&
            (!any_held || !held_.key_below(*next_held, *next_waiting))) {
          next.job = std::get<2>(*next_waiting++);
          return true;
        }
        if (!any_held) return false;
        // The holders before the next waiting job, together.
        const auto end = next_waiting == waiting_.end()
                             ? held.end()
                             : first_not_below(next_held, held.end(), *next_waiting);
        next.run = {next_held, end};
        next.run_whole = held; // every holder in the walk's order: the runs are stretches of it
        const auto from = static_cast<std::size_t>(next_held - held.begin());
        const auto to = static_cast<std::size_t>(end - held.begin());
        const std::span<const std::uint64_t> prefix = held_.prefix();
        next.run_devices = prefix[to] - prefix[from];
        next.run_prefix = prefix.subspan(from, to - from + 1);
        next_held = end;
        return true;
      },
      holders_, preempt, holders_kept);
  if (before_apply) before_apply(control, pass_);
  pass_.apply(control, placement, holders_, preempt);
  // A suspended job stopped where it is now and waits with that key; a started one holds, and
  // joins held_ at the next decision that sorts the holders.
  for (JobId j : pass_.suspended()) {
    held_.remove(j);
    keys_[j] = key_of_(control, j);
    waiting_.insert(keys_[j], class_[j]);
  }
  for (JobId j : pass_.started()) {
    waiting_.erase(keys_[j], class_[j]);
    held_.add(j, devices_[j]);
  }
}

namespace {

class KeyedPassPolicy final : public Policy {
public:
  KeyedPassPolicy(Placement placement, PassKeyOf key_of, KeyMotionOf motion_of)
      : placement_(placement), pass_(std::move(key_of), std::move(motion_of)) {}

  void on_arrival(JobId j, const View& view) override { pass_.arrive(view, j); }
  void on_finish(JobId j, const View& view) override { pass_.finish(view, j); }
  void schedule(Control& control) override { pass_.decide(control, placement_); }

private:
  Placement placement_;
  KeyedPass pass_;
};

} // namespace

std::unique_ptr<Policy> make_keyed_pass_policy(Placement placement, PassKeyOf key_of,
                                               KeyMotionOf motion_of) {
  return std::make_unique<KeyedPassPolicy>(placement, std::move(key_of), std::move(motion_of));
}

} // namespace dlsim
