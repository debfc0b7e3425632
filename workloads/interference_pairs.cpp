#include "workloads/interference_pairs.h"

#include "sim/engine/error.h"
#include "workloads/formats/csv_row_loop.h"
#include "workloads/formats/csv_rows.h"
#include "workloads/formats/field_parse.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>
#include <unordered_map>

namespace dlsim {

InterferencePairs load_interference_pairs(const std::string& file,
                                          const std::vector<DeviceType>& types, const ModelZoo& zoo,
                                          const std::vector<std::string>& run_models, bool strict) {
  static constexpr std::array<const char*, 4> kColumns{"device_type", "model", "with", "slowdown"};
  std::vector<std::string> header = read_csv_header(file);
  for (const char* column : kColumns) {
    if (!has_column(header, column)) {
      throw InputError(fmt::format("{}:1: the header has no column '{}' (the columns are {})", file,
                                   column, fmt::join(kColumns, ",")));
    }
  }
  // A row's name stands for the run's model of that key and for every run model whose
  // `measured_as` is that name (the same job under the measurement's own name).
  std::unordered_map<std::string, std::vector<std::uint32_t>> run_model_ids;
  for (std::uint32_t m = 0; m < run_models.size(); ++m) {
    if (run_models[m].empty()) continue;
    run_model_ids[run_models[m]].push_back(m);
    if (auto z = zoo.find(run_models[m]); z && !zoo.models[*z].measured_as.empty()) {
      run_model_ids[zoo.models[*z].measured_as].push_back(m);
    }
  }
  std::unordered_map<std::string_view, bool> known; // a key or a `measured_as` of the zoo
  for (const ModelInfo& m : zoo.models) {
    known.emplace(m.name, true);
    if (!m.measured_as.empty()) known.emplace(m.measured_as, true);
  }
  InterferencePairs pairs;
  pairs.models = static_cast<std::uint32_t>(run_models.size());
  pairs.slowdown.assign(types.size() * pairs.models * pairs.models, 0.0);
  std::unordered_map<std::string, unsigned> line_of; // "type,model,with" -> its line

  auto on_row = [&](const std::array<char*, 4>& cells, CsvRow& row) {
    row.column = "device_type";
    auto type = find_device_type(types, cells[0]);
    if (!type) throw FieldError{fmt::format("'{}' is not a device type of the catalog", cells[0])};
    const std::vector<std::uint32_t>* ids[2] = {nullptr, nullptr};
    bool used = true;
    for (int k = 0; k < 2; ++k) {
      row.column = k == 0 ? "model" : "with";
      std::string name = cells[1 + k];
      if (!known.count(name)) {
        if (!strict) {
          used = false;
          continue;
        }
        throw FieldError{
            fmt::format("'{}' is not a model of {} (nor a `measured_as` of one)", name, zoo.file)};
      }
      auto it = run_model_ids.find(name);
      if (it == run_model_ids.end()) {
        used = false;
      } else {
        ids[k] = &it->second;
      }
    }
    row.column = "slowdown";
    std::optional<double> slowdown = parse_double_field(cells[3]);
    if (!slowdown || !std::isfinite(*slowdown) || *slowdown <= 0) {
      throw FieldError{
          fmt::format("expected a slowdown > 0 (solo speed / packed speed), got '{}'", cells[3])};
    }
    auto [seen, fresh] =
        line_of.emplace(fmt::format("{},{},{}", cells[0], cells[1], cells[2]), row.line);
    if (!fresh) {
      row.column = "model";
      throw FieldError{fmt::format("the pair ({}, {}) on {} is already given at line {}", cells[1],
                                   cells[2], cells[0], seen->second)};
    }
    if (!used) return;
    for (std::uint32_t a : *ids[0]) {
      for (std::uint32_t b : *ids[1]) {
        std::size_t i = (std::size_t{*type} * pairs.models + a) * pairs.models + b;
        pairs.slowdown[i] = *slowdown;
      }
    }
  };
  csv_row_loop(CsvSource{file, CsvHeader::kNamed, header.size()}, kColumns, on_row,
               [](const std::string& message) { throw InputError(message); });
  return pairs;
}

} // namespace dlsim
