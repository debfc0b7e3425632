// The placement check's model of the cluster (PriorityPass, step 2): the free devices, CPUs and
// memory of every node as they will be once some jobs release theirs and others take some.
#pragma once

#include "policies/node_buckets.h"
#include "sim/runtime/view.h"

#include <cstdint>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim {

// It is not the runtime's Plan (sim/runtime/plan.h), though both are differences against the
// runtime's free state: Plan follows the ledger (the cores a policy set for a job, its parameter
// servers' cores on its workers' nodes, holders counted per device), while the placement check
// counts each worker's requested cpus_per_worker only, and its searches need the changed nodes
// indexed by free devices (best fit), which Plan's node walks do not keep. On Plan the check
// would decide otherwise wherever servers or a policy's core changes hold cores.
//
// The runtime's free state plus a difference kept in flat vectors by node (reset() clears only
// the entries a decision touched, so a decision costs what it changes, not what the cluster
// holds).
//
// A decision checks placement in rounds, each with a set of holders released and a list of
// waiting jobs taken in turn. Between rounds the model is not rebuilt: the takes of a trial are
// journalled with the exact values they replaced and undone (rollback()), and the released set
// is changed by what differs (release_set()). A node's free CPUs and memory are sums of doubles,
// whose value depends on the order they are added in; release_set() keeps the values a fresh
// model releasing the same jobs in id order would hold, bit for bit: by difference when every
// amount it sums is a multiple of 2^-10 of at most 2^20 (then every partial sum of up to 2^22
// of them is exact, in any order), else by a fresh difference released in that order. (The
// released sets of consecutive rounds often share few jobs: release_set() then starts afresh,
// which costs no more than the difference.)
class FreeModel {
public:
  // Starts a new difference against view's free state. A model serves one simulation: it keeps
  // what it read of each job's request from one decision to the next.
  void reset(const View& view);
  // Job j's current devices, CPUs and memory become free. Outside a trial, before release_set():
  // the decision's fixed releases, kept by every later release_set().
  void release(JobId j);
  // Makes the holders released besides the fixed ones exactly `jobs` (no job twice, none of the
  // fixed ones): the model is then what a fresh one holds after the fixed releases and then
  // these, in id order. Not within a trial.
  void release_set(std::span<const JobId> jobs);
  // Reserves j's workers on the nodes consolidated placement would pick (one node by best fit,
  // else the nodes with most free devices first); false, and nothing reserved, if they do not
  // fit.
  bool take(JobId j);

  // A trial: every change after begin_trial() is journalled, and rollback() undoes them all,
  // restoring every value exactly, and ends the trial.
  void begin_trial();
  void rollback();

  // What the model holds free: devices of type t on node n, CPUs and memory of node n.
  [[nodiscard]] std::int64_t free_dev(NodeId n, DeviceTypeId t) const;
  [[nodiscard]] double cpu_free(NodeId n) const { return view_->node_cpu_free(n) + dcpu_[n]; }
  [[nodiscard]] double mem_free(NodeId n) const { return view_->node_mem_free(n) + dmem_[n]; }

private:
  [[nodiscard]] std::int64_t total_dev(DeviceTypeId t) const;
  [[nodiscard]] std::uint32_t fit(const JobRequest& r, NodeId n, DeviceTypeId t) const;
  // Clears the difference, keeping the view.
  void clear();
  // Job j's devices, CPUs and memory added to what is free, times sign (+1 or -1); the CPU and
  // memory terms added (one per worker).
  std::uint64_t release_as(JobId j, int sign);
  // Adds delta devices of type t on node n to the difference.
  void change_dev(NodeId n, DeviceTypeId t, std::int64_t delta);
  void change_host(NodeId n, double cpu, double mem);
  // The node's entry in the runtime's bucket copies (untouched_) when the model no longer
  // changes its devices of type t.
  void untouch(NodeId n, DeviceTypeId t);
  // Best fit for all of r's workers on one node of type t: the node with fewest free devices
  // (then lowest id) that holds them, or -1.
  [[nodiscard]] std::int64_t best_single(const JobRequest& r, DeviceTypeId t) const;
  // Job j's CPUs and memory per worker are amounts release_set() may sum in any order.
  [[nodiscard]] bool exact_amounts(JobId j);
  // release_set() afresh: a cleared difference, the fixed releases, then `jobs` (in id order
  // unless every amount is exact).
  void release_fresh(std::span<const JobId> jobs);

