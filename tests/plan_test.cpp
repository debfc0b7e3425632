// The plan (sim/runtime/plan.h): its answers after random reserves, releases, dropped workers and
// rollbacks equal a plain recomputation from a full copy of the runtime's state, a committed
// plan is what the runtime then shows, and the placement strategies on a plan (place_in_plan)
// choose what they then choose on the runtime's state. Random clusters and traces, fixed seeds.
#include "policies/placement.h"
#include "sim/runtime/plan.h"
#include "sim/runtime/ps_placement.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"
#include "tests/support/random_cluster.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// The runtime's free state copied in full, each change applied to the copy by the ledger's rules
// (ledger.cpp) with nothing incremental: every answer read from it is a count over the cluster.
struct Naive {
  const View* view = nullptr;
  std::vector<int> holders;               // [device]
  std::vector<double> cpu, mem;           // [node]
  std::vector<std::vector<char>> dropped; // [job][worker], for jobs given a drop

  explicit Naive(const View& v) : view(&v) {
    const Cluster& c = v.cluster();
    for (DeviceId d = 0; d < c.devices.size(); ++d)
      holders.push_back(v.device(d).count);
    for (NodeId n = 0; n < c.nodes.size(); ++n) {
      cpu.push_back(v.node_cpu_free(n));
      mem.push_back(v.node_mem_free(n));
    }
    dropped.resize(v.job_count());
  }
  [[nodiscard]] bool device_free(DeviceId d) const {
    return holders[d] == 0 && !view->device_down(d);
  }
  [[nodiscard]] std::uint32_t free_on(NodeId n, DeviceTypeId t) const {
    const Node& node = view->cluster().nodes[n];
    std::uint32_t k = 0;
    for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d)
      k += view->cluster().devices[d].type == t && device_free(d) ? 1 : 0;
    return k;
  }
  [[nodiscard]] std::uint32_t free(DeviceTypeId t) const {
    std::uint32_t k = 0;
    for (NodeId n = 0; n < cpu.size(); ++n)
      k += free_on(n, t);
    return k;
  }
  [[nodiscard]] std::vector<DeviceId> kept(JobId j) const {
    const JobState& st = view->state(j);
    const std::uint32_t dpw = view->request(j).devices_per_worker;
    std::vector<DeviceId> out;
    for (std::uint32_t w = 0; w < st.workers; ++w) {
      if (dropped[j].empty() || !dropped[j][w])
        out.insert(out.end(), st.devices.begin() + std::size_t{w} * dpw,
                   st.devices.begin() + (std::size_t{w} + 1) * dpw);
    }
    return out;
  }
  void ps(JobId j, std::span<const DeviceId> devices, double sign) {
    const JobRequest& r = view->request(j);
    if (!holds_ps_cores(r) || devices.empty()) return;
    for (NodeId n : ps_nodes(view->cluster(), devices, r.devices_per_worker, view->ps(j)))
      cpu[n] += sign * view->ps_cores(j);
  }
  void reserve(JobId j, std::span<const DeviceId> devices, std::span<const NodeId> hosts) {
    const double cores = view->worker_cores(j), gb = view->details(j).mem_gb_per_worker;
    for (NodeId n : hosts) {
      cpu[n] -= cores;
      mem[n] -= gb;
    }
    const std::uint32_t dpw = view->request(j).devices_per_worker;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      ++holders[devices[i]];
      if (i % dpw == 0) {
        cpu[view->cluster().devices[devices[i]].node] -= cores;
        mem[view->cluster().devices[devices[i]].node] -= gb;
      }
    }
    ps(j, devices, -1);
  }
  void release(JobId j) {
    const double cores = view->worker_cores(j), gb = view->details(j).mem_gb_per_worker;
    for (NodeId n : view->hosts(j)) {
      cpu[n] += cores;
      mem[n] += gb;
    }
    const JobState& st = view->state(j);
    const std::uint32_t dpw = view->request(j).devices_per_worker;
    for (std::size_t i = 0; i < st.devices.size(); ++i) {
      --holders[st.devices[i]];
      if (i % dpw == 0) {
        cpu[view->cluster().devices[st.devices[i]].node] += cores;
        mem[view->cluster().devices[st.devices[i]].node] += gb;
      }
    }
    for (NodeId n : view->ps_hosts(j))
      cpu[n] += view->ps_cores(j);
  }
  void drop(JobId j, std::uint32_t w) {
    if (dropped[j].empty()) dropped[j].assign(view->state(j).workers, 0);
    if (dropped[j][w]) return;
    ps(j, kept(j), +1);
    const std::uint32_t dpw = view->request(j).devices_per_worker;
    const DeviceList& devices = view->state(j).devices;
    for (std::uint32_t i = w * dpw; i < (w + 1) * dpw; ++i)
      --holders[devices[i]];
    const NodeId n = view->cluster().devices[devices[std::size_t{w} * dpw]].node;
    cpu[n] += view->worker_cores(j);
    mem[n] += view->details(j).mem_gb_per_worker;
    dropped[j][w] = 1;
    ps(j, kept(j), -1);
  }
};

