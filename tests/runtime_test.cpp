// The runtime's actions and models, driven by a scripted policy on tiny clusters. Every
// expected number is worked out in the comment above it.
#include "sim/engine/error.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

using Scripted = ScriptedRun;

constexpr const char* kOneGpu = "nodes:\n  - {count: 1, devices: {V100: 1}}\n";
constexpr const char* kTwoGpus = "nodes:\n  - {count: 1, devices: {V100: 2}}\n";
constexpr const char* kFourGpus = "nodes:\n  - {count: 1, devices: {V100: 4}}\n";

std::vector<DeviceId> devs(std::initializer_list<DeviceId> d) {
  return d;
}

} // namespace

TEST_CASE("a job alone runs for exactly its trace duration", "[runtime]") {
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s\na,7,1,100\n",
             {{7'000'000, [](Control& c) { c.start(0, devs({0})); }}});
  s.run();
  // Submitted at 7 s, started at once (start cost 0), 100 s of work at rate 1: ends at 107 s.
  CHECK(s.job("a").end == 107'000'000);
  CHECK(s.job("a").run_time == 100'000'000);
  CHECK(s.job("a").attained == Approx(100)); // 1 device x 100 s
}

TEST_CASE("suspend and resume cost their configured time", "[runtime]") {
  RuntimeConfig cfg;
  cfg.costs.suspend_s = 5;
  cfg.costs.resume_s = 3;
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s\na,0,1,100\n",
             {{0, [](Control& c) { c.start(0, devs({0})); }},
              {40'000'000, [](Control& c) { c.suspend(0); }},
              {60'000'000, [](Control& c) { c.resume(0, devs({0})); }}},
             cfg);
  s.run();
  // Runs 0-40 (40 s of work), suspending 40-45 (device held, no progress), suspended 45-60,
  // resuming 60-63, then the remaining 60 s: 63 + 60 = 123.
  CHECK(s.job("a").end == 123'000'000);
  CHECK(s.job("a").preemptions == 1);
  CHECK(s.job("a").run_time == 100'000'000);
}

TEST_CASE("migration stops progress for migrate_s and moves the job", "[runtime]") {
  RuntimeConfig cfg;
  cfg.costs.migrate_s = 10;
  Scripted s(kTwoGpus, "id,submit_s,workers,duration_s\na,0,1,100\n",
             {{0, [](Control& c) { c.start(0, devs({0})); }},
              {30'000'000, [](Control& c) { c.migrate(0, devs({1})); }}},
             cfg);
  s.run();
  // 30 s of work on device 0, migrating 30-40 on device 1, 70 s more: 40 + 70 = 110.
  CHECK(s.job("a").end == 110'000'000);
  CHECK(s.job("a").migrations == 1);
  CHECK(s.sim->state().slots[1].count == 0); // released at the end
}

TEST_CASE("resize changes the rate in proportion to the workers", "[runtime]") {
  RuntimeConfig cfg;
  cfg.costs.resize_s = 5;
  Scripted s(kFourGpus, "id,submit_s,workers,duration_s,min_workers,max_workers\ne,0,2,100,1,4\n",
             {{0,
               [](Control& c) {
                 c.start(0, devs({0, 1}));
               }},
              {20'000'000,
               [](Control& c) {
                 c.resize(0, devs({0, 1, 2, 3}));
               }}},
             cfg);
  s.run();
  // 100 s on 2 workers = 100 iterations at 1/s. By 20 s: 20 done. Resizing 20-25. On 4
  // workers the rate is 4/2 = 2 iterations/s: 80 / 2 = 40 s more: 25 + 40 = 65.
  CHECK(s.job("e").end == 65'000'000);
  CHECK(s.job("e").workers == 4);
}

TEST_CASE("packed jobs slow down by the interference model", "[runtime]") {
  // x: 100 s, y: 50 s, both with GPU utilization 0.6, packed on one GPU at t=0.
  // U = 0.6 + 0.6 = 1.2, slowdown = 1 + 2.5 * (1.2 - 0.8) = 2.0: both run at half speed.
  // y's 50 s of work takes 100 s: y ends at 100. x has done 50 s of work by then; alone, at
  // full speed, its other 50 s take 50 s: x ends at 150.
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s,gpu_util\nx,0,1,100,0.6\ny,0,1,50,0.6\n",
             {{0, [](Control& c) {
                 c.pack(0, devs({0}));
                 c.pack(1, devs({0}));
               }}});
  RunResult r = s.run();
  CHECK(s.job("y").end == 100'000'000);
  CHECK(s.job("x").end == 150'000'000);
  // x's first projected finish (200 s, at half speed) was cancelled when y left: the run ends
  // at 150 s, not at the stale event's time.
  CHECK(r.end == 150'000'000);
}

