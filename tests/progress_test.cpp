// dlsim run's progress reports (sim/cli/progress.h): at most one a second of wall time, with
// jobs done and an ETA, on stderr also when it is a log file.
#include "sim/cli/policy_setup.h"
#include "sim/cli/progress.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <sstream>
#include <string>

using namespace dlsim;
using namespace dlsim::test;

namespace {

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string text;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    text.append(buf, n);
  return text;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// 2,000 one-GPU jobs of 10 s, one a second, on 4 GPUs under fifo: thousands of decisions. The
// progress line reads a clock that moves `step` seconds per read; returns what it printed.
std::string progress_of_run(std::chrono::milliseconds step) {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  std::ostringstream csv;
  csv << "id,submit_s,workers,gpus_per_worker,duration_s\n";
  for (int i = 0; i < 2000; ++i)
    csv << "j" << i << "," << i << ",1,1,10\n";
  Workload w = workload_from_csv(c, csv.str());
  const PolicyEntry& entry = find_policy("fifo");
  auto policy = entry.make(make_policy_setup(entry, Placement::kConsolidate, YAML::Node()));
  Simulation sim(c, w, RuntimeConfig{}, *policy, PolicyInfo{"fifo", false});
  auto now = std::chrono::steady_clock::time_point{};
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  ProgressLine progress(w.jobs.back().request.submit, kNever, out, /*terminal=*/false, [&] {
    now += step;
    return now;
  });
  sim.add_observer(&progress);
  sim.run();
  std::string text = contents(out);
  std::fclose(out);
  return text;
}

} // namespace

TEST_CASE("the ETA assumes the rest of the run goes at the pace so far", "[progress]") {
  // A quarter done in 10 s: three quarters left take 30 s.
  CHECK(progress_eta_s(0.25, 10) == Approx(30));
  CHECK(progress_eta_s(1, 10) == 0);
  CHECK(progress_eta_s(0, 10) < 0); // nothing done: no estimate
  CHECK(wall_duration(45) == "45 s");
  CHECK(wall_duration(720) == "12 min");
  CHECK(wall_duration(3.2 * 3600) == "3.2 h");
}

TEST_CASE("progress reports come at most once a second, a line each in a log", "[progress]") {
  const std::string every_read = progress_of_run(std::chrono::milliseconds(1000));
  const std::string every_other = progress_of_run(std::chrono::milliseconds(500));
  const std::size_t a = count(every_read, "progress: ");
  const std::size_t b = count(every_other, "progress: ");
  INFO(every_read);
  // A clock read every 64 decisions: at 1 s a read, each read reports; at 0.5 s, every other.
  // Both end with one more line for the run's end.
  REQUIRE(a > 10);
  CHECK(b - 1 == (a - 1) / 2);
  CHECK(count(every_read, "\n") == a);
  CHECK(count(every_read, "\r") == 0);
  CHECK(count(every_read, "jobs done ") == a);
  CHECK_THAT(every_read, Catch::Contains("jobs done 2000/2000 (100.0%)") &&
                             Catch::Contains("ETA 0 s (end)") &&
                             Catch::Contains("last submit at 0.6 h")); // 1,999 s
}

TEST_CASE("dlsim run --progress reports into a log file, -q alone does not", "[progress]") {
  ScratchDir dir;
  Outcome r = run_dlsim("run -q --progress --out " + dir.file("a"), dir);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("progress: simulated ") &&
                        Catch::Contains("jobs done 500/500 (100.0%)"));
  Outcome q = run_dlsim("run -q --out " + dir.file("b"), dir);
  REQUIRE(q.code == 0);
  CHECK(q.err.empty());
}
