// The declared configuration: one table reads the keys, checks them, writes
// run.yaml, vets --set paths and prints the key reference that docs/experiments.md holds.
#include "sim/cli/experiment.h"
#include "sim/cli/experiment_keys.h"
#include "sim/config/config_key.h"
#include "sim/engine/error.h"
#include "sim/runtime/runtime_keys.h"
#include "sim/runtime/sim_state.h"
#include "tests/support/harness.h"
#include "workloads/formats/registry.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kBase = "cluster: configs/clusters/tiny.yaml\n"
                              "trace: {file: traces/sample.csv}\n";

std::string error_of(const std::string& yaml,
                     std::vector<std::pair<std::string, std::string>> sets = {}) {
  ScratchDir dir;
  std::string file = dir.write("e.yaml", yaml);
  try {
    load_experiment(ExperimentInputs{file, std::move(sets)});
  } catch (const InputError& ex) {
    return ex.what();
  }
  return "no error";
}

// A small config of its own, to test the machinery apart from dlsim's keys.
struct Toy {
  double wait_s = 2;
  unsigned slots = 3;
  bool fast = false;
  std::string mode = "a";
};

std::vector<ConfigKey> toy_keys(Toy& t) {
  return {
      {.path = "mode", .type = KeyType::kText, .field = &t.mode, .choices = {"a", "b"}},
      {.path = "outer.wait_s", .type = KeyType::kSeconds, .field = &t.wait_s, .min = 0},
      {.path = "outer.inner.slots",
       .type = KeyType::kInteger,
       .field = &t.slots,
       .min = 1,
       .max = 4},
      {.path = "outer.fast", .type = KeyType::kFlag, .field = &t.fast},
  };
}

} // namespace

TEST_CASE("a declared table reads nested keys, keeps defaults and writes them back in order",
          "[config]") {
  Toy t;
  read_config_keys(YAML::Load("outer: {inner: {slots: 4}, fast: true}\n"), "t.yaml", toy_keys(t));
  CHECK(t.slots == 4);
  CHECK(t.fast);
  CHECK(t.wait_s == 2); // absent: the default
  CHECK(t.mode == "a");
  YAML::Node out;
  write_config_keys(toy_keys(t), out);
  YAML::Emitter em;
  em << YAML::Flow << out;
  // Table order, sections made where their first key is written.
  CHECK(std::string(em.c_str()) == "{mode: a, outer: {wait_s: 2, inner: {slots: 4}, fast: true}}");
}

TEST_CASE("a declared table checks each value and rejects undeclared keys where they are",
          "[config][errors]") {
  auto error = [](const std::string& yaml) -> std::string {
    Toy t;
    try {
      read_config_keys(YAML::Load(yaml), "t.yaml", toy_keys(t));
    } catch (const InputError& ex) {
      return ex.what();
    }
    return "no error";
  };
  CHECK(error("mode: b\nouter: {inner: {slots: 1}}\n") == "no error");
  CHECK(error("outer:\n  inner: {slots: 5}\n") ==
        "t.yaml:2: outer.inner.slots: must be 1 to 4, got 5");
  CHECK(error("outer: {inner: {slots: -2}}\n") ==
        "t.yaml:1: outer.inner.slots: must be 1 to 4, got -2");
  CHECK(error("outer: {wait_s: -1}\n") == "t.yaml:1: outer.wait_s: must not be negative, got -1");
  CHECK(error("mode: c\n") == "t.yaml:1: mode: must be a or b, got 'c'");
  CHECK(error("outer:\n  fast: true\n  slow: true\n") ==
        "t.yaml:3: outer.slow: unknown key (valid here: fast, inner, wait_s)");
  CHECK(error("other: 1\n") == "t.yaml:1: other: unknown key (valid here: mode, outer)");
}

