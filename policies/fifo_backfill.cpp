// FIFO with EASY backfilling (Lifka, "The ANL/IBM SP Scheduling System", JSSPP 1995; as analysed
// by Mu'alem and Feitelson, IEEE TPDS 12(6), 2001): jobs start in submission order; when the
// first waiting job (the head) does not fit, it gets a reservation at the earliest time enough
// devices free up by the running jobs' estimated ends (the shadow time), and a later job may
// start now if it does not delay that reservation: it is estimated to end by the shadow time, or
// it leaves the head enough devices at the shadow time. Estimates are the requested run times
// (`requested_s` in the trace) or, with `oracle: true`, the true ones. A job without an estimate
// is taken to run forever, as a job without a time limit is by a batch scheduler: if the head's
// start cannot be estimated, it has no reservation and any job that fits may start.
#include "policies/fifo_backfill.h"

#include "policies/backfill_queue.h"
#include "policies/estimated_ends.h"
#include "policies/free_nodes.h"

#include "sim/runtime/plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <vector>

namespace dlsim {

namespace {

// The head's reservation: a plan of what the cluster will have free at the shadow time (the
// running jobs that end by then released), and how many of the head's workers that holds on
// nodes of the device type it will get, kept up to date node by node as the plan changes.
class Reservation {
public:
  SimTime shadow = kNever;

  // Free resources now, for device type t.
  void init(const View& view, JobId head, DeviceTypeId t) {
    shadow = kNever;
    plan_.reset(view);
    head_ = head;
    type_ = t;
    total_ = 0;
    const std::uint32_t dpw = view.request(head).devices_per_worker;
    if (dpw == 0) { // a host task: every node may hold some
      for (NodeId n = 0; n < view.cluster().nodes.size(); ++n)
        total_ += fit(n);
      return;
    }
    // On any other node no worker fits.
    for_nodes_with_at_least(view.free(), t, dpw, [&](NodeId n) {
      total_ += fit(n);
      return true;
    });
  }

  // Job j (running) will have ended: what it holds comes back.
  void ends(const View& view, JobId j) {
    nodes_of(view, j, view.state(j).devices);
    recount([&] { plan_.release(j); });
  }

  [[nodiscard]] bool head_fits() const { return total_ >= plan_.view().request(head_).workers; }

  // Would the head still fit at the shadow time if job j took `devices` until after it?
  bool head_fits_without(const View& view, JobId j, std::span<const DeviceId> devices) {
    const Plan::Mark before = plan_.mark();
    const std::uint64_t total = total_;
    nodes_of(view, j, devices);
    std::vector<NodeId> hosts; // a host task's, where it would start now
    if (devices.empty()) {
      if (auto at = view.host_fit(j)) hosts = std::move(*at);
    }
    recount([&] { plan_.reserve(j, devices, hosts); });
    const bool fits = head_fits();
    plan_.rollback(before);
    total_ = total;
    return fits;
  }

  // Job j is about to start on `devices`; then it holds them at the shadow time unless it ends
  // by then. The plan follows the runtime's state, so the nodes it takes are counted again after
  // the start, and a job that ends by the shadow time gives them back in the plan.
  void before_start(const View& view, JobId j, std::span<const DeviceId> devices) {
    nodes_of(view, j, devices);
    fit_before_.clear();
    for (NodeId n : nodes_)
      fit_before_.push_back(fit(n));
  }
  void after_start(JobId j, bool ends_by_shadow) {
    for (std::uint32_t k : fit_before_)
      total_ -= k;
    if (ends_by_shadow) plan_.release(j);
    for (NodeId n : nodes_)
      total_ += fit(n);
  }

private:
  [[nodiscard]] std::uint32_t fit(NodeId n) const { return plan_.workers_fit(head_, n, type_); }