// One tentative change, kept so that the copy can be rebuilt after a rollback.
struct Op {
  enum { kReserve, kRelease, kDrop } kind;
  JobId job;
  std::vector<DeviceId> devices;
  std::vector<NodeId> hosts;
  std::uint32_t worker = 0;
};

Naive replay(const View& v, const std::vector<Op>& ops) {
  Naive n(v);
  for (const Op& op : ops) {
    if (op.kind == Op::kReserve) n.reserve(op.job, op.devices, op.hosts);
    if (op.kind == Op::kRelease) n.release(op.job);
    if (op.kind == Op::kDrop) n.drop(op.job, op.worker);
  }
  return n;
}

// Every answer of the plan against the copy's.
void compare(const Plan& plan, const Naive& naive, const View& v) {
  const Cluster& c = v.cluster();
  for (DeviceId d = 0; d < c.devices.size(); ++d)
    REQUIRE(plan.device_free(d) == naive.device_free(d));
  for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(c.types.size()); ++t) {
    REQUIRE(plan.free(t) == naive.free(t));
    for (std::uint32_t k = 1; k <= c.max_per_node(t); ++k) {
      std::vector<NodeId> listed, expected;
      plan.for_nodes_with_at_least(t, k, [&](NodeId n) {
        listed.push_back(n);
        return true;
      });
      for (NodeId n = 0; n < c.nodes.size(); ++n) {
        if (naive.free_on(n, t) >= k) expected.push_back(n);
      }
      REQUIRE(listed == expected);
      std::vector<NodeId> exactly, expected_exactly;
      plan.for_nodes_with(t, k, [&](NodeId n) {
        exactly.push_back(n);
        return true;
      });
      for (NodeId n = 0; n < c.nodes.size(); ++n) {
        if (naive.free_on(n, t) == k) expected_exactly.push_back(n);
      }
      REQUIRE(exactly == expected_exactly);
    }
  }
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(c.types.size()); ++t)
      REQUIRE(plan.free_on(n, t) == naive.free_on(n, t));
    // The plan adds its summed changes to the runtime's figure, the copy each change in turn:
    // the same sums in another order, equal to a few ulps.
    REQUIRE(std::abs(plan.cpu_free(n) - naive.cpu[n]) <= 1e-9);
    REQUIRE(std::abs(plan.mem_free(n) - naive.mem[n]) <= 1e-9);
  }
  // workers_fit of every pending job against fit.h's rule over the copy (its slack, 1e-9, absorbs
  // the sums' last bits).
  for (JobId j : v.pending_jobs()) {
    const JobRequest& r = v.request(j);
    const RequestDetails& rd = v.details(j);
    for (NodeId n = 0; n < c.nodes.size(); ++n) {
      for (DeviceTypeId t : v.compatible_types(j)) {
        std::uint32_t k =
            workers_fit(is_host_task(r) ? 0 : naive.free_on(n, t), naive.cpu[n], naive.mem[n],
                        {r.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker});
        if (is_host_task(r)) k = std::min(k, r.workers);
        REQUIRE(plan.workers_fit(j, n, t) == k);
      }
    }
  }
}

// Job j's workers on the plan's free devices (or nodes), first fit in node id order; false when
// they do not fit.
bool find_place(const Plan& plan, JobId j, std::vector<DeviceId>& devices,
                std::vector<NodeId>& hosts) {
  const View& v = plan.view();
  const JobRequest& r = v.request(j);
  devices.clear();
  hosts.clear();
  if (is_host_task(r)) {
    for (NodeId n = 0; n < v.cluster().nodes.size() && hosts.size() < r.workers; ++n) {
      const std::uint32_t k =
          std::min<std::uint32_t>(plan.workers_fit(j, n, 0), r.workers - hosts.size());
      hosts.insert(hosts.end(), k, n);
    }
    return hosts.size() == r.workers;
  }
  for (DeviceTypeId t : v.compatible_types(j)) {
    devices.clear();
    std::uint32_t left = r.workers;
    plan.for_nodes_with_at_least(t, r.devices_per_worker, [&](NodeId n) {
      const std::uint32_t k = std::min(left, plan.workers_fit(j, n, t));
      plan.take_on_node(n, t, k * r.devices_per_worker, devices);
      left -= k;
      return left > 0;
    });
    if (left == 0) return true;
  }
  return false;
}

