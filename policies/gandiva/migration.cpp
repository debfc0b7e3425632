// Migration: spreading over-subscribed groups onto free devices, and locality.
#include "policies/gandiva/migration.h"

#include "policies/gandiva/affinity.h"
#include "policies/gandiva/groups.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim::gandiva {

namespace {

// True when some device type has more free devices than the waiting jobs that could use it ask
// for: otherwise spreading keeps every free device for them and moves nobody (a member takes at
// least one device). With `exact` false, only the bound: State::free_totals counts devices
// nobody holds or reserves, up ones (which the runtime counts free) and down ones.
bool spare_devices(const View& view, State& st, const std::map<DeviceTypeId, std::size_t>& demand,
                   bool exact) {
  for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(view.cluster().types.size()); ++t) {
    if (view.free().max_per_node(t) == 0) continue; // no node holds one
    auto it = demand.find(t);
    const std::size_t asked = it == demand.end() ? 0 : it->second;
    if (view.free().free(t) + view.down_devices() <= asked) continue;
    if (!exact || st.free_totals.of_type(view, st, t) > asked) return true;
  }
  return false;
}

// A group some member of which could leave for free devices: over-subscribed and settled.
bool over_subscribed(const View& /*view*/, const Group& g) {
  return g.members.size() >= 2 && !g.converting && !g.grown;
}

// A single job that runs across several nodes, settled, and that one node of its type could
// hold whole.
bool spans_nodes(const View& view, const Group& g) {
  if (g.members.size() != 1 || g.grown || g.converting) return false;
  if (g.devices.size() > view.free().max_per_node(g.type)) return false;
  const JobState& s = view.state(g.members[0]);
  return s.status == JobStatus::kRunning && s.nodes_used > 1;
}

struct Move {
  SpreadIndex::Candidate from;
  std::vector<DeviceId> devices;
  DeviceTypeId type;
};

// The move of one spreading pass: of the groups that can give a member (most members first, then
// by id), the first whose member finds free devices by affinity that waiting jobs do not need.
std::optional<Move> first_move(Control& control, State& st,
                               std::map<DeviceTypeId, std::size_t>& demand) {
  std::optional<Move> best;
  st.spread_index.for_each_first([&](const JobKind&, const SpreadIndex::Candidate& c) {
    if (best && best->from < c) return; // a group before it moves
    auto devices = affinity_place(control, st, c.pick, control.request(c.pick).workers);
    if (!devices) return;
    const DeviceTypeId t = control.cluster().devices[(*devices)[0]].type;
    if (st.free_totals.of_type(control, st, t) < devices->size() + demand[t])
      return; // keep them for waiting jobs
    best = Move{c, std::move(*devices), t};
  });
  return best;
}

} // namespace

// Spreading visits, in fluid mode, only groups whose members all run (not while members are in
// transition). The test's every input changes with a mark (members and `converting`: a touch;
// `grown`: set_devices; the members' status: the job log), as refresh_spread_index needs.
bool may_spread(const View& view, const Group& g, bool exact) {
  return over_subscribed(view, g) && (exact || all_running(view, g));
}

// Brings st.spread_index up to date from the groups marked since the last call: the member a
// group would give is the newest (fluid mode) or the newest waiting for its turn (exact mode), and
// everything that decides it, or may_spread, changes with a mark.
void refresh_spread_index(const View& view, State& st, bool exact) {
  for (std::uint32_t gid : st.take_marked(view, State::kSpread)) {
    const Group* g = st.groups.find_live(gid);
    std::optional<SpreadIndex::Entry> entry;
    if (g != nullptr && may_spread(view, *g, exact)) {
      for (auto it = g->members.rbegin(); it != g->members.rend() && !entry; ++it) {
        if (exact && !is_parked(view.state(*it).status)) continue;
        entry = SpreadIndex::Entry{kind_of(view.request(*it)), {~g->members.size(), gid, *it}};
      }
    }
    st.spread_index.set(gid, entry);
  }
}

void spread(Control& control, State& st) {
  const bool exact = st.opt.exact_slices;
  if (!exact && !st.opt.migration) return;
  std::map<DeviceTypeId, std::size_t> demand = st.waiting_demand();
  for (std::size_t guard = 0; guard <= control.job_count(); ++guard) {
    if (!spare_devices(control, st, demand, false)) return;
    refresh_spread_index(control, st, exact);
    if (!spare_devices(control, st, demand, true)) return;
    std::optional<Move> move = first_move(control, st, demand);
    if (!move) return;
    const JobId pick = move->from.pick;
    Group& g = st.groups.at(move->from.gid);
    const std::vector<DeviceId>& devices = move->devices;
    const DeviceTypeId t = move->type;
    const Mode mode = g.mode;
    st.leave(pick);
    if (exact) {
      control.timeslice(pick, devices, st.opt.slice_s);
    } else {
      control.migrate(pick, devices, "leaves a shared group for free devices");
    }
    std::uint32_t ng = st.create_group(devices, control.request(pick).devices(), t, mode);
    st.join(ng, pick);
    if (exact) {
      st.groups.at(ng).active = pick;
      st.groups.at(ng).turn = 1;
    }
  }
}

void improve_locality(Control& control, State& st) {
  if (!st.opt.migration) return;
  for (std::uint32_t gid : st.groups_where(control, State::kLocality, spans_nodes)) {
    Group& g = st.groups.at(gid);
    JobId m = g.members[0];
    const JobRequest& req = control.request(m);
    std::optional<std::tuple<int, std::size_t, NodeId>> best;
    // Only a node with that many devices free in the runtime's per-node counts can hold the job
    // (the devices free here are those, less the ones a group holds or reserves): the search
    // visits those nodes, not the cluster. The minimum key does not depend on the visiting order.
    const FreeIndex& index = control.free();
    const auto need = static_cast<std::uint32_t>(g.devices.size());
    for (std::uint32_t k = need; k <= index.max_per_node(g.type); ++k) {
      for (NodeId n : index.nodes_with(g.type, k)) {
        std::size_t free = free_count(control, st, n, g.type);
        if (free < g.devices.size() || workers_by_resources(control, m, n) < req.workers) continue;
        auto key = std::make_tuple(affinity_rank(control, st, n, g.cls), free, n);
        if (!best || key < *best) best = key;
      }
    }
    if (!best) continue;
    std::vector<DeviceId> target = free_on(control, st, std::get<2>(*best), g.type);
    target.resize(g.devices.size());
    control.migrate(m, target, "to devices that suit it better");
    st.set_devices(gid, target);
  }
}

} // namespace dlsim::gandiva
