// Node lists to cluster YAML. Model names become dlsim device types (the same mapping the
// openb and pai2020 trace readers use for jobs), CPU-only machines become two XeonCPU sockets.
#include "workloads/cluster_from_trace.h"

#include "sim/engine/error.h"

#include "workloads/formats/csv_rows.h"
#include "workloads/formats/openb.h"
#include "workloads/formats/pai2020.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/unique_ids.h"

#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

namespace dlsim {

namespace {

// A CPU-only machine: dlsim's nodes need at least one device, and CPU jobs of the device model
// (pai2020's) run on XeonCPU sockets; two sockets is the common server
// (docs/traces.md#clusters-from-traces). GPU machines get none: openb's CPU-only pods are host
// tasks that hold a node's cores and memory without a device (docs/runtime.md#host-tasks).
constexpr std::uint32_t kCpuSocketsPerNode = 2;

struct Machine {
  std::string model;       // dlsim device type; "" = CPU-only
  std::string trace_model; // as the trace names it (V100M32 for a V100 of 32 GB), for group names
  std::uint32_t gpus = 0;
  double cpu_cores = 0;
  double memory_gb = 0;
  auto key() const { return std::tie(trace_model, model, gpus, cpu_cores, memory_gb); }
};

// A number as its shortest round-trip text (31.2, not 31.199999999999999 as yaml-cpp writes it).
YAML::Node num(double v) {
  return YAML::Node(fmt::format("{}", v));
}

// Groups identical machines, in order of first appearance.
YAML::Node groups_yaml(const std::vector<Machine>& machines, const std::string& prefix) {
  std::vector<std::pair<Machine, std::uint32_t>> groups;
  std::map<std::tuple<std::string, std::string, std::uint32_t, double, double>, std::size_t> index;
  for (const auto& m : machines) {
    auto [it, fresh] = index.emplace(m.key(), groups.size());
    if (fresh) groups.emplace_back(m, 0);
    ++groups[it->second].second;
  }
  YAML::Node nodes(YAML::NodeType::Sequence);
  for (const auto& [m, count] : groups) {
    YAML::Node g;
    g["name"] = m.model.empty() ? fmt::format("{}-cpu-{}c-{}g", prefix, m.cpu_cores, m.memory_gb)
                                : fmt::format("{}-{}x{}-{}c-{}g", prefix, m.gpus, m.trace_model,
                                              m.cpu_cores, m.memory_gb);
    g["count"] = count;
    if (!m.model.empty()) g["devices"][m.model] = m.gpus;
    if (m.model.empty()) g["devices"]["XeonCPU"] = kCpuSocketsPerNode;
    g["cpu_cores"] = num(m.cpu_cores);
    g["memory_gb"] = num(m.memory_gb);
    nodes.push_back(g);
  }
  return nodes;
}

// Device types that openb uses and the built-in catalog lacks.
void openb_device_types(YAML::Node& root, const std::vector<Machine>& machines) {
  auto used = [&](const char* name) {
    for (const auto& m : machines) {
      if (m.model == name) return true;
    }
    return false;
  };
  if (used("A10")) {
    YAML::Node t;
    t["kind"] = "gpu";
    t["memory_gb"] = 24;
    t["peak_fp32_tflops"] = num(31.2);
    t["rel_throughput"] = num(0.67);
    t["source"] =
        "NVIDIA A10 datasheet (24 GB GDDR6, 600 GB/s, 31.2 TFLOPS FP32); rel_throughput "
        "estimated as the memory-bandwidth ratio to a V100 (600/900), no training benchmark";
    root["device_types"]["A10"] = t;
  }
  for (const char* name : {"G2", "G3"}) {
    if (!used(name)) continue;
    YAML::Node t;
    t["kind"] = "gpu";
    t["rel_throughput"] = num(1.0);
    t["source"] =
        "openb: a GPU model Alibaba does not disclose; dlsim assumes V100-class throughput";
    root["device_types"][name] = t;
  }
}

double non_negative(const char* text) {
  auto v = parse_double_field(text);
  if (!v) throw FieldError{"missing value"};
  if (*v < 0) throw FieldError{fmt::format("must not be negative, got {}", *v)};
  return *v;
}

std::uint32_t gpu_count(const char* text) {
  auto v = parse_int_field(text);
  if (!v) throw FieldError{"missing value"};
  if (*v < 0 || *v > 64) throw FieldError{fmt::format("must be 0 to 64 GPUs, got {}", *v)};
  return static_cast<std::uint32_t>(*v);
}

double positive(const char* text) {
  double v = non_negative(text);
  if (v <= 0) throw FieldError{fmt::format("must be positive, got {}", v)};
  return v;
}

} // namespace

std::optional<TraceClusterSpec> parse_trace_cluster_spec(const std::string& text) {
  for (const char* format : {"openb", "pai2020"}) {
    std::string prefix = std::string(format) + ":";
    if (text.rfind(prefix, 0) == 0) return TraceClusterSpec{format, text.substr(prefix.size())};
  }
  return std::nullopt;
}

YAML::Node trace_cluster_yaml(const TraceClusterSpec& spec) {
  if (spec.file.empty())
    throw InputError(fmt::format("cluster: {}: expected {}:FILE", spec.format, spec.format));
  if (spec.format == "openb") return openb_cluster_yaml(spec.file);
  if (spec.format == "pai2020") return pai2020_cluster_yaml(spec.file);
  throw InputError(fmt::format("cluster: unknown trace cluster format '{}' (known: openb, pai2020)",
                               spec.format));
}

YAML::Node openb_cluster_yaml(const std::string& file) {
  constexpr std::array<const char*, 5> kColumns = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
  auto header = read_csv_header(file);
  if (header.empty()) throw InputError(file + ": empty file: expected a header line");
  for (const char* name : kColumns) {
    if (!has_column(header, name)) {
      throw InputError(fmt::format("{}:1: {}: required column missing from the header (expected "
                                   "sn,cpu_milli,memory_mib,gpu,model)",
                                   file, name));
    }
  }
  std::vector<Machine> machines;
  UniqueIds names; // a node listed twice would be counted twice
  csv_row_loop(
      CsvSource{file, CsvHeader::kNamed, header.size()}, kColumns,
      [&](const std::array<char*, 5>& f, CsvRow& row) {
        Machine m;
        row.column = "sn";
        if (empty_field(f[0])) throw FieldError{"empty node name"};
        if (!names.insert(f[0]))
          throw FieldError{fmt::format("node {} is listed twice", quote_input(f[0], 60))};
        row.column = "cpu_milli";
        m.cpu_cores = positive(f[1]) / 1000.0;
        row.column = "memory_mib";
        m.memory_gb = positive(f[2]) / 1024.0;
        row.column = "gpu";
        m.gpus = gpu_count(f[3]);
        row.column = "model";
        std::string model = f[4] != nullptr ? f[4] : "";
        if (model.empty() != (m.gpus == 0)) {
          throw FieldError{
              m.gpus == 0
                  ? fmt::format("a node with no GPU must have an empty model, got '{}'", model)
                  : fmt::format("a node with {} GPUs needs a model", m.gpus)};
        }
        m.model = std::string(openb_device_type(model));
        m.trace_model = model;
        machines.push_back(m);
      },
      throw_bad_row);
  if (machines.empty()) throw InputError(file + ": the node list has no nodes");
  YAML::Node root;
  openb_device_types(root, machines);
  root["nodes"] = groups_yaml(machines, "openb");
  return root;
}

YAML::Node pai2020_cluster_yaml(const std::string& file) {
  constexpr std::array<const char*, 5> kColumns = {"machine", "gpu_type", "cap_cpu", "cap_mem",
                                                   "cap_gpu"};
  std::vector<Machine> machines;
  // The published file has no header row; a first line equal to the header is skipped.
  auto first = read_first_line(file);
  if (!first)
    throw InputError(file +
                     ": empty file: expected rows of machine,gpu_type,cap_cpu,cap_mem,cap_gpu");
  CsvHeader header =
      *first == "machine,gpu_type,cap_cpu,cap_mem,cap_gpu" ? CsvHeader::kNamed : CsvHeader::kNone;
  UniqueIds names; // a machine listed twice would be counted twice
  csv_row_loop(
      CsvSource{file, header, kColumns.size()}, kColumns,
      [&](const std::array<char*, 5>& f, CsvRow& row) {
        Machine m;
        const char*& column = row.column;
        column = "machine";
        if (empty_field(f[0])) throw FieldError{"empty machine name"};
        if (!names.insert(f[0]))
          throw FieldError{fmt::format("machine {} is listed twice", quote_input(f[0], 60))};
        column = "cap_cpu";
        m.cpu_cores = positive(f[2]);
        column = "cap_mem";
        m.memory_gb = positive(f[3]);
        column = "cap_gpu";
        m.gpus = gpu_count(f[4]);
        column = "gpu_type";
        std::string type = f[1] != nullptr ? f[1] : "";
        if (type == "CPU" || type.empty()) {
          if (m.gpus != 0)
            throw FieldError{fmt::format("a CPU machine must have cap_gpu 0, got {}", m.gpus)};
        } else {
          if (m.gpus == 0) throw FieldError{fmt::format("a {} machine needs cap_gpu > 0", type)};
          // MISC = older K40m/K80/M60 (the trace's README): the catalog's K80 stands for them.
          m.trace_model = type;
          m.model = type == "MISC" ? "K80" : std::string(pai2020_device_type(type));
          if (m.model.empty()) {
            throw FieldError{fmt::format(
                "unknown gpu_type '{}' (known: CPU, MISC, P100, T4, V100, V100M32)", type)};
          }
        }
        machines.push_back(m);
      },
      throw_bad_row);
  if (machines.empty()) throw InputError(file + ": the machine spec has no machines");
  YAML::Node root;
  root["nodes"] = groups_yaml(machines, "pai");
  return root;
}

} // namespace dlsim
