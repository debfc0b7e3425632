// Every trace reader and --format auto read a file the same with or without a UTF-8 byte order
// mark at the start and blank lines at the end (a trailing blank line once failed a native
// trace, a BOM broke --format auto).
#include "tests/support/harness.h"

#include "workloads/formats/format_guess.h"
#include "workloads/formats/registry.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace dlsim;
using namespace dlsim::test;

namespace {

const std::string kTraces = std::string(DLSIM_SOURCE_DIR_FOR_TESTS) + "/traces";
const std::string kBom = "\xEF\xBB\xBF";

// The names and submit times of the trace's jobs, to compare two readings.
std::vector<std::pair<std::string, double>> jobs_of(const Trace& t) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& j : t.jobs)
    out.emplace_back(t.name(j), j.submit_s);
  return out;
}

} // namespace

TEST_CASE("every reader and --format auto accept a BOM and trailing blank lines",
          "[formats][auto][csv]") {
  ScratchDir dir;
  for (const char* name :
       {"sample.csv", "philly_pollux_excerpt.csv", "helios_cluster_log_synthetic.csv",
        "tiresias_60_job.csv", "openb_pod_list_default-excerpt.csv",
        "philly_cluster_job_log_synthetic.json", "ricc-2010-2-excerpt.swf", "muri/trace3.csv",
        "pollux_workload-1.csv"}) {
    INFO(name);
    const std::string original = kTraces + "/" + name;
    const std::string format = guess_trace_format(original).format;
    std::string text = read_file(original);
    for (const char* tail : {"\n\n", "\n \n\t\n", "\r\n\r\n"}) {
      std::string copy =
          dir.write(std::string("bom-") + std::filesystem::path(name).filename().string(),
                    kBom + text + tail);
      CHECK(guess_trace_format(copy).format == format);
      const auto& reader = find_trace_format(format);
      ReadOptions options;
      options.pollux_profiles = kTraces + "/pollux-profiles";
      Trace a = reader.read(original, options);
      Trace b = reader.read(copy, options);
      CHECK(b.skipped == 0);
      CHECK(!a.jobs.empty());
      CHECK(jobs_of(b) == jobs_of(a));
    }
  }
  // pai2020: a directory of tables, each with a BOM and a blank line at the end.
  const std::string pai = dir.file("pai");
  std::filesystem::create_directory(pai);
  for (const auto& entry : std::filesystem::directory_iterator(kTraces + "/pai2020-sample")) {
    std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".csv") continue;
    dir.write("pai/" + file, kBom + read_file(entry.path().string()) + "\n\n");
  }
  CHECK(guess_trace_format(pai).format == "pai2020");
  const auto& reader = find_trace_format("pai2020");
  CHECK(jobs_of(reader.read(pai, ReadOptions{})) ==
        jobs_of(reader.read(kTraces + "/pai2020-sample", ReadOptions{})));
}
