// Reads a Pollux workload: each job's run time is derived from its application's profile in
// ReadOptions::pollux_profiles at the job's recorded num_replicas and batch_size, as measured on
// T4 GPUs in nodes of 4 (docs/traces.md#pollux---format-pollux).
#include "workloads/formats/pollux.h"
#include "workloads/formats/registry.h"

#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "workloads/formats/csv_rows.h"
#include "workloads/formats/pollux_profile.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"

#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>

namespace dlsim {

namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 5> kColumns = {"name", "time", "application", "num_replicas",
                                                 "batch_size"};

// The GPU Pollux's profiles were measured on, in nodes of 4 (the zoo's source [2] for T4 step
// times; configs/clusters/pollux.yaml).
constexpr const char* kProfiledOn = "T4";

struct Application {
  const char* pollux;
  const char* zoo;      // the zoo model (configs/models/zoo.yaml)
  double max_local_bsz; // 0 = the largest local_bsz of placements.csv
};

// The six applications of adaptdl's simulator/applications.py. yolov3's largest per-GPU batch
// is 8 there (max_local_bsz=8), below its measured 16.
constexpr std::array<Application, 6> kApplications = {{{"bert", "bert_base", 0},
                                                       {"cifar10", "resnet18", 0},
                                                       {"deepspeech2", "deepspeech2", 0},
                                                       {"imagenet", "resnet50", 0},
                                                       {"ncf", "ncf", 0},
                                                       {"yolov3", "yolov3", 8}}};

const Application* find_application(std::string_view name) {
  for (const auto& a : kApplications) {
    if (name == a.pollux) return &a;
  }
  return nullptr;
}

std::string profile_names(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

} // namespace

std::string_view pollux_application_to_zoo(std::string_view application) {
  const Application* a = find_application(application);
  return a ? std::string_view(a->zoo) : application;
}

Trace read_pollux_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  auto header = read_csv_header(file);
  check_csv_header(trace, header, kColumns, kColumns, "pollux");
  const std::string& dir = options.pollux_profiles;
  if (dir.empty() || !is_directory_path(dir)) {
    throw InputError(fmt::format("{}: the pollux format needs the directory of Pollux's "
                                 "profiles (traces/pollux-profiles), not found: '{}'",
                                 file, dir));
  }
  std::map<std::string, PolluxProfile> profiles;
  std::map<std::tuple<std::string, int, int>, std::pair<PolluxRun, std::string>> runs;
  std::unordered_set<std::string> seen_ids;
  const std::uint32_t t4 = trace.device_types.intern(kProfiledOn);
  for_each_csv_row(file, kColumns, header.size(), trace, options, [&](auto& f, CsvRow& row) {
    TraceJob job;
    job.line = row.line;
    row.column = "name";
    const std::string job_id = required_job_id(f[0], seen_ids);
    row.column = "time";
    job.submit_s = required_time_s(f[1], "the submit time");
    row.column = "application";
    if (empty_field(f[2])) throw FieldError{"missing value: expected an application"};
    const std::string app = f[2];
    row.column = "num_replicas";
    const auto replicas = required_gpu_count(f[3], 1);
    row.column = "batch_size";
    auto batch = parse_int_field(f[4]);
    if (!batch || *batch < 1 || *batch > 1'000'000'000)
      throw FieldError{"expected a total batch size from 1 to 1e9"};
    row.column = "application";
    auto p = profiles.find(app);
    if (p == profiles.end()) {
      if (app.find('/') != std::string::npos || app == "." || app == ".." ||
          !path_exists(fs::path(dir) / app / "placements.csv")) {
        throw FieldError{fmt::format("no Pollux profile for '{}' in {} (the profiles: {})", app,
                                     dir, profile_names(dir))};
      }
      const Application* a = find_application(app);
      p = profiles.emplace(app, load_pollux_profile(dir, app, a ? a->max_local_bsz : 0)).first;
    }
    row.column = "batch_size";
    auto key = std::make_tuple(app, static_cast<int>(replicas), static_cast<int>(*batch));
    auto r = runs.find(key);
    if (r == runs.end()) {
      std::string error;
      PolluxRun run =
          pollux_run_time(p->second, static_cast<int>(replicas), static_cast<int>(*batch), error);
      r = runs.emplace(key, std::make_pair(run, error)).first;
    }
    if (!r->second.second.empty()) throw FieldError{r->second.second};
    job.duration_s = checked_seconds(r->second.first.run_time_s);
    // The row is good: from here on nothing throws.
    seen_ids.insert(job_id);
    job.workers = static_cast<std::uint32_t>(replicas);
    job.devices_per_worker = 1;
    job.observed_type = t4;
    job.model = trace.models.intern(pollux_application_to_zoo(app));
    trace.add(job, job_id);
  });
  finish_trace(trace, 0);
  return trace;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat pollux_format() {
  return {"pollux",
          "Pollux workload: name, time, application, num_replicas, batch_size; run times from "
          "the applications' profiles (traces/pollux-profiles)",
          &read_pollux_trace};
}

} // namespace dlsim
