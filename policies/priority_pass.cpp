#include "policies/priority_pass.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace dlsim {

namespace {

// Step 1 of a decision: devices of each type, counted once whether busy or not.
class Capacity {
public:
  // Per type from the runtime's counts: a decision must not cost a pass over every device.
  explicit Capacity(const View& view) : left_(view.cluster().types.size()) {
    for (DeviceTypeId t = 0; t < left_.size(); ++t) {
      left_[t] = view.devices_of_type(t);
      total_ += left_[t];
    }
  }

  // Takes j's devices from what is left of its type; false when they are not there.
  bool offer(const View& view, JobId j) {
    const std::uint32_t need = view.request(j).devices();
    const JobState& st = view.state(j);
    const bool holds = is_holder(st);
    for (DeviceTypeId t : view.compatible_types(j)) {
      if (holds && t != st.type) continue;
      if (left_[t] < need) continue;
      left_[t] -= need;
      total_ -= need;
      return true;
    }
    return false;
  }
  [[nodiscard]] bool exhausted() const { return total_ == 0; }

private:
  std::vector<std::uint32_t> left_; // by DeviceTypeId
  std::uint64_t total_ = 0;
};

} // namespace

namespace {

// Jobs with the same shape fit the same nodes.
using Shape = std::tuple<std::uint32_t, std::uint32_t, double, double, std::int32_t>;
Shape shape_of(const JobRequest& r) {
  return {r.workers, r.devices_per_worker, r.cpus_per_worker, r.mem_gb_per_worker, r.device_type};
}

} // namespace

void PriorityPass::decide(const View& view, const PriorityWalk& walk,
                          const std::set<JobId>& holders, bool preempt) {
  // For each shape that could not be placed, the first waiting job of that shape that failed:
  // it and the waiting jobs of that shape after it are left out.
  std::map<Shape, JobId> first_failed;
  // Each round leaves out at least one more job; one or two rounds are the rule, and the bound
  // only guards the run time.
  for (int round = 0; round < 8; ++round) {
    chosen_.clear();
    Capacity capacity(view);
    std::set<Shape> excluded;
    walk([&](JobId j) {
      const JobState& st = view.state(j);
      if (!is_holder(st) && !first_failed.empty()) {
        Shape shape = shape_of(view.request(j));
        auto it = first_failed.find(shape);
        if (it != first_failed.end() && (it->second == j || excluded.count(shape))) {
          excluded.insert(shape);
          return true;
        }
      }
      if ((holders.count(j) || !is_holder(st)) && capacity.offer(view, j)) chosen_.push_back(j);
      return !capacity.exhausted();
    });

    FreeModel model(view);
    if (preempt) {
      std::set<JobId> keep(chosen_.begin(), chosen_.end());
      for (JobId h : holders) {
        if (!keep.count(h)) model.release(h);
      }
    }
    std::set<Shape> failed;
    for (JobId j : chosen_) {
      const JobState& st = view.state(j);
      if (is_holder(st)) continue;
      if (st.status == JobStatus::kSuspending) model.release(j); // its checkpoint frees them
      Shape shape = shape_of(view.request(j));
      if (failed.count(shape)) continue; // left out next round anyway
      if (!model.take(j)) {
        failed.insert(shape);
        first_failed[shape] = j;
      }
    }
    if (failed.empty()) return;
  }
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

std::int64_t FreeModel::total_dev(DeviceTypeId t) const {
  auto it = dfree_sum_.find(t);
  return view_.free().free(t) + (it == dfree_sum_.end() ? 0 : it->second);
}

std::uint32_t FreeModel::fit(const JobRequest& r, NodeId n, DeviceTypeId t) const {
  std::int64_t dev = free_dev(n, t);
  if (dev <= 0) return 0;
  auto it = dnode_.find(n);
  double cpu = view_.node_cpu_free(n) + (it == dnode_.end() ? 0 : it->second.first);
  double mem = view_.node_mem_free(n) + (it == dnode_.end() ? 0 : it->second.second);
  double k = std::floor(static_cast<double>(dev) / r.devices_per_worker + 1e-9);
  if (r.cpus_per_worker > 0) k = std::min(k, std::floor(cpu / r.cpus_per_worker + 1e-9));
  if (r.mem_gb_per_worker > 0) k = std::min(k, std::floor(mem / r.mem_gb_per_worker + 1e-9));
  return k > 0 ? static_cast<std::uint32_t>(k) : 0;
}

void FreeModel::release(JobId j) {
  const JobState& st = view_.state(j);
  const JobRequest& r = view_.request(j);
  const Cluster& c = view_.cluster();
  for (std::size_t i = 0; i < st.devices.size(); ++i) {
    const Device& d = c.devices[st.devices[i]];
    ++dfree_[{d.node, d.type}];
    ++dfree_sum_[d.type];
    if (i % r.devices_per_worker == 0) {
      dnode_[d.node].first += r.cpus_per_worker;
      dnode_[d.node].second += r.mem_gb_per_worker;
    }
  }
}

bool FreeModel::take(JobId j) {
  const JobRequest& r = view_.request(j);
  const std::uint32_t dpw = r.devices_per_worker;
  const FreeIndex& free = view_.free();
  for (DeviceTypeId t : view_.compatible_types(j)) {
    if (total_dev(t) < static_cast<std::int64_t>(r.workers) * dpw) continue;
    // Candidate nodes: the runtime's nodes with free devices of type t, and the changed ones.
    std::set<NodeId> nodes;
    for (std::uint32_t k = 1; k <= free.max_per_node(t); ++k) {
      for (NodeId n : free.nodes_with(t, k))
        nodes.insert(n);
    }
    for (const auto& [key, d] : dfree_) {
      if (key.second == t) nodes.insert(key.first);
    }
    // (free devices, node, workers that fit)
    std::vector<std::tuple<std::int64_t, NodeId, std::uint32_t>> cand;
    std::uint64_t total = 0;
    for (NodeId n : nodes) {
      if (std::uint32_t f = fit(r, n, t)) {
        cand.emplace_back(free_dev(n, t), n, f);
        total += f;
      }
    }
    if (total < r.workers) continue;
    std::vector<std::pair<NodeId, std::uint32_t>> use;
    const std::tuple<std::int64_t, NodeId, std::uint32_t>* best = nullptr;
    for (const auto& c : cand) {
      if (std::get<2>(c) >= r.workers && (!best || c < *best)) best = &c; // best fit
    }
    if (best) {
      use.emplace_back(std::get<1>(*best), r.workers);
    } else {
      std::sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                                : std::get<1>(a) < std::get<1>(b);
      });
      std::uint32_t left = r.workers;
      for (const auto& c : cand) {
        std::uint32_t k = std::min(left, std::get<2>(c));
        use.emplace_back(std::get<1>(c), k);
        left -= k;
        if (left == 0) break;
      }
    }
    for (auto [n, k] : use) {
      dfree_[{n, t}] -= static_cast<std::int64_t>(k) * dpw;
      dfree_sum_[t] -= static_cast<std::int64_t>(k) * dpw;
      dnode_[n].first -= k * r.cpus_per_worker;
      dnode_[n].second -= k * r.mem_gb_per_worker;
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
