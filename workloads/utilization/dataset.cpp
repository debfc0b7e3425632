// Reading the utilization dataset (dataset.h).
#include "workloads/utilization/dataset.h"

#include "sim/engine/error.h"
#include "workloads/formats/csv_row_loop.h"
#include "workloads/formats/csv_rows.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace dlsim {

namespace {

template <std::size_t N>
void require_columns(const std::string& file, const std::array<const char*, N>& columns) {
  std::vector<std::string> header = read_csv_header(file);
  for (const char* column : columns) {
    if (!has_column(header, column)) {
      throw InputError(fmt::format("{}:1: the header has no column '{}' (the columns are {})", file,
                                   column, fmt::join(columns, ",")));
    }
  }
}

double number_at_least(const char* text, double lo, bool open_low) {
  std::optional<double> v = parse_double_field(text);
  if (!v || !std::isfinite(*v) || (open_low ? !(*v > lo) : !(*v >= lo))) {
    throw FieldError{
        fmt::format("expected a number {} {}, got '{}'", open_low ? ">" : ">=", lo, text)};
  }
  return *v;
}

} // namespace

std::map<std::string, UtilArchitecture> load_util_architectures(const std::string& file) {
  static constexpr std::array<const char*, 9> kColumns{
      "arch",          "family",           "gmac_fwd", "params_m", "conv_layers",
      "linear_layers", "recurrent_layers", "act_mb",   "source"};
  require_columns(file, kColumns);
  std::map<std::string, UtilArchitecture> archs;
  std::map<std::string, unsigned> line_of;
  auto on_row = [&](const std::array<char*, 9>& c, CsvRow& row) {
    UtilArchitecture a;
    row.column = "arch";
    a.name = c[0];
    if (a.name.empty()) throw FieldError{"empty architecture name"};
    auto [seen, fresh] = line_of.emplace(a.name, row.line);
    if (!fresh) {
      throw FieldError{fmt::format("'{}' is already given at line {}", a.name, seen->second)};
    }
    a.family = c[1];
    row.column = "gmac_fwd";
    // Training FLOPs per sample = 3 x forward (backward = 2 x forward), 2 FLOPs per multiply-add:
    // the zoo's convention (docs/models.md).
    a.graph.gflops_per_sample = 6 * number_at_least(c[2], 0, true);
    row.column = "params_m";
    a.graph.params_m = number_at_least(c[3], 0, true);
    row.column = "conv_layers";
    a.graph.conv_layers = number_at_least(c[4], 0, false);
    row.column = "linear_layers";
    a.graph.linear_layers = number_at_least(c[5], 0, false);
    row.column = "recurrent_layers";
    a.graph.recurrent_layers = number_at_least(c[6], 0, false);
    row.column = "act_mb";
    a.graph.activation_mb = number_at_least(c[7], 0, true);
    row.column = "source";
    if (std::string_view(c[8]).empty()) throw FieldError{"every architecture needs its source"};
    archs.emplace(a.name, a);
  };
  csv_row_loop(CsvSource{file, CsvHeader::kNamed, read_csv_header(file).size()}, kColumns, on_row,
               [](const std::string& message) { throw InputError(message); });
  if (archs.empty()) throw InputError(fmt::format("{}: no architecture", file));
  return archs;
}

UtilDataset load_util_dataset(const std::string& arch_file, const std::string& data_file,
                              const std::vector<DeviceType>& types) {
  std::map<std::string, UtilArchitecture> archs = load_util_architectures(arch_file);
  static constexpr std::array<const char*, 6> kColumns{"arch",         "device",     "batch",
                                                       "gpu_util_pct", "gpu_mem_gb", "source"};
  require_columns(data_file, kColumns);
  UtilDataset d;
  std::vector<Eigen::VectorXd> rows;
  std::map<std::string, unsigned> line_of;
  std::set<std::string> used;
  auto on_row = [&](const std::array<char*, 6>& c, CsvRow& row) {
    UtilSample s;
    row.column = "arch";
    auto a = archs.find(c[0]);
    if (a == archs.end()) {
      throw FieldError{fmt::format("'{}' is not an architecture of {}", c[0], arch_file)};
    }
    s.arch = c[0];
    row.column = "device";
    auto type = find_device_type(types, c[1]);
    if (!type) throw FieldError{fmt::format("'{}' is not a device type of the catalog", c[1])};
    s.device = c[1];
    row.column = "batch";
    s.batch = number_at_least(c[2], 0, true);
    row.column = "gpu_util_pct";
    s.util_pct = number_at_least(c[3], 0, true);
    if (s.util_pct > 100) throw FieldError{fmt::format("expected at most 100, got '{}'", c[3])};
    row.column = "gpu_mem_gb";
    s.gpu_mem_gb = number_at_least(c[4], 0, true);
    row.column = "source";
    s.source = c[5];
    if (s.source.empty()) throw FieldError{"every row needs its source"};
    row.column = "arch";
    auto [seen, fresh] = line_of.emplace(fmt::format("{},{},{}", c[0], c[1], c[2]), row.line);
    if (!fresh) {
      throw FieldError{fmt::format("({}, {}, batch {}) is already given at line {}", c[0], c[1],
                                   c[2], seen->second)};
    }
    rows.push_back(util_feature_row(a->second.graph, s.batch, types[*type].peak_fp32_tflops));
    used.insert(s.arch);
    d.rows.push_back(std::move(s));
  };
  csv_row_loop(CsvSource{data_file, CsvHeader::kNamed, read_csv_header(data_file).size()}, kColumns,
               on_row, [](const std::string& message) { throw InputError(message); });
  if (d.rows.empty()) throw InputError(fmt::format("{}: no rows", data_file));
  for (const auto& [name, arch] : archs) {
    if (used.count(name)) d.archs.push_back(arch);
  }
  d.x.resize(static_cast<Eigen::Index>(rows.size()),
             static_cast<Eigen::Index>(kUtilFeatureNames.size()));
  d.util_pct.resize(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    d.x.row(static_cast<Eigen::Index>(i)) = rows[i].transpose();
    d.util_pct(static_cast<Eigen::Index>(i)) = d.rows[i].util_pct;
    for (std::size_t k = 0; k < d.archs.size(); ++k) {
      if (d.archs[k].name == d.rows[i].arch) d.rows[i].arch_id = static_cast<int>(k);
    }
  }
  return d;
}

} // namespace dlsim