  // The nodes a job on `devices` holds something on, each once, into nodes_: its workers', its
  // servers' and a host task's (where it runs, or will if it starts now).
  void nodes_of(const View& view, JobId j, std::span<const DeviceId> devices) {
    nodes_.clear();
    for (DeviceId d : devices)
      nodes_.push_back(view.cluster().devices[d].node);
    const std::span<const NodeId> hosts = view.hosts(j);
    nodes_.insert(nodes_.end(), hosts.begin(), hosts.end());
    // A host task about to start goes to View::host_fit's nodes (Control::start).
    if (devices.empty() && hosts.empty()) {
      if (auto at = view.host_fit(j)) nodes_.insert(nodes_.end(), at->begin(), at->end());
    }
    const std::span<const NodeId> ps = view.ps_hosts(j);
    nodes_.insert(nodes_.end(), ps.begin(), ps.end());
    std::sort(nodes_.begin(), nodes_.end());
    nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  }
  // Applies a change to the plan that touches only nodes_, keeping total_ the sum of fit().
  template <class Change>
  void recount(Change&& change) {
    for (NodeId n : nodes_)
      total_ -= fit(n);
    change();
    for (NodeId n : nodes_)
      total_ += fit(n);
  }

  Plan plan_;
  JobId head_ = 0;
  DeviceTypeId type_ = 0;
  std::uint64_t total_ = 0;
  std::vector<NodeId> nodes_;             // scratch: nodes_of()
  std::vector<std::uint32_t> fit_before_; // fit() of nodes_ before a start
};

class FifoBackfill final : public Policy {
public:
  FifoBackfill(Placement placement, bool oracle) : placement_(placement), oracle_(oracle) {}

  void on_arrival(JobId j, const View& view) override { queue_.push(j, need_of(view, j)); }
  void on_finish(JobId j, const View&) override { stop(j); }
  // A failed job holds nothing (no end to reserve around) and waits again at the queue's back.
  void on_failure(JobId j, const View& view) override {
    stop(j);
    queue_.push(j, need_of(view, j));
  }

  void schedule(Control& control) override {
    // Strict FIFO while jobs fit.
    while (!queue_.empty()) {
      auto devices = place(control, queue_.front(), placement_);
      if (!devices) break;
      start(control, queue_.front(), *devices);
      queue_.pop_front();
    }
    if (queue_.size() < 2) return;

    // Backfill behind the head. The reservation is computed only once a job that fits is found
    // (a full cluster, the usual case under load, costs no more than FIFO). A job that asks for
    // more devices than any type has free cannot be placed (place's fast refusal): the walk
    // steps over those unseen (BackfillQueue).
    const JobId head = queue_.front();
    Reservation* res = nullptr;
    queue_.walk_behind_front([&] { return most_free(control); },
                             [&](JobId j) {
                               auto devices = place(control, j, placement_);
                               if (!devices) return false;
                               if (!res) res = &reserve(control, head);
                               SimTime end = new_job_end(control, j);
                               const bool held = res->shadow != kNever;
                               const bool after_shadow = held && end > res->shadow;
                               if (after_shadow && !res->head_fits_without(control, j, *devices))
                                 return false;
                               if (held) res->before_start(control, j, *devices);
                               start(control, j, *devices);
                               if (held) res->after_start(j, !after_shadow);
                               return true;
                             });
  }

private:
  // Devices place() would look for: none for a host task.
  static std::uint32_t need_of(const View& view, JobId j) {
    const JobRequest& r = view.request(j);
    return is_host_task(r) ? 0 : r.workers * r.devices_per_worker;
  }
  // The free devices of the type that has most.
  static std::uint32_t most_free(const View& view) {
    std::uint32_t most = 0;
    for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(view.cluster().types.size()); ++t)
      most = std::max(most, view.free().free(t));
    return most;
  }

  void start(Control& control, JobId j, const std::vector<DeviceId>& devices) {
    control.start(j, devices);
    if (oracle_) {
      running_.insert(j);
    } else {
      ends_.insert(j, requested_end(control, j));
    }
  }
  void stop(JobId j) {
    running_.erase(j);
    ends_.erase(j);
  }

  // Estimated run time in seconds, or a negative number when there is none.
  [[nodiscard]] double estimate_s(const View& view, JobId j, bool remaining) const {
    if (oracle_) return remaining ? view.oracle_remaining_s(j) : view.oracle_total_s(j);
    double r = view.details(j).requested_time_s;
    return r > 0 ? r : -1;
  }

  [[nodiscard]] SimTime new_job_end(const View& view, JobId j) const {
    double est = estimate_s(view, j, false);
    if (est < 0) return kNever;
    return view.now() + from_seconds_ceil(view.config().costs.start_s + est);
  }