TEST_CASE("co-location below the interference onset costs nothing", "[runtime]") {
  // U = 0.3 + 0.4 = 0.7 < onset 0.8: slowdown 1. Both end at their own durations.
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s,gpu_util\nx,0,1,100,0.3\ny,0,1,60,0.4\n",
             {{0, [](Control& c) {
                 c.pack(0, devs({0}));
                 c.pack(1, devs({0}));
               }}});
  s.run();
  CHECK(s.job("x").end == 100'000'000);
  CHECK(s.job("y").end == 60'000'000);
}

TEST_CASE("a gang runs at the pace of its slowest device", "[runtime]") {
  // g has 2 workers on devices 0 and 1; h (util 0.6) packs onto device 1 only. g's util is 0.6.
  // Device 1: U = 1.2 -> slowdown 2; device 0: alone -> 1. g runs at 1/2: its 100 s of work take
  // 200 s. h (40 s of work) at 1/2 speed takes 80 s: ends at 80; after that g is alone: by 80 it
  // did 40 s of work, the other 60 s take 60 s: g ends at 140.
  Scripted s(kTwoGpus, "id,submit_s,workers,duration_s,gpu_util\ng,0,2,100,0.6\nh,0,1,40,0.6\n",
             {{0, [](Control& c) {
                 c.pack(0, devs({0, 1}));
                 c.pack(1, devs({1}));
               }}});
  s.run();
  CHECK(s.job("h").end == 80'000'000);
  CHECK(s.job("g").end == 140'000'000);
}

TEST_CASE("a duration scales by relative throughput on another device type", "[runtime]") {
  // No model: 100 s on the reference V100. On a K80 (rel_throughput 0.16) it takes
  // 100 / 0.16 = 625 s.
  Scripted s("nodes:\n  - {count: 1, devices: {K80: 1}}\n  - {count: 1, devices: {V100: 1}}\n",
             "id,submit_s,workers,duration_s\nk,0,1,100\n",
             {{0, [](Control& c) { c.start(0, devs({0})); }}});
  s.run();
  CHECK(s.job("k").end == 625'000'000);
}

TEST_CASE("a model's measured iteration times decide its speed on each device", "[runtime]") {
  // resnet50, 1000 s on the reference V100 = 1000 / t_V100 iterations; on a P100 it takes
  // iterations x t_P100 = 1000 x t_P100 / t_V100 seconds (the zoo's own ratio, not the catalog's).
  Scripted s("nodes:\n  - {count: 1, devices: {P100: 1}}\n  - {count: 1, devices: {V100: 1}}\n",
             "id,submit_s,workers,duration_s,model\nr,0,1,1000,resnet50\n",
             {{0, [](Control& c) { c.start(0, devs({0})); }}});
  s.run();
  const ModelInfo& m = zoo().models[*zoo().find("resnet50")];
  double expected = 1000 * m.iteration_time_s.at("P100") / m.iteration_time_s.at("V100");
  CHECK(to_seconds(s.job("r").end) == Approx(expected).epsilon(1e-9));
}