namespace {

// Every runtime key away from its default (runtime_config.h: 0, 5, 5, 10, 5, 1, 5 s; 2 and 4
// jobs; 0.52; 60 s; no observation noise; 2.5 and 0.8; no curves by type; no pairs file;
// contention off; 30 and 1 s, linear, measured scaling on, flat, 1 GB/s; the token
// controller, 0.01, 0.3 and 0.001 s).
Experiment with_every_runtime_key_set(ScratchDir& dir) {
  const std::vector<std::pair<std::string, std::string>> sets = {
      {"costs.start_s", "1"},
      {"costs.suspend_s", "2"},
      {"costs.resume_s", "3"},
      {"costs.migrate_s", "4"},
      {"costs.resize_s", "6"},
      {"costs.switch_s", "7"},
      {"costs.set_share_s", "9"},
      {"runtime.max_jobs_per_device", "8"},
      {"runtime.max_timeslice_jobs", "1"},
      {"runtime.default_gpu_util", "1"},
      {"runtime.profile_s", "90"},
      {"runtime.observe.noise", "0.05"},
      {"runtime.interference.slope", "0"},
      {"runtime.interference.onset", "1.5"},
      {"runtime.interference.by_type", "{K80: {slope: 1}}"},
      {"runtime.interference.pairs", "configs/interference/gavel-pairs.csv"},
      {"costs.restart_s", "31"},
      {"costs.live_resize_s", "2"},
      {"runtime.scaling", "analytic"},
      {"runtime.measured_scaling", "false"},
      {"runtime.resize", "live"},
      {"runtime.checkpoint_gb_s", "2.5"},
      {"runtime.share.model", "ideal"},
      {"runtime.share.hook_overhead", "0.05"},
      {"runtime.share.quota_s", "0.02"},
      {"runtime.share.handoff_s", "0.002"},
      {"network.contention", "true"},
  };
  return load_experiment(ExperimentInputs{dir.write("e.yaml", kBase), sets});
}

} // namespace

TEST_CASE("every runtime key is read into its field", "[experiment][config]") {
  ScratchDir dir;
  const Experiment e = with_every_runtime_key_set(dir);
  const RuntimeConfig& r = e.runtime;
  CHECK(r.costs.start_s == 1);
  CHECK(r.costs.suspend_s == 2);
  CHECK(r.costs.resume_s == 3);
  CHECK(r.costs.migrate_s == 4);
  CHECK(r.costs.resize_s == 6);
  CHECK(r.costs.switch_s == 7);
  CHECK(r.costs.set_share_s == 9);
  CHECK(r.max_jobs_per_device == 8);
  CHECK(r.max_timeslice_jobs == 1);
  CHECK(r.default_gpu_util == 1);
  CHECK(r.interference.slope == 0);
  CHECK(r.interference.onset == 1.5);
  CHECK(r.profile_s == 90);
  CHECK(r.observe_noise == 0.05);
  // K80's own curve: the given slope, the onset of the default curve set above.
  auto k80 = find_device_type(e.cluster.types, "K80");
  REQUIRE(k80);
  REQUIRE(r.interference_by_type.size() == e.cluster.types.size());
  CHECK(r.interference_by_type[*k80].slope == 1);
  CHECK(r.interference_by_type[*k80].onset == 1.5);
  CHECK_THAT(r.interference_pairs_file, Catch::EndsWith("configs/interference/gavel-pairs.csv"));
  CHECK(r.network.contention);
  CHECK(r.costs.restart_s == 31);
  CHECK(r.costs.live_resize_s == 2);
  CHECK(r.scaling == "analytic");
  CHECK(!r.measured_scaling);
  CHECK(r.resize == "live");
  CHECK(r.checkpoint_gb_s == 2.5);
  CHECK(r.share.model == "ideal");
  CHECK(r.share.hook_overhead == 0.05);
  CHECK(r.share.quota_s == 0.02);
  CHECK(r.share.handoff_s == 0.002);
}