  // A running job's end from its requested time: start + start cost + request (fixed once it has
  // started; a job past it is expected to end at any moment, EstimatedEnds::walk).
  [[nodiscard]] SimTime requested_end(const View& view, JobId j) const {
    double est = estimate_s(view, j, false);
    if (est < 0) return kNever;
    return view.state(j).first_start + from_seconds_ceil(view.config().costs.start_s + est);
  }

  // With the oracle: now + start cost still to pay + true remaining time (it moves with the
  // job's rate, so it is computed afresh at each reservation).
  [[nodiscard]] SimTime oracle_end(const View& view, JobId j) const {
    const JobState& st = view.state(j);
    const double start_s = st.status == JobStatus::kStarting ? view.config().costs.start_s : 0;
    double est = estimate_s(view, j, true);
    if (est < 0) return kNever;
    return view.now() + from_seconds_ceil(start_s + est);
  }

  // Calls visit(end, job) for the running jobs with an estimated end, in order of (end, job),
  // until it returns false.
  template <class Visit>
  void for_each_end(const View& view, const std::vector<std::pair<SimTime, JobId>>& oracle_ends,
                    Visit&& visit) {
    if (!oracle_) {
      ends_.walk(view.now(), visit);
      return;
    }
    for (const auto& [end, j] : oracle_ends) {
      if (end == kNever || !visit(end, j)) return;
    }
  }

  // The head's shadow time: release the running jobs' devices in order of estimated end until
  // the head fits, for each device type it may use; the earliest wins.
  // The reservations are kept from one decision to the next, so that each costs what its plan
  // changes (Plan::reset).
  Reservation& reserve(const View& view, JobId head) {
    std::vector<std::pair<SimTime, JobId>> oracle_ends;
    if (oracle_) {
      oracle_ends.reserve(running_.size());
      for (JobId j : running_)
        oracle_ends.emplace_back(oracle_end(view, j), j);
      std::sort(oracle_ends.begin(), oracle_ends.end());
    }

    const std::span<const DeviceTypeId> types = view.compatible_types(head);
    if (tries_.size() < types.size()) tries_.resize(types.size());
    Reservation* best = &none_;
    for (std::size_t i = 0; i < types.size(); ++i) {
      Reservation& r = tries_[i];
      r.init(view, head, types[i]);
      if (r.head_fits()) {
        r.shadow = view.now();
      } else {
        // Jobs ending at the same time free their devices together: the head is tried once
        // every job of an end has released its devices.
        SimTime last = kNever;
        for_each_end(view, oracle_ends, [&](SimTime end, JobId j) {
          if (end != last && last != kNever && r.head_fits()) {
            r.shadow = last;
            return false;
          }
          r.ends(view, j);
          last = end;
          return true;
        });
        if (r.shadow == kNever && last != kNever && r.head_fits()) r.shadow = last;
      }
      if (r.shadow < best->shadow) best = &r;
    }
    return *best;
  }

  Placement placement_;
  bool oracle_;
  BackfillQueue queue_;            // waiting, submission order
  std::set<JobId> running_;        // started, not finished (with the oracle)
  EstimatedEnds ends_;             // the same by requested end (without it)
  std::vector<Reservation> tries_; // one per compatible type of the head, by position
  Reservation none_;               // no reservation: shadow kNever
};

} // namespace

// An oracle only with `oracle: true` (uses_oracle); with the default it reads only the trace's
// requested times.
PolicyEntry fifo_backfill_policy() {
  PolicyEntry entry{
      "fifo-backfill",
      "FIFO with EASY backfilling: a later job starts early when it does not delay the head's "
      "reservation (estimates: requested times, or true ones with oracle: true)",
      true,
      {{"oracle", ParamType::kFlag, "false",
        "estimate run times from the true durations instead of the trace's requested_s"}},
      [](const PolicySetup& s) {
        return std::make_unique<FifoBackfill>(s.placement, s.params.flag("oracle"));
      }};
  // A failed job leaves the running set and rejoins the queue (on_failure); the reservation
  // counts free devices, which never include a failed one.
  entry.handles_failures = true;
  return entry;
}

} // namespace dlsim
