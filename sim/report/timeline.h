// timeline.json: the run in the Chrome trace event format, which Perfetto UI
// (ui.perfetto.dev) and chrome://tracing open (docs/outputs.md#timelinejson). A process per
// node, a track per device with a slice per job occupancy (or, for clusters of more than
// kTimelineMaxDeviceTracks devices, a track per job under its node), and counters for the
// queue and utilization at every change. Built from job events by an observer.
#pragma once

#include "sim/runtime/observer.h"

#include <cstdint>
#include <ostream>
#include <span>
#include <vector>

namespace dlsim {

constexpr std::size_t kTimelineMaxDeviceTracks = 1024;

class Timeline final : public RunObserver {
public:
  [[nodiscard]] bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& event, const View& view) override;
  void on_decided(const View& view) override;
  void on_run_end(const View& view) override;

  void write_json(std::ostream& out, const Cluster& cluster, const Workload& workload) const;

private:
  struct Slice {
    JobId job;
    NodeId node;
    std::uint32_t track; // the device, or the job (a track per job under its node)
    SimTime from, to;
  };
  struct Counter {
    SimTime time;
    std::uint32_t pending, running, allocated_gpus;
    double effective_gpu_util;
  };
  struct Open {
    SimTime since = -1;
    std::vector<DeviceId> devices;
  };
  void close(JobId j, SimTime at, const Cluster& cluster);
  void open(JobId j, SimTime at, std::span<const DeviceId> devices);

  std::vector<Open> open_; // by JobId
  std::vector<Slice> slices_;
  std::vector<Counter> counters_;
};

} // namespace dlsim