TEST_CASE("every runtime key is written back to run.yaml", "[experiment][config]") {
  ScratchDir dir;
  const Experiment e = with_every_runtime_key_set(dir);
  // The table has exactly these 48 keys (the runtime's, its interference model's, the share
  // controller's and the failure model's), and run.yaml records each one's value.
  RuntimeConfig copy = e.runtime;
  CHECK(runtime_keys(copy).size() == 48);
  CHECK(e.resolved["runtime"]["share"]["model"].as<std::string>() == "ideal");
  CHECK(e.resolved["runtime"]["scaling"].as<std::string>() == "analytic");
  CHECK(e.resolved["runtime"]["resize"].as<std::string>() == "live");
  CHECK(e.resolved["runtime"]["profile_s"].as<double>() == 90);
  CHECK(e.resolved["runtime"]["observe"]["noise"].as<double>() == 0.05);
  CHECK(e.resolved["runtime"]["interference"]["by_type"]["K80"]["slope"].as<double>() == 1);
  CHECK(e.resolved["costs"]["resize_s"].as<double>() == 6);
  CHECK(e.resolved["costs"]["set_share_s"].as<double>() == 9);
  CHECK(e.resolved["runtime"]["max_jobs_per_device"].as<unsigned>() == 8);
  CHECK(e.resolved["runtime"]["interference"]["onset"].as<double>() == 1.5);
  CHECK(e.resolved["network"]["contention"].as<bool>());
}

TEST_CASE("the share controller's keys refuse a quota of 0 and an unknown model",
          "[experiment][config][share]") {
  // A quota of 0 would leave no token time to compute (e = 0 / (0 + handoff)): refused, as are a
  // hook overhead above 0.5 and a model other than token or ideal.
  CHECK_THAT(error_of(kBase, {{"runtime.share.quota_s", "0"}}),
             Catch::EndsWith("runtime.share.quota_s: must be in (0, 3600], got 0"));
  CHECK_THAT(error_of(kBase, {{"runtime.share.hook_overhead", "0.6"}}),
             Catch::EndsWith("runtime.share.hook_overhead: must be in [0, 0.5], got 0.6"));
  CHECK_THAT(error_of(kBase, {{"runtime.share.model", "mps"}}),
             Catch::EndsWith("runtime.share.model: must be token or ideal, got 'mps'"));
  CHECK(error_of(kBase, {{"runtime.share.handoff_s", "0"}}) == "no error");
}

TEST_CASE("the sharing limits are bounded by DeviceSlot::kMaxShare", "[experiment][config]") {
  // DeviceSlot::kMaxShare = 8 slots per device (sim_state.h) bounds both sharing keys.
  static_assert(DeviceSlot::kMaxShare == 8);
  CHECK(error_of(kBase, {{"runtime.max_jobs_per_device", "8"}}) == "no error");
  CHECK_THAT(error_of(kBase, {{"runtime.max_jobs_per_device", "9"}}),
             Catch::EndsWith("runtime.max_jobs_per_device: must be 1 to 8, got 9"));
  CHECK_THAT(error_of(kBase, {{"runtime.max_timeslice_jobs", "0"}}),
             Catch::EndsWith("runtime.max_timeslice_jobs: must be 1 to 8, got 0"));
  CHECK_THAT(error_of(kBase, {{"runtime.default_gpu_util", "0"}}),
             Catch::EndsWith("runtime.default_gpu_util: must be in (0, 1], got 0"));
  CHECK_THAT(error_of(kBase, {{"trace.sample", "-3"}}),
             Catch::EndsWith("trace.sample: must not be negative, got -3"));
  CHECK_THAT(error_of(kBase, {{"until_s", "-5"}}),
             Catch::EndsWith("until_s: must not be negative, got -5"));
  CHECK(error_of(kBase, {{"until_s", "-1"}}) == "no error"); // -1: run to the end
}

