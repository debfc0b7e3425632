// FIFO: jobs start in submission order; a job that does not fit blocks every job behind it
// (head-of-line blocking), as in the baseline of Tiresias (Gu et al., NSDI'19, section 6).
// Blocking is per device kind (one FIFO queue per kind): a waiting job reserves the kinds of the
// types it can use, and a later job may start only on types of kinds no earlier waiting job can
// use. Among GPUs this is strict FIFO, as before; GPU jobs do not wait behind a job pinned to an
// FPGA, nor CPU jobs behind GPU jobs (docs/policies.md).
#include "policies/fifo.h"

#include "policies/type_choice.h"

#include <algorithm>
#include <array>
#include <list>

namespace dlsim {

namespace {

class Fifo final : public Policy {
public:
  Fifo(Placement placement, bool hetero) : placement_(placement), hetero_(hetero) {}

  void on_arrival(JobId j, const View& view) override {
    if (kind_of_.empty()) {
      for (const DeviceType& t : view.cluster().types)
        kind_of_.push_back(static_cast<std::size_t>(t.kind));
    }
    std::uint8_t mask = 0;
    for (DeviceTypeId t : view.compatible_types(j))
      mask = static_cast<std::uint8_t>(mask | (1U << kind_of_[t]));
    for (std::size_t k = 0; k < kKinds; ++k) {
      if (mask & (1U << k)) ++waiting_on_kind_[k];
    }
    queue_.push_back(Queued{j, mask});
  }

  void schedule(Control& control) override {
    if (queue_.empty()) return;
    // Kinds some waiting job can use and no earlier waiting job reserved yet: once none is left,
    // nothing later can start.
    std::size_t open = 0;
    for (auto n : waiting_on_kind_)
      open += n > 0 ? 1 : 0;
    std::array<char, kKinds> reserved{};
    unsigned reserved_mask = 0; // the same, as bits
    std::vector<std::int32_t> chosen = hetero_ ? choose(control) : std::vector<std::int32_t>{};
    std::size_t index = 0;
    for (auto it = queue_.begin(); it != queue_.end() && open > 0; ++index) {
      // A job whose kinds are all reserved could neither start nor reserve anything: step over
      // it without reading its request (a long queue behind a blocked head is walked per event).
      if ((it->kinds & ~reserved_mask) == 0) {
        ++it;
        continue;
      }
      const JobId j = it->job;
      std::optional<std::vector<DeviceId>> devices;
      const std::uint32_t workers = control.request(j).workers;
      const std::int32_t want = index < chosen.size() ? chosen[index] : kNoType;
      if (want != kNoType && !reserved[kind_of_[static_cast<std::size_t>(want)]])
        devices = place_on_type(control, j, placement_, workers, static_cast<DeviceTypeId>(want));
      for (DeviceTypeId t : control.compatible_types(j)) {
        if (devices) break;
        if (!reserved[kind_of_[t]]) devices = place_on_type(control, j, placement_, workers, t);
      }
      // The job's kinds are the bits of its mask (each kind acts alone below: order is free).
      const unsigned job_kinds = it->kinds;
      if (!devices) {
        for (std::size_t k = 0; k < kKinds; ++k) {
          if ((job_kinds & (1U << k)) && !reserved[k]) {
            reserved[k] = 1;
            reserved_mask |= 1U << k;
            --open;
          }
        }
        ++it;
        continue;
      }
      control.start(j, *devices);
      for (std::size_t k = 0; k < kKinds; ++k) {
        if ((job_kinds & (1U << k)) && --waiting_on_kind_[k] == 0 && !reserved[k]) --open;
      }
      it = queue_.erase(it);
    }
  }

private:
  // The heterogeneity-aware choice, by position in the queue: walking it in order with the free
  // devices counted per type (and the same reservations as schedule()), the jobs that fit
  // somewhere are admitted; then their types are exchanged to maximise summed normalized
  // throughput (type_choice.h).
  std::vector<std::int32_t> choose(const View& view) const {
    const std::size_t types = kind_of_.size();
    std::vector<std::uint32_t> left = free_capacity(view);
    std::uint64_t free_total = 0;
    for (auto n : left)
      free_total += n;
    std::size_t open = 0;
    for (auto n : waiting_on_kind_)
      open += n > 0 ? 1 : 0;
    std::array<char, kKinds> reserved{};
    std::vector<JobId> admitted;
    std::vector<std::int32_t> first;
    std::vector<std::array<char, kKinds>> reserved_then; // when each job was admitted
    std::vector<std::size_t> positions;
    std::size_t walked = 0;
    for (auto it = queue_.begin(); it != queue_.end() && free_total > 0 && open > 0;
         ++it, ++walked) {
      const JobId j = it->job;
      const std::uint32_t need = view.request(j).devices();
      std::int32_t best = kNoType;
      double best_value = -1;
      for (DeviceTypeId t : view.compatible_types(j)) {
        if (reserved[kind_of_[t]] || left[t] < need) continue;
        double v = normalized_throughput(view, j, t);
        if (v > best_value) {
          best_value = v;
          best = t;
        }
      }
      if (best == kNoType) {
        for (std::size_t k : kinds(view, j)) {
          if (!reserved[k]) {
            reserved[k] = 1;
            --open;
          }
        }
        continue;
      }
      left[static_cast<std::size_t>(best)] -= need;
      free_total -= need;
      admitted.push_back(j);
      first.push_back(best);
      reserved_then.push_back(reserved);
      positions.push_back(walked);
    }
    TypeChoiceProblem p = type_choice_problem(view, admitted, free_capacity(view));
    for (std::size_t i = 0; i < admitted.size(); ++i) {
      for (std::size_t t = 0; t < types; ++t) {
        if (reserved_then[i][kind_of_[t]]) p.value[i * types + t] = -1;
      }
    }
    std::vector<std::int32_t> at = choose_types(p, /*select=*/false, first);
    std::vector<std::int32_t> by_position(walked, kNoType);
    for (std::size_t i = 0; i < admitted.size(); ++i)
      by_position[positions[i]] = at[i];
    return by_position;
  }

