// Failures, repairs and checkpoints (docs/failures.md): the Llama 3 defaults' arithmetic,
// Young/Daly, a hand-worked failure, drawn failures that repeat and a log that reproduces them,
// and bad failure logs.
#include "sim/runtime/failure_model.h"
#include "tests/support/harness.h"
#include "tests/support/scripted_run.h"
#include "workloads/failure_log.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

namespace {

double end_s(const RunOutput& out, const Workload& w, const std::string& name) {
  return to_seconds(out.state.jobs[job_named(w, name)].end);
}

struct Run {
  SimState state;
  RunResult result;
};

// FIFO on the cluster until `until`, without the invariant checker (fast enough for 16k GPUs).
Run run_fifo(const Cluster& c, const Workload& w, const RuntimeConfig& cfg,
             SimTime until = kNever) {
  const PolicyEntry& entry = find_policy("fifo");
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Node())};
  auto policy = entry.make(setup);
  Simulation sim(c, w, cfg, *policy, PolicyInfo{"fifo", false});
  Run r;
  r.result = sim.run(until);
  r.state = sim.state();
  return r;
}

} // namespace

TEST_CASE("the Llama 3 defaults give 419 interruptions of a 16,384-GPU job in 54 days",
          "[failures]") {
  const FailureConfig f;
  // 268 GPU, 109 node and 42 link interruptions (failure_config.h): per GPU 21,233,664 / 268 h,
  // per server 2,654,208 / 109 h and 2,654,208 / 42 h.
  CHECK(f.device.mtbf_h == Approx(79230.0896).epsilon(1e-9));
  CHECK(f.node.mtbf_h == Approx(24350.5321).epsilon(1e-9));
  CHECK(f.link.mtbf_h == Approx(63195.4286).epsilon(1e-9));
  // A job on 16,384 GPUs of 2,048 servers: 268 + 109 + 42 = 419 per 1,296 h, one every
  // 1,296 x 3,600 / 419 = 11,135.08 s (3.09 h).
  CHECK(job_mtbf_s(f, 16384, 2048) == Approx(11135.0835).epsilon(1e-8));
}

TEST_CASE("Young/Daly's checkpoint interval for the Llama 3 rate and a 60 s checkpoint",
          "[failures]") {
  const double m = job_mtbf_s(FailureConfig{}, 16384, 2048); // 11,135.08 s, above
  // Young: sqrt(2 x 60 x 11,135.08) = sqrt(1,336,210) = 1,155.95 s.
  CHECK(young_interval_s(60, m) == Approx(1155.9455).epsilon(1e-7));
  // Daly: x = 60 / (2 x 11,135.08) = 0.0026942; 1,155.95 x (1 + sqrt(x) / 3 + x / 9) - 60
  // = 1,155.95 x 1.0176014 - 60 = 1,116.29 s.
  CHECK(daly_interval_s(60, m) == Approx(1116.2915).epsilon(1e-7));
  // A checkpoint longer than twice the MTBF: checkpoint every MTBF.
  CHECK(daly_interval_s(300, 100) == 100);
}

TEST_CASE("Weibull up times have the mean MTBF, fixed repairs take exactly their time",
          "[failures]") {
  FailureProcess p{10, "weibull", 0.7, 2, "fixed"};
  Rng rng = Rng::stream(1, "test.weibull");
  double sum = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i)
    sum += draw_uptime_s(p, rng);
  // Mean 10 h = 36,000 s; Weibull(0.7)'s coefficient of variation is 1.46, so the mean of
  // 200,000 draws has a standard error of 0.33%: 2% is six of them.
  CHECK(sum / kDraws == Approx(36000).epsilon(0.02));
  CHECK(draw_repair_s(p, rng) == 7200);
}

