// timeline.json: the run in the Chrome trace event format, which Perfetto UI
// (ui.perfetto.dev) and chrome://tracing open (docs/outputs.md#timelinejson). A process per
// node, a track per device with a slice per job occupancy (or, for clusters of more than
// kTimelineMaxDeviceTracks devices, a track per job under its node), and counters for the
// queue and utilization at every change. Built from job events by an observer.
// Jobs that share a device (packed or time-sliced) would overlap on its track, which the format
// forbids unless one slice nests inside the other: each device gets as many share tracks as it
// had jobs at once, and a slice goes on the first share track free at its start.
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
  // How a job held its devices: alone, packed with others running at once, or taking turns.
  enum class Sharing : std::uint8_t { kExclusive, kPacked, kTimeSliced };
  struct Slice {
    JobId job;
    NodeId node;
    std::uint32_t track; // the device, or the job (a track per job under its node)
    std::uint32_t gpus;  // devices the job held during the slice
    SimTime from, to;
    float share_min, share_max; // of each device, while packed
    Sharing sharing;
  };
  struct Counter {
    SimTime time;
    std::uint32_t pending, running, allocated_gpus;
    double effective_gpu_util;
  };
  struct Open {
    SimTime since = -1;
    std::vector<DeviceId> devices;
    Sharing sharing = Sharing::kExclusive;
    float share_min = 1, share_max = 1;
  };
  void close(JobId j, SimTime at, const Cluster& cluster);
  void open(JobId j, SimTime at, std::span<const DeviceId> devices, const View& view);

  // The share track (0, 1, ...) of each slice on its (node, track); the most any one used.
  std::vector<std::uint32_t> share_tracks(std::size_t& tracks_per_key) const;

  std::vector<Open> open_; // by JobId
  std::vector<Slice> slices_;
  std::vector<Counter> counters_;
};

} // namespace dlsim
