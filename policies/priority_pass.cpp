#include "policies/priority_pass.h"

#include "sim/cluster/fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace dlsim {

namespace {

// Step 1 of a decision: devices of each type, counted once whether busy or not.
class Capacity {
public:
  // Per type from the runtime's counts: a decision must not cost a pass over every device.
  explicit Capacity(const View& view) : left_(view.cluster().types.size()) {
    for (std::size_t t = 0; t < left_.size(); ++t) {
      left_[t] = view.devices_of_type(static_cast<DeviceTypeId>(t));
      total_ += left_[t];
    }
  }

  // Appends what is left to `to`, and sets it back from what save() appended at `at`.
  void save(std::vector<std::uint64_t>& to) const {
    to.push_back(total_);
    to.insert(to.end(), left_.begin(), left_.end());
  }
  void restore(const std::vector<std::uint64_t>& from, std::size_t at) {
    total_ = from[at];
    for (std::size_t t = 0; t < left_.size(); ++t)
      left_[t] = static_cast<std::uint32_t>(from[at + 1 + t]);
  }
  [[nodiscard]] std::size_t saved_size() const { return left_.size() + 1; }

  // Takes the devices of a job of the walk from what is left of its type (a holder's own type,
  // a waiting job's first compatible type that still has them); false when they are not there.
  bool offer(std::span<const DeviceTypeId> types, std::uint32_t need, bool holds,
             DeviceTypeId own) {
    if (holds) return own != kNoDeviceType && take(own, need);
    for (DeviceTypeId t : types) {
      if (take(t, need)) return true;
    }
    return false;
  }
  [[nodiscard]] bool exhausted() const { return total_ == 0; }
  [[nodiscard]] std::uint32_t left(DeviceTypeId t) const { return left_[t]; }
  // Takes `need` devices of type t at once; false, and nothing taken, when they are not there.
  bool take_all(DeviceTypeId t, std::uint64_t need) {
    if (left_[t] < need) return false;
    left_[t] -= static_cast<std::uint32_t>(need);
    total_ -= need;
    return true;
  }

  // The type a holder's devices count against: its own, if the job may use it.
  static DeviceTypeId own_type(DeviceTypeId t, std::span<const DeviceTypeId> compatible) {
    for (DeviceTypeId c : compatible) {
      if (c == t) return t;
    }
    return kNoDeviceType;
  }
  static constexpr DeviceTypeId kNoDeviceType = std::numeric_limits<DeviceTypeId>::max();

private:
  bool take(DeviceTypeId t, std::uint32_t need) {
    if (left_[t] < need) return false;
    left_[t] -= need;
    total_ -= need;
    return true;
  }

  std::vector<std::uint32_t> left_; // by DeviceTypeId
  std::uint64_t total_ = 0;
};

} // namespace

namespace {

// The cluster's one device type with devices, or kNoDeviceType when it has several.
DeviceTypeId only_device_type(const View& view) {
  DeviceTypeId only = Capacity::kNoDeviceType;
  for (std::size_t i = 0; i < view.cluster().types.size(); ++i) {
    const auto t = static_cast<DeviceTypeId>(i);
    if (view.devices_of_type(t) == 0) continue;
    if (only != Capacity::kNoDeviceType) return Capacity::kNoDeviceType;
    only = t;
  }
  return only;
}

} // namespace

JobShape job_shape(const View& view, JobId j) {
  const JobRequest& r = view.request(j);
  const RequestDetails& rd = view.details(j);
  return {r.workers, r.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker, r.device_type,
          r.type_set};
}

bool PriorityPass::plain_holder(const View& view, JobId j) {
  const JobState& st = view.state(j);
  return is_holder(st) && view.request(j).devices() > 0 &&
         Capacity::own_type(st.type, view.compatible_types(j)) != Capacity::kNoDeviceType;
}

void PriorityPass::audit_holders(const View& view, const HolderSet& holders) {
  if (irregular_flag_.size() < view.job_count()) irregular_flag_.resize(view.job_count(), 0);
  auto refresh = [&](JobId j) {
    const char now = holders.count(j) > 0 && !plain_holder(view, j) ? 1 : 0;
    irregular_ = irregular_ + static_cast<std::size_t>(now) - irregular_flag_[j];
    irregular_flag_[j] = now;
  };
  // Every change of a holder's status or devices marks it in the log; a job joins or leaves the
  // holders only with such a change (started, resumed, suspended, finished).
  const ChangeLog& log = view.changes().jobs;
  if (!audited_ || !log.for_each_since(audit_stamp_, refresh)) {
    std::fill(irregular_flag_.begin(), irregular_flag_.end(), 0);
    irregular_ = 0;
    for (JobId h : holders)
      refresh(h);
    audited_ = true;
  }
  audit_stamp_ = log.stamp();
}

