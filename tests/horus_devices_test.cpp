// HorusDevices (policies/horus_devices.h): the devices util-reactive and
// util-proactive choose from, grouped by what the Horus cost rule reads of them and kept from one
// decision to the next. Its choice must be, device for device, the one of repeated
// horus_choose() over every device (the policies' scan before the groups).
#include "policies/horus_devices.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr SimTime kSecond = 1'000'000;

// What util-reactive reads of device d without job `except`: nullopt while another holder's
// utilization is not measured.
std::optional<HorusDevice> reactive_read(const View& v, DeviceId d, JobId except) {
  const DeviceSlot& slot = v.device(d);
  HorusDevice h{v.cluster().type_of(d).memory_gb, 0, 0, 0};
  for (unsigned i = 0; i < slot.count; ++i) {
    const JobId other = slot.jobs[i];
    if (other == except) continue;
    const std::optional<double> u = v.measured_gpu_util(other);
    if (!u) return std::nullopt;
    h.held_gb += v.details(other).gpu_mem_gb;
    h.util_pct += *u * 100;
    ++h.tasks;
  }
  return h;
}

// The scan the groups replace: repeated horus_choose() over the devices of type t in id order.
std::vector<DeviceId> scanned(const View& v, DeviceTypeId t, JobId j,
                              std::optional<DeviceId> leaving, const HorusParams& p, double mem,
                              double util) {
  std::vector<DeviceId> ids;
  std::vector<HorusDevice> views;
  for (DeviceId d = 0; d < v.cluster().devices.size(); ++d) {
    if (v.cluster().devices[d].type != t || (leaving && d == *leaving)) continue;
    const std::optional<HorusDevice> h = reactive_read(v, d, j);
    if (!h || (leaving && h->tasks == 0)) continue;
    ids.push_back(d);
    views.push_back(*h);
  }
  std::vector<DeviceId> out;
  while (auto best = horus_choose(p, views, mem, util)) {
    views[*best].tasks = std::numeric_limits<int>::max() / 2;
    out.push_back(ids[*best]);
  }
  return out;
}

// The utilization (%) the tests place job j with: any number serves (the policies pass a
// measured or predicted one); varied by job so that the groups' order matters.
double util_for(JobId j) {
  return 40.0 + 10.0 * static_cast<double>(j % 5);
}

struct Index {
  HorusDevices devices;
  HorusParams p;

  // Every device the groups offer job j, in order (refreshed first); `most`: stop after that
  // many.
  std::vector<DeviceId> choose(const View& v, JobId j, std::optional<DeviceId> leaving = {},
                               std::size_t most = 1000) {
    devices.refresh(v);
    const RequestDetails& rd = v.details(j);
    std::vector<DeviceId> out;
    devices.choose(
        v, v.cluster().devices[0].type, j, leaving, p, rd.gpu_mem_gb, util_for(j),
        [&](DeviceId d, JobId except) { return reactive_read(v, d, except); },
        [&](DeviceId d) {
          out.push_back(d);
          return out.size() < most;
        });
    return out;
  }
};

RuntimeConfig packing_config() {
  RuntimeConfig config;
  config.max_jobs_per_device = 3; // Horus' 3 tasks per GPU
  return config;
}

} // namespace

