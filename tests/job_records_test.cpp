// The compact job record (sim/runtime/job.h, device_list.h,
// docs/performance.md#what-the-loop-holds-per-job): a job's devices in 8 bytes, kept right through
// every action that changes them; the time a job ran alone, kept as its run time less the time it
// ran crowded; the shards set_ps gave, kept aside.
#include "sim/runtime/device_list.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

#include <utility>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

std::vector<DeviceId> devs(std::initializer_list<DeviceId> d) {
  return d;
}

RuntimeConfig free_actions() {
  RuntimeConfig cfg;
  cfg.costs.start_s = 0;
  cfg.costs.suspend_s = 0;
  cfg.costs.resume_s = 0;
  cfg.costs.migrate_s = 0;
  cfg.costs.resize_s = 0;
  return cfg;
}

} // namespace

TEST_CASE("a device list keeps one device in place and more in a block of their own",
          "[runtime][records]") {
  DeviceList l;
  CHECK(l.empty());
  CHECK(l.is_inline());
  l.assign(devs({7}));
  CHECK(l.size() == 1);
  CHECK(l.is_inline());
  CHECK(l.front() == 7);
  l.append(devs({3, 9}));
  CHECK(l == devs({7, 3, 9}));
  CHECK_FALSE(l.is_inline());
  CHECK(l.back() == 9);
  CHECK(l[1] == 3);

  // A copy has its own block: changing the original leaves it as it was.
  DeviceList copy = l;
  l.assign(devs({1, 2}));
  CHECK(copy == devs({7, 3, 9}));
  CHECK(l == devs({1, 2}));

  // A move hands the block over and leaves the source empty.
  DeviceList moved = std::move(copy);
  CHECK(moved == devs({7, 3, 9}));
  CHECK(copy.empty()); // NOLINT(bugprone-use-after-move): what a move leaves is specified
  CHECK(copy.is_inline());

  // Back to one device: in place again; device 0 is a device like any other.
  moved.assign(devs({0}));
  CHECK(moved.is_inline());
  CHECK(moved == devs({0}));
  CHECK(std::vector<DeviceId>(moved.begin(), moved.end()) == devs({0}));
  moved.clear();
  CHECK(moved.empty());
  // Assigning a list its own devices leaves them.
  l.assign(l);
  CHECK(l == devs({1, 2}));
  // A part of its own devices: the first of {5, 6, 8} is {5}, the last two {6, 8}.
  l.assign(devs({5, 6, 8}));
  l.assign(std::span<const DeviceId>(l).first(1));
  CHECK(l == devs({5}));
  CHECK(l.is_inline());
  l.assign(devs({5, 6, 8}));
  l.assign(std::span<const DeviceId>(l).last(2));
  CHECK(l == devs({6, 8}));
}

TEST_CASE("a job keeps the right devices through start, suspend, resume, migrate and resize",
          "[runtime][records]") {
  // One node of 4 GPUs (0-3). Job e: 2 workers, elastic from 1 to 4, 100 s of work on 2 workers.
  // Every action costs nothing, so each step sees the previous one's devices.
  ScriptedRun s("nodes:\n  - {count: 1, devices: {V100: 4}}\n",
                "id,submit_s,workers,duration_s,min_workers,max_workers\ne,0,2,100,1,4\n",
                {{0,
                  [](Control& c) {
                    c.start(0, devs({0, 1}));
                  }},
                 {10'000'000,
                  [](Control& c) {
                    CHECK(c.state(0).devices == devs({0, 1}));
                    c.suspend(0);
                  }},
                 {20'000'000,
                  [](Control& c) {
                    CHECK(c.state(0).devices.empty());
                    c.resume(0, devs({3, 2}));
                  }},
                 {30'000'000,
                  [](Control& c) {
                    CHECK(c.state(0).devices == devs({3, 2})); // in the order given
                    c.migrate(0, devs({0, 1}));
                  }},
                 {40'000'000,
                  [](Control& c) {
                    CHECK(c.state(0).devices == devs({0, 1}));
                    c.resize(0, devs({2}));
                  }},
                 {50'000'000,
                  [](Control& c) {
                    CHECK(c.state(0).devices == devs({2}));
                    CHECK(c.state(0).devices.is_inline());
                    c.resize(0, devs({2, 0, 1}));
                  }},
                 {60'000'000,
                  [](Control& c) {
                    CHECK(c.state(0).devices == devs({2, 0, 1}));
                    CHECK(c.state(0).workers == 3);
                  }}},
                free_actions());
  s.run();
  const JobState& e = s.job("e");
  CHECK(e.devices.empty()); // released at the finish
  CHECK(e.preemptions == 1);
  CHECK(e.migrations == 1);
  CHECK(e.resizes == 2);
  CHECK(e.workers == 3); // the last allocation's, for jobs.csv
  // 100 iterations at 1/s on 2 workers (0.5/s a worker): 0-10 s 10 done, suspended 10-20,
  // 20-40 s 20 more (30), 40-50 s on 1 worker 5 more (35), from 50 s on 3 workers at 1.5/s: 65
  // left take 43.33 s, so the finish is at 93.33 s.
  CHECK(to_seconds(e.end) == Approx(50 + 65 / 1.5).margin(1e-6));
}

