// Devices grouped by what the Horus cost rule reads of them (horus_devices.h).
#include "policies/horus_devices.h"

#include "sim/engine/time.h"

#include <algorithm>

namespace dlsim {

void HorusDevices::refresh(const View& view) {
  const Cluster& c = view.cluster();
  cluster_ = &c;
  const ChangeLog& log = view.changes().nodes;
  bool all = !started_ || key_.size() != c.devices.size();
  if (all) {
    groups_.assign(c.types.size(), {});
    key_.assign(c.devices.size(), Key{});
    grouped_.assign(c.devices.size(), 0);
    volatile_at_.assign(c.devices.size(), kNone);
    recheck_at_.assign(c.devices.size(), 0);
    seen_.assign(c.devices.size(), Holders{});
    volatile_.clear();
    started_ = true;
  } else {
    all = !log.for_each_since(stamp_, [&](std::uint32_t n) {
      const Node& node = c.nodes[n];
      for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d)
        read_device(view, d);
    });
  }
  if (all) {
    for (DeviceId d = 0; d < c.devices.size(); ++d)
      read_device(view, d);
  }
  stamp_ = log.stamp();
  // A holder measured since: backwards, as read_device() moves the last entry into a place
  // already visited when it drops one. Only the devices whose holder could be measured by now
  // (recheck_at_): until then reading them again changes nothing. (A volatile device is read
  // through the policy at every choice anyway: when it joins a group changes the cost of a
  // choice, never the choice.)
  const SimTime now = view.now();
  for (std::size_t i = volatile_.size(); i-- > 0;) {
    if (recheck_at_[volatile_[i]] <= now) read_device(view, volatile_[i]);
  }
}

void HorusDevices::read_device(const View& view, DeviceId d) {
  const DeviceSlot& slot = view.device(d);
  // The same holders in the same order as at the last reading: a grouped device keeps its key
  // (a measured utilization stays measured, and what is read of a job does not change), and a
  // volatile one stays so until recheck_at_.
  Holders& seen = seen_[d];
  if (seen.count == slot.count &&
      std::equal(slot.jobs.begin(), slot.jobs.begin() + slot.count, seen.jobs.begin())) {
    if (grouped_[d] != 0) return;
    if (volatile_at_[d] != kNone && recheck_at_[d] > view.now()) return;
  } else {
    seen.count = slot.count;
    std::copy(slot.jobs.begin(), slot.jobs.begin() + slot.count, seen.jobs.begin());
  }
  double held = 0;
  double util = 0;
  for (unsigned i = 0; i < slot.count; ++i) {
    const JobId j = slot.jobs[i];
    const std::optional<double> m = view.measured_gpu_util(j);
    if (!m) {
      leave_group(d);
      make_volatile(d);
      // j's time alone (View::measured_gpu_util) grows at most as fast as time: it cannot reach
      // runtime.profile_s before this (a millisecond early, for rounding).
      const SimTime alone = view.alone_time(j);
      const double wait_s = view.config().profile_s - to_seconds(alone) - 1e-3;
      recheck_at_[d] =
          wait_s > 0 ? view.now() + from_seconds(std::min(wait_s, kMaxSeconds)) : view.now();
      return;
    }
    // As the policy reads a measured holder: its request's memory, its utilization in percent.
    held += view.details(j).gpu_mem_gb;
    util += *m * 100;
  }
  if (volatile_at_[d] != kNone) {
    const std::uint32_t at = volatile_at_[d];
    volatile_[at] = volatile_.back();
    volatile_at_[volatile_[at]] = at;
    volatile_.pop_back();
    volatile_at_[d] = kNone;
  }
  const Key key{held, util, static_cast<int>(slot.count)};
  if (grouped_[d] != 0 && key_[d] == key) return;
  leave_group(d);
  groups_[cluster_->devices[d].type][key].insert(d);
  key_[d] = key;
  grouped_[d] = 1;
}

void HorusDevices::leave_group(DeviceId d) {
  if (grouped_[d] == 0) return;
  auto& groups = groups_[cluster_->devices[d].type];
  auto it = groups.find(key_[d]);
  it->second.erase(d);
  if (it->second.empty()) groups.erase(it);
  grouped_[d] = 0;
}

void HorusDevices::make_volatile(DeviceId d) {
  if (volatile_at_[d] != kNone) return;
  volatile_at_[d] = static_cast<std::uint32_t>(volatile_.size());
  volatile_.push_back(d);
}

void HorusDevices::choose(const View& view, DeviceTypeId t, JobId j,
                          std::optional<DeviceId> leaving, const HorusParams& p, double job_mem_gb,
                          double job_util_pct, const Read& read,
                          const std::function<bool(DeviceId)>& take) {
  // j's own devices are read through the policy without j (the groups count every holder).
  except_devices_.assign(view.state(j).devices.begin(), view.state(j).devices.end());
  if (leaving) except_devices_.push_back(*leaving);
  std::sort(except_devices_.begin(), except_devices_.end());
  const auto excluded = [&](DeviceId d) {
    return std::binary_search(except_devices_.begin(), except_devices_.end(), d);
  };
  cursors_.clear();
  heap_.clear();
  const auto later = [](const auto& a, const auto& b) { return a > b; }; // a min-heap
  const auto push = [&](double cost, DeviceId d, std::uint32_t source) {
    heap_.emplace_back(cost, d, source);
    std::push_heap(heap_.begin(), heap_.end(), later);
  };
  const auto offer_read = [&](DeviceId d) {
    if (cluster_->devices[d].type != t || (leaving && d == *leaving)) return;
    const std::optional<HorusDevice> h = read(d, j);
    if (!h || (leaving && h->tasks == 0)) return;
    if (const std::optional<double> cost = horus_cost(p, *h, job_mem_gb, job_util_pct))
      push(*cost, d, kNone);
  };
  const double memory_gb = cluster_->types[t].memory_gb;
  if (t < groups_.size()) {
    for (const auto& [key, members] : groups_[t]) {
      const auto [held, util, tasks] = key;
      if (leaving && tasks == 0) continue;
      const std::optional<double> cost =
          horus_cost(p, HorusDevice{memory_gb, held, util, tasks}, job_mem_gb, job_util_pct);
      if (!cost) continue;
      Cursor cur{members.begin(), members.end()};
      while (cur.at != cur.end && excluded(*cur.at))
        ++cur.at;
      if (cur.at == cur.end) continue;
      push(*cost, *cur.at, static_cast<std::uint32_t>(cursors_.size()));
      cursors_.push_back(cur);
    }
  }
  for (DeviceId d : volatile_) {
    if (!excluded(d)) offer_read(d);
  }
  for (std::size_t i = 0; i < except_devices_.size(); ++i) {
    if (i == 0 || except_devices_[i] != except_devices_[i - 1]) offer_read(except_devices_[i]);
  }
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const auto [cost, d, source] = heap_.back();
    heap_.pop_back();
    if (source != kNone) {
      Cursor& cur = cursors_[source];
      ++cur.at;
      while (cur.at != cur.end && excluded(*cur.at))
        ++cur.at;
      if (cur.at != cur.end) push(cost, *cur.at, source);
    }
    if (!take(d)) return;
  }
}

} // namespace dlsim
