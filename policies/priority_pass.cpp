#include "policies/priority_pass.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace dlsim {

namespace {

// Step 1 of a decision: devices of each type, counted once whether busy or not.
class Capacity {
public:
  explicit Capacity(const View& view) {
    for (const Device& d : view.cluster().devices) {
      ++left_[d.type];
      ++total_;
    }
  }

  // Whether j fits what is left; takes it when `commit`.
  bool offer(const View& view, JobId j, bool commit = true) {
    const std::uint32_t need = view.request(j).devices();
    const JobState& st = view.state(j);
    const bool holds = is_holder(st);
    for (DeviceTypeId t : view.compatible_types(j)) {
      if (holds && t != st.type) continue;
      auto it = left_.find(t);
      if (it == left_.end() || it->second < need) continue;
      if (commit) {
        it->second -= need;
        total_ -= need;
      }
      return true;
    }
    return false;
  }
  [[nodiscard]] bool exhausted() const { return total_ == 0; }

private:
  std::map<DeviceTypeId, std::uint32_t> left_;
  std::uint64_t total_ = 0;
};

} // namespace

void PriorityPass::decide(const View& view, const PriorityWalk& walk,
                          const std::set<JobId>& holders, bool preempt) {
  chosen_.clear();
  Capacity capacity(view);
  FreeModel model(view);
  if (preempt) {
    for (JobId h : holders)
      model.hold(h);
  }
  walk([&](JobId j) {
    const JobState& st = view.state(j);
    if (holders.count(j)) {
      bool placeable = !preempt || model.unhold_and_keep(j);
      if (placeable && capacity.offer(view, j)) {
        chosen_.push_back(j);
      } else if (preempt) {
        model.release(j); // to be preempted: its devices are free for the jobs after it
      }
      return !capacity.exhausted();
    }
    if (is_holder(st)) return !capacity.exhausted(); // not this policy's to move
    if (!capacity.offer(view, j, /*commit=*/false)) return true;
    if (st.status == JobStatus::kSuspending) model.release(j); // its checkpoint frees them
    if (!model.take(j, false) && !(preempt && model.take(j, true))) return true;
    capacity.offer(view, j);
    chosen_.push_back(j);
    return !capacity.exhausted();
  });
}

void PriorityPass::apply(Control& control, Placement placement, std::set<JobId>& holders,
                         bool preempt_others) {
  std::set<JobId> keep(chosen_.begin(), chosen_.end());
  std::vector<JobId> preempt;
  for (JobId j : holders) {
    if (preempt_others && !keep.count(j)) preempt.push_back(j);
  }
  for (JobId j : preempt) {
    control.suspend(j);
    holders.erase(j);
  }
  for (JobId j : chosen_) {
    JobStatus s = control.state(j).status;
    if (s != JobStatus::kPending && s != JobStatus::kSuspended) continue;
    auto devices = place(control, j, placement);
    if (!devices) continue; // devices still being released: next decision
    if (s == JobStatus::kPending)
      control.start(j, *devices);
    else
      control.resume(j, *devices);
    holders.insert(j);
  }
}

// ---- FreeModel ----------------------------------------------------------------------------

std::int64_t FreeModel::free_dev(NodeId n, DeviceTypeId t) const {
  auto it = dfree_.find({n, t});
  return view_.free().free_on(n, t) + (it == dfree_.end() ? 0 : it->second);
}

std::int64_t FreeModel::held_dev(NodeId n, DeviceTypeId t) const {
  auto it = held_.find({n, t});
  return it == held_.end() ? 0 : it->second;
}

double FreeModel::free_cpu(NodeId n) const {
  auto it = nodes_.find(n);
  return view_.node_cpu_free(n) + (it == nodes_.end() ? 0 : it->second.cpu);
}

double FreeModel::free_mem(NodeId n) const {
  auto it = nodes_.find(n);
  return view_.node_mem_free(n) + (it == nodes_.end() ? 0 : it->second.mem);
}

std::uint32_t FreeModel::fit(const JobRequest& r, NodeId n, DeviceTypeId t, bool with_held) const {
  std::int64_t dev = std::max<std::int64_t>(0, free_dev(n, t));
  double cpu = free_cpu(n), mem = free_mem(n);
  if (with_held) {
    auto it = nodes_.find(n);
    dev = free_dev(n, t) + held_dev(n, t);
    if (it != nodes_.end()) {
      cpu += it->second.held_cpu;
      mem += it->second.held_mem;
    }
  }
  if (dev <= 0) return 0;
  double k = std::floor(static_cast<double>(dev) / r.devices_per_worker + 1e-9);
  if (r.cpus_per_worker > 0) k = std::min(k, std::floor(cpu / r.cpus_per_worker + 1e-9));
  if (r.mem_gb_per_worker > 0) k = std::min(k, std::floor(mem / r.mem_gb_per_worker + 1e-9));
  return k > 0 ? static_cast<std::uint32_t>(k) : 0;
}

