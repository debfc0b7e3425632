// libFuzzer target for the pai2020 reader, which reads a directory of tables. The input holds
// the job, task, group-tag and sensor tables in that order, separated by lines "%%"; absent
// parts leave the table out (the job and task tables are required, so their absence is an
// InputError too). Only InputError may come out.
#include "fuzz/fuzz_scratch.h"
#include "sim/engine/error.h"
#include "workloads/formats/pai2020.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static constexpr std::array<const char*, 4> kTables = {
      "pai_job_table.csv", "pai_task_table.csv", "pai_group_tag_table.csv", "pai_sensor_table.csv"};
  // The directory stays from one input to the next: each table given is rewritten, each absent
  // one removed (a fresh directory per input cost a remove_all and a mkdir).
  static const std::string dir = [] {
    std::string d = dlsim::fuzz::scratch_dir() + "/pai";
    std::filesystem::create_directory(d);
    return d;
  }();
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::size_t given = 0;
  for (; given < kTables.size() && rest.data() != nullptr; ++given) {
    auto sep = rest.find("\n%%\n");
    std::string_view part = rest.substr(0, sep);
    dlsim::fuzz::write_input(std::string("pai/") + kTables[given],
                             reinterpret_cast<const std::uint8_t*>(part.data()), part.size());
    if (sep == std::string_view::npos) {
      ++given;
      break;
    }
    rest.remove_prefix(sep + 4);
  }
  for (std::size_t t = given; t < kTables.size(); ++t) {
    std::error_code ec;
    std::filesystem::remove(dir + "/" + kTables[t], ec);
  }
  dlsim::ReadOptions options;
  options.skip_bad_jobs = size > 0 && (data[size - 1] & 1) != 0;
  try {
    dlsim::Trace trace = dlsim::read_pai2020_trace(dir, options);
    (void)trace;
  } catch (const dlsim::InputError&) {
  }
  return 0;
}
