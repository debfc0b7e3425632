// Reads Gavel's and Shockwave's throughput files with nlohmann-json and turns them into one zoo
// model per (job type, scale factor) of a trace (docs/gavel.md#measured-throughputs).
#include "workloads/measured_throughputs.h"

#include "sim/engine/error.h"
#include "workloads/formats/gavel.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <string_view>

namespace dlsim {

namespace {

using nlohmann::json;

constexpr std::string_view kUnconsolidated = "_unconsolidated";
constexpr double kLeastThroughput = 1e-9; // steps per second

// nlohmann's messages start with "[json.exception.parse_error.101] ": keep what follows.
std::string plain(const char* what) {
  std::string s(what);
  auto close = s.find("] ");
  return s.rfind("[json.exception", 0) == 0 && close != std::string::npos ? s.substr(close + 2) : s;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Python's repr of a (job type, scale factor) tuple: "('ResNet-18 (batch size 16)', 4)".
struct JobKey {
  std::string job_type;
  std::uint32_t scale = 0;
};
std::optional<JobKey> parse_job_key(std::string_view key) {
  constexpr std::string_view kOpen = "('";
  constexpr std::string_view kSep = "', ";
  if (!key.starts_with(kOpen) || !key.ends_with(")")) return std::nullopt;
  const auto sep = key.rfind(kSep);
  if (sep == std::string_view::npos || sep < kOpen.size()) return std::nullopt;
  JobKey out;
  out.job_type = std::string(key.substr(kOpen.size(), sep - kOpen.size()));
  const std::string_view digits = key.substr(sep + kSep.size(), key.size() - 1 - sep - kSep.size());
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.scale);
  if (ec != std::errc() || end != digits.data() + digits.size() || out.scale == 0)
    return std::nullopt;
  return out;
}

// A key of the file for a message, as JSON writes it: in double quotes, at most 200 bytes.
std::string key_text(std::string_view key) {
  constexpr std::size_t kMost = 200;
  return key.size() <= kMost ? fmt::format("[\"{}\"]", key)
                             : fmt::format("[\"{}...\"]", key.substr(0, kMost));
}

// A throughput: a finite number >= 0 (steps per second).
double throughput_at(const json& v, const std::string& where) {
  if (!v.is_number())
    throw InputError(
        fmt::format("{}: expected a throughput (a number), got {}", where, quote_input(v.dump())));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0)
    throw InputError(fmt::format("{}: a throughput must be finite and >= 0, got {}", where, x));
  // A step every 30 years is no measurement, and its time per step would not be finite.
  if (x > 0 && x < kLeastThroughput) {
    throw InputError(fmt::format("{}: a throughput must be 0 (cannot run) or at least {:g} "
                                 "steps/s, got {:g}",
                                 where, kLeastThroughput, x));
  }
  return x;
}

} // namespace

std::string measured_model_name(const std::string& model, std::uint32_t scale) {
  return fmt::format("{}@{}", model, scale);
}

MeasuredThroughputs read_measured_throughputs(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open the throughputs file");
  json root;
  try {
    root = json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: malformed JSON: {}", file, plain(e.what())));
  }
  if (!root.is_object() || root.empty())
    throw InputError(file + ": expected a JSON object of device types (\"v100\": {...})");
  MeasuredThroughputs out;
  out.file = file;
  // The file's job type behind each model name, so that two spellings of one model are caught.
  std::map<std::string, std::string> type_of_model;
  for (const auto& [device, jobs] : root.items()) {
    const std::string at_device = fmt::format("{}: {}", file, key_text(device));
    if (!jobs.is_object()) throw InputError(at_device + ": expected an object of job types");
    const bool used = !lower(device).ends_with(kUnconsolidated);
    for (const auto& [key, value] : jobs.items()) {
      const std::string at_key = at_device + key_text(key);
      auto job = parse_job_key(key);
      if (!job) throw InputError(at_key + ": expected a key ('Job type', scale factor)");
      auto model = gavel_job_type_model(job->job_type);
      if (!model) {
        throw InputError(at_key +
                         ": expected a job type 'Model' or 'Model (batch size N)' in the key");
      }
      if (auto [it, fresh] = type_of_model.emplace(*model, job->job_type);
          !fresh && it->second != job->job_type) {
        throw InputError(fmt::format("{}: job types '{}' and '{}' are both model {}", at_key,
                                     it->second, job->job_type, *model));
      }
      if (!value.is_object()) throw InputError(at_key + ": expected an object with \"null\"");
      auto alone = value.find("null");
      if (alone == value.end())
        throw InputError(at_key + ": missing \"null\" (the job type's throughput alone)");
      const double steps_s = throughput_at(*alone, at_key + "[\"null\"]");
      for (const auto& [other, pair] : value.items()) {
        if (other == "null") continue;
        const std::string at_pair = at_key + key_text(other);
        if (!parse_job_key(other)) throw InputError(at_pair + ": expected ('Job type', k)");
        if (!pair.is_array() || pair.size() != 2)
          throw InputError(at_pair + ": expected a pair [this job's, the other's throughput]");
        throughput_at(pair[0], at_pair + "[0]");
        throughput_at(pair[1], at_pair + "[1]");
        ++out.pairs;
      }
      if (!used) continue;
      MeasuredThroughputs::Entry& entry = out.entries[{*model, job->scale}];
      entry.job_type = job->job_type;
      entry.alone[lower(device)] = steps_s;
    }
  }
  if (out.entries.empty())
    throw InputError(file + ": no job type measured on any device type (but unconsolidated ones)");
  return out;
}

