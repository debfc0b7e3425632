// docs/architecture.md's worked trace format: the code shown there is tests/toy_format.cpp
// (checked here, so the page cannot drift from code that compiles), registered as the recipe
// says, by one line added to the list of workloads/formats/format_list.h, and a sample read
// through that list, with the values worked out by hand.
#include "tests/support/docs_example.h"
#include "tests/support/harness.h"
#include "workloads/formats/format_list.h"
#include "workloads/formats/registry.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim {
// The registered list with the recipe's one line added.
#define TEST_FORMATS(X) DLSIM_TRACE_FORMATS(X) X(gpu_hours)
#define TEST_DECLARE_FORMAT(name) TraceFormat name##_format();
TEST_FORMATS(TEST_DECLARE_FORMAT)
#undef TEST_DECLARE_FORMAT
} // namespace dlsim

namespace {

std::vector<TraceFormat> formats_with_example() {
#define TEST_FORMAT_ENTRY(name) name##_format(),
  return {TEST_FORMATS(TEST_FORMAT_ENTRY)};
#undef TEST_FORMAT_ENTRY
}

const TraceFormat& format_named(const std::vector<TraceFormat>& formats, const std::string& name) {
  for (const TraceFormat& f : formats) {
    if (f.name == name) return f;
  }
  FAIL("no format " << name);
  throw; // not reached: FAIL throws
}

} // namespace

TEST_CASE("docs/architecture.md shows tests/toy_format.cpp as it is", "[format][docs]") {
  std::string page = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/docs/architecture.md");
  std::string code = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/tests/toy_format.cpp");
  CHECK(cpp_block_after(page, "### A trace format") == code);
  // The registration the page shows is the line this test adds to the list.
  CHECK(page.find("X(gpu_hours)") != std::string::npos);
}

TEST_CASE("the example format gpu-hours, registered by one line, reads a sample",
          "[format][docs]") {
  const std::vector<TraceFormat> formats = formats_with_example();
  // The registered formats keep their order; the new one comes last, and only in this list.
  REQUIRE(formats.size() == trace_formats().size() + 1);
  for (std::size_t i = 0; i < trace_formats().size(); ++i)
    CHECK(formats[i].name == trace_formats()[i].name);
  CHECK(message_of([] { (void)find_trace_format("gpu-hours"); }).find("gpu-hours") !=
        std::string::npos);
  const TraceFormat& f = format_named(formats, "gpu-hours");
  ScratchDir dir;
  // a: at 0 h, 1 GPU for 0.5 h = 1,800 s. b: at 1.5 h = 5,400 s, 16 GPUs (2 workers of 8) for
  // 2 h = 7,200 s.
  std::string file = dir.write("jobs.csv", "name,arrival_h,gpus,run_h\n"
                                           "a,0,1,0.5\n"
                                           "b,1.5,16,2\n");
  Trace t = f.read(file, ReadOptions{});
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.name(t.jobs[0]) == "a");
  CHECK(t.jobs[0].submit_s == 0);
  CHECK(t.jobs[0].duration_s == 1800);
  CHECK(t.jobs[0].workers == 1);
  CHECK(t.jobs[0].devices_per_worker == 1);
  CHECK(t.name(t.jobs[1]) == "b");
  CHECK(t.jobs[1].submit_s == 5400);
  CHECK(t.jobs[1].duration_s == 7200);
  CHECK(t.jobs[1].workers == 2);
  CHECK(t.jobs[1].devices_per_worker == 8);

  // Bad input names the file, the line and the column.
  std::string bad = dir.write("bad.csv", "name,arrival_h,gpus,run_h\n"
                                         "a,0,1,0.5\n"
                                         "b,soon,1,1\n");
  CHECK_THROWS_WITH(f.read(bad, ReadOptions{}),
                    Catch::Contains(bad + ":3: arrival_h: expected a number"));
  std::string missing = dir.write("missing.csv", "name,arrival_h,gpus\na,0,1\n");
  CHECK_THROWS_WITH(f.read(missing, ReadOptions{}), Catch::Contains("run_h"));
}
