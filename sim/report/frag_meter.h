// The GPU-sharing measures of the FGD paper (Weng et al., USENIX ATC'23, §6): after each decision
// that follows arrivals, the GPUs arrived (requested by every job submitted so far), allocated
// (held by jobs) and fragmented (the expected fragmentation of sim/runtime/node_shares.h under
// the workload's typical shapes, summed over nodes), and the jobs not placed when they arrived.
// report.fragmentation (docs/fragmentation.md#measures).
#pragma once

#include "sim/runtime/node_shares.h"
#include "sim/runtime/observer.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace dlsim {

struct SharingRow {
  SimTime time = 0;
  std::int64_t arrived_milli = 0;   // GPU request of every job submitted so far
  std::int64_t allocated_milli = 0; // held now
  double frag_milli = 0;            // expected fragmentation now
  std::uint64_t arrived_jobs = 0;
  std::uint64_t unplaced_jobs = 0; // submitted and not placed at the decision of their arrival
};

// The allocation against the arrived workload, per 1% of the cluster's GPUs (FGD's rule,
// experiments/analysis/merge_alloc_discrete.py): bucket k holds the rows whose arrived share,
// rounded to a whole percent, is k; its value is their mean; an empty bucket takes the rows of
// k - 1 to k + 1, and stays out when those are empty too.
struct SharingBucket {
  int arrived_pct = 0;
  double alloc_pct = 0;
  double frag_pct = 0; // fragmented GPUs / the cluster's, mean over the same rows
  std::size_t rows = 0;
};

class FragMeter final : public RunObserver {
public:
  [[nodiscard]] bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& event, const View& view) override;
  void on_decided(const View& view) override;

  [[nodiscard]] const std::vector<SharingRow>& rows() const { return rows_; }
  [[nodiscard]] std::int64_t capacity_milli() const { return capacity_milli_; }
  [[nodiscard]] std::vector<SharingBucket> buckets() const;
  [[nodiscard]] const ShapeMix& mix() const { return mix_; }

private:
  void init(const View& view);
  void mark(NodeId n);

  bool ready_ = false;
  std::int64_t capacity_milli_ = 0;
  ShapeMix mix_;
  std::vector<double> node_frag_;
  std::vector<std::int64_t> node_held_;
  std::vector<bool> dirty_;
  std::vector<NodeId> dirty_list_;
  double frag_total_ = 0;
  std::int64_t held_total_ = 0;
  std::int64_t arrived_milli_ = 0;
  std::uint64_t arrived_jobs_ = 0;
  std::uint64_t unplaced_ = 0;
  std::vector<JobId> just_arrived_;
  std::uint64_t node_stamp_ = 0;
  std::vector<SharingRow> rows_;
};

// allocation.csv: one row per bucket. fragmentation.csv: one row per SharingRow.
void write_allocation_csv(std::ostream& out, const std::vector<SharingBucket>& buckets);
void write_fragmentation_csv(std::ostream& out, const std::vector<SharingRow>& rows);

} // namespace dlsim