void PriorityPass::mark_chosen() {
  chosen_.for_each(marked_, chosen_.picks(), [this](JobId j) { mark_[j] = 1; });
  marked_ = chosen_.picks();
}

void PriorityPass::unmark_from(std::size_t from) {
  if (marked_ <= from) return;
  chosen_.for_each(from, marked_, [this](JobId j) { mark_[j] = 0; });
  marked_ = from;
}

void PriorityPass::list_left_out(const HolderSet& holders, std::span<const JobId> whole,
                                 bool sorted) {
  left_out_.clear();
  left_out_sorted_ = true;
  if (!whole.empty()) {
    chosen_.left_out_of(whole, left_out_);
    if (sorted)
      std::sort(left_out_.begin(), left_out_.end());
    else
      left_out_sorted_ = false;
  } else {
    mark_chosen();
    for (JobId h : holders) {
      if (!mark_[h]) left_out_.push_back(h);
    }
  }
  left_out_listed_ = true;
}

// One decide(): the walk's rounds (step 1) and the placement check after each (step 2), with
// what they share. Its state lives in the pass's members, kept between decisions for their
// memory.
class PriorityPass::Decision {
public:
  Decision(PriorityPass& pass, const View& view, const PriorityWalk& walk, const HolderSet& holders)
      : p_(pass), view_(view), walk_(walk), holders_(holders), capacity_(view) {}

  // The rounds, until one's choice passes the placement check (or the bound on rounds).
  void run(bool preempt, bool holders_kept) {
    p_.unplaceable_.clear();
    probe_ = !preempt && p_.pass_over_unplaceable_;
    p_.audit_holders(view_, holders_);
    // With every holder plain on the cluster's one type, a run the walk hands is one step.
    one_type_ = only_device_type(view_);
    run_type_ = p_.irregular_ == 0 ? one_type_ : Capacity::kNoDeviceType;
    // Each round leaves out at least one more job; one or two rounds are the rule, and the bound
    // only guards the run time (the last round's choice stands, failures and all).
    for (int round = 0;; ++round) {
      walk_round();
      const std::uint32_t first_new = check_placement(preempt, holders_kept);
      if (first_new == kNoStep || round == p_.max_rounds_ - 1) {
        p_.chosen_holders_ = chosen_holders_;
        // apply() suspends the holders left out, in id order, listed while the walk's runs are
        // known.
        if (!p_.left_out_listed_ && !holders_kept && !all_holders_chosen())
          p_.list_left_out(holders_, whole());
        if (p_.left_out_listed_ && !p_.left_out_sorted_) {
          std::sort(p_.left_out_.begin(), p_.left_out_.end());
          p_.left_out_sorted_ = true;
        }
        p_.unmark_from(0);
        return;
      }
      any_failed_ = true;
      back_to(first_new);
    }
  }

private:
  // On one device type: a bound on what step 1 has left of it from the walk's end on, in this
  // round and every later one (WalkItem::max_need). Before the first chosen waiting job every
  // round walks alike, and what is left only shrinks along a walk: what is left now. After it,
  // a later round starts again at a chosen waiting job, with what was left before that job, at
  // most what was left before the first one: first_left_, kept from then on.
  static constexpr std::uint64_t kNoBound = std::numeric_limits<std::uint64_t>::max();
  [[nodiscard]] std::uint64_t walk_bound() const {
    if (one_type_ == Capacity::kNoDeviceType) return kNoBound;
    return first_left_ != kNoBound ? first_left_ : capacity_.left(one_type_);
  }

