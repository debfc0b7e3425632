// Defragmentation by migration (Xiao et al., OSDI'18, sec. 4.3: free whole nodes, or enough of
// one, for a job that waits): plans which groups to move where, all or nothing, then moves them.
#include "policies/gandiva/affinity.h"
#include "policies/gandiva/groups.h"
#include "policies/gandiva/migration.h"
#include "policies/gandiva/plan_index.h"
#include "sim/cluster/fit.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace dlsim::gandiva {

namespace {

NodeId node_of(const View& view, DeviceId d) {
  return view.cluster().devices[d].node;
}

// A class holds less than its share of the GPUs when its share of the demand (devices asked
// by its running and waiting jobs) is larger than its share of the devices held. The same
// proportional split as the Tiresias simulator's Gandiva mode (node sets per class).
bool below_share(const View& view, const State& st, std::uint32_t cls) {
  const ClassTotals& totals = st.class_totals();
  auto it = totals.by_class.find(cls);
  if (it == totals.by_class.end()) return false; // asks for nothing
  const auto demand = static_cast<double>(totals.asked);
  const auto demand_cls = static_cast<double>(it->second.asked);
  const auto held_cls = static_cast<double>(it->second.held);
  return demand > 0 && held_cls < view.gpu_count() * demand_cls / demand;
}

struct Evacuation {
  std::uint32_t group;
  std::vector<DeviceId> to;      // free devices, or
  std::uint32_t into = kNoGroup; // a time-sliced group of the same class to join
};

struct NodePlan {
  NodeId node = 0;
  std::uint32_t workers = 0;
  std::vector<Evacuation> moves;
  std::size_t migrations = 0;
  Claims claims;
  std::map<std::uint32_t, std::size_t> joins;
};

bool usage_fits(const View& view, NodeId n, Usage u, const Claims& c) {
  auto claimed = [](const std::map<NodeId, double>& m, NodeId n) {
    auto it = m.find(n);
    return it == m.end() ? 0.0 : it->second;
  };
  return fits_in(u.cpu, view.node_cpu_free(n) - claimed(c.cpu, n)) &&
         fits_in(u.mem, view.node_mem_free(n) - claimed(c.mem, n));
}

class Planner {
public:
  // st.movable_index must be up to date (refresh_movable_index), then st.leavable_index for t.
  Planner(const View& view, const State& st, JobId j, DeviceTypeId t, bool allow_merge)
      : view_(view), st_(st), j_(j), t_(t), allow_merge_(allow_merge),
        index_(view, st, t, allow_merge) {}

  std::optional<std::vector<NodePlan>> plan() {
    const JobRequest& req = view_.request(j_);
    std::uint32_t left = req.workers;
    std::vector<NodePlan> out;
    Claims claims;
    std::map<std::uint32_t, std::size_t> joins;
    // A node whose free and leavable devices do not reach one worker's fails evaluate's first
    // test whatever the plan claims: only the others are visited (the best is a minimum over a
    // total order, so which nodes fail unseen does not matter).
    const std::vector<NodeId> nodes = index_.nodes_reaching(req.devices_per_worker);
    while (left > 0) {
      std::optional<NodePlan> best;
      for (NodeId n : nodes) {
        if (claims.nodes_off.count(n) || claims.receiving.count(n)) continue;
        std::uint32_t cap = devices_of_type(n) / req.devices_per_worker;
        std::uint32_t want = std::min(left, cap);
        if (want == 0) continue;
        auto p = evaluate(n, want, claims, joins);
        if (!p) continue;
        if (!best ||
            std::make_tuple(p->migrations, -static_cast<long>(p->workers), p->node) <
                std::make_tuple(best->migrations, -static_cast<long>(best->workers), best->node)) {
          best = std::move(p);
        }
      }
      if (!best) return std::nullopt;
      claims = best->claims;
      joins = best->joins;
      left -= best->workers;
      out.push_back(std::move(*best));
    }
    return out;
  }

private:
  [[nodiscard]] std::uint32_t devices_of_type(NodeId n) const {
    const Node& node = view_.cluster().nodes[n];
    std::uint32_t k = 0;
    for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d) {
      k += view_.cluster().devices[d].type == t_;
    }
    return k;
  }

