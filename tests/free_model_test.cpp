// The placement check's model (policies/free_model.h): after any sequence of released sets and
// trials of takes rolled back, it holds what a fresh model holds after the same fixed releases,
// the set released in id order and the same takes, bit for bit, and its takes answer alike; and
// both equal a plain model of full arrays whose takes search every node.
// Random clusters and traces (CPUs of 0.1 cores among them, whose sums depend on their order),
// fixed seeds.
#include "policies/free_model.h"
#include "policies/placement.h"
#include "sim/cluster/fit.h"
#include "tests/support/harness.h"
#include "tests/support/random_cluster.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Every count the model holds, CPUs and memory as bits.
std::vector<std::uint64_t> snapshot(const FreeModel& m, const View& v) {
  std::vector<std::uint64_t> out;
  const Cluster& c = v.cluster();
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    for (std::size_t t = 0; t < c.types.size(); ++t)
      out.push_back(static_cast<std::uint64_t>(m.free_dev(n, static_cast<DeviceTypeId>(t))));
    out.push_back(std::bit_cast<std::uint64_t>(m.cpu_free(n)));
    out.push_back(std::bit_cast<std::uint64_t>(m.mem_free(n)));
  }
  return out;
}

// The same model with nothing incremental: every node's free devices, and its CPUs and memory
// as the runtime's plus a change summed in the same order, in full arrays; a take searches every
// node by the rule FreeModel documents (best fit on one node by fewest free devices then lowest
// id, else the nodes with most free devices first, then lowest id).
struct Plain {
  const View* v = nullptr;
  std::size_t types = 0;
  std::vector<std::int64_t> dev; // [node * types + type]
  std::vector<double> dcpu, dmem;

  explicit Plain(const View& view) : v(&view), types(view.cluster().types.size()) {
    const std::size_t nodes = view.cluster().nodes.size();
    for (NodeId n = 0; n < nodes; ++n) {
      for (std::size_t t = 0; t < types; ++t)
        dev.push_back(view.free().free_on(n, static_cast<DeviceTypeId>(t)));
    }
    dcpu.assign(nodes, 0.0);
    dmem.assign(nodes, 0.0);
  }
  void release(JobId j) {
    const JobState& st = v->state(j);
    const RequestDetails& rd = v->details(j);
    const std::uint32_t per = v->request(j).devices_per_worker;
    for (std::size_t i = 0; i < st.devices.size(); ++i) {
      const Device& d = v->cluster().devices[st.devices[i]];
      ++dev[d.node * types + d.type];
      if (i % per == 0 && (rd.cpus_per_worker != 0 || rd.mem_gb_per_worker != 0)) {
        dcpu[d.node] += rd.cpus_per_worker;
        dmem[d.node] += rd.mem_gb_per_worker;
      }
    }
  }
  [[nodiscard]] std::uint32_t fit(const JobRequest& r, NodeId n, std::size_t t) const {
    const std::int64_t free = dev[n * types + t];
    if (free <= 0) return 0;
    const RequestDetails& rd = v->details_of(r);
    auto k = static_cast<std::uint32_t>(free / r.devices_per_worker);
    k = std::min(k, workers_in(v->node_cpu_free(n) + dcpu[n], rd.cpus_per_worker));
    return std::min(k, workers_in(v->node_mem_free(n) + dmem[n], rd.mem_gb_per_worker));
  }
  void put(const JobRequest& r, NodeId n, std::size_t t, std::uint32_t w) {
    const RequestDetails& rd = v->details_of(r);
    dev[n * types + t] -= static_cast<std::int64_t>(w) * r.devices_per_worker;
    dcpu[n] += -(w * rd.cpus_per_worker);
    dmem[n] += -(w * rd.mem_gb_per_worker);
  }
  bool take(JobId j) {
    const JobRequest& r = v->request(j);
    const std::size_t nodes = dcpu.size();
    for (DeviceTypeId t : v->compatible_types(j)) {
      std::int64_t total = 0;
      for (NodeId n = 0; n < nodes; ++n)
        total += dev[n * types + t];
      if (total < static_cast<std::int64_t>(r.workers) * r.devices_per_worker) continue;
      std::int64_t best = -1;
      for (NodeId n = 0; n < nodes; ++n) {
        if (fit(r, n, t) >= r.workers &&
            (best < 0 || dev[n * types + t] < dev[static_cast<std::size_t>(best) * types + t]))
          best = n;
      }
      if (best >= 0) {
        put(r, static_cast<NodeId>(best), t, r.workers);
        return true;
      }
      if (r.workers == 1) continue;
      std::vector<NodeId> order;
      std::uint64_t fits = 0;
      for (NodeId n = 0; n < nodes; ++n) {
        if (fit(r, n, t) > 0) order.push_back(n);
        fits += fit(r, n, t);
      }
      if (fits < r.workers) continue;
      std::stable_sort(order.begin(), order.end(),
                       [&](NodeId a, NodeId b) { return dev[a * types + t] > dev[b * types + t]; });
      std::uint32_t left = r.workers;
      std::vector<std::uint32_t> w;
      for (NodeId n : order)
        w.push_back(std::min(left, fit(r, n, t))), left -= w.back();
      for (std::size_t k = 0; k < order.size(); ++k) {
        if (w[k] > 0) put(r, order[k], t, w[k]);
      }
      return true;
    }
    return false;
  }
  [[nodiscard]] std::vector<std::uint64_t> snapshot() const {
    std::vector<std::uint64_t> out;
    for (NodeId n = 0; n < dcpu.size(); ++n) {
      for (std::size_t t = 0; t < types; ++t)
        out.push_back(static_cast<std::uint64_t>(dev[n * types + t]));
      out.push_back(std::bit_cast<std::uint64_t>(v->node_cpu_free(n) + dcpu[n]));
      out.push_back(std::bit_cast<std::uint64_t>(v->node_mem_free(n) + dmem[n]));
    }
    return out;
  }
};

