// What Gandiva keeps between decisions instead of computing it afresh at each one
// (policies/gandiva/state.h: the waiting demand, the free devices per type, the movable groups and
// their index, the spreading candidates by kind), compared after every decision of random
// overloaded replays with the plain computation over every group, node and waiting job.
#include "policies/gandiva/affinity.h"
#include "policies/gandiva/migration.h"
#include "policies/gandiva/plan_index.h"
#include "policies/registry.h"
#include "sim/cli/policy_setup.h"
#include "tests/support/harness.h"
#include "workloads/build_workload.h"
#include "workloads/gen_trace.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <sstream>
#include <tuple>
#include <vector>

using namespace dlsim;
using namespace dlsim::gandiva;
using namespace dlsim::test;

namespace {

std::size_t decisions = 0;

void check_demand(const View& view, const State& st) {
  std::map<DeviceTypeId, std::size_t> plain;
  for (const auto& [seq, j] : st.waiting)
    for (DeviceTypeId t : view.compatible_types(j))
      plain[t] += view.request(j).devices();
  for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(view.cluster().types.size()); ++t) {
    auto kept = st.waiting_demand().find(t);
    auto want = plain.find(t);
    REQUIRE((kept == st.waiting_demand().end() ? 0 : kept->second) ==
            (want == plain.end() ? 0 : want->second));
  }
}

void check_free(const View& view, State& st) {
  for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(view.cluster().types.size()); ++t) {
    std::size_t plain = 0;
    for (NodeId n = 0; n < view.cluster().nodes.size(); ++n)
      plain += free_count(view, st, n, t);
    REQUIRE(st.free_totals.of_type(view, st, t) == plain);
  }
}

void check_leavable(const View& view, State& st, const std::vector<std::uint32_t>& movable);

void check_movable(const View& view, State& st) {
  std::vector<std::uint32_t> plain;
  for (const auto& [gid, g] : st.groups)
    if (movable(view, st.opt, g)) plain.push_back(gid);
  refresh_movable_index(view, st);
  check_leavable(view, st, plain);
  // The index as each plan built it: (node, members, devices, id) sorted per type, and the
  // joinable ones by (class, devices, members, id).
  for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(view.cluster().types.size()); ++t) {
    std::vector<std::tuple<NodeId, std::size_t, std::size_t, std::uint32_t>> rows;
    for (std::uint32_t gid : plain) {
      const Group& g = st.groups.at(gid);
      if (g.type == t)
        rows.emplace_back(view.cluster().devices[g.devices[0]].node, g.members.size(),
                          g.devices.size(), gid);
    }
    std::sort(rows.begin(), rows.end());
    std::vector<std::tuple<NodeId, std::size_t, std::size_t, std::uint32_t>> index;
    for (NodeId n = 0; n < view.cluster().nodes.size(); ++n)
      for (const auto& e : st.movable_index.on_node(t, n))
        index.emplace_back(n, e.members, e.devices, e.gid);
    REQUIRE(index == rows);
    for (std::uint32_t gid : plain) {
      const Group& g = st.groups.at(gid);
      std::vector<std::uint32_t> join_plain;
      std::vector<std::pair<std::size_t, std::uint32_t>> by_load;
      for (std::uint32_t tid : plain) {
        const Group& tg = st.groups.at(tid);
        if (tg.type == t && tg.mode == Mode::kSlice && tg.cls == g.cls &&
            tg.devices.size() == g.devices.size() &&
            tg.members.size() < view.config().max_timeslice_jobs)
          by_load.emplace_back(tg.members.size(), tid);
      }
      std::sort(by_load.begin(), by_load.end());
      join_plain.reserve(join_plain.size() + by_load.size());
      for (const auto& [members, tid] : by_load)
        join_plain.push_back(tid);
      std::vector<std::uint32_t> join_kept;
      for (const auto& e :
           st.movable_index.joinable(t, g.cls, static_cast<std::uint32_t>(g.devices.size())))
        join_kept.push_back(e.gid);
      REQUIRE(join_kept == join_plain);
    }
  }
}