  // The distinct kinds of job j's compatible types (at most kKinds).
  std::vector<std::size_t> kinds(const View& view, JobId j) const {
    std::vector<std::size_t> out;
    for (DeviceTypeId t : view.compatible_types(j)) {
      if (std::find(out.begin(), out.end(), kind_of_[t]) == out.end()) out.push_back(kind_of_[t]);
    }
    return out;
  }

  static std::vector<std::uint32_t> free_capacity(const View& view) {
    std::vector<std::uint32_t> c(view.cluster().types.size());
    for (std::size_t t = 0; t < c.size(); ++t)
      c[t] = view.free().free(static_cast<DeviceTypeId>(t));
    return c;
  }

  Placement placement_;
  bool hetero_;
  static constexpr std::size_t kKinds = 4; // DeviceKind's values
  struct Queued {
    JobId job;
    std::uint8_t kinds; // bit k: the job can use devices of kind k
  };
  std::list<Queued> queue_;
  std::vector<std::size_t> kind_of_;                    // DeviceKind of each type, as an index
  std::array<std::uint32_t, kKinds> waiting_on_kind_{}; // queued jobs that can use each kind
};

} // namespace

PolicyEntry fifo_policy() {
  PolicyEntry entry{
      "fifo",
      "first in, first out; a job that does not fit blocks the ones behind it that could use "
      "its device types",
      false,
      {{"hetero", ParamType::kFlag, "false",
        "heterogeneity-aware: choose the started jobs' device types to maximise summed "
        "normalized throughput (Gavel-style) instead of each job's fastest free type"}},
      [](const PolicySetup& s) {
        return std::make_unique<Fifo>(s.placement, s.params.flag("hetero"));
      }};
  // A failed job is handed back through on_arrival (Policy::on_failure): it joins the queue's
  // back, which holds only jobs not started.
  entry.handles_failures = true;
  return entry;
}

} // namespace dlsim
