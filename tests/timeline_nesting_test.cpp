// timeline.json keeps the Chrome trace format's rule for complete events: on one track (pid,
// tid) two slices either do not overlap or one nests inside the other. Jobs that share devices
// (packed, time-sliced) go on share tracks; every slice carries its job's facts in `args`.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace dlsim::test;
namespace fs = std::filesystem;

namespace {

struct Span {
  long long from, to;
};

// Pairs of slices on one track that overlap without one holding the other.
std::size_t partial_overlaps(const nlohmann::json& events) {
  std::map<std::pair<long long, long long>, std::vector<Span>> tracks;
  for (const auto& e : events) {
    if (e["ph"] != "X") continue;
    const long long ts = e["ts"];
    tracks[{e["pid"], e["tid"]}].push_back(Span{ts, ts + e["dur"].get<long long>()});
  }
  std::size_t bad = 0;
  for (auto& [key, spans] : tracks) {
    // By start, longer first: a slice then nests in the one before it or starts after it ends.
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.from != b.from ? a.from < b.from : a.to > b.to;
    });
    std::vector<Span> open; // the chain of slices holding the current one
    for (const Span& s : spans) {
      while (!open.empty() && open.back().to <= s.from)
        open.pop_back();
      if (!open.empty() && s.to > open.back().to) ++bad;
      open.push_back(s);
    }
  }
  return bad;
}

// Every slice's args: the job (its name), model, user, GPUs held and how it shared them.
void check_args(const nlohmann::json& events) {
  for (const auto& e : events) {
    if (e["ph"] != "X") continue;
    const auto& a = e["args"];
    REQUIRE(a.is_object());
    CHECK(a["job"] == e["name"]);
    CHECK(a["model"].is_string());
    CHECK(a["user"].is_string());
    CHECK(a["gpus"].get<int>() >= 1);
    const std::string sharing = a["sharing"];
    CHECK((sharing == "exclusive" || sharing == "packed" || sharing == "time-sliced"));
    const double lo = a["share_min"], hi = a["share_max"];
    CHECK(0 < lo);
    CHECK(lo <= hi);
    CHECK(hi <= 1);
  }
}

nlohmann::json timeline_of(const std::string& args) {
  ScratchDir dir;
  Outcome r =
      run_dlsim("run -q --timeline on --events off " + args + " --out " + dir.file("res"), dir);
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == 0);
  auto trace = nlohmann::json::parse(read_file(dir.file("res/timeline.json")));
  REQUIRE(trace["traceEvents"].is_array());
  return trace["traceEvents"];
}

} // namespace

TEST_CASE("the nesting check finds a partial overlap and accepts nested and touching slices",
          "[timeline]") {
  // One track: [0,10) holds [2,5); [10,20) touches [0,10); [15,30) overlaps [10,20) partly.
  auto events = nlohmann::json::parse(R"([
    {"ph":"X","ts":0,"dur":10,"pid":1,"tid":0},
    {"ph":"X","ts":2,"dur":3,"pid":1,"tid":0},
    {"ph":"X","ts":10,"dur":10,"pid":1,"tid":0},
    {"ph":"X","ts":15,"dur":15,"pid":1,"tid":1},
    {"ph":"X","ts":15,"dur":15,"pid":1,"tid":0}])");
  CHECK(partial_overlaps(events) == 1);
  events.erase(events.end() - 1);
  CHECK(partial_overlaps(events) == 0);
}

TEST_CASE("gandiva's default run puts packed and time-sliced jobs on share tracks", "[timeline]") {
  const auto events = timeline_of("--policy gandiva");
  CHECK(partial_overlaps(events) == 0);
  check_args(events);
  // It shares devices: some slices are not exclusive, and some device has a second share track.
  std::size_t shared = 0, share_tracks = 0;
  for (const auto& e : events) {
    if (e["ph"] == "X" && e["args"]["sharing"] != "exclusive") ++shared;
    if (e["ph"] == "M" && e["name"] == "thread_name" &&
        e["args"]["name"].get<std::string>().find(" share 2") != std::string::npos)
      ++share_tracks;
  }
  CHECK(shared > 0);
  CHECK(share_tracks > 0);
}

TEST_CASE("every bundled experiment's timeline.json nests its slices", "[timeline]") {
  const fs::path experiments = fs::path(DLSIM_SOURCE_DIR_FOR_TESTS) / "configs/experiments";
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(experiments)) {
    // Only experiments (a top-level `cluster:`): the folder also holds other inputs.
    const std::string text = read_file(f.path().string());
    if (f.path().extension() == ".yaml" &&
        (text.starts_with("cluster:") || text.find("\ncluster:") != std::string::npos))
      files.push_back(f.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  for (const auto& f : files) {
    INFO(f.string());
    const auto events = timeline_of("-e " + f.string());
    CHECK(partial_overlaps(events) == 0);
    check_args(events);
  }
  // The sharing policies on the default experiment.
  for (const char* policy : {"gpu-share", "util-slot", "util-reactive", "util-proactive"}) {
    INFO(policy);
    const auto events = timeline_of(std::string("--policy ") + policy);
    CHECK(partial_overlaps(events) == 0);
    check_args(events);
  }
}
