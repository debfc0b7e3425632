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

#include "sim/cluster/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <vector>

namespace dlsim {

namespace {

// Whole workers of `req` that fit on a node with `dev` free devices, `cpu` cores and `mem` GB.
std::uint32_t workers_fitting(const JobRequest& req, const RequestDetails& rd, double dev,
                              double cpu, double mem) {
  // A host task asks for no device: its workers are bounded by cores and memory alone.
  std::uint32_t k = std::numeric_limits<std::uint32_t>::max();
  if (req.devices_per_worker > 0) {
    const double whole = std::floor(dev / req.devices_per_worker);
    k = whole > 0 ? static_cast<std::uint32_t>(whole) : 0;
  }
  k = std::min(k, workers_in(cpu, rd.cpus_per_worker));
  return std::min(k, workers_in(mem, rd.mem_gb_per_worker));
}

// The head's reservation: what each node will have free at the shadow time, counted for the
// device type the head will get, and how many of the head's workers that holds.
class Reservation {
public:
  SimTime shadow = kNever;

  // Free resources per node now, for device type t.
  void init(const View& view, JobId head, DeviceTypeId t) {
    head_ = view.request(head);
    head_details_ = view.details(head);
    type_ = t;
    const auto n = view.cluster().nodes.size();
    dev_.assign(n, 0);
    cpu_.assign(n, 0);
    mem_.assign(n, 0);
    fit_.assign(n, 0);
    total_ = 0;
    for (NodeId i = 0; i < n; ++i) {
      dev_[i] = view.free().free_on(i, t);
      cpu_[i] = view.node_cpu_free(i);
      mem_[i] = view.node_mem_free(i);
      refit(i);
    }
  }

  // Adds (sign +1: a job ends) or removes (-1: a job takes them) a job's devices on `devices`.
  void change(const View& view, JobId j, std::span<const DeviceId> devices, double sign) {
    const JobRequest& req = view.request(j);
    const RequestDetails& rd = view.details(j);
    const std::uint32_t dpw = req.devices_per_worker;
    for (std::size_t i = 0; i < devices.size(); i += dpw) {
      NodeId n = view.cluster().devices[devices[i]].node;
      for (std::size_t k = i; k < i + dpw; ++k) {
        if (view.cluster().devices[devices[k]].type == type_) dev_[n] += sign;
      }
      cpu_[n] += sign * rd.cpus_per_worker;
      mem_[n] += sign * rd.mem_gb_per_worker;
      refit(n);
    }
  }

  [[nodiscard]] bool head_fits() const { return total_ >= head_.workers; }

  // Would the head still fit at the shadow time if job j took `devices` until after it?
  bool head_fits_without(const View& view, JobId j, std::span<const DeviceId> devices) {
    change(view, j, devices, -1);
    bool fits = head_fits();
    change(view, j, devices, +1);
    return fits;
  }

private:
  void refit(NodeId n) {
    total_ -= fit_[n];
    fit_[n] = workers_fitting(head_, head_details_, std::max(0.0, dev_[n]), cpu_[n], mem_[n]);
    total_ += fit_[n];
  }

  JobRequest head_;
  RequestDetails head_details_;
  DeviceTypeId type_ = 0;
  std::vector<double> dev_, cpu_, mem_;
  std::vector<std::uint32_t> fit_;
  std::uint64_t total_ = 0;
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
    std::optional<Reservation> res;
    queue_.walk_behind_front([&] { return most_free(control); },
                             [&](JobId j) {
                               auto devices = place(control, j, placement_);
                               if (!devices) return false;
                               if (!res) res = reserve(control, head);
                               SimTime end = new_job_end(control, j);
                               bool delays_head = res->shadow != kNever && end > res->shadow &&
                                                  !res->head_fits_without(control, j, *devices);
                               if (delays_head) return false;
                               start(control, j, *devices);
                               if (res->shadow != kNever && end > res->shadow)
                                 res->change(control, j, *devices, -1);
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
    for (DeviceTypeId t = 0; t < view.cluster().types.size(); ++t)
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
  Reservation reserve(const View& view, JobId head) {
    std::vector<std::pair<SimTime, JobId>> oracle_ends;
    if (oracle_) {
      oracle_ends.reserve(running_.size());
      for (JobId j : running_)
        oracle_ends.emplace_back(oracle_end(view, j), j);
      std::sort(oracle_ends.begin(), oracle_ends.end());
    }

    Reservation best;
    for (DeviceTypeId t : view.compatible_types(head)) {
      Reservation r;
      r.init(view, head, t);
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
          r.change(view, j, view.state(j).devices, +1);
          last = end;
          return true;
        });
        if (r.shadow == kNever && last != kNever && r.head_fits()) r.shadow = last;
      }
      if (r.shadow < best.shadow) best = std::move(r);
    }
    return best;
  }

  Placement placement_;
  bool oracle_;
  BackfillQueue queue_;     // waiting, submission order
  std::set<JobId> running_; // started, not finished (with the oracle)
  EstimatedEnds ends_;      // the same by requested end (without it)
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