TEST_CASE("refused actions name the policy, the job and the reason", "[runtime][errors]") {
  auto refusal = [](const std::string& csv, std::function<void(Control&)> act) {
    Scripted s(kFourGpus, csv, {{0, std::move(act)}});
    try {
      s.run();
    } catch (const ActionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string two = "id,submit_s,workers,duration_s\na,0,1,10\nb,0,1,10\n";
  CHECK_THAT(refusal(two,
                     [](Control& c) {
                       c.start(0, devs({0}));
                       c.start(1, devs({0}));
                     }),
             Catch::Matches(
                 "policy 'script': job 'b': start refused at t=0s: device 0 is in use by job 'a'"));
  CHECK_THAT(refusal("id,submit_s,workers,duration_s\ng,0,2,10\n",
                     [](Control& c) { c.start(0, devs({0})); }),
             Catch::Contains("gang of 2 workers broken: 1 given"));
  CHECK_THAT(
      refusal(two, [](Control& c) { c.suspend(0); }),
      Catch::Contains("job 'a': suspend refused at t=0s: job is pending, not running or starting"));
  CHECK_THAT(refusal(two, [](Control& c) { c.start(0, devs({9})); }),
             Catch::Contains("device 9 does not exist"));
  CHECK_THAT(refusal(two,
                     [](Control& c) {
                       c.start(0, devs({1, 2}));
                     }),
             Catch::Contains("gang of 1 workers broken: 2 given"));
  CHECK_THAT(refusal("id,submit_s,workers,duration_s\ng,0,2,10\n",
                     [](Control& c) {
                       c.start(0, devs({1, 1}));
                     }),
             Catch::Contains("a device is listed twice"));
  CHECK_THAT(refusal("id,submit_s,workers,gpus_per_worker,duration_s\nw,0,1,2,10\n",
                     [](Control& c) {
                       c.start(0, devs({1, 2, 3}));
                     }),
             Catch::Contains("3 devices is not a whole number of workers of 2 devices"));
  RuntimeConfig one_per_device;
  one_per_device.max_jobs_per_device = 1;
  Scripted s(kFourGpus, two,
             {{0,
               [](Control& c) {
                 c.pack(0, devs({0}));
                 c.pack(1, devs({0}));
               }}},
             one_per_device);
  CHECK_THROWS_WITH(s.run(),
                    Catch::Contains("device 0 already holds 1 jobs (max_jobs_per_device = 1)"));
}

TEST_CASE("packing respects device memory", "[runtime][errors]") {
  // gpt2's footprint (zoo) twice exceeds a 16 GB V100 when it is above 8 GB.
  const ModelInfo& gpt2 = zoo().models[*zoo().find("gpt2")];
  REQUIRE(gpt2.gpu_mem_gb > 8);
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s,model\na,0,1,10,gpt2\nb,0,1,10,gpt2\n",
             {{0,
               [](Control& c) {
                 c.pack(0, devs({0}));
                 CHECK(c.check_start(1, devs({0}), true).value_or("").find("memory") !=
                       std::string::npos);
               }},
              {10'000'000, [](Control& c) { c.start(1, devs({0})); }}});
  s.run();
  CHECK(s.job("b").end == 20'000'000);
}

TEST_CASE("binding places workers one by one, the job starts only whole", "[runtime][bind]") {
  // j (2 workers, 50 s): worker 1 bound at 0, worker 2 at 10, started at 10: ends at 60.
  // Its queueing delay runs until it starts (10 s): bound devices sit idle but held.
  Scripted s(kFourGpus, "id,submit_s,workers,duration_s\nj,0,2,50\n",
             {{0, [](Control& c) { c.bind(0, devs({0})); }}, {10'000'000, [](Control& c) {
                                                                CHECK(c.state(0).status ==
                                                                      JobStatus::kBinding);
                                                                CHECK(c.device(0).count == 1);
                                                                c.bind(0, devs({1}));
                                                                c.start(0, devs({0, 1}));
                                                              }}});
  s.run();
  CHECK(s.job("j").first_start == 10'000'000);
  CHECK(s.job("j").end == 60'000'000);
}

TEST_CASE("two half-bound gangs deadlock a cluster (Kubernetes without gang scheduling)",
          "[runtime][bind]") {
  // Two 4-worker jobs on 4 GPUs, each with 2 workers bound: neither can ever complete its gang,
  // and nothing runs. The run ends with both unfinished, holding all 4 GPUs idle.
  Scripted s(kFourGpus, "id,submit_s,workers,duration_s\na,0,4,10\nb,0,4,10\n",
             {{0, [](Control& c) {
                 c.bind(0, devs({0, 1}));
                 c.bind(1, devs({2, 3}));
                 CHECK_THROWS_WITH(c.start(0, devs({0, 1, 2, 3})),
                                   Catch::Contains("device 2 is in use by job 'b'"));
               }}});
  RunResult r = s.run();
  CHECK(r.unfinished == 2);
  CHECK(s.sim->state().busy_gpus == 4);
  CHECK(s.job("a").status == JobStatus::kBinding);
  CHECK_THROWS_WITH(Scripted(kFourGpus, "id,submit_s,workers,duration_s\na,0,2,10\n",
                             {{0,
                               [](Control& c) {
                                 c.bind(0, devs({0, 1, 2}));
                               }}})
                        .run(),
                    Catch::Contains("exceed the job's 2 workers"));
}

TEST_CASE("time-sliced jobs take turns, losing one switch per slice", "[runtime][timeslice]") {
  RuntimeConfig cfg;
  cfg.costs.switch_s = 1;
  // x (100 s) and y (50 s) take turns on one GPU with 60 s slices and 1 s switches: the GPU
  // computes 59 s of every 60, shared by two, so each runs at 59/120 of its speed.
  // y's 50 s of work take 50 x 120/59 = 101.694915 s. Then x is alone at full speed: it has
  // done 50 s of work, and its other 50 s end at 151.694915 s.
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s\nx,0,1,100\ny,0,1,50\n",
             {{0,
               [](Control& c) {
                 c.timeslice(0, devs({0}), 60);
                 c.timeslice(1, devs({0}), 60);
                 CHECK_THROWS_WITH(c.timeslice(0, devs({0}), 30),
                                   Catch::Contains("not pending or suspended"));
               }}},
             cfg);
  s.run();
  CHECK(to_seconds(s.job("y").end) == Approx(50.0 * 120 / 59).margin(2e-6));
  CHECK(to_seconds(s.job("x").end) == Approx(50.0 * 120 / 59 + 50).margin(2e-6));
}