  // Every holder plain and chosen: none is left out.
  [[nodiscard]] bool all_holders_chosen() const {
    return p_.irregular_ == 0 && chosen_holders_ == holders_.size();
  }
  // The walk's run_whole when it lists every holder and each holder the walk handed was in a
  // run of it that the pass kept as runs; else empty.
  [[nodiscard]] std::span<const JobId> whole() const {
    if (!whole_ok_ || whole_.size() != holders_.size()) return {};
    return whole_;
  }
  // Keeps whole_ and whole_ok_ up to date with the item the walk handed: a holder handed alone,
  // a run outside whole_ or taken job by job (several device types) would be chosen outside
  // the stretches that left_out_of() reads.
  void note_whole(const WalkItem& item) {
    if (item.run.empty() && holders_.count(item.job) > 0) whole_ok_ = false;
    if (item.run_whole.empty()) {
      if (!item.run.empty()) whole_ok_ = false;
      return;
    }
    if (whole_.empty()) whole_ = item.run_whole;
    if (whole_.data() != item.run_whole.data() || whole_.size() != item.run_whole.size())
      whole_ok_ = false;
    if (item.run.empty()) return;
    if (run_type_ == Capacity::kNoDeviceType || item.run.data() < whole_.data() ||
        item.run.data() + item.run.size() > whole_.data() + whole_.size())
      whole_ok_ = false;
  }

  // What step 1 reads of a job besides its devices.
  void resolve(Step& step) const {
    const JobId j = step.job;
    step.holds = is_holder(view_.state(j));
    step.offered = !step.holds || holders_.count(j) > 0;
    const std::span<const DeviceTypeId> types = view_.compatible_types(j);
    step.own_type = step.holds ? Capacity::own_type(view_.state(j).type, types) : DeviceTypeId{0};
    if (!step.holds) step.types = types;
    step.resolved = true;
  }
  void push_job(JobId j) {
    p_.walked_.push_back(
        {j, kNoShape, view_.request(j).devices(), 0, false, false, {}, {}, 0, {}, false});
    // On one device type the rest is read when step 1 may give the job something.
    if (one_type_ == Capacity::kNoDeviceType) resolve(p_.walked_.back());
  }
  // Step i of the walk, asking the walk for more as needed; null past its end.
  const Step* step_at(std::size_t i) {
    while (p_.walked_.size() <= i) {
      WalkItem next;
      next.max_need = walk_bound();
      next.pass = &p_;
      if (walk_over_ || !walk_(next)) {
        walk_over_ = true;
        return nullptr;
      }
      note_whole(next);
      if (next.run.empty()) {
        push_job(next.job);
      } else if (run_type_ != Capacity::kNoDeviceType) {
        p_.walked_.push_back({next.run.front(),
                              kNoShape,
                              0,
                              run_type_,
                              true,
                              true,
                              {},
                              next.run,
                              next.run_devices,
                              next.run_prefix,
                              true});
      } else {
        for (JobId j : next.run)
          push_job(j);
      }
    }
    return &p_.walked_[i];
  }
  // A chosen job, from step i.
  void choose(JobId j, std::size_t i) {
    if (p_.walked_[i].holds)
      ++chosen_holders_;
    else
      p_.chosen_waiting_.emplace_back(static_cast<std::uint32_t>(p_.chosen_.size()),
                                      static_cast<std::uint32_t>(i));
    p_.chosen_.push(j);
  }
  // Shapes by a number of this decision; for each shape that could not be placed, the step of
  // the first waiting job of that shape that failed: it and the waiting jobs of that shape after
  // it are left out.
  std::uint32_t shape_id(JobId j) {
    auto [it, added] = p_.shape_ids_.emplace(job_shape(view_, j),
                                             static_cast<std::uint32_t>(p_.shape_ids_.size()));
    if (added) p_.first_failed_.push_back(kNoStep);
    return it->second;
  }

