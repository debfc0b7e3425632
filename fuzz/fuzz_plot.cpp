// libFuzzer target for `dlsim plot`'s inputs (docs/outputs.md#dlsim-plot): a result directory's
// summary.json, jobs.csv, timeseries.csv, events.csv and allocation.csv, in that order, separated
// by lines "%%" (an absent part leaves its file out). The command runs as a user runs it, on two
// runs of that directory, with --no-render (gnuplot is not run; the data files and plot.gp are
// written). The first byte picks options: bit 0 --bars (with the baseline label), bit 1
// --gantt on, bit 2 --logx on. It must succeed or throw InputError (exit 1); anything else is a
// finding. The files written must be UTF-8.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/analysis/commands.h"
#include "sim/engine/error.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  static const std::vector<std::string> kFiles = {"summary.json", "jobs.csv", "timeseries.csv",
                                                  "events.csv", "allocation.csv"};
  std::string dir =
      dlsim::fuzz::input_dir("run", kFiles, dlsim::fuzz::split_input(data + 1, size - 1, 5));
  static const std::string out = dlsim::fuzz::scratch_dir() + "/plots";
  std::vector<std::string> args = {dir, dir,  "--label", "a",       "--label",
                                   "b", "-o", out,       "--quiet", "--no-render"};
  if ((flags & 1) != 0) {
    args.insert(args.end(),
                {"--bars", "jct_mean_s,makespan_s,util_by_kind.gpu.alloc", "--baseline", "a"});
  }
  if ((flags & 2) != 0) args.insert(args.end(), {"--gantt", "on"});
  if ((flags & 4) != 0) args.insert(args.end(), {"--logx", "on"});
  try {
    dlsim::command_plot(args);
  } catch (const dlsim::InputError&) {
    return 0;
  }
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    dlsim::fuzz::require_utf8(dlsim::fuzz::file_bytes(entry.path().string()),
                              entry.path().string());
  }
  return 0;
}