  // Where group g (leaving node n) can go: free devices on another node, best affinity and
  // fit first; else, if allowed, the least-loaded time-sliced group of its class elsewhere.
  std::optional<Evacuation> destination(std::uint32_t gid, const Group& g, NodeId n,
                                        const Claims& c,
                                        const std::map<std::uint32_t, std::size_t>& joins) {
    const Usage u = usage(gid);
    std::optional<std::tuple<int, std::size_t, NodeId>> best_key;
    std::vector<DeviceId> best_devices;
    std::vector<DeviceId> free;
    // Only a node with a free device of the type can take g: the others are skipped unseen.
    for (NodeId m : index_.nodes_with_free()) {
      if (m == n || c.nodes_off.count(m)) continue;
      // free_on(view_, st_, m, g.type, &c), from the plan's unclaimed free devices (g is of
      // the plan's type: movable_on lists no other).
      free.clear();
      for (DeviceId d : index_.free_of(m)) {
        if (!c.devices.count(d)) free.push_back(d);
      }
      if (free.size() < g.devices.size() || !usage_fits(view_, m, u, c)) continue;
      auto key = std::make_tuple(affinity_rank(view_, st_, m, g.cls), free.size(), m);
      if (!best_key || key < *best_key) {
        best_key = key;
        best_devices.assign(free.begin(),
                            free.begin() + static_cast<std::ptrdiff_t>(g.devices.size()));
      }
    }
    if (best_key) return Evacuation{gid, best_devices, kNoGroup};
    if (!allow_merge_ || g.mode != Mode::kSlice) return std::nullopt;
    // The least-loaded group, the oldest on ties: the least (load, id). joinable lists them by
    // (members, id), and a group's load (members and planned joins) is at least its members:
    // the walk stops at the first group whose (members, id) is past the best (load, id) found,
    // or whose members leave no room for g's.
    std::uint32_t into = kNoGroup;
    std::size_t into_load = 0;
    for (const MovableIndex::Joinable& join : index_.joinable(g.cls, g.devices.size())) {
      const std::uint32_t tid = join.gid;
      const Group& tg = st_.groups.at(tid);
      if (tg.members.size() + g.members.size() > view_.config().max_timeslice_jobs ||
          (into != kNoGroup &&
           std::make_pair(tg.members.size(), tid) > std::make_pair(into_load, into)))
        break;
      if (tid == gid) continue;
      NodeId m = node_of(view_, tg.devices[0]);
      if (m == n || c.nodes_off.count(m)) continue;
      auto planned = joins.count(tid) ? joins.at(tid) : 0;
      std::size_t load = tg.members.size() + planned;
      if (load + g.members.size() > view_.config().max_timeslice_jobs) continue;
      if (into != kNoGroup && std::make_pair(load, tid) >= std::make_pair(into_load, into))
        continue;
      if (!usage_fits(view_, m, u, c)) continue;
      into = tid;
      into_load = load;
    }
    if (into == kNoGroup) return std::nullopt;
    return Evacuation{gid, {}, into};
  }

  std::optional<NodePlan> evaluate(NodeId n, std::uint32_t want, const Claims& base,
                                   const std::map<std::uint32_t, std::size_t>& base_joins) {
    const JobRequest& req = view_.request(j_);
    const RequestDetails& rd = view_.details(j_);
    const std::size_t need = static_cast<std::size_t>(want) * req.devices_per_worker;
    std::size_t freed = free_on(view_, st_, n, t_, &base).size();
    if (freed < need && freed + index_.leavable_on(n) < need) return std::nullopt; // no use trying
    NodePlan p;
    p.node = n;
    p.workers = want;
    p.claims = base;
    p.joins = base_joins;
    Usage avail{view_.node_cpu_free(n), view_.node_mem_free(n)};
    if (freed < need) {
      // The movable groups of n: fewest members first, then fewest devices.
      for (const MovableIndex::OnNode& on : index_.movable_on(n)) {
        const std::uint32_t gid = on.gid;
        if (freed >= need) break;
        const Group& g = st_.groups.at(gid);
        // Nothing evacuated from n may land on n: destination skips n.
        auto e = destination(gid, g, n, p.claims, p.joins);
        if (!e) continue;
        const Usage u = usage(gid);
        NodeId dest = e->into == kNoGroup ? node_of(view_, e->to[0])
                                          : node_of(view_, st_.groups.at(e->into).devices[0]);
        p.claims.receiving.insert(dest);
        p.claims.cpu[dest] += u.cpu;
        p.claims.mem[dest] += u.mem;
        if (e->into == kNoGroup) {
          p.claims.devices.insert(e->to.begin(), e->to.end());
        } else {
          p.joins[e->into] += g.members.size();
        }
        avail.cpu += u.cpu;
        avail.mem += u.mem;
        freed += g.devices.size();
        p.migrations += g.members.size();
        p.moves.push_back(std::move(*e));
      }
      if (freed < need) return std::nullopt;
    }
    auto claimed = [](const std::map<NodeId, double>& m, NodeId n) {
      auto it = m.find(n);
      return it == m.end() ? 0.0 : it->second;
    };
    if (!fits_in(want * rd.cpus_per_worker, avail.cpu - claimed(base.cpu, n)) ||
        !fits_in(want * rd.mem_gb_per_worker, avail.mem - claimed(base.mem, n))) {
      return std::nullopt;
    }
    p.claims.nodes_off.insert(n);
    p.claims.cpu[n] += want * rd.cpus_per_worker;
    p.claims.mem[n] += want * rd.mem_gb_per_worker;
    return p;
  }