TEST_CASE("time alone is the run time less the time run with another job on a device",
          "[runtime][records]") {
  // One GPU. a and b are packed on it (max_jobs_per_device is 2 by default): a from 0 s, b
  // from 10 s; b is suspended at 20 s and packed again at 40 s; a is suspended at 50 s. Both have
  // 1,000 s of work, so neither finishes meanwhile.
  ScriptedRun s("nodes:\n  - {count: 1, devices: {V100: 1}}\n",
                "id,submit_s,workers,duration_s\na,0,1,1000\nb,0,1,1000\n",
                {{0, [](Control& c) { c.pack(0, devs({0})); }},
                 {10'000'000,
                  [](Control& c) {
                    // a ran alone 0-10 s.
                    CHECK(c.alone_time(0) == 10'000'000);
                    CHECK(c.running_alone(0));
                    c.pack(1, devs({0}));
                  }},
                 {20'000'000,
                  [](Control& c) {
                    // 10-20 s both ran: a's time alone stays 10 s, b's is 0; neither runs alone.
                    CHECK(c.alone_time(0) == 10'000'000);
                    CHECK(c.alone_time(1) == 0);
                    CHECK_FALSE(c.running_alone(0));
                    CHECK_FALSE(c.running_alone(1));
                    c.suspend(1);
                  }},
                 {40'000'000,
                  [](Control& c) {
                    // a alone again from 20 s: 10 + 20 = 30 s; b, suspended, ran 10 s and none
                    // alone.
                    CHECK(c.alone_time(0) == 30'000'000);
                    CHECK(c.running_alone(0));
                    CHECK(c.alone_time(1) == 0);
                    CHECK_FALSE(c.running_alone(1));
                    c.pack(1, devs({0})); // resumed, packed again
                  }},
                 {50'000'000,
                  [](Control& c) {
                    // Together 40-50 s: no change to either.
                    CHECK(c.alone_time(0) == 30'000'000);
                    CHECK(c.alone_time(1) == 0);
                    c.suspend(0);
                  }},
                 {60'000'000,
                  [](Control& c) {
                    // b alone from 50 s: 10 s; a, suspended, keeps its 30 s.
                    CHECK(c.alone_time(1) == 10'000'000);
                    CHECK(c.running_alone(1));
                    CHECK(c.alone_time(0) == 30'000'000);
                    CHECK_FALSE(c.running_alone(0));
                    c.cancel(0);
                    c.cancel(1);
                  }}},
                free_actions());
  s.run();
  // Both were crowded at some time, so both have an entry aside; the checker compared the rest.
  CHECK(s.sim->state().extras.size() == 2);
  CHECK(s.sim->state().alone_time(0) == 30'000'000);
  CHECK(s.sim->state().alone_time(1) == 10'000'000);
}