TEST_CASE("Horus device groups by hand: profiled holders join a group, new ones leave it",
          "[util][horus][issue19]") {
  // Two nodes of two V100s (16 GB): devices 0-1 on node 0, 2-3 on node 1. resnet18 asks
  // 1.5 GB and is 70% busy alone (zoo). Costs (horus_cost.h, mem_weight 1.3, over_weight 1.6):
  //   empty device:           1.3 x 1.5 / 16 + |70 - 100| / 100             = 0.421875
  //   one measured resnet18:  1.3 x 3 / 16 + |140 - 100| x 1.6 / 100 + 1    = 1.88375
  const char* cluster = "nodes:\n  - {count: 2, devices: {V100: 2}}\n";
  const char* trace = "id,submit_s,workers,duration_s,model\n"
                      "a,0,1,10000,resnet18\nb,0,1,10000,resnet18\n"
                      "c,0,1,10000,resnet18\nd,0,1,10000,resnet18\n";
  Index index;
  const JobId a = 0, b = 1, c = 2, d = 3;
  ScriptedRun s(cluster, trace,
                {{0,
                  [&](Control& ctl) {
                    ctl.pack(a, std::vector<DeviceId>{0});
                    ctl.pack(b, std::vector<DeviceId>{2});
                    // a and b are not measured yet: devices 0 and 2 are volatile (read at every
                    // choice, and refused: their holders' utilization is unknown); 1 and 3 form the
                    // empty group. Equal costs: the lower id first.
                    CHECK(index.choose(ctl, c) == std::vector<DeviceId>{1, 3});
                    CHECK(index.devices.groups(ctl.cluster().devices[0].type) == 1);
                    CHECK(index.devices.volatile_count() == 2);
                  }},
                 {200 * kSecond,
                  [&](Control& ctl) {
                    // Both have run alone for more than profile_s (60 s): measured, without any
                    // device changing. Devices 0 and 2 join the group (1.5 GB, 70%, 1 task).
                    CHECK(index.choose(ctl, c) == std::vector<DeviceId>{1, 3, 0, 2});
                    CHECK(index.devices.groups(ctl.cluster().devices[0].type) == 2);
                    CHECK(index.devices.volatile_count() == 0);
                    CHECK(index.choose(ctl, c, {}, 1) ==
                          std::vector<DeviceId>{1}); // stops when told
                    // a leaving device 0: only devices holding another job, never its own.
                    CHECK(index.choose(ctl, a, DeviceId{0}) == std::vector<DeviceId>{2});
                    ctl.pack(c, std::vector<DeviceId>{2});
                    // Device 2 now holds b and c, c not measured: volatile again, refused to d.
                    CHECK(index.choose(ctl, d) == std::vector<DeviceId>{1, 3, 0});
                    CHECK(index.devices.volatile_count() == 1);
                    // For c itself device 2 is read without c (b alone: 1.88375, as device 0; lower
                    // id first), and leaving it, device 0 is the only one holding another job.
                    CHECK(index.choose(ctl, c) == std::vector<DeviceId>{1, 3, 0, 2});
                    CHECK(index.choose(ctl, c, DeviceId{2}) == std::vector<DeviceId>{0});
                  }}},
                packing_config());
  s.run();
}

TEST_CASE("Horus device groups choose as the scan of every device, over a changing cluster",
          "[util][horus][issue19]") {
  // Three nodes of four V100s; 40 jobs of five zoo models (different memory and utilization:
  // different groups) arrive over 600 s and run 150-1,500 s. Every 25 s a scripted policy packs
  // waiting jobs and migrates running ones onto random devices the runtime accepts, then every
  // job's choice from the groups (with and without leaving its device) must equal the scan's.
  const char* cluster = "nodes:\n  - {count: 3, devices: {V100: 4}}\n";
  const char* models[] = {"resnet18", "resnet50", "lstm", "vgg16", "transformer"};
  std::string trace = "id,submit_s,workers,duration_s,model\n";
  std::uint64_t seed = 12345;
  const auto next = [&seed](std::uint64_t n) { // a fixed LCG (Knuth's MMIX constants)
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  for (int i = 0; i < 40; ++i) {
    trace += "j" + std::to_string(i) + "," + std::to_string(i * 15) + ",1," +
             std::to_string(150 + next(1350)) + "," + models[next(5)] + "\n";
  }
  Index index;
  std::size_t compared = 0;
  std::size_t moved = 0;
  const auto step = [&](Control& ctl) {
    const std::size_t devices = ctl.cluster().devices.size();
    for (JobId j = 0; j < ctl.job_count(); ++j) {
      const JobState& st = ctl.state(j);
      const std::array<DeviceId, 1> one{static_cast<DeviceId>(next(devices))};
      if (st.status == JobStatus::kPending && next(2) == 0 &&
          !ctl.check_start(j, one, /*allow_shared=*/true)) {
        ctl.pack(j, one);
        ++moved;
      } else if (st.status == JobStatus::kRunning && next(6) == 0 && one[0] != st.devices[0] &&
                 !ctl.check_migrate(j, one)) {
        ctl.migrate(j, one);
        ++moved;
      }
    }
    for (JobId j = 0; j < ctl.job_count(); ++j) {
      const JobState& st = ctl.state(j);
      if (st.status == JobStatus::kFuture || is_over(st.status)) continue;
      const RequestDetails& rd = ctl.details(j);
      const double util = util_for(j);
      const DeviceTypeId t = ctl.cluster().devices[0].type;
      CHECK(index.choose(ctl, j) == scanned(ctl, t, j, {}, index.p, rd.gpu_mem_gb, util));
      if (st.devices.size() == 1) {
        CHECK(index.choose(ctl, j, st.devices[0]) ==
              scanned(ctl, t, j, st.devices[0], index.p, rd.gpu_mem_gb, util));
      }
      ++compared;
    }
  };
  std::vector<ScriptPolicy::Step> steps;
  for (SimTime k = 0; k <= 100; ++k)
    steps.push_back({k * 25 * kSecond, step});
  RuntimeConfig config = packing_config();
  config.costs.migrate_s = 0;
  ScriptedRun s(cluster, trace, steps, config);
  s.run();
  CHECK(moved > 40);     // the cluster changed under the groups
  CHECK(compared > 500); // and they were asked often
}