  // usage_of(view_, g), summed when the group's entry in the movable index was made (every
  // group a plan moves is movable): a group may be tried on many nodes' plans, and in many plans.
  [[nodiscard]] Usage usage(std::uint32_t gid) const { return st_.movable_index.usage(gid); }

  const View& view_;
  const State& st_;
  JobId j_;
  DeviceTypeId t_;
  bool allow_merge_;
  PlanIndex index_; // what the plan reads many times
};

void evacuate(Control& control, State& st, const Evacuation& e) {
  std::vector<JobId> members = st.groups.at(e.group).members;
  if (e.into == kNoGroup) {
    for (JobId m : members)
      control.migrate(m, e.to, "defragmentation: group moved to free devices");
    st.set_devices(e.group, e.to);
    return;
  }
  std::vector<DeviceId> target = st.groups.at(e.into).devices;
  for (JobId m : members) {
    control.migrate(m, target, "defragmentation: group merged into another");
    st.leave(m);
    st.join(e.into, m);
  }
}

} // namespace

// A group that defragmentation may move, of whatever type: not converting or grown, alone if
// slices are exact, every member running, all on one node. It reads only the group and its
// members' runtime state, and a group starts or stops passing only after a touch (members, mode,
// `converting`), a member's job log mark (status, devices) or set_devices (devices, `grown`,
// which changes with them), as refresh_movable_index asks.
bool movable(const View& view, const Options& opt, const Group& g) {
  if (g.converting || g.grown) return false;
  if (opt.exact_slices && g.members.size() != 1) return false;
  return all_running(view, g) && on_one_node(view, g.devices);
}

bool defragment(Control& control, State& st, JobId j) {
  if (!st.opt.migration) return false;
  const JobRequest& req = control.request(j);
  bool merge = !st.opt.exact_slices && below_share(control, st, req.devices());
  // A plan for the same kind of job found nothing, and nothing it reads has changed since.
  const FailedPlans::Key key = FailedPlans::key_of(req, merge);
  const FailedPlans::Stamp stamp{st.groups_stamp(control), control.changes().nodes.stamp()};
  if (st.failed_plans.known(key, stamp)) return false;
  refresh_movable_index(control, st);
  for (DeviceTypeId t : control.compatible_types(j)) {
    st.leavable_index.refresh(control, st, t);
    auto plan = Planner(control, st, j, t, merge).plan();
    if (!plan) continue;
    for (const NodePlan& p : *plan) {
      for (const Evacuation& e : p.moves)
        evacuate(control, st, e);
    }
    std::vector<DeviceId> devices;
    for (const NodePlan& p : *plan) {
      auto free = free_on(control, st, p.node, t);
      std::size_t need = static_cast<std::size_t>(p.workers) * req.devices_per_worker;
      if (free.size() < need) return false; // cannot happen: the plan counted these devices
      devices.insert(devices.end(), free.begin(), free.begin() + static_cast<std::ptrdiff_t>(need));
    }
    if (!resources_fit(control, j, devices)) return false;
    start_group(control, st, j, std::move(devices));
    return true;
  }
  st.failed_plans.add(key, stamp);
  return false;
}

} // namespace dlsim::gandiva