// At each decision: random what-if changes, each compared with the copy, then rolled back; then
// the waiting jobs that fit reserved (some tried and rolled back), a worker of an elastic job
// dropped, the plan committed and its prediction compared with the runtime's state.
class Prober final : public Policy {
public:
  explicit Prober(std::uint32_t seed) : rng_(seed) {}

  void schedule(Control& control) override {
    plan_.reset(control);
    saw_down = saw_down || control.down_devices() > 0;
    std::vector<Op> ops;
    std::vector<JobId> running(control.running_jobs().begin(), control.running_jobs().end());
    std::vector<JobId> pending(control.pending_jobs().begin(), control.pending_jobs().end());
    compare(plan_, replay(control, ops), control);
    try_what_ifs(control, running, pending, ops);
    reserve_and_drop(control, running, pending, ops);
    commit_and_compare(control, ops);
  }

  // Random what-if changes (releases, drops, reserves, rollbacks to random marks), each compared
  // with the copy, then all rolled back.
  void try_what_ifs(const Control& control, const std::vector<JobId>& running,
                    const std::vector<JobId>& pending, std::vector<Op>& ops) {
    const Plan::Mark start = plan_.mark();
    std::vector<std::pair<Plan::Mark, std::size_t>> marks;
    std::vector<char> used(control.job_count(), 0);
    for (int step = 0; step < 12; ++step) {
      const int what = pick(5);
      if (what == 0) {
        marks.emplace_back(plan_.mark(), ops.size());
      } else if (what == 1 && !marks.empty()) {
        const auto [m, size] = marks[pick(static_cast<int>(marks.size()))];
        plan_.rollback(m);
        ops.resize(size);
        used.assign(used.size(), 0);
        for (const Op& op : ops)
          used[op.job] = op.kind == Op::kDrop ? 2 : 1;
        while (!marks.empty() && marks.back().second > ops.size())
          marks.pop_back();
        ++rollbacks;
      } else if (what == 2 && !running.empty()) {
        const JobId j = running[pick(static_cast<int>(running.size()))];
        if (used[j]) continue;
        used[j] = 1;
        plan_.release(j);
        ops.push_back({Op::kRelease, j, {}, {}, 0});
      } else if (what == 3 && !running.empty()) {
        const JobId j = running[pick(static_cast<int>(running.size()))];
        const JobState& st = control.state(j);
        if (used[j] == 1 || st.status != JobStatus::kRunning || st.workers < 2 ||
            is_host_task(control.request(j)))
          continue;
        used[j] = 2;
        const auto w = static_cast<std::uint32_t>(pick(static_cast<int>(st.workers)));
        plan_.drop_worker(j, w);
        ops.push_back({Op::kDrop, j, {}, {}, w});
      } else if (what == 4 && !pending.empty()) {
        const JobId j = pending[pick(static_cast<int>(pending.size()))];
        Op op{Op::kReserve, j, {}, {}, 0};
        if (used[j] || !find_place(plan_, j, op.devices, op.hosts) ||
            !plan_.try_reserve(j, op.devices, op.hosts))
          continue;
        used[j] = 1;
        ops.push_back(std::move(op));
      }
      compare(plan_, replay(control, ops), control);
    }
    plan_.rollback(start);
    ops.clear();
    compare(plan_, replay(control, ops), control);
  }

  // The waiting jobs that fit reserved (some tried and rolled back), and a worker of some
  // elastic jobs dropped.
  void reserve_and_drop(const Control& control, const std::vector<JobId>& running,
                        const std::vector<JobId>& pending, std::vector<Op>& ops) {
    for (JobId j : pending) {
      const Plan::Mark before = plan_.mark();
      Op op{Op::kReserve, j, {}, {}, 0};
      if (!find_place(plan_, j, op.devices, op.hosts)) continue;
      if (!plan_.try_reserve(j, op.devices, op.hosts)) {
        ++refused;
        continue;
      }
      ops.push_back(std::move(op));
      if (pick(4) == 0) { // an alternative tried and given up
        plan_.rollback(before);
        ops.pop_back();
      }
    }
    for (JobId j : running) {
      const JobState& st = control.state(j);
      const JobRequest& r = control.request(j);
      if (st.status != JobStatus::kRunning || st.workers <= r.min_workers || is_host_task(r) ||
          st.resizes >= 2 || pick(3) != 0)
        continue;
      plan_.drop_worker(j, st.workers - 1);
      ops.push_back({Op::kDrop, j, {}, {}, st.workers - 1});
      ++drops;
    }
  }