// What moving the movable groups off each node could free (PlanIndex::leavable_on, kept between
// plans in State::leavable_index), against the walk over the groups themselves: a group may
// leave when another node has as many free devices as it holds, or (merging, time-sliced) a
// joinable group of its class and size on another node has room for its members. And the nodes
// a plan visits (PlanIndex::nodes_reaching): those whose free and leavable devices reach a bound.
// The kept bounds are brought up to date only at some decisions, as plans are made only at some,
// so that one refresh reads the changes of several decisions.
void check_leavable(const View& view, State& st, const std::vector<std::uint32_t>& movable) {
  static std::mt19937 skip(7);
  if (skip() % 3 == 0) return;
  const std::size_t room = view.config().max_timeslice_jobs;
  const std::size_t nodes = view.cluster().nodes.size();
  for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(view.cluster().types.size()); ++t) {
    st.leavable_index.refresh(view, st, t);
    std::vector<std::size_t> free(nodes);
    for (NodeId m = 0; m < nodes; ++m)
      free[m] = free_on(view, st, m, t).size();
    for (bool merge : {false, true}) {
      PlanIndex index(view, st, t, merge);
      std::vector<std::size_t> bound(nodes);
      for (NodeId m = 0; m < nodes; ++m) {
        std::size_t plain = 0;
        for (std::uint32_t gid : movable) {
          const Group& g = st.groups.at(gid);
          if (g.type != t || view.cluster().devices[g.devices[0]].node != m) continue;
          bool may_leave = false;
          for (NodeId o = 0; o < nodes; ++o)
            may_leave |= o != m && free[o] >= g.devices.size();
          for (std::uint32_t tid : movable) {
            const Group& tg = st.groups.at(tid);
            may_leave |= merge && g.mode == Mode::kSlice && tg.mode == Mode::kSlice &&
                         tg.type == t && tg.cls == g.cls && tg.devices.size() == g.devices.size() &&
                         view.cluster().devices[tg.devices[0]].node != m &&
                         tg.members.size() < room && tg.members.size() + g.members.size() <= room;
          }
          if (may_leave) plain += g.devices.size();
        }
        REQUIRE(index.leavable_on(m) == plain);
        bound[m] = free[m] + plain;
      }
      for (std::size_t least = 1; least <= 9; ++least) {
        std::vector<NodeId> reaching;
        for (NodeId m = 0; m < nodes; ++m)
          if (bound[m] >= least) reaching.push_back(m);
        REQUIRE(index.nodes_reaching(least) == reaching);
      }
    }
  }
}

// Each kind's first candidate: the first group, most members first and then by id, that
// may_spread passes and whose member to move is of that kind.
void check_spread(const View& view, State& st) {
  const bool exact = st.opt.exact_slices;
  refresh_spread_index(view, st, exact);
  std::map<JobKind, std::tuple<std::uint64_t, std::uint32_t, JobId>> plain;
  for (const auto& [gid, g] : st.groups) {
    if (!may_spread(view, g, exact)) continue;
    for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
      if (exact && !is_parked(view.state(*it).status)) continue;
      auto key = std::make_tuple(~std::uint64_t{g.members.size()}, gid, *it);
      auto [at, fresh] = plain.emplace(kind_of(view.request(*it)), key);
      if (!fresh && key < at->second) at->second = key;
      break;
    }
  }
  std::map<JobKind, std::tuple<std::uint64_t, std::uint32_t, JobId>> kept;
  st.spread_index.for_each_first([&](const JobKind& kind, const SpreadIndex::Candidate& c) {
    kept.emplace(kind, std::make_tuple(c.fewer, c.gid, c.pick));
  });
  REQUIRE(kept == plain);
}

void probe(const View& view, State& st) {
  ++decisions;
  check_demand(view, st);
  check_free(view, st);
  check_movable(view, st);
  check_spread(view, st);
}

void replay(const std::string& cluster_yaml, const std::string& csv, const std::string& params) {
  Cluster cluster = cluster_from_yaml(cluster_yaml);
  Workload workload = workload_from_csv(cluster, csv);
  const PolicyEntry& entry = find_policy("gandiva");
  auto policy = entry.make(make_policy_setup(entry, Placement::kConsolidate, YAML::Load(params)));
  RuntimeConfig config;
  config.costs.migrate_s = 1;
  Simulation sim(cluster, workload, config, *policy, PolicyInfo{"gandiva", entry.oracle});
  RunResult result = sim.run();
  REQUIRE(result.unfinished == 0);
}

} // namespace

TEST_CASE("gandiva's kept state equals the plain computation after every decision",
          "[gandiva][gandiva-index]") {
  decision_probe = probe;
  std::mt19937 rng(1128);
  for (int instance = 0; instance < 24; ++instance) {
    std::ostringstream csv;
    GenTraceOptions g;
    g.jobs = 60 + rng() % 120;
    g.seed = rng();
    // Hundreds of jobs an hour on a few nodes: queues stand, groups time-slice and spread.
    g.arrival_rate_per_hour = 100 + rng() % 900;
    g.max_duration_s = 20000;
    g.gpu_sizes = {1, 2, 4, 8};
    g.gpu_weights = {10, 3, 3, 1};
    generate_trace(g, csv);
    const int nodes = 2 + static_cast<int>(rng() % 4);
    const int per_node = 8; // gen-trace's 8-GPU jobs are one worker of 8
    std::string cluster = "nodes:\n  - {count: " + std::to_string(nodes) +
                          ", devices: {V100: " + std::to_string(per_node) + "}}\n";
    if (rng() % 3 == 0) cluster += "  - {count: 2, devices: {K80: 8}}\n";
    const char* params = rng() % 4 == 0 ? "{exact_slices: true}" : "{}";
    INFO("instance " << instance << ", cluster " << cluster << ", params " << params);
    replay(cluster, csv.str(), params);
  }
  decision_probe = nullptr;
  CHECK(decisions > 1000);
}
