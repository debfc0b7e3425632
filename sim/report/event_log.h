// events.csv: one row per job event (docs/outputs.md#eventscsv), recorded by an observer, so the
// runtime only hands events over and never formats anything.
#pragma once

#include "sim/runtime/observer.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dlsim {

class EventLog final : public RunObserver {
public:
  [[nodiscard]] bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& event, const View& view) override;

  [[nodiscard]] std::size_t size() const { return rows_.size(); }
  // time_s,job,action,devices,nodes,reason: devices and nodes as space-separated ids; a host
  // task (no devices) has the nodes its workers hold.
  void write_csv(std::ostream& out, const Cluster& cluster, const Workload& workload) const;

private:
  struct Row {
    SimTime time;
    JobId job;
    JobAction action;
    std::uint32_t device_begin; // into devices_
    std::uint32_t device_count;
    std::uint32_t reason;     // 1 + index into reasons_; 0 = none
    std::uint32_t host_begin; // into host_nodes_: a host task's workers' nodes
    std::uint32_t host_count;
  };
  std::vector<Row> rows_;
  std::vector<DeviceId> devices_;
  std::vector<NodeId> host_nodes_;
  std::vector<std::string> reasons_;
};

} // namespace dlsim