TEST_CASE("a hand-worked failure: one 8-GPU job, checkpoints every 600 s, a GPU down 300 s",
          "[failures]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 8}}\n");
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\nJ,0,1,8,3600\n");
  RuntimeConfig cfg;
  cfg.failures.enabled = true;
  cfg.failures.checkpoint_interval_s = 600;
  cfg.failures.checkpoint_s = 30;
  cfg.costs.restart_s = 30; // a restart: 30 s + reading the checkpoint back (30 s) = 60 s
  cfg.failures.log = {FailureRecord{from_seconds(1000), 3, from_seconds(300)}}; // device:3
  RunOutput out = run_policy("fifo", c, w, cfg);
  // 0-600 runs (600 s of work), 600-630 checkpoints 600, 630-1000 runs (970). The failure at
  // 1,000 loses the 370 s since the checkpoint. No spare: the job waits for the repair at
  // 1,300, restarts 1,300-1,360, then runs 600 s and checkpoints 30 s in turn: checkpoints at
  // 1,960 (1,200 done), 2,590 (1,800), 3,220 (2,400) and 3,850 (3,000), and the last 600 s end
  // at 4,480 = 3,600 of work + 370 lost + 300 repair + 60 restart + 5 x 30 checkpoints.
  CHECK(end_s(out, w, "J") == 4480);
  const JobFailures& f = out.state.failures.jobs[job_named(w, "J")];
  CHECK(f.failures == 1);
  CHECK(to_seconds(f.lost) == 370);
  CHECK(f.checkpoints == 5);
  CHECK(to_seconds(f.ckpt_time) == 150);
  CHECK(to_seconds(f.restart_time) == 60);
  CHECK(run_time_at(out.state.jobs[job_named(w, "J")], out.state.now) == 3970); // 3,600 + 370
  // The GPU was down 300 s of the 4,480 s run on 8 GPUs.
  CHECK(out.state.failures.gpu_down_seconds == 300);
}

TEST_CASE("with a spare node the failed gang restarts at once", "[failures]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 8}}\n");
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\nJ,0,1,8,3600\n");
  RuntimeConfig cfg;
  cfg.failures.enabled = true;
  cfg.failures.checkpoint_interval_s = 600;
  cfg.failures.checkpoint_s = 30;
  cfg.costs.restart_s = 30;
  cfg.failures.log = {FailureRecord{from_seconds(1000), 3, from_seconds(300)}};
  RunOutput out = run_policy("fifo", c, w, cfg);
  // As above without the 300 s of waiting: 4,480 - 300 = 4,180, on node 1's GPUs 8-15.
  CHECK(end_s(out, w, "J") == 4180);
}

TEST_CASE("the Llama 3 defaults on 16,384 GPUs: 419 interruptions in 54 days on average",
          "[failures][slow]") {
  // 2,048 servers of 8 H100 for the job and 16 spares, so that a failed gang restarts at once
  // on healthy servers, as Llama 3's did; the job outlasts the 54 days, which are the window.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2064, devices: {H100: 8}, nvlink: true}\n");
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\nL,0,2048,8,9000000\n");
  const SimTime days54 = from_seconds(54.0 * 86400);
  double sum = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RuntimeConfig cfg;
    cfg.failures.enabled = true;
    cfg.failures.seed = seed;
    cfg.costs.restart_s = 0; // the job holds its 2,048 servers at every instant
    Run r = run_fifo(c, w, cfg, days54);
    sum += static_cast<double>(r.state.failures.jobs[0].failures);
  }
  // Poisson with mean 419 per seed: the mean of 20 has a standard deviation of 4.6.
  CHECK(sum / 20 == Approx(419).epsilon(0.10));
}

TEST_CASE("same seed, same failures, a failure log of a drawn run reproduces it exactly",
          "[failures]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 4, devices: {V100: 8}}\n");
  std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s\n";
  for (int i = 0; i < 40; ++i)
    csv += fmt::format("j{},{},1,{},{}\n", i, i * 900, 1 + i % 8, 20000 + 1000 * (i % 7));
  Workload w = workload_from_csv(c, csv);
  RuntimeConfig cfg;
  cfg.failures.enabled = true;
  cfg.failures.checkpoint_interval_s = 1800;
  cfg.failures.checkpoint_s = 20;
  // Frequent failures (a GPU every 200 h, a node or a link every 100 h) so that many jobs meet
  // some.
  cfg.failures.device.mtbf_h = 200;
  cfg.failures.node.mtbf_h = 100;
  cfg.failures.link.mtbf_h = 100;
  cfg.failures.seed = 5;
  Run a = run_fifo(c, w, cfg);
  Run b = run_fifo(c, w, cfg);
  REQUIRE(a.state.failures.happened.size() > 10);
  REQUIRE(a.state.failures.interruptions > 5);
  std::ostringstream la, lb;
  write_failure_log(la, c, a.state.failures.happened);
  write_failure_log(lb, c, b.state.failures.happened);
  CHECK(la.str() == lb.str());
  for (std::size_t j = 0; j < w.jobs.size(); ++j)
    CHECK(a.state.jobs[j].end == b.state.jobs[j].end);

  RuntimeConfig other = cfg;
  other.failures.seed = 6;
  std::ostringstream lo;
  write_failure_log(lo, c, run_fifo(c, w, other).state.failures.happened);
  CHECK(lo.str() != la.str());

  // The drawn run's failures written as a log and replayed: the same run.
  ScratchDir dir;
  std::string file = dir.write("failures.csv", la.str());
  RuntimeConfig replay = cfg;
  replay.failures.seed = 99; // not drawn: the seed no longer matters
  replay.failures.log = load_failure_log(file, c);
  Run r = run_fifo(c, w, replay);
  std::ostringstream lr;
  write_failure_log(lr, c, r.state.failures.happened);
  CHECK(lr.str() == la.str());
  CHECK(r.result.events == a.result.events);
  CHECK(r.result.end == a.result.end);
  for (std::size_t j = 0; j < w.jobs.size(); ++j) {
    CHECK(r.state.jobs[j].end == a.state.jobs[j].end);
    CHECK(r.state.failures.jobs[j].lost == a.state.failures.jobs[j].lost);
    CHECK(r.state.failures.jobs[j].failures == a.state.failures.jobs[j].failures);
  }
}

