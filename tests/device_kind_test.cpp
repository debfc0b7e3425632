// A device kind is a value of DeviceKind and a row of kDeviceKindNames: parsing, naming and the
// per-kind columns of timeseries.csv read that table (docs/architecture.md, "A device kind").
#include "sim/cluster/device_catalog.h"
#include "sim/report/metrics.h"
#include "sim/report/writers.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>

using namespace dlsim;

namespace {

std::size_t fields(const std::string& line) {
  return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

} // namespace

TEST_CASE("every device kind's name parses back to it, and an unknown name does not",
          "[device_kind]") {
  for (std::size_t k = 0; k < kDeviceKinds; ++k) {
    auto kind = static_cast<DeviceKind>(k);
    CHECK(to_string(kind) == kDeviceKindNames[k].name);
    REQUIRE(parse_device_kind(to_string(kind)).has_value());
    CHECK(*parse_device_kind(to_string(kind)) == kind);
  }
  CHECK_FALSE(parse_device_kind("xeon_phi").has_value()); // the column word, not the kind's name
  CHECK_FALSE(parse_device_kind("GPU").has_value());      // names are lower case
}

TEST_CASE("timeseries.csv has two columns per device kind, named from the kinds' table",
          "[device_kind]") {
  std::ostringstream header;
  write_timeseries_header(header);
  std::string h = header.str();
  REQUIRE(h.back() == '\n');
  h.pop_back();
  // time_s, running_jobs, pending_jobs, 2 per kind, held_core_util, busy_gpu_util: 3 + 2k + 2.
  CHECK(fields(h) == 3 + 2 * kDeviceKinds + 2);
  for (const DeviceKindNames& k : kDeviceKindNames) {
    CHECK(h.find(",allocated_" + std::string(k.devices_col) + ",effective_" +
                 std::string(k.util_col) + "_util") != std::string::npos);
  }
  CHECK(h.rfind("time_s,running_jobs,pending_jobs,allocated_gpus,effective_gpu_util,", 0) == 0);

  // A row in the same order: the FPGA kind's figures land in its own two columns.
  Sample s;
  s.time = 10'000'000; // 10 s in microseconds
  s.running = 2;
  s.pending = 1;
  s.allocated_gpus = 3;
  s.effective_util = 0.5;
  s.allocated_by_kind[static_cast<std::size_t>(DeviceKind::kFpga)] = 7;
  s.effective_util_by_kind[static_cast<std::size_t>(DeviceKind::kFpga)] = 0.25;
  s.held_core_util = 0.125;
  s.busy_util = 0.375;
  std::ostringstream row;
  write_timeseries_row(row, s);
  std::string r = row.str();
  r.pop_back();
  CHECK(fields(r) == fields(h));
  // gpu, cpu, xeonphi, fpga: the FPGA pair is the 4th kind, after the CPU and Xeon Phi zeros.
  CHECK(r == "10,2,1,3,0.5,0,0,0,0,7,0.25,0.125,0.375");
}
