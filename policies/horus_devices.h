// What the Horus cost rule reads of every device (horus_cost.h), kept from one decision to the
// next for util-reactive and util-proactive (docs/utilization.md#the-cost-rule): the devices
// whose holders all have a measured utilization are grouped by what the rule reads of them
// (held memory, summed utilization, tasks), so a choice computes one cost per group instead of
// one per device; the others ("volatile": a holder's utilization is not measured yet, so what
// the policy expects of it may change with time alone) are read through the policy at every
// choice. Devices are read again when the runtime's node log marks their node (a job takes or
// releases devices there: the only changes to a device's holders).
#pragma once

#include "policies/horus_cost.h"
#include "sim/runtime/view.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class HorusDevices {
public:
  // What the rule reads of device d, without the job `except`, as the policy expects it; nullopt
  // when the policy cannot tell (a holder's utilization unknown).
  using Read = std::function<std::optional<HorusDevice>(DeviceId d, JobId except)>;

  // Brings the groups up to date with view: the devices of the nodes marked since the last call
  // (all of them at the first call, or when the log started over), and the volatile devices
  // whose holders have all been measured since.
  void refresh(const View& view);

  // The devices of type t for job j (which asks job_mem_gb and is expected at job_util_pct)
  // that the rule accepts, in the order of repeated horus_choose() over the devices of type t in
  // id order with each chosen one left out: least cost first, ties by lower id. `leaving`: a
  // device j leaves, never offered; then only devices holding another job are offered. Calls
  // take(d) for each until it returns false. Call refresh() first.
  void choose(const View& view, DeviceTypeId t, JobId j, std::optional<DeviceId> leaving,
              const HorusParams& p, double job_mem_gb, double job_util_pct, const Read& read,
              const std::function<bool(DeviceId)>& take);

  // For tests: the number of groups of type t and of volatile devices.
  [[nodiscard]] std::size_t groups(DeviceTypeId t) const {
    return t < groups_.size() ? groups_[t].size() : 0;
  }
  [[nodiscard]] std::size_t volatile_count() const { return volatile_.size(); }

private:
  // (held GB, summed utilization %, tasks): summed over the slot's holders in slot order, as
  // the policy's own reading does, so a group's cost is bit for bit each member's.
  using Key = std::tuple<double, double, int>;
  static constexpr std::uint32_t kNone = ~0u;

  void read_device(const View& view, DeviceId d);
  void leave_group(DeviceId d);
  void make_volatile(DeviceId d);

  const Cluster* cluster_ = nullptr;
  bool started_ = false;
  std::uint64_t stamp_ = 0;
  std::vector<std::map<Key, std::set<DeviceId>>> groups_; // [type]
  std::vector<Key> key_;                                  // [device]: its group's key
  std::vector<char> grouped_;                             // [device]: in groups_
  std::vector<std::uint32_t> volatile_at_;                // [device]: index in volatile_, kNone
  std::vector<DeviceId> volatile_;
  std::vector<SimTime> recheck_at_; // [device]: volatile, read again from then on
  // [device]: its holders at the last reading (count kUnread before the first).
  struct Holders {
    static constexpr unsigned kUnread = 0xff;
    std::array<JobId, DeviceSlot::kMaxShare> jobs{};
    unsigned count = kUnread;
  };
  std::vector<Holders> seen_;
  // Scratch of choose(): a heap of (cost, device, source); source: an index in cursors_ (the
  // group's next member), or kNone (one device read through the policy).
  struct Cursor {
    std::set<DeviceId>::const_iterator at, end;
  };
  std::vector<Cursor> cursors_;
  std::vector<std::tuple<double, DeviceId, std::uint32_t>> heap_;
  std::vector<DeviceId> except_devices_;
};

} // namespace dlsim