// Where two snapshots first differ (an index into them), or -1 when they are equal.
long first_difference(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) return static_cast<long>(i);
  }
  return a.size() == b.size() ? -1 : static_cast<long>(std::min(a.size(), b.size()));
}

// At each decision: some holders released for good, then rounds that each release a random
// set of the other holders and try random takes, the incremental model against a fresh one;
// then the waiting jobs that fit started, and now and then a holder suspended.
class Prober final : public Policy {
public:
  explicit Prober(std::uint32_t seed) : rng_(seed) {}

  void schedule(Control& control) override {
    std::vector<JobId> holders;
    for (JobId j : control.running_jobs()) {
      if (!control.state(j).devices.empty()) holders.push_back(j);
    }
    std::vector<JobId> pending(control.pending_jobs().begin(), control.pending_jobs().end());
    std::shuffle(holders.begin(), holders.end(), rng_);
    const std::size_t fixed = holders.empty() ? 0 : pick(static_cast<int>(holders.size()) / 3 + 1);
    incremental_.reset(control);
    for (std::size_t k = 0; k < fixed; ++k)
      incremental_.release(holders[k]);
    const std::vector<JobId> others(holders.begin() + static_cast<std::ptrdiff_t>(fixed),
                                    holders.end());
    for (int round = 0; round < 4; ++round) {
      if (round > 0) incremental_.rollback();
      std::vector<JobId> set;
      for (JobId j : others) {
        if (pick(3) != 0) set.push_back(j);
      }
      incremental_.release_set(set);
      fresh_.reset(control);
      for (std::size_t k = 0; k < fixed; ++k)
        fresh_.release(holders[k]);
      std::sort(set.begin(), set.end());
      for (JobId j : set)
        fresh_.release(j);
      REQUIRE(first_difference(snapshot(incremental_, control), snapshot(fresh_, control)) == -1);
      Plain plain(control);
      for (std::size_t k = 0; k < fixed; ++k)
        plain.release(holders[k]);
      for (JobId j : set)
        plain.release(j);
      REQUIRE(first_difference(snapshot(fresh_, control), plain.snapshot()) == -1);
      incremental_.begin_trial();
      try_takes(control, pending, plain);
      ++rounds;
    }
    start_and_suspend(control, holders, pending);
  }

  std::size_t rounds = 0, takes = 0, taken = 0;

private:
  // The same takes on both models: the same answers and the same state after each.
  void try_takes(const Control& control, const std::vector<JobId>& pending, Plain& plain) {
    for (JobId j : pending) {
      if (is_host_task(control.request(j)) || pick(2) == 0) continue;
      const bool a = incremental_.take(j);
      const bool b = fresh_.take(j);
      REQUIRE(a == b);
      REQUIRE(plain.take(j) == a);
      REQUIRE(first_difference(snapshot(incremental_, control), snapshot(fresh_, control)) == -1);
      REQUIRE(first_difference(snapshot(fresh_, control), plain.snapshot()) == -1);
      ++takes;
      taken += a ? 1 : 0;
    }
  }
  void start_and_suspend(Control& control, const std::vector<JobId>& holders,
                         const std::vector<JobId>& pending) {
    for (JobId j : holders) {
      if (pick(8) == 0 && control.state(j).status == JobStatus::kRunning)
        control.suspend(j, "probe");
    }
    for (JobId j : pending) {
      auto devices = place(control, j, Placement::kConsolidate);
      if (!devices) continue;
      if (control.state(j).status == JobStatus::kSuspended)
        control.resume(j, *devices);
      else
        control.start(j, *devices);
    }
  }
  std::size_t pick(int n) {
    return static_cast<std::size_t>(std::uniform_int_distribution<int>(0, n - 1)(rng_));
  }

  FreeModel incremental_, fresh_;
  std::mt19937 rng_;
};

// CPUs and memory per worker exact in binary or not (0.1, 0.3): every other round only exact
// ones, so that both ways of changing the released set are taken.
std::string random_trace(std::mt19937& rng, bool exact) {
  auto in = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* cpus[] = {"0", "1.5", "3", "7", "0.1"};
  const char* mem[] = {"0", "5.5", "16", "0.3"};
  std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s,cpus_per_worker,"
                    "mem_gb_per_worker\n";
  for (int i = 0; i < 60; ++i) {
    csv += fmt::format("j{},{},{},{},{},{},{}\n", i, in(0, 300), in(1, 4), in(1, 4), in(20, 400),
                       cpus[in(0, exact ? 3 : 4)], mem[in(0, exact ? 2 : 3)]);
  }
  return csv;
}

} // namespace

TEST_CASE("free model: released sets changed by difference and trials rolled back equal a "
          "fresh model, bit for bit",
          "[free_model]") {
  std::mt19937 rng(20261129);
  std::size_t rounds = 0, takes = 0, taken = 0;
  for (int run = 0; run < 40; ++run) {
    const std::string yaml = random_cluster(rng);
    const std::string csv = random_trace(rng, run % 2 == 0);
    INFO(yaml << csv);
    Cluster c = cluster_from_yaml(yaml);
    Workload w = workload_from_csv(c, csv);
    Prober p(static_cast<std::uint32_t>(run));
    Simulation sim(c, w, RuntimeConfig{}, p, PolicyInfo{"prober", true});
    sim.run();
    rounds += p.rounds;
    takes += p.takes;
    taken += p.taken;
  }
  // The random runs did exercise each part.
  CHECK(rounds > 1000);
  CHECK(takes > 1000);
  CHECK(taken > 100);
  CHECK(taken < takes);
}
