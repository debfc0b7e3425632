// libFuzzer target for `dlsim table`'s inputs (docs/outputs.md#dlsim-table): two result
// directories' summary.json and run.yaml, read by build_run_table (sim/cli/analysis/run_table.cpp)
// and printed by format_run_table in every format. The input is run 1's summary.json, run.yaml, run
// 2's summary.json, run.yaml, separated by lines "%%". The first byte picks what is asked: bit 0
// the default metrics, else bit 1 the columns `policy,jobs,trace.file`, else no metric. Reading
// must give a table or throw InputError or a YAML exception (exit 1); every format must print it.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/analysis/run_table.h"
#include "sim/engine/error.h"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  auto parts = dlsim::fuzz::split_input(data + 1, size - 1, 4);
  parts.resize(4);
  std::vector<std::string_view> first(parts.begin(), parts.begin() + 2);
  std::vector<std::string_view> second(parts.begin() + 2, parts.end());
  static const std::vector<std::string> kFiles = {"summary.json", "run.yaml"};
  std::vector<std::string> dirs = {dlsim::fuzz::input_dir("run-1", kFiles, first),
                                   dlsim::fuzz::input_dir("run-2", kFiles, second)};
  std::vector<std::string> metrics, columns;
  if ((flags & 1) != 0)
    metrics = dlsim::default_table_metrics();
  else if ((flags & 2) != 0)
    columns = {"policy", "jobs", "trace.file"};
  dlsim::RunTable table;
  try {
    table = dlsim::build_run_table(dirs, metrics, columns);
  } catch (const dlsim::InputError&) {
    return 0;
  } catch (const YAML::Exception&) {
    return 0;
  }
  for (const char* format : {"text", "csv", "markdown", "latex"}) {
    std::string text = dlsim::format_run_table(table, format);
    (void)text;
  }
  return 0;
}