TEST_CASE("a job that ran alone throughout has no entry aside", "[runtime][records]") {
  ScriptedRun s("nodes:\n  - {count: 1, devices: {V100: 2}}\n",
                "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,50\n",
                {{0,
                  [](Control& c) {
                    c.start(0, devs({0}));
                    c.start(1, devs({1}));
                  }}},
                free_actions());
  s.run();
  // Each alone on its GPU for its whole run: time alone = run time, nothing kept aside.
  CHECK(s.sim->state().extras.empty());
  CHECK(s.sim->state().alone_time(0) == 100'000'000);
  CHECK(s.sim->state().alone_time(1) == 50'000'000);
}

TEST_CASE("a time-sliced job keeps nothing aside once it is over, unless it waited or was crowded",
          "[runtime][records][timeslice]") {
  RuntimeConfig cfg;
  cfg.costs.switch_s = 1;
  // a alone on GPU 0; b and c take turns on GPU 1 with 60 s slices and 1 s switches: each at
  // (59/60)/2 = 59/120 of its speed, and its own turn 59/120 of its running time.
  ScriptedRun s("nodes:\n  - {count: 1, devices: {V100: 2}}\n",
                "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,100\nc,0,1,50\n",
                {{0,
                  [](Control& c) {
                    c.timeslice(0, devs({0}), 60);
                    c.timeslice(1, devs({1}), 60);
                    c.timeslice(2, devs({1}), 60);
                  }}},
                cfg);
  const RunResult r = s.run();
  // c's 50 s of work take 50 x 120/59 = 101.694915 s, of which it waited for b's turns
  // 101.694915 x (1 - 59/120) = 50 x 61/59 = 51.694915 s; b waited as long, then ran alone (no
  // wait) and ends 50 s later. a waited for nobody: not listed.
  CHECK(to_seconds(s.job("c").end) == Approx(50.0 * 120 / 59).margin(2e-6));
  CHECK(to_seconds(s.job("b").end) == Approx(50.0 * 120 / 59 + 50).margin(2e-6));
  CHECK(r.turn_waits.count(s.id("a")) == 0);
  REQUIRE(r.turn_waits.count(s.id("b")) == 1);
  REQUIRE(r.turn_waits.count(s.id("c")) == 1);
  CHECK(to_seconds(r.turn_waits.at(s.id("b"))) == Approx(50.0 * 61 / 59).margin(2e-6));
  CHECK(to_seconds(r.turn_waits.at(s.id("c"))) == Approx(50.0 * 61 / 59).margin(2e-6));
  // c made progress for its 50 s of work, a for its 100 s.
  CHECK(to_seconds(progress_time(s.sim->state(), r, s.id("c"))) == Approx(50).margin(2e-6));
  CHECK(progress_time(s.sim->state(), r, s.id("a")) == 100'000'000);
  // b and c ran crowded (another job on their GPU), so a profiler's record of them stays aside;
  // a's only entry was its slice, which no finished job reads again.
  CHECK(s.sim->state().extras.size() == 2);
  CHECK(s.sim->state().extras.count(s.id("a")) == 0);
}

TEST_CASE("releasing the run's bookkeeping empties the job lists and keeps the records",
          "[runtime][records]") {
  ScriptedRun s("nodes:\n  - {count: 1, devices: {V100: 1}}\n",
                "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,50\n",
                {{0, [](Control& c) { c.start(0, devs({0})); }},
                 {100'000'000, [](Control& c) { c.start(1, devs({0})); }}},
                free_actions());
  s.run();
  REQUIRE(s.sim->state().lists.range(JobList::kOver).size() == 2);
  s.sim->release_bookkeeping();
  const SimState& st = s.sim->state();
  CHECK(st.lists.range(JobList::kOver).empty());
  CHECK(st.lists.range(JobList::kPending).empty());
  // a ran 0-100 s, b 100-150 s: the records the summary and jobs.csv read are untouched.
  CHECK(st.jobs[0].end == 100'000'000);
  CHECK(st.jobs[1].first_start == 100'000'000);
  CHECK(st.jobs[1].end == 150'000'000);
  CHECK(st.jobs[1].status == JobStatus::kFinished);
}
