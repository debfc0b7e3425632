#include "policies/keyed_pass.h"

#include <algorithm>

namespace dlsim {

void KeyedPass::arrive(const View& view, JobId j) {
  if (keys_.size() < view.job_count()) {
    keys_.resize(view.job_count());
    devices_.resize(view.job_count(), 0);
    holding_.resize(view.job_count(), 0);
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

void KeyedPass::sum_held_devices() {
  held_devices_.resize(held_.size() + 1);
  held_devices_[0] = 0;
  for (std::size_t i = 0; i < held_.size(); ++i)
    held_devices_[i + 1] = held_devices_[i] + devices_[held_[i]];
}

void KeyedPass::finish(const View& view, JobId j) {
  if (is_host_task(view.request(j))) return;
  if (holders_.erase(j) > 0) {
    holding_[j] = 0; // leaves held_ at the next decision that walks it
    ++stale_;
  } else {
    waiting_.erase(keys_[j], class_[j]);
  }
  demand_ -= view.request(j).devices();
}

void KeyedPass::drop_stale() {
  if (stale_ == 0) return;
  std::erase_if(held_, [&](JobId j) { return !holding_[j]; });
  stale_ = 0;
}

void KeyedPass::rekey_holders(const View& view) {
  drop_stale();
  for (JobId j : held_)
    keys_[j] = key_of_(view, j);
  // Keys are unique: any sort gives the one order. Many jobs started since the last sort (they
  // were appended): a full sort; else insertion sort, as the order of the last decision is
  // mostly kept.
  if (started_since_sort_ > kInsertionSortUpTo) {
    std::sort(held_.begin(), held_.end(), [&](JobId a, JobId b) { return before(a, b); });
    started_since_sort_ = 0;
    sum_held_devices();
    return;
  }
  started_since_sort_ = 0;
  for (std::size_t i = 1; i < held_.size(); ++i) {
    const JobId j = held_[i];
    std::size_t k = i;
    for (; k > 0 && before(j, held_[k - 1]); --k)
      held_[k] = held_[k - 1];
    held_[k] = j;
  }
  sum_held_devices();
}

void KeyedPass::decide(Control& control, Placement placement, bool preempt,
                       const BeforeApply& before_apply) {
  start_host_tasks(control, host_waiting_);
  // Nobody waits: the pass would keep every holder and start nothing.
  if (!someone_waits()) return;
  // Every job fits the one device type together: the pass keeps every holder, and only the
  // waiting jobs' order matters (PriorityPass::decide, holders_kept).
  const bool holders_kept = !before_apply && demand_ < single_type_devices(control);
  if (!holders_kept)
    rekey_holders(control); // running jobs' keys moved since the last decision
  else if (stale_ > held_.size() / 2)
    drop_stale(); // finished holders: bounded memory
  // The jobs by increasing key: the holders and the waiting jobs merged (only the waiting ones
  // with holders_kept).
  auto next_held = holders_kept ? held_.end() : held_.begin();
  auto next_waiting = waiting_.begin();
  auto class_of = [&](const PassKey& k) { return class_[std::get<2>(k)]; };
  pass_.decide(
      control,
      [&](WalkItem& next) {
        // The waiting jobs that no round of the decision can give anything are passed over.
        next_waiting = waiting_.first_within(next_waiting, class_of, [&](const JobShape& s) {
          return PriorityPass::passes_over(next, s);
        });
        const bool any_held = next_held != held_.end();
        if (next_waiting != waiting_.end() && (!any_held || *next_waiting < keys_[*next_held])) {
          next.job = std::get<2>(*next_waiting++);
          return true;
        }
        if (!any_held) return false;
        // The holders before the next waiting job, together.
        const auto end = next_waiting == waiting_.end()
                             ? held_.end()
                             : std::partition_point(next_held, held_.end(), [&](JobId h) {
                                 return keys_[h] < *next_waiting;
                               });
        next.run = {next_held, end};
        const auto from = static_cast<std::size_t>(next_held - held_.begin());
        const auto to = static_cast<std::size_t>(end - held_.begin());
        next.run_devices = held_devices_[to] - held_devices_[from];
        next.run_prefix =
            std::span<const std::uint64_t>(held_devices_).subspan(from, to - from + 1);
        next_held = end;
        return true;
      },
      holders_, preempt, holders_kept);
  if (before_apply) before_apply(control, pass_);
  pass_.apply(control, placement, holders_, preempt);
  // A suspended job stopped where it is now and waits with that key; a started one holds, and
  // its key moves with it until the next decision that walks the holders sorts them again.
  if (!pass_.suspended().empty()) {
    for (JobId j : pass_.suspended()) {
      holding_[j] = 0;
      keys_[j] = key_of_(control, j);
      waiting_.insert(keys_[j], class_[j]);
    }
    // Out of held_ now: a job resumed later must not be there twice.
    stale_ += pass_.suspended().size();
    drop_stale();
  }
  for (JobId j : pass_.started()) {
    waiting_.erase(keys_[j], class_[j]);
    keys_[j] = key_of_(control, j);
    holding_[j] = 1;
    held_.push_back(j);
    ++started_since_sort_;
  }
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
