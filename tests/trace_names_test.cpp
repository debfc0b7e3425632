// The trace's ids in one buffer (Trace::names), how build_workload hands them to the workload
// (whole, or copied from the first job it skips or reorders), and release_pages, which gives
// back the records build_workload is done with.
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "workloads/build_workload.h"
#include "workloads/release_pages.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kFourV100 = "nodes:\n  - count: 1\n    devices: {V100: 4}\n";

std::vector<std::string> names_of(const Workload& w) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < w.job_names.size(); ++j)
    out.emplace_back(w.job_names[j]);
  return out;
}

Workload build(const std::string& csv, bool skip_bad_jobs) {
  WorkloadOptions options;
  options.skip_bad_jobs = skip_bad_jobs;
  return build_workload(trace_from_csv(csv, skip_bad_jobs), zoo(), cluster_from_yaml(kFourV100),
                        options);
}

} // namespace

TEST_CASE("Trace::add keeps each job's id in the shared buffer", "[trace]") {
  Trace t;
  TraceJob j;
  j.line = 7;
  t.add(j, "alpha");
  t.add(j, ""); // an empty id is kept apart from its neighbours
  t.add(j, "b");
  REQUIRE(t.jobs.size() == 3);
  CHECK(t.jobs[0].name == 0);
  CHECK(t.jobs[1].name == 1);
  CHECK(t.jobs[2].name == 2);
  CHECK(t.name(t.jobs[0]) == "alpha");
  CHECK(t.name(t.jobs[1]).empty());
  CHECK(t.name(t.jobs[2]) == "b");
  CHECK(t.jobs[2].line == 7); // the rest of the record is the one given
}

TEST_CASE("build_workload: the workload's names follow its jobs", "[trace]") {
  const std::string header = "id,submit_s,workers,gpus_per_worker,duration_s\n";
  // In submit order, all kept: the trace's names taken whole.
  CHECK(names_of(build(header + "a,0,1,1,10\nbb,1,1,1,10\nc,2,1,1,10\n", false)) ==
        std::vector<std::string>{"a", "bb", "c"});
  // bb needs 8 devices on one node of 4: skipped at resolution, so c is job 1, not 2; the names
  // are copied from there on.
  CHECK(names_of(build(header + "a,0,1,1,10\nbb,1,1,8,10\nc,2,1,1,10\n", true)) ==
        std::vector<std::string>{"a", "c"});
  // The last job skipped: every kept job still has its own id, the trace one id more.
  CHECK(names_of(build(header + "a,0,1,1,10\nbb,1,1,1,10\nc,2,1,8,10\n", true)) ==
        std::vector<std::string>{"a", "bb"});
  // Out of submit order: sorted stably by submit time, c (0) before a (5) and bb (5).
  CHECK(names_of(build(header + "a,5,1,1,10\nbb,5,1,1,10\nc,0,1,1,10\n", false)) ==
        std::vector<std::string>{"c", "a", "bb"});
  // A row skipped while reading (b's submit_s) leaves no id behind.
  CHECK(names_of(build(header + "a,0,1,1,10\nb,x,1,1,10\nc,2,1,1,10\n", true)) ==
        std::vector<std::string>{"a", "c"});
}

TEST_CASE("release_pages gives back only whole pages inside the range", "[trace]") {
  // 4 Mi values of 8 bytes (32 MiB): the first 2 Mi released. Every value from index 2 Mi on
  // is untouched, since the range is rounded inwards to whole pages.
  const std::size_t n = std::size_t{4} << 20;
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = i + 1;
  release_pages(v.data(), v.data() + n / 2);
  bool rest_intact = true;
  for (std::size_t i = n / 2; i < n; ++i)
    rest_intact = rest_intact && v[i] == i + 1;
  CHECK(rest_intact);
#if defined(__linux__)
  // Index 1 Mi is 8 MiB into the array, pages away from either end of the range: released, it
  // reads as zero (MADV_DONTNEED on private anonymous memory).
  CHECK(v[n / 4] == 0);
#endif
}

TEST_CASE("StringTable gives ids in order of first appearance and finds every string again",
          "[trace]") {
  StringTable t;
  // "", then "u1", "u2": ids 0, 1, 2; again in another order: the same ids, no new one.
  CHECK(t.intern("") == 0);
  CHECK(t.intern("u1") == 1);
  CHECK(t.intern("u2") == 2);
  CHECK(t.intern("u2") == 2);
  CHECK(t.intern("") == 0);
  CHECK(t.intern("u1") == 1);
  // A prefix and an extension are other strings.
  CHECK(t.intern("u") == 3);
  CHECK(t.intern("u11") == 4);
  CHECK(t.names().size() == 5);
  // 1,000 more: the table starts at 16 slots and doubles whenever it would pass half full (16,
  // 32, ..., 2,048 slots for 1,005 strings), each time putting every string back; all keep
  // their ids: string k has id 5 + k.
  for (int k = 0; k < 1000; ++k)
    REQUIRE(t.intern("user" + std::to_string(k)) == static_cast<std::uint32_t>(5 + k));
  for (int k = 999; k >= 0; --k)
    REQUIRE(t.intern("user" + std::to_string(k)) == static_cast<std::uint32_t>(5 + k));
  CHECK(t.intern("u2") == 2);
  CHECK(t.at(1005 - 1) == "user999");
  CHECK(t.names().size() == 1005);
}
