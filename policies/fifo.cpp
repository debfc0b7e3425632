// FIFO: jobs start in submission order; a job that does not fit blocks every job behind it
// (head-of-line blocking), as in the baseline of Tiresias (Gu et al., NSDI'19, section 6).
// Blocking is per device kind (one FIFO queue per kind): a waiting job reserves the kinds of the
// types it can use, and a later job may start only on types of kinds no earlier waiting job can
// use. Among GPUs this is strict FIFO; GPU jobs do not wait behind a job pinned to an FPGA, nor
// CPU jobs behind GPU jobs (docs/policies.md). The queue's speed-ups are in kind_queue.h.
#include "policies/fifo.h"

#include "policies/kind_queue.h"
#include "policies/type_choice.h"

namespace dlsim {

namespace {

class Fifo final : public Policy {
public:
  Fifo(Placement placement, bool hetero) : placement_(placement), hetero_(hetero) {}

  void on_arrival(JobId j, const View& view) override { queue_.push(j, view); }

  // In submission order, each job starts if it fits on a kind no earlier waiting job reserved;
  // one that does not fit waits and reserves its kinds for itself.
  void schedule(Control& control) override {
    if (queue_.empty()) return;
    KindQueue::Pass pass = queue_.start_pass();
    const std::vector<std::int32_t> chosen =
        hetero_ ? queue_type_choice(control, queue_) : std::vector<std::int32_t>{};
    std::size_t index = 0;
    for (auto it = queue_.begin(); it != queue_.end() && pass.open > 0; ++index) {
      if (KindQueue::blocked(pass, *it)) {
        ++it;
        continue;
      }
      const std::int32_t want = index < chosen.size() ? chosen[index] : kNoType;
      if (auto devices = place_on_open_kind(control, it->job, placement_, want, queue_, pass)) {
        control.start(it->job, *devices);
        it = queue_.erase(it, pass);
      } else {
        KindQueue::reserve(pass, it->kinds);
        ++it;
      }
    }
  }

private:
  Placement placement_;
  bool hetero_;
  KindQueue queue_;
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
