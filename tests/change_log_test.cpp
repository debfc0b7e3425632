// The runtime's change logs (sim/runtime/change_log.h, View::changes()): which nodes and jobs
// a reader is told changed since its stamp.
#include "sim/runtime/change_log.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

std::vector<std::uint32_t> since(const ChangeLog& log, std::uint64_t stamp, bool* whole = nullptr) {
  std::vector<std::uint32_t> out;
  bool ok = log.for_each_since(stamp, [&](std::uint32_t id) { out.push_back(id); });
  if (whole != nullptr) *whole = !ok;
  return out;
}

} // namespace

TEST_CASE("a change log gives each id marked since a stamp once, by its last mark",
          "[runtime][changes]") {
  ChangeLog log;
  log.init(4); // holds 4 + 1,024 marks before it starts over
  CHECK(log.stamp() == 0);
  log.mark(2);
  log.mark(0);
  const std::uint64_t s = log.stamp();
  CHECK(s == 2);
  log.mark(3);
  log.mark(2); // marked before s too: counts once, at its last mark
  log.mark(3);
  CHECK(since(log, s) == std::vector<std::uint32_t>{2, 3});
  CHECK(since(log, 0) == std::vector<std::uint32_t>{0, 2, 3});
  CHECK(since(log, log.stamp()).empty());
}

TEST_CASE("a change log that started over says so instead of answering", "[runtime][changes]") {
  ChangeLog log;
  log.init(1); // cap: 1 + 1,024 = 1,025 marks
  const std::uint64_t before = log.stamp();
  for (int i = 0; i < 1025; ++i)
    log.mark(0);
  bool whole = false;
  CHECK(since(log, before, &whole) == std::vector<std::uint32_t>{0}); // still held
  CHECK_FALSE(whole);
  log.mark(0); // the 1,026th: the log starts over
  CHECK(log.stamp() == 1026);
  since(log, before, &whole);
  CHECK(whole); // the reader must look at everything
  CHECK(since(log, 1025, &whole) == std::vector<std::uint32_t>{0});
  CHECK_FALSE(whole);
}

TEST_CASE("the runtime marks the nodes and jobs that a start, a finish and co-location change",
          "[runtime][changes]") {
  // Three nodes of two V100s: devices 0-1 on node 0, 2-3 on node 1, 4-5 on node 2.
  const char* cluster = "nodes:\n  - {count: 3, devices: {V100: 2}}\n";
  RuntimeConfig config;
  config.max_jobs_per_device = 2; // for the pack
  std::uint64_t nodes_at = 0;
  std::uint64_t jobs_at = 0;
  std::vector<std::uint32_t> nodes_seen, jobs_seen;
  ScriptedRun s(cluster, "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,50\nc,0,1,400\n",
                {{0,
                  [&](Control& c) {
                    nodes_at = c.changes().nodes.stamp();
                    jobs_at = c.changes().jobs.stamp();
                    c.pack(0, std::vector<DeviceId>{2});  // a on node 1, shareable
                    c.start(1, std::vector<DeviceId>{4}); // b on node 2
                    nodes_seen = since(c.changes().nodes, nodes_at);
                    jobs_seen = since(c.changes().jobs, jobs_at);
                    nodes_at = c.changes().nodes.stamp();
                    jobs_at = c.changes().jobs.stamp();
                  }},
                 {60'000'000,
                  [&](Control& c) {
                    // b finished at 50 s (released device 4 on node 2); nothing else moved.
                    CHECK(since(c.changes().nodes, nodes_at) == std::vector<std::uint32_t>{2});
                    CHECK(since(c.changes().jobs, jobs_at) == std::vector<std::uint32_t>{1});
                    nodes_at = c.changes().nodes.stamp();
                    jobs_at = c.changes().jobs.stamp();
                    c.pack(2, std::vector<DeviceId>{2}); // c joins a on device 2
                  }},
                 {70'000'000,
                  [&](Control& c) {
                    // c took a share of device 2 (node 1); a slowed down: both marked.
                    CHECK(since(c.changes().nodes, nodes_at) == std::vector<std::uint32_t>{1});
                    auto jobs = since(c.changes().jobs, jobs_at);
                    std::sort(jobs.begin(), jobs.end());
                    CHECK(jobs == std::vector<std::uint32_t>{0, 2});
                  }}},
                config);
  s.run();
  // At 0 s nodes 1 and 2 changed, in the order of the starts; node 0 kept its free devices,
  // CPUs and memory. a and b changed status and devices.
  CHECK(nodes_seen == std::vector<std::uint32_t>{1, 2});
  std::sort(jobs_seen.begin(), jobs_seen.end());
  CHECK(jobs_seen == std::vector<std::uint32_t>{0, 1});
}