  // The plan committed, and what the runtime then shows compared with the plan's prediction.
  void commit_and_compare(Control& control, const std::vector<Op>& ops) {
    const Naive predicted = replay(control, ops);
    compare(plan_, predicted, control);
    // Where each strategy would put the waiting jobs left, once the plan is made ...
    std::vector<std::pair<std::size_t, std::optional<std::vector<DeviceId>>>> placed;
    const auto waiting = placeable(control);
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      const auto [j, strategy, t] = waiting[i];
      placed.emplace_back(i, place_in_plan(plan_, j, strategy, control.request(j).workers, t));
    }
    const std::size_t actions = ops.size();
    plan_.commit(control, "plan test");
    committed += actions;
    // What the runtime shows now is what the plan predicted: free devices exactly; cores and
    // memory to the fit slack (a resize gives all back and takes the kept again, another order of
    // the same sums).
    const Cluster& c = control.cluster();
    for (DeviceId d = 0; d < c.devices.size(); ++d) {
      const bool now_free = control.device(d).count == 0 && !control.device_down(d);
      REQUIRE(now_free == predicted.device_free(d));
    }
    for (NodeId n = 0; n < c.nodes.size(); ++n) {
      REQUIRE(std::abs(control.node_cpu_free(n) - predicted.cpu[n]) <= kFitSlack);
      REQUIRE(std::abs(control.node_mem_free(n) - predicted.mem[n]) <= kFitSlack);
    }
    REQUIRE(plan_.no_actions());
    // ... is where they go on the runtime's state after the commit.
    for (const auto& [i, devices] : placed) {
      const auto [j, strategy, t] = waiting[i];
      if (control.state(j).status != JobStatus::kPending) continue;
      REQUIRE(devices == place_on_type(control, j, strategy, control.request(j).workers, t));
      ++placements;
    }
  }

  // The waiting device jobs whose servers hold no cores (place_on_type also checks those), with
  // each strategy but topology-aware and each compatible type.
  static std::vector<std::tuple<JobId, Placement, DeviceTypeId>> placeable(const View& v) {
    std::vector<std::tuple<JobId, Placement, DeviceTypeId>> out;
    for (JobId j : v.pending_jobs()) {
      const JobRequest& r = v.request(j);
      if (is_host_task(r) || holds_ps_cores(r)) continue;
      for (Placement p : {Placement::kConsolidate, Placement::kSpread, Placement::kFirstFit}) {
        for (DeviceTypeId t : v.compatible_types(j))
          out.emplace_back(j, p, t);
      }
    }
    return out;
  }

  std::size_t rollbacks = 0, committed = 0, drops = 0, refused = 0, placements = 0;
  bool saw_down = false;

private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  Plan plan_;
  std::mt19937 rng_;
};

std::string random_trace(std::mt19937& rng) {
  auto in = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* cpus[] = {"0", "0.1", "1.5", "3", "7"};
  std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s,cpus_per_worker,"
                    "mem_gb_per_worker,ps,ps_cpus,min_workers,max_workers\n";
  for (int i = 0; i < 40; ++i) {
    const int workers = in(1, 4);
    const bool ps = in(0, 4) == 0;
    const bool elastic = in(0, 2) == 0;
    csv += fmt::format("j{},{},{},{},{},{},{},{},{},{},{}\n", i, in(0, 300), workers, in(1, 4),
                       in(20, 400), cpus[in(0, 4)], in(0, 3) * 5.5, ps ? in(1, 2) : 0,
                       ps ? "2" : "0", elastic ? 1 : workers, workers);
  }
  return csv;
}

} // namespace