  // Step 1 from resume_: the walk offers capacity to each job in turn until none is left.
  void walk_round() {
    for (std::size_t i = resume_;; ++i) {
      const Step* step = step_at(i);
      if (step == nullptr) break;
      if (!step->resolved) {
        // It asks for more than its type has left: step 1 gives it nothing, waiting or holding,
        // and the jobs of its shape after it in this round ask as much (what is left only
        // shrinks), so the shape's exclusion below would change nothing either.
        if (step->need > capacity_.left(one_type_)) continue;
        resolve(p_.walked_[i]);
      }
      if (!step->holds && any_failed_ && left_out(i)) continue;
      if (!step->holds && probe_ && unplaceable(i)) continue;
      if (!step->run.empty()) {
        offer_run(*step);
      } else if (step->offered) {
        offer_job(*step, i);
      }
      if (capacity_.exhausted()) break;
    }
  }
  // Without preemption, a waiting job at step i of a shape that the free state (with the
  // releasing jobs' devices) cannot hold: it would fail the placement check in every round
  // (the model only loses room from there), so step 1 gives it nothing. One check per shape
  // and decision.
  bool unplaceable(std::size_t i) {
    std::uint32_t& shape = p_.walked_[i].shape;
    if (shape == kNoShape) shape = shape_id(p_.walked_[i].job);
    if (p_.unplaceable_.size() <= shape) p_.unplaceable_.resize(shape + 1, kUnknown);
    if (p_.unplaceable_[shape] == kUnknown) {
      const JobId j = p_.walked_[i].job;
      bool fits = is_host_task(view_.request(j));
      if (!fits) {
        p_.probe_.reset(view_);
        for (JobId r : p_.releasing_)
          p_.probe_.release(r);
        fits = p_.probe_.take(j);
      }
      p_.unplaceable_[shape] = fits ? kFits : kNever;
    }
    return p_.unplaceable_[shape] == kNever;
  }
  // A waiting job at step i whose shape failed at or before it in an earlier round.
  bool left_out(std::size_t i) {
    std::uint32_t& shape = p_.walked_[i].shape;
    if (shape == kNoShape) shape = shape_id(p_.walked_[i].job);
    if (p_.first_failed_[shape] != kNoStep &&
        (p_.first_failed_[shape] == i || p_.excluded_[shape])) {
      p_.excluded_[shape] = 1;
      return true;
    }
    return false;
  }
  // Plain holders, one after another: all kept when their type has their devices left.
  void offer_run(const Step& step) {
    if (capacity_.take_all(step.own_type, step.run_devices)) {
      choose_holders(step.run);
      return;
    }
    const std::span<const std::uint64_t> prefix = step.run_prefix;
    if (prefix.empty()) {
      for (std::size_t k = 0; k < step.run.size(); ++k) {
        if (capacity_.offer({}, view_.request(step.run[k]).devices(), true, step.own_type))
          choose_holders(step.run.subspan(k, 1));
        if (capacity_.exhausted()) break;
      }
      return;
    }
    // Offering the jobs one by one takes each that fits what is left: the longest stretch from
    // k whose devices fit together is taken job by job, and the job after it does not fit.
    std::size_t k = 0;
    while (k < step.run.size() && !capacity_.exhausted()) {
      const std::uint64_t left = capacity_.left(step.own_type);
      // The jobs that ask for more than is left are passed over one by one.
      if (prefix[k + 1] - prefix[k] > left) {
        ++k;
        continue;
      }
      const auto end = static_cast<std::size_t>(
          std::upper_bound(prefix.begin() + static_cast<std::ptrdiff_t>(k) + 1, prefix.end(),
                           prefix[k] + left) -
          prefix.begin() - 1);
      capacity_.take_all(step.own_type, prefix[end] - prefix[k]); // end > k: job k fits
      choose_holders(step.run.subspan(k, end - k));
      k = end + 1; // job `end` (if any) asks for more than is left: not chosen
    }
  }
  // Plain holders of a run, all chosen.
  void choose_holders(std::span<const JobId> run) {
    chosen_holders_ += run.size();
    p_.chosen_.push_run(run);
  }
  // One job; before a waiting one, the choice and capacity are saved (back_to()).
  void offer_job(const Step& step, std::size_t i) {
    if (!step.holds) {
      p_.saved_.push_back({static_cast<std::uint32_t>(i),
                           static_cast<std::uint32_t>(p_.chosen_.size()),
                           static_cast<std::uint32_t>(p_.chosen_.picks())});
      capacity_.save(p_.saved_capacity_);
    }
    const std::uint64_t left = walk_bound();
    if (capacity_.offer(step.types, step.need, step.holds, step.own_type)) {
      if (!step.holds && first_left_ == kNoBound) first_left_ = left;
      choose(step.job, i);
    } else if (!step.holds) {
      p_.saved_.pop_back();
      p_.saved_capacity_.resize(p_.saved_capacity_.size() - capacity_.saved_size());
    }
  }

