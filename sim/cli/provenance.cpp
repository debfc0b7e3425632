// provenance.json: the run's origin and cost, written beside the deterministic result files.
#include "sim/cli/provenance.h"
#include "sim/report/json_text.h"

#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "workloads/formats/registry.h"

#include "dlsim_commit.h"
#include "dlsim_version.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <vector>

namespace dlsim {

const char* dlsim_commit() {
  return DLSIM_COMMIT;
}

std::uint32_t text_crc32(const std::string& text) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  return static_cast<std::uint32_t>(crc);
}

FileChecksum file_checksum(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", path));
  FileChecksum sum;
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    auto n = static_cast<uInt>(in.gcount());
    if (n == 0) break;
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buffer.data()), n);
    sum.bytes += n;
  }
  if (in.bad()) throw InputError(fmt::format("{}: read failed", path));
  sum.crc32 = static_cast<std::uint32_t>(crc);
  return sum;
}

double process_cpu_seconds() {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0) return 0;
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

namespace {

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

nlohmann::ordered_json file_entry(const std::string& path) {
  nlohmann::ordered_json j;
  j["path"] = std::filesystem::absolute(path).lexically_normal().string();
  FileChecksum sum = file_checksum(path);
  j["crc32"] = fmt::format("{:08x}", sum.crc32);
  j["bytes"] = sum.bytes;
  return j;
}

} // namespace

void write_provenance_json(std::ostream& out, const Experiment& e, const ExperimentInputs& inputs,
                           const std::string& run_yaml, const RunTimes& times) {
  nlohmann::ordered_json j;
  j["dlsim_version"] = DLSIM_VERSION;
  j["commit"] = dlsim_commit();
  j["finished_utc"] = utc_now();
  j["run_yaml_crc32"] = fmt::format("{:08x}", text_crc32(run_yaml));
  nlohmann::ordered_json files;
  files["experiment"] = file_entry(e.source_file);
  if (!e.cluster_file.empty()) {
    // A trace's node list ("openb:FILE") names its file after the format.
    std::string cluster = e.cluster_file;
    auto colon = cluster.find(':');
    if (!path_exists(cluster) && colon != std::string::npos) cluster = cluster.substr(colon + 1);
    files["cluster"] = file_entry(cluster);
  }
  if (!e.trace_file.empty()) {
    // What the format reads: the file itself, or for pai2020 the tables of its directory.
    std::vector<std::string> read =
        trace_input_files(find_trace_format(e.trace_format), e.trace_file);
    if (read.size() == 1 && read.front() == e.trace_file) {
      files["trace"] = file_entry(e.trace_file);
    } else {
      nlohmann::ordered_json trace;
      trace["path"] = std::filesystem::absolute(e.trace_file).lexically_normal().string();
      trace["files"] = nlohmann::ordered_json::array();
      for (const std::string& file : read)
        trace["files"].push_back(file_entry(file));
      files["trace"] = trace;
    }
  }
  files["models"] = file_entry(e.models_file);
  j["inputs"] = files;
  nlohmann::ordered_json overrides = nlohmann::ordered_json::array();
  for (const auto& [key, value] : inputs.overrides)
    overrides.push_back(fmt::format("{}={}", key, value));
  j["overrides"] = overrides;
  j["wall_s"] = std::round(times.wall_s * 1e3) / 1e3;
  j["sim_s"] = std::round(times.sim_s * 1e3) / 1e3;
  j["cpu_s"] = std::round(times.cpu_s * 1e3) / 1e3;
  out << json_text(j, 2) << '\n';
}

} // namespace dlsim