TEST_CASE(
    "plan: answers equal a recomputation from scratch, and a commit is what the runtime shows",
    "[plan]") {
  std::mt19937 rng(20261128);
  std::size_t rollbacks = 0, committed = 0, drops = 0, down = 0, placements = 0;
  for (int round = 0; round < 30; ++round) {
    const std::string yaml = random_cluster(rng);
    const std::string csv = random_trace(rng);
    INFO(yaml << csv);
    Cluster c = cluster_from_yaml(yaml);
    Workload w = workload_from_csv(c, csv);
    // One job in six a host task (0 devices per worker, as the openb reader makes of a CPU pod).
    for (JobSpec& job : w.jobs) {
      if (std::uniform_int_distribution<int>(0, 5)(rng) == 0) job.request.devices_per_worker = 0;
    }
    Prober p(static_cast<std::uint32_t>(round));
    // Every other round with devices failing about once an hour each and nodes once in three
    // (a device down is neither free nor held), repaired in about a minute, and checkpoints
    // every minute so that every job ends.
    RuntimeConfig config;
    if (round % 2 == 1) {
      config.failures.enabled = true;
      config.failures.device = {1.0, "exponential", 1, 0.02, "exponential"};
      config.failures.node = {3.0, "exponential", 1, 0.02, "exponential"};
      config.failures.seed = static_cast<std::uint64_t>(round);
      config.failures.checkpoint_interval_s = 60;
      config.failures.checkpoint_s = 0;
    }
    Simulation sim(c, w, config, p, PolicyInfo{"prober", false});
    InvariantChecker checker;
    sim.add_observer(&checker);
    sim.run();
    checker.check_final(sim.state());
    down += sim.state().failures.down_devices > 0 || p.saw_down ? 1 : 0;
    rollbacks += p.rollbacks;
    committed += p.committed;
    drops += p.drops;
    placements += p.placements;
  }
  // The random walks did exercise each part.
  CHECK(rollbacks > 1000);
  CHECK(committed > 1000);
  CHECK(drops > 100);
  CHECK(placements > 1000);
  CHECK(down >= 10); // rounds in which the plan was asked about devices down
}

namespace {

// The example of docs/architecture.md#the-plan: the waiting jobs, first fit in node id order on
// their first compatible type, reserved while they fit, committed at once.
class FirstFitByPlan final : public Policy {
public:
  void schedule(Control& control) override {
    plan_.reset(control);
    for (JobId j : control.pending_jobs()) {
      const JobRequest& r = control.request(j);
      const DeviceTypeId t = control.compatible_types(j)[0];
      std::vector<DeviceId> devices;
      std::uint32_t left = r.workers;
      plan_.for_nodes_with_at_least(t, r.devices_per_worker, [&](NodeId n) {
        const std::uint32_t k = std::min(left, plan_.workers_fit(j, n, t));
        plan_.take_on_node(n, t, k * r.devices_per_worker, devices);
        left -= k;
        return left > 0;
      });
      if (left == 0) plan_.try_reserve(j, devices);
    }
    plan_.commit(control, "first fit");
  }

private:
  Plan plan_;
};

} // namespace

TEST_CASE("plan: the documented first fit reserves while jobs fit and commits them in one step",
          "[plan]") {
  // Two nodes of 4 V100 and 8 cores: devices 0-3 on node 0, 4-7 on node 1.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}, cpu_cores: 8}\n");
  // At 0: a (2 workers x 2 devices, 3 cores each), b (1 x 4, 1 core), c (1 x 2, 1 core).
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s,cpus_per_worker\n"
                           "a,0,2,2,100,3\n"
                           "b,0,1,4,100,1\n"
                           "c,0,1,2,50,1\n");
  FirstFitByPlan p;
  Simulation sim(c, w, RuntimeConfig{}, p, PolicyInfo{"first-fit-by-plan", false});
  InvariantChecker checker;
  sim.add_observer(&checker);
  sim.run();
  checker.check_final(sim.state());
  const auto& jobs = sim.state().jobs;
  // a: node 0 holds 4 / 2 = 2 workers by devices and floor(8 / 3) = 2 by cores: both there,
  // devices 0-3, leaving node 0 no device and 8 - 6 = 2 cores. b: node 0 has no device left (it
  // is not listed); node 1 holds its worker: devices 4-7. c: no node has 2 devices left in the
  // plan, so it waits, and all three were decided in one commit at 0 s.
  CHECK(jobs[job_named(w, "a")].first_start == 0);
  CHECK(jobs[job_named(w, "b")].first_start == 0);
  // a and b end at 100 s (+ the start cost); c starts then, on node 0's devices 0-1 (first fit).
  CHECK(jobs[job_named(w, "c")].first_start > 0);
  CHECK(jobs[job_named(w, "c")].first_start == jobs[job_named(w, "a")].end);
}
