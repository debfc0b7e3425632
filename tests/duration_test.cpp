// Durations with units where seconds are asked: the parser, a config key, a
// policy parameter and --until.
#include "sim/engine/duration.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("durations: a number of seconds or a number with s, m, min, h or d", "[duration]") {
  CHECK(parse_duration_s("90") == 90.0);
  CHECK(parse_duration_s("30s") == 30.0);
  CHECK(parse_duration_s("1.5m") == 90.0);   // 1.5 x 60
  CHECK(parse_duration_s("2min") == 120.0);  // 2 x 60
  CHECK(parse_duration_s("2h") == 7200.0);   // 2 x 3,600
  CHECK(parse_duration_s("7d") == 604800.0); // 7 x 86,400
  CHECK(parse_duration_s("1e3s") == 1000.0); // the number part is any real number
  CHECK(parse_duration_s("-5s") == -5.0);    // the caller refuses it where time must not be < 0
  CHECK_FALSE(parse_duration_s(""));
  CHECK_FALSE(parse_duration_s("h"));
  CHECK_FALSE(parse_duration_s("2 h"));
  CHECK_FALSE(parse_duration_s("2H"));
  CHECK_FALSE(parse_duration_s("2hours"));
  CHECK_FALSE(parse_duration_s("2w"));
  CHECK_FALSE(parse_duration_s("1h30m"));
}

TEST_CASE("durations in an experiment, a policy parameter and --until", "[duration][cli]") {
  ScratchDir dir;
  // until_s: 1h stops the default experiment at 3,600 s, as until_s: 3600 does.
  REQUIRE(run_dlsim("run -q --until 3600 --out " + dir.file("a"), dir).code == 0);
  REQUIRE(run_dlsim("run -q --until 1h --out " + dir.file("b"), dir).code == 0);
  REQUIRE(run_dlsim("run -q --set until_s=60m --out " + dir.file("c"), dir).code == 0);
  std::string a = read_file(dir.file("a/summary.json"));
  CHECK(read_file(dir.file("b/summary.json")) == a);
  CHECK(read_file(dir.file("c/summary.json")) == a);
  // run.yaml records the value in seconds.
  CHECK_THAT(read_file(dir.file("b/run.yaml")), Catch::Contains("until_s: 3600"));
  // A policy parameter of seconds: las interval_s 6m = 360 s, its default.
  REQUIRE(run_dlsim("run -q --policy las --until 1d --out " + dir.file("l1"), dir).code == 0);
  REQUIRE(run_dlsim("run -q --policy las --until 1d --set policy.params.interval_s=6m --out " +
                        dir.file("l2"),
                    dir)
              .code == 0);
  CHECK(read_file(dir.file("l2/summary.json")) == read_file(dir.file("l1/summary.json")));
  // A bad unit names the flag that gave it and what it takes.
  Outcome bad = run_dlsim("run -q --until 2weeks --out " + dir.file("x"), dir);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("--until: ") &&
                          Catch::Contains("a duration such as 30s, 90m, 2h or 7d"));
  Outcome bad_param = run_dlsim(
      "run -q --policy las --set policy.params.interval_s=soon --out " + dir.file("y"), dir);
  CHECK(bad_param.code == 1);
  CHECK_THAT(bad_param.err, Catch::Contains("policy.params.interval_s: expected seconds"));
}
