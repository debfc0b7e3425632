#include "sim/runtime/plan.h"

#include "sim/runtime/control.h"
#include "sim/runtime/ps_placement.h"

namespace dlsim {

void Plan::reset(const View& view) {
  const Cluster& c = view.cluster();
  if (view_ == nullptr || dheld_.size() != c.devices.size() || types_ != c.types.size() ||
      host_mark_.size() != c.nodes.size()) {
    types_ = c.types.size();
    dheld_.assign(c.devices.size(), 0);
    held_mark_.assign(c.devices.size(), 0);
    dslot_.assign(c.nodes.size() * types_, 0);
    slot_mark_.assign(c.nodes.size() * types_, 0);
    slots_by_type_.assign(types_, {});
    dtotal_.assign(types_, 0);
    dcpu_.assign(c.nodes.size(), 0);
    dmem_.assign(c.nodes.size(), 0);
    host_mark_.assign(c.nodes.size(), 0);
    held_touched_.clear();
    host_touched_.clear();
  } else {
    // Only what the last plan changed.
    for (DeviceId d : held_touched_) {
      dheld_[d] = 0;
      held_mark_[d] = 0;
    }
    held_touched_.clear();
    for (std::size_t t = 0; t < types_; ++t) {
      for (NodeId n : slots_by_type_[t]) {
        const std::size_t slot = static_cast<std::size_t>(n) * types_ + t;
        dslot_[slot] = 0;
        slot_mark_[slot] = 0;
      }
      slots_by_type_[t].clear();
      dtotal_[t] = 0;
    }
    for (NodeId n : host_touched_)
      host_mark_[n] = 0;
    host_touched_.clear();
  }
  view_ = &view;
  log_.clear();
  actions_.clear();
  devices_.clear();
  hosts_.clear();
  edits_.clear();
}

std::uint32_t Plan::workers_fit(JobId j, NodeId n, DeviceTypeId t) const {
  const JobRequest& r = view_->request(j);
  const RequestDetails& rd = view_->details(j);
  const bool host = is_host_task(r);
  const std::uint32_t k =
      dlsim::workers_fit(host ? 0 : free_on(n, t), cpu_free(n), mem_free(n),
                         {r.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker});
  return host ? std::min(k, r.workers) : k;
}

void Plan::take_on_node(NodeId n, DeviceTypeId t, std::uint32_t count,
                        std::vector<DeviceId>& out) const {
  const Node& node = view_->cluster().nodes[n];
  for (DeviceId d = node.first_device; d < node.first_device + node.device_count && count > 0;
       ++d) {
    if (view_->cluster().devices[d].type == t && device_free(d)) {
      out.push_back(d);
      --count;
    }
  }
}

// ---- The changes, each logged so that rollback() undoes it exactly

void Plan::hold(DeviceId d, std::int32_t delta, bool log) {
  const bool was_free = device_free(d);
  if (!held_mark_[d]) {
    held_mark_[d] = 1;
    held_touched_.push_back(d);
  }
  dheld_[d] += delta;
  const bool now_free = device_free(d);
  if (was_free != now_free) {
    const Device& dev = view_->cluster().devices[d];
    const std::size_t slot = static_cast<std::size_t>(dev.node) * types_ + dev.type;
    if (!slot_mark_[slot]) {
      slot_mark_[slot] = 1;
      slots_by_type_[dev.type].push_back(dev.node);
    }
    const std::int32_t change = now_free ? 1 : -1;
    dslot_[slot] += change;
    dtotal_[dev.type] += change;
  }
  if (log) log_.push_back({Kind::kHold, delta, d, 0});
}

void Plan::touch_host(NodeId n) {
  if (host_mark_[n]) return;
  host_mark_[n] = 1;
  host_touched_.push_back(n);
  dcpu_[n] = 0;
  dmem_[n] = 0;
}

void Plan::add_host(NodeId n, double cpu, double mem, bool log) {
  touch_host(n);
  if (log) {
    log_.push_back({Kind::kCpu, 0, n, dcpu_[n]});
    log_.push_back({Kind::kMem, 0, n, dmem_[n]});
  }
  dcpu_[n] += cpu;
  dmem_[n] += mem;
}

void Plan::ps_cores_on(JobId j, std::span<const DeviceId> devices, double sign) {
  const JobRequest& r = view_->request(j);
  if (!holds_ps_cores(r) || devices.empty()) return;
  const double cores = view_->ps_cores(j);
  for (NodeId n : ps_nodes(view_->cluster(), devices, r.devices_per_worker, view_->ps(j)))
    add_host(n, sign * cores, 0);
}

void Plan::reserve(JobId j, std::span<const DeviceId> devices, std::span<const NodeId> hosts) {
  const JobRequest& r = view_->request(j);
  const double cores = view_->worker_cores(j);
  const double mem = view_->details(j).mem_gb_per_worker;
  Action a{j, 0, 0, 0, false, devices.empty()};
  if (devices.empty()) {
    for (NodeId n : hosts)
      add_host(n, -cores, -mem);
    a.first = static_cast<std::uint32_t>(hosts_.size());
    a.count = static_cast<std::uint32_t>(hosts.size());
    hosts_.insert(hosts_.end(), hosts.begin(), hosts.end());
  } else {
    const Cluster& c = view_->cluster();
    for (std::size_t i = 0; i < devices.size(); ++i) {
      hold(devices[i], +1);
      if (i % r.devices_per_worker == 0) add_host(c.devices[devices[i]].node, -cores, -mem);
    }
    ps_cores_on(j, devices, -1);
    a.first = static_cast<std::uint32_t>(devices_.size());
    a.count = static_cast<std::uint32_t>(devices.size());
    devices_.insert(devices_.end(), devices.begin(), devices.end());
  }
  actions_.push_back(a);
}

bool Plan::try_reserve(JobId j, std::span<const DeviceId> devices, std::span<const NodeId> hosts) {
  for (DeviceId d : devices) {
    if (!device_free(d)) return false;
  }
  const Mark before = mark();
  reserve(j, devices, hosts);
  // The nodes whose cores or memory the reservation took: its log entries.
  for (std::size_t i = before.log; i < log_.size(); ++i) {
    const Entry& e = log_[i];
    if ((e.kind == Kind::kCpu && !fits_in(0, cpu_free(e.index))) ||
        (e.kind == Kind::kMem && !fits_in(0, mem_free(e.index)))) {
      rollback(before);
      return false;
    }
  }
  return true;
}

void Plan::release(JobId j) {
  const JobState& st = view_->state(j);
  const JobRequest& r = view_->request(j);
  const double cores = view_->worker_cores(j);
  const double mem = view_->details(j).mem_gb_per_worker;
  if (is_host_task(r)) {
    for (NodeId n : view_->hosts(j))
      add_host(n, cores, mem);
    return;
  }
  const Cluster& c = view_->cluster();
  for (std::size_t i = 0; i < st.devices.size(); ++i) {
    hold(st.devices[i], -1);
    if (i % r.devices_per_worker == 0) add_host(c.devices[st.devices[i]].node, cores, mem);
  }
  const double ps = view_->ps_cores(j);
  for (NodeId n : view_->ps_hosts(j))
    add_host(n, ps, 0);
}

std::vector<DeviceId> Plan::kept_devices(const Edit& e) const {
  const DeviceList& all = view_->state(e.job).devices;
  const std::uint32_t dpw = view_->request(e.job).devices_per_worker;
  std::vector<DeviceId> kept;
  for (std::size_t w = 0; w < e.dropped.size(); ++w) {
    if (!e.dropped[w]) kept.insert(kept.end(), all.begin() + w * dpw, all.begin() + (w + 1) * dpw);
  }
  return kept;
}

void Plan::drop_worker(JobId j, std::uint32_t w) {
  const JobState& st = view_->state(j);
  const JobRequest& r = view_->request(j);
  auto it = std::find_if(edits_.begin(), edits_.end(), [&](const Edit& e) { return e.job == j; });
  if (it == edits_.end()) {
    edits_.push_back(
        {j, std::vector<char>(st.workers, 0), static_cast<std::uint32_t>(actions_.size())});
    actions_.push_back({j, static_cast<std::uint32_t>(edits_.size() - 1), 0, 0, true, false});
    it = edits_.end() - 1;
  }
  if (it->dropped[w]) return;
  // The servers follow the workers (ps_placement.h): take them off the nodes of the workers
  // before, put them on those after.
  const bool ps = holds_ps_cores(r);
  if (ps) ps_cores_on(j, kept_devices(*it), +1);
  const std::size_t first = std::size_t{w} * r.devices_per_worker;
  for (std::size_t i = first; i < first + r.devices_per_worker; ++i)
    hold(st.devices[i], -1);
  add_host(view_->cluster().devices[st.devices[first]].node, view_->worker_cores(j),
           view_->details(j).mem_gb_per_worker);
  it->dropped[w] = 1;
  log_.push_back(
      {Kind::kDrop, 0, static_cast<std::uint32_t>(it - edits_.begin()), static_cast<double>(w)});
  if (ps) ps_cores_on(j, kept_devices(*it), -1);
}

void Plan::rollback(Mark m) {
  while (log_.size() > m.log) {
    const Entry e = log_.back();
    log_.pop_back();
    switch (e.kind) {
    case Kind::kHold:
      hold(e.index, -e.delta, false);
      break;
    case Kind::kCpu:
      dcpu_[e.index] = e.before;
      break;
    case Kind::kMem:
      dmem_[e.index] = e.before;
      break;
    case Kind::kDrop:
      edits_[e.index].dropped[static_cast<std::size_t>(e.before)] = 0;
      break;
    }
  }
  // Reserve actions own the tail of devices_/hosts_; an edit made after m goes with its action.
  actions_.resize(std::min(actions_.size(), m.actions));
  std::size_t devices = 0, hosts = 0;
  for (const Action& a : actions_) {
    if (a.resize) continue;
    (a.hosts ? hosts : devices) = a.first + a.count;
  }
  devices_.resize(devices);
  hosts_.resize(hosts);
  while (!edits_.empty() && edits_.back().action >= actions_.size())
    edits_.pop_back();
}

void Plan::commit(Control& control, std::string_view reason) {
  const std::vector<Action> actions = std::move(actions_);
  const std::vector<DeviceId> devices = std::move(devices_);
  const std::vector<NodeId> hosts = std::move(hosts_);
  std::vector<std::vector<DeviceId>> kept;
  kept.reserve(edits_.size());
  for (const Edit& e : edits_)
    kept.push_back(kept_devices(e));
  for (const Action& a : actions) {
    if (a.resize) {
      control.resize(a.job, kept[a.edit], reason);
    } else if (a.hosts) {
      control.start_on_nodes(a.job, std::span(hosts).subspan(a.first, a.count), reason);
    } else {
      const auto on = std::span(devices).subspan(a.first, a.count);
      if (control.state(a.job).status == JobStatus::kSuspended) {
        control.resume(a.job, on, reason);
      } else {
        control.start(a.job, on, reason);
      }
    }
  }
  reset(control);
}

} // namespace dlsim