void FreeModel::add(JobId j, int sign, bool to_pool) {
  const JobState& st = view_.state(j);
  const JobRequest& r = view_.request(j);
  const Cluster& c = view_.cluster();
  auto& dev = to_pool ? held_ : dfree_;
  for (std::size_t i = 0; i < st.devices.size(); ++i) {
    const Device& d = c.devices[st.devices[i]];
    dev[{d.node, d.type}] += sign;
    if (i % r.devices_per_worker == 0) {
      NodeDelta& nd = nodes_[d.node];
      (to_pool ? nd.held_cpu : nd.cpu) += sign * r.cpus_per_worker;
      (to_pool ? nd.held_mem : nd.mem) += sign * r.mem_gb_per_worker;
    }
  }
}

void FreeModel::release(JobId j) {
  add(j, +1, false);
}

void FreeModel::hold(JobId j) {
  add(j, +1, true);
}

bool FreeModel::unhold_and_keep(JobId j) {
  add(j, -1, true);
  // Reservations that dipped below the free devices (or CPUs, memory) of a node are owed by the
  // running jobs still in the pool there; j keeps its devices only if those can pay it all.
  const JobState& st = view_.state(j);
  const Cluster& c = view_.cluster();
  for (DeviceId d : st.devices) {
    NodeId n = c.devices[d].node;
    DeviceTypeId t = c.devices[d].type;
    if (-free_dev(n, t) > held_dev(n, t)) return false;
    auto it = nodes_.find(n);
    double held_cpu = it == nodes_.end() ? 0 : it->second.held_cpu;
    double held_mem = it == nodes_.end() ? 0 : it->second.held_mem;
    if (-free_cpu(n) > held_cpu + 1e-9 || -free_mem(n) > held_mem + 1e-9) return false;
  }
  return true;
}

bool FreeModel::take(JobId j, bool with_held) {
  const JobRequest& r = view_.request(j);
  const std::uint32_t dpw = r.devices_per_worker;
  const std::int64_t need = static_cast<std::int64_t>(r.workers) * dpw;
  const FreeIndex& free = view_.free();
  for (DeviceTypeId t : view_.compatible_types(j)) {
    std::set<NodeId> nodes; // the runtime's nodes with free devices of t, and changed ones
    for (std::uint32_t k = 1; k <= free.max_per_node(t); ++k) {
      for (NodeId n : free.nodes_with(t, k))
        nodes.insert(n);
    }
    for (const auto& [key, d] : dfree_) {
      if (key.second == t) nodes.insert(key.first);
    }
    if (with_held) {
      for (const auto& [key, d] : held_) {
        if (key.second == t && d > 0) nodes.insert(key.first);
      }
    }
    // (pooled devices a whole placement here would need, usable devices, node, workers that fit)
    std::vector<std::tuple<std::int64_t, std::int64_t, NodeId, std::uint32_t>> cand;
    std::uint64_t total = 0;
    for (NodeId n : nodes) {
      std::uint32_t f = fit(r, n, t, with_held);
      if (f == 0) continue;
      std::int64_t own = std::max<std::int64_t>(0, free_dev(n, t));
      std::int64_t usable = with_held ? free_dev(n, t) + held_dev(n, t) : own;
      cand.emplace_back(std::max<std::int64_t>(0, need - own), usable, n, f);
      total += f;
    }
    if (total < r.workers) continue;
    std::vector<std::pair<NodeId, std::uint32_t>> use;
    const std::tuple<std::int64_t, std::int64_t, NodeId, std::uint32_t>* best = nullptr;
    for (const auto& c : cand) {
      if (std::get<3>(c) >= r.workers && (!best || c < *best)) best = &c;
    }
    if (best) {
      use.emplace_back(std::get<2>(*best), r.workers);
    } else {
      // Several nodes: the most free devices first, then the most usable ones.
      std::sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) {
        if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
        if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
        return std::get<2>(a) < std::get<2>(b);
      });
      std::uint32_t left = r.workers;
      for (const auto& c : cand) {
        std::uint32_t k = std::min(left, std::get<3>(c));
        use.emplace_back(std::get<2>(c), k);
        left -= k;
        if (left == 0) break;
      }
    }
    for (auto [n, k] : use) {
      dfree_[{n, t}] -= static_cast<std::int64_t>(k) * dpw;
      NodeDelta& nd = nodes_[n];
      nd.cpu -= k * r.cpus_per_worker;
      nd.mem -= k * r.mem_gb_per_worker;
    }
    return true;
  }
  return false;
}

bool is_holder(const JobState& s) {
  return s.status == JobStatus::kRunning || s.status == JobStatus::kStarting;
}

double attained_now(const View& view, JobId j) {
  const JobState& s = view.state(j);
  double a = s.attained;
  if (s.status == JobStatus::kRunning && view.now() > s.last_update) {
    a += static_cast<double>(s.devices.size()) * to_seconds(view.now() - s.last_update);
  }
  return a;
}

double run_time_now(const View& view, JobId j) {
  const JobState& s = view.state(j);
  SimTime t = s.run_time;
  if (s.status == JobStatus::kRunning && view.now() > s.last_update)
    t += view.now() - s.last_update;
  return to_seconds(t);
}

} // namespace dlsim