TEST_CASE("time-slicing and packing do not mix on a device", "[runtime][timeslice][errors]") {
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s\nx,0,1,100\ny,0,1,50\nz,0,1,50\n",
             {{0, [](Control& c) {
                 c.timeslice(0, devs({0}), 60);
                 CHECK_THROWS_WITH(c.pack(1, devs({0})),
                                   Catch::Contains("time-sliced: pack cannot join"));
                 CHECK_THROWS_WITH(c.timeslice(1, devs({0}), 30),
                                   Catch::Contains("sliced every 60 s, not 30 s"));
                 c.timeslice(1, devs({0}), 60);
                 c.timeslice(2, devs({0}), 60);
               }}});
  s.run();
  // Three jobs share: each at (59/60)/3 = 59/180. y and z (50 s) end together at
  // 50 x 180/59 = 152.542373 s; x has done 50 s by then and ends 50 s later.
  CHECK(to_seconds(s.job("z").end) == Approx(50.0 * 180 / 59).margin(2e-6));
  CHECK(to_seconds(s.job("x").end) == Approx(50.0 * 180 / 59 + 50).margin(2e-6));
}

TEST_CASE("cancel stops a job for good and frees its devices", "[runtime][cancel]") {
  // a runs 0-30 and is cancelled at 30: it ends cancelled at 30; b, waiting for the only GPU,
  // starts at 30 and runs its 20 s: ends at 50. The run has no unfinished job.
  Scripted s(kOneGpu, "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,20\n",
             {{0, [](Control& c) { c.start(0, devs({0})); }},
              {30'000'000, [](Control& c) {
                 c.cancel(0);
                 c.start(1, devs({0}));
                 CHECK_THROWS_WITH(c.cancel(0), Catch::Contains("job is cancelled"));
               }}});
  RunResult r = s.run();
  CHECK(s.job("a").status == JobStatus::kCancelled);
  CHECK(s.job("a").end == 30'000'000);
  CHECK(s.job("a").run_time == 30'000'000);
  CHECK(s.job("b").end == 50'000'000);
  CHECK(r.unfinished == 0);
}

TEST_CASE("the runtime's job lists follow arrivals, starts, preemptions and finishes",
          "[runtime][lists]") {
  // Two GPUs; a (100 s) and b (50 s) arrive at 0, c (30 s) at 10. Actions cost nothing.
  RuntimeConfig cfg;
  cfg.costs.start_s = cfg.costs.suspend_s = cfg.costs.resume_s = 0;
  std::vector<std::vector<JobId>> pending;
  std::vector<std::vector<JobId>> running;
  auto record = [&](const View& v) {
    pending.emplace_back(v.pending_jobs().begin(), v.pending_jobs().end());
    running.emplace_back(v.running_jobs().begin(), v.running_jobs().end());
  };
  Scripted s(kTwoGpus, "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,50\nc,10,1,30\n",
             {{0,
               [&](Control& c) {
                 record(c); // [a b] waiting in arrival order
                 c.start(1, devs({1}));
                 record(c); // b started
               }},
              {10'000'000,
               [&](Control& c) {
                 record(c);    // c arrived behind a
                 c.suspend(1); // suspend_s = 0: b is suspended at once, back of the queue
                 c.start(0, devs({1}));
                 record(c);
               }},
              {20'000'000,
               [&](Control& c) {
                 c.start(2, devs({0}));
                 record(c);
               }},
              {60'000'000, [&](Control& c) { c.resume(1, devs({0})); }}},
             cfg);
  s.run();
  using Ids = std::vector<JobId>;
  REQUIRE(pending.size() == 5);
  CHECK(pending[0] == Ids{0, 1});
  CHECK(running[0].empty());
  CHECK(pending[1] == Ids{0});
  CHECK(running[1] == Ids{1});
  CHECK(pending[2] == Ids{0, 2});
  CHECK(pending[3] == Ids{2, 1}); // a started, b re-entered behind c
  CHECK(running[3] == Ids{0});
  CHECK(pending[4] == Ids{1});
  CHECK(running[4] == Ids{0, 2});
  // c runs 20-50; b ran 0-10 (10 s of its 50) and resumes at 60: 60 + 40 = 100; a runs
  // 10-110. So they end c, b, a.
  CHECK(s.job("c").end == 50'000'000);
  CHECK(s.job("b").end == 100'000'000);
  CHECK(s.job("a").end == 110'000'000);
  const auto& lists = s.sim->state().lists;
  Ids finished(lists.range(JobList::kOver).begin(), lists.range(JobList::kOver).end());
  CHECK(finished == Ids{2, 1, 0});
  CHECK(lists.range(JobList::kPending).empty());
  CHECK(lists.range(JobList::kRunning).empty());
}