TEST_CASE("bad failure logs are refused with file:line and the column", "[failures]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}}\n");
  ScratchDir dir;
  auto error_of = [&](const std::string& text) {
    std::string file = dir.write("log.csv", text);
    try {
      load_failure_log(file, c);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(file.size());
    }
    return std::string("no error");
  };
  const std::string header = "time_s,component,duration_s\n";
  CHECK(
      load_failure_log(dir.write("ok.csv", header + "10,node:1,5\n20,device:7,1.5\n"), c).size() ==
      2);
  CHECK_THAT(error_of(header + "10,node:2,5\n"),
             Catch::StartsWith(":2: component: 'node:2' is no component of the cluster"));
  CHECK_THAT(error_of(header + "10,gpu:1,5\n"), Catch::StartsWith(":2: component:"));
  CHECK_THAT(error_of(header + "10,node:1,5\n5,node:0,5\n"),
             Catch::StartsWith(":3: time_s: 5 s is earlier than line 2's 10 s"));
  CHECK_THAT(error_of(header + "10,node:1,-5\n"), Catch::StartsWith(":2: duration_s:"));
  CHECK_THAT(error_of(header + "-1,node:1,5\n"), Catch::StartsWith(":2: time_s:"));
  CHECK_THAT(
      error_of(header + "10,link:0,50\n30,link:0,5\n"),
      Catch::StartsWith(":3: time_s: link:0 fails again before its repair at 60 s (line 2)"));
  CHECK_THAT(error_of("time_s,what,duration_s\n"),
             Catch::StartsWith(":1: the header has no column 'component'"));
}

TEST_CASE("a checkpoint timer held back while the job would finish first fires once it slows",
          "[failures][checkpoint]") {
  RuntimeConfig cfg;
  cfg.costs.switch_s = 0;
  cfg.failures.checkpoint_interval_s = 600;
  cfg.failures.checkpoint_s = 10;
  // x (500 s of work) starts alone on the GPU at 0: it would end at 500, before its checkpoint
  // at 600, so the runtime holds that timer back. y joins x's time slices at 300: each runs at
  // 1/2, so x's last 200 s would end at 700, after 600. The timer must fire at 600 as if it had
  // been queued at 0: x has done 300 + 150 = 450 s, writes for 10 s (y alone meanwhile), then
  // its last 50 s at 1/2 end at 710. y (390 s): 150 by 600, 160 by 610, 210 by 710, its last
  // 180 s alone end at 890, before its own checkpoint at 300 + 600 = 900.
  ScriptedRun s("nodes:\n  - {count: 1, devices: {V100: 1}}\n",
                "id,submit_s,workers,duration_s\nx,0,1,500\ny,0,1,390\n",
                {{0, [](Control& c) { c.timeslice(0, device_range(0, 1), 60); }},
                 {from_seconds(300), [](Control& c) { c.timeslice(1, device_range(0, 1), 60); }}},
                cfg);
  s.run();
  const SimState& st = s.sim->state();
  CHECK(st.failures.jobs[s.id("x")].checkpoints == 1);
  CHECK(st.failures.jobs[s.id("y")].checkpoints == 0);
  CHECK(s.end_s("x") == Approx(710).margin(2e-6));
  CHECK(s.end_s("y") == Approx(890).margin(2e-6));
}