  // Step 2: the chosen waiting jobs placed in turn with the holders left out released; the
  // first step newly left out (its shape failed), or kNoStep.
  std::uint32_t check_placement(bool preempt, bool holders_kept) {
    // The first round starts the model; a later one undoes the last one's takes and changes
    // the holders released by what differs (FreeModel keeps the values a fresh model would).
    FreeModel& model = p_.model_;
    if (!model_started_) {
      model.reset(view_);
      for (JobId j : p_.releasing_)
        model.release(j);
      model_started_ = true;
    } else {
      model.rollback();
    }
    p_.model_released_.clear();
    if (preempt && !holders_kept && !all_holders_chosen()) {
      p_.list_left_out(holders_, whole(), false);
      for (JobId h : p_.left_out_) {
        // A holder paying an action (a resize) cannot be suspended: apply() leaves it, so its
        // devices are not counted free.
        if (is_holder(view_.state(h))) p_.model_released_.push_back(h);
      }
    }
    model.release_set(p_.model_released_);
    model.begin_trial();
    p_.failed_.assign(p_.first_failed_.size(), 0);
    std::uint32_t first_new = kNoStep;
    for (const auto& [k, i] : p_.chosen_waiting_) {
      const JobId j = p_.walked_[i].job;
      // A host task takes no device: apply() starts it when View::host_fit finds nodes.
      if (is_host_task(view_.request(j))) continue;
      // Its checkpoint frees them (counted above if this pass suspended it).
      if (view_.state(j).status == JobStatus::kSuspending && !p_.releasing_now_[j])
        model.release(j);
      std::uint32_t& shape = p_.walked_[i].shape;
      if (first_new != kNoStep) {
        if (shape == kNoShape) shape = shape_id(j);
        if (shape < p_.failed_.size() && p_.failed_[shape]) continue; // left out next round
      }
      if (!model.take(j)) {
        if (shape == kNoShape) shape = shape_id(j);
        if (p_.failed_.size() <= shape) p_.failed_.resize(shape + 1, 0);
        p_.failed_[shape] = 1;
        p_.first_failed_[shape] = i;
        first_new = std::min(first_new, i);
      }
    }
    return first_new;
  }

  // Back to the capacity and choice before the first job newly left out; the shapes whose
  // first failed job comes before it are already left out there.
  void back_to(std::uint32_t first_new) {
    auto& saved = p_.saved_;
    auto& saved_capacity = p_.saved_capacity_;
    while (saved.back().step > first_new) {
      saved.pop_back();
      saved_capacity.resize(saved_capacity.size() - capacity_.saved_size());
    }
    resume_ = first_new;
    const std::uint32_t keep = saved.back().chosen;
    p_.unmark_from(saved.back().picks);
    p_.left_out_listed_ = false;
    std::size_t waiting_dropped = 0;
    while (!p_.chosen_waiting_.empty() && p_.chosen_waiting_.back().first >= keep) {
      p_.chosen_waiting_.pop_back();
      ++waiting_dropped;
    }
    chosen_holders_ -= p_.chosen_.size() - keep - waiting_dropped;
    p_.chosen_.truncate(saved.back().picks);
    capacity_.restore(saved_capacity, saved_capacity.size() - capacity_.saved_size());
    saved.pop_back();
    saved_capacity.resize(saved_capacity.size() - capacity_.saved_size());
    p_.excluded_.assign(p_.first_failed_.size(), 0);
    for (std::size_t shape = 0; shape < p_.first_failed_.size(); ++shape)
      p_.excluded_[shape] = p_.first_failed_[shape] < first_new ? 1 : 0;
  }

  PriorityPass& p_;
  const View& view_;
  const PriorityWalk& walk_;
  const HolderSet& holders_;
  Capacity capacity_;
  DeviceTypeId one_type_ = Capacity::kNoDeviceType;
  DeviceTypeId run_type_ = Capacity::kNoDeviceType;
  std::uint64_t first_left_ = kNoBound;
  bool walk_over_ = false;
  std::size_t chosen_holders_ = 0; // of chosen_, the ones that hold devices
  std::span<const JobId> whole_;   // the walk's run_whole (note_whole)
  bool whole_ok_ = true;           // whole_ is the only run_whole and every run lies in it
  std::size_t resume_ = 0;         // the step the next round starts at
  bool any_failed_ = false;        // a shape failed placement in an earlier round
  bool model_started_ = false;     // the placement check's model was reset for this decision
  bool probe_ = false;             // no preemption: unplaceable shapes are passed over
};