  static double workers_by(double per, double have);

  const View* view_ = nullptr;
  std::size_t types_ = 0;
  // [type][k]: the most free host CPUs and memory (runtime's, an upper bound for the nodes the
  // model did not change) over the nodes with at least k free devices of that type; built by the
  // first best_single() of a decision that searched every node and failed, empty before.
  // A node the model changed may have more than the runtime's: the most any of them gained
  // (never lowered within a decision: it stays a bound when changes are undone).
  mutable std::vector<std::vector<std::pair<double, double>>> host_max_; // a cache
  double cpu_up_ = 0, mem_up_ = 0;
  // [type][k]: the nodes of the runtime's bucket k the model has not changed, in id order; built
  // once a search skipped more than kUntouchedAfter changed nodes, empty before.
  static constexpr std::size_t kUntouchedAfter = 64;
  mutable std::vector<std::vector<std::vector<NodeId>>> untouched_;
  std::vector<std::int64_t> dfree_;     // [node * types + type]: change to free devices
  std::vector<char> dev_touched_;       // [node * types + type]: dfree_ entry not zero
  std::vector<std::int64_t> dfree_sum_; // [type]: the same, summed
  std::vector<double> dcpu_, dmem_;     // [node]: change to free CPUs, memory
  std::vector<NodeId> host_touched_;    // nodes whose dcpu_/dmem_ may be non-zero
  std::vector<char> host_mark_;         // [node]: in host_touched_
  // Per type, the nodes with an entry in dfree_, by (free devices in the model, node).
  std::vector<NodeBuckets> touched_by_type_;
  // Spreads r's workers over the nodes of type t with most free devices first (then lowest id);
  // false, and nothing reserved, if they do not fit.
  bool spread(const JobRequest& r, const RequestDetails& rd, DeviceTypeId t);
  // (free devices, node, workers taken): scratch for spreading a job over nodes; and the changed
  // nodes of one count.
  std::vector<std::tuple<std::int64_t, NodeId, std::uint32_t>> cand_;
  std::vector<NodeId> changed_;

  // The trial's journal: a change of devices (node, type, delta), or a node's CPUs and memory
  // before a change (type kHostEntry).
  static constexpr DeviceTypeId kHostEntry = static_cast<DeviceTypeId>(-1);
  struct Entry {
    NodeId node;
    DeviceTypeId type;
    std::int64_t delta;
    double cpu, mem;
  };
  std::vector<Entry> journal_;
  bool in_trial_ = false;

  // The fixed releases, in order, and the set release_set() made, with a flag by job: bit 1 in
  // set_, bit 2 in the list being set.
  std::vector<JobId> fixed_;
  std::vector<JobId> set_;
  std::vector<char> in_set_;
  std::vector<JobId> sorted_; // scratch: release_fresh's jobs
  // What release_as() reads of a job's request, in one place: the job's request and details
  // are two reads apart in the workload, and a round releases hundreds of holders.
  struct Amounts {
    double cpu = 0, mem = 0; // per worker
    std::uint32_t per = 0;   // devices per worker
    char exact = 0;          // exact_amounts(): 0 not known yet, 1 yes, 2 no
  };
  [[nodiscard]] const Amounts& amounts(JobId j);
  std::vector<Amounts> amounts_;  // [job]
  bool fixed_exact_ = true;       // every fixed release's amounts are exact
  bool exact_ = true;             // and every one of set_'s, and terms_ is at most 2^22
  std::uint64_t fixed_terms_ = 0; // CPU and memory terms of the fixed releases
  std::uint64_t terms_ = 0;       // and of every release and put back since the last clear()
};

} // namespace dlsim