MeasuredModels::MeasuredModels(Trace& trace, ModelZoo& zoo, const MeasuredThroughputs& measured,
                               const std::vector<DeviceType>& types)
    : trace_(trace), zoo_(zoo), measured_(measured), types_(types) {}

std::optional<std::uint32_t> MeasuredModels::model(const std::string& name, std::uint32_t k) {
  auto [slot, fresh] = made_.try_emplace({name, k}, kNoString);
  if (!fresh) {
    if (slot->second == kNoString) return std::nullopt;
    return slot->second;
  }
  auto found = measured_.entries.find({name, k});
  if (found == measured_.entries.end()) return std::nullopt;
  const MeasuredThroughputs::Entry& entry = found->second;
  // The zoo's model of that name (or measured as it) gives the facts the file lacks.
  ModelInfo info;
  for (const ModelInfo& m : zoo_.models) {
    if (m.name == name || m.measured_as == name) {
      info = m;
      break;
    }
  }
  info.name = measured_model_name(name, k);
  info.drawn = false;
  // Measured co-location pairs (runtime.interference.pairs) are of single-GPU jobs.
  info.measured_as = k == 1 ? name : std::string();
  // The measured throughput includes the job's communication: none is modelled on top.
  info.params_m = 0;
  info.input_mb_per_sample = 0;
  info.iteration_time_s.clear();
  info.unsupported.clear();
  for (const DeviceType& t : types_) {
    auto v = entry.alone.find(lower(t.name));
    if (v != entry.alone.end() && v->second > 0) {
      info.iteration_time_s[t.name] = static_cast<double>(k) / v->second;
      continue;
    }
    info.iteration_time_s[t.name] = 1; // a placeholder: unsupported makes it infinite
    info.unsupported[t.name] =
        v == entry.alone.end()
            ? fmt::format("{} has no throughput of '{}' at scale factor {} on it", measured_.file,
                          entry.job_type, k)
            : fmt::format("{} gives '{}' at scale factor {} a throughput of 0 on it",
                          measured_.file, entry.job_type, k);
  }
  if (!info.iteration_time_s.contains(zoo_.reference_device)) {
    info.iteration_time_s[zoo_.reference_device] = 1;
    info.unsupported[zoo_.reference_device] = "not in the cluster";
  }
  if (auto existing = zoo_.find(info.name)) {
    zoo_.models[*existing] = std::move(info);
  } else {
    zoo_.models.push_back(std::move(info));
  }
  slot->second = trace_.models.intern(measured_model_name(name, k));
  return slot->second;
}

void apply_measured_throughputs(
    Trace& trace, ModelZoo& zoo, const MeasuredThroughputs& measured,
    const std::vector<DeviceType>& types,
    const std::function<void(TraceJob&, const std::string&, MeasuredModels&)>& each_job) {
  MeasuredModels models(trace, zoo, measured, types);
  std::set<std::string> in_file; // model names
  for (const auto& [key, entry] : measured.entries)
    in_file.insert(key.first);
  for (TraceJob& job : trace.jobs) {
    if (job.model == kNoString) {
      throw InputError(fmt::format("{}:{}: job '{}' has no job type, so no throughput in {}",
                                   trace.file, job.line, trace.name(job), measured.file));
    }
    const std::uint32_t k = job.workers * job.devices_per_worker;
    const std::string name = trace.models.at(job.model);
    auto made = models.model(name, k);
    if (!made) {
      throw InputError(fmt::format(
          "{}: no throughput for model '{}' at scale factor {} ({}), which {}:{} (job '{}') "
          "needs",
          measured.file, name, k,
          in_file.count(name) != 0 ? "the file measures it at other scale factors"
                                   : "no job type of the file is that model",
          trace.file, job.line, trace.name(job)));
    }
    job.model = *made;
    if (job.duration_is_work) {
      job.duration_is_work = false;
      job.duration_s = -1;
      job.observed_type = kNoString;
    }
    if (each_job) each_job(job, name, models);
  }
}

} // namespace dlsim