TEST_CASE("an unknown --set key names the nearest declared keys, or those of its section",
          "[experiment][config][errors]") {
  CHECK(error_of(kBase, {{"costs.suspnd_s", "1"}}) ==
        "costs.suspnd_s: unknown key (did you mean costs.suspend_s?)");
  // A key without its section: its last part matches.
  CHECK(error_of(kBase, {{"max_jobs_per_device", "2"}}) ==
        "max_jobs_per_device: unknown key (did you mean runtime.max_jobs_per_device?)");
  CHECK(
      error_of(kBase, {{"runtime.interference.x", "1"}}) ==
      "runtime.interference.x: unknown key (valid in runtime.interference: by_type, model, onset, "
      "pairs, slope; "
      "`dlsim list keys` lists all)");
  // Under a key read by its own reader, and whole sections, pass to that reader.
  CHECK_THAT(error_of(kBase, {{"policy.params.quantum", "5"}}),
             Catch::Contains("policy 'fifo' has no such parameter"));
  CHECK(error_of(kBase, {{"policy", "las"}, {"runtime", "{max_jobs_per_device: 3}"}}) ==
        "no error");
  // In a file, an unknown key still lists the valid ones where it was written.
  CHECK_THAT(error_of(std::string(kBase) + "network: {speed: 1}\n"),
             Catch::EndsWith("e.yaml:3: network.speed: unknown key (valid here: contention)"));
}

TEST_CASE("docs/experiments.md's key reference is the output of dlsim list keys",
          "[experiment][docs]") {
  std::string page = read_file("docs/experiments.md");
  const std::string begin = "<!-- generated by `dlsim list keys`: do not edit by hand -->\n";
  const std::string end = "<!-- end of generated table -->";
  auto b = page.find(begin);
  auto e = page.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  Experiment defaults;
  std::string table = config_keys_markdown(experiment_keys(defaults));
  // If this fails after adding a key: paste `build/dlsim list keys` between the two markers.
  CHECK(page.substr(b + begin.size(), e - b - begin.size()) == table);
  ScratchDir dir;
  CHECK(run_dlsim("list keys", dir).out == table);
  // Every key of the table has a row, with its default: two spot checks.
  CHECK_THAT(table, Catch::Contains("| `runtime.max_timeslice_jobs` | integer | 4 | 1 to 8 |"));
  CHECK_THAT(table, Catch::Contains("| `costs.migrate_s` | seconds | 10 | not negative |"));
}

TEST_CASE("a trace format's own keys are the experiment's, bound to its reader's options",
          "[experiment][config]") {
  // swf and openb declare their keys (TraceFormat::keys); the experiment's table holds them
  // once each, and a value read from YAML lands in Experiment::trace_options.
  Experiment e;
  std::vector<ConfigKey> keys = experiment_keys(e);
  std::size_t declared = 0;
  for (const TraceFormat& f : trace_formats()) {
    if (f.keys == nullptr) continue;
    ReadOptions scratch;
    for (const ConfigKey& k : f.keys(scratch)) {
      ++declared;
      CHECK(std::count_if(keys.begin(), keys.end(),
                          [&](const ConfigKey& x) { return x.path == k.path; }) == 1);
    }
  }
  CHECK(declared == 4); // swf_devices, swf_procs_per_device, openb_duration_s, replay_pending
  read_config_keys(YAML::Load("{trace: {swf_devices: cpu, swf_procs_per_device: 4, "
                              "openb_duration_s: 60, openb_replay_pending: true}}"),
                   "e.yaml", keys);
  CHECK(e.trace_options.swf_devices == "cpu");
  CHECK(e.trace_options.swf_procs_per_device == 4);
  CHECK(e.trace_options.openb_duration_s == 60);
  CHECK(e.trace_options.openb_replay_pending);
  Experiment bad;
  CHECK_THROWS_WITH(
      read_config_keys(YAML::Load("{trace: {swf_devices: phi}}"), "e.yaml", experiment_keys(bad)),
      Catch::Contains("trace.swf_devices") && Catch::Contains("gpu or cpu"));
}