void PriorityPass::decide(const View& view, const PriorityWalk& walk, const HolderSet& holders,
                          bool preempt, bool holders_kept) {
  preferred_.clear();
  holders_kept_ = holders_kept;
  if (releasing_now_.size() < view.job_count()) releasing_now_.resize(view.job_count(), 0);
  std::erase_if(releasing_, [&](JobId j) {
    const bool still = view.state(j).status == JobStatus::kSuspending;
    releasing_now_[j] = still ? 1 : 0;
    return !still;
  });
  // The jobs the walk offered, in its order, with what each round reads of them: a round after
  // the first replays them and asks the walk only for the jobs past the last one it offered.
  // The flags of chosen_ were cleared by the end of the last decision.
  if (mark_.size() < view.job_count()) mark_.resize(view.job_count(), 0);
  left_out_listed_ = false;
  left_out_.clear();
  walked_.clear();
  // A round after the first walks as the last one did up to the first job that is newly left
  // out (the first that failed placement, of a shape that failed): it starts there, from what
  // the last round had chosen and left of the capacity before that job. Those are saved before
  // each waiting job the walk offers capacity to: (step, jobs chosen before it), and the
  // capacity left in saved_capacity_.
  shape_ids_.clear();
  first_failed_.clear();
  chosen_.clear();
  chosen_waiting_.clear();
  saved_.clear();
  saved_capacity_.clear();
  Decision(*this, view, walk, holders).run(preempt, holders_kept);
}

void PriorityPass::apply(Control& control, Placement placement, HolderSet& holders,
                         bool preempt_others) {
  suspended_.clear();
  started_.clear();
  if (preempt_others && !holders_kept_ && !(irregular_ == 0 && chosen_holders_ == holders.size())) {
    // A host task frees no device: suspending it would make room for nothing the pass counts
    // (docs/runtime.md#host-tasks).
    // A holder still paying an action (resizing) cannot be suspended: the runtime refuses it
    // (docs/runtime.md#actions); it is decided again once the action is done.
    // The holders decide() was given (the same set) that it left out, in id order.
    for (JobId j : left_out_) {
      if (!is_host_task(control.request(j)) && is_holder(control.state(j))) suspended_.push_back(j);
    }
  }
  // The reason names the first chosen job that holds nothing yet: the highest-priority one
  // that the preemption makes room for.
  std::string reason = "outranked";
  // (The stretches of runs are holders: only the single jobs are read.)
  if (!suspended_.empty()) {
    chosen_.find_single([&](JobId j) {
      if (holders.count(j) > 0) return false;
      reason = fmt::format("outranked by job '{}'", control.job_name(j));
      return true;
    });
  }
  for (JobId j : suspended_) {
    control.suspend(j, reason);
    holders.erase(j);
    releasing_.push_back(j);
  }
  // The chosen jobs that held no devices at decide(), best first (the others run already).
  // Once one of them cannot be placed while suspended jobs still release devices, the later
  // ones wait with it for the release (the policy is called again when it completes): started
  // now, they could take the free devices its placement check counted on, and it would preempt
  // them again at the next decision, for ever.
  bool wait_for_release = false;
  for (const auto& [i, step] : chosen_waiting_) {
    const JobId j = walked_[step].job;
    JobStatus s = control.state(j).status;
    if (s != JobStatus::kPending && s != JobStatus::kSuspended) continue;
    if (wait_for_release) break;
    std::optional<std::vector<DeviceId>> devices;
    if (i < preferred_.size() && preferred_[i] >= 0)
      devices = place_on_type(control, j, placement, control.request(j).workers,
                              static_cast<DeviceTypeId>(preferred_[i]));
    if (!devices) devices = place(control, j, placement);
    if (!devices) {
      // Devices still being released: next decision.
      wait_for_release = std::any_of(releasing_.begin(), releasing_.end(), [&](JobId r) {
        return control.state(r).status == JobStatus::kSuspending;
      });
      continue;
    }
    if (s == JobStatus::kPending)
      control.start(j, *devices);
    else
      control.resume(j, *devices);
    holders.insert(j);
    started_.push_back(j);
  }
}

std::uint32_t single_type_devices(const View& view) {
  std::uint32_t devices = 0;
  for (std::size_t i = 0; i < view.cluster().types.size(); ++i) {
    const auto t = static_cast<DeviceTypeId>(i);
    if (view.devices_of_type(t) == 0) continue;
    if (devices > 0) return 0;
    devices = view.devices_of_type(t);
  }
  return devices;
}

bool is_holder(const JobState& s) {
  return s.status == JobStatus::kRunning || s.status == JobStatus::kStarting;
}

} // namespace dlsim
