// A what-if allocation model over the runtime's free state: a policy asks whether a shape fits,
// reserves and releases devices, CPU cores and memory tentatively, tries alternatives (mark and
// roll back), and commits what it reserved through Control in one step. It shows only what a real
// scheduler knows (free devices, cores and memory per node), never a rate model.
//
// It is a difference against View: flat vectors by device and by node hold what the plan
// changed, and lists of the entries it touched let reset() clear them, so a plan costs what it
// changes, not what the cluster holds. Being a difference, it stays one while the policy acts
// through Control (what the runtime shows moves, the plan's changes stay on top); a job is then
// acted on either through commit() or directly, not both. It follows the
// ledger's accounting (sim/runtime/ledger.h): a device is free when no job holds it and it is not
// down; a worker takes its job's cores and memory on its node; parameter servers that hold cores
// take them on their workers' nodes (ps_placement.h). So after commit() the runtime shows what
// the plan showed (docs/architecture.md#the-plan).
#pragma once

#include "sim/cluster/fit.h"
#include "sim/runtime/view.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

class Control;

class Plan {
public:
  // A point to roll back to (mark()).
  struct Mark {
    std::size_t log = 0;
    std::size_t actions = 0;
  };

  // Starts a new, empty difference against view's free state. The view must outlive the plan's
  // use; a plan is reset (or commit()ed) at each decision, since the runtime's state moves.
  void reset(const View& view);

  // ---- What is free in the plan
  [[nodiscard]] const View& view() const { return *view_; }
  [[nodiscard]] std::uint32_t free(DeviceTypeId t) const {
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(view_->free().free(t)) +
                                      dtotal_[t]);
  }
  [[nodiscard]] std::uint32_t free_on(NodeId n, DeviceTypeId t) const {
    const std::size_t slot = static_cast<std::size_t>(n) * types_ + t;
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(view_->free().free_on(n, t)) +
                                      dslot_[slot]);
  }
  [[nodiscard]] double cpu_free(NodeId n) const {
    return host_mark_[n] ? view_->node_cpu_free(n) + dcpu_[n] : view_->node_cpu_free(n);
  }
  [[nodiscard]] double mem_free(NodeId n) const {
    return host_mark_[n] ? view_->node_mem_free(n) + dmem_[n] : view_->node_mem_free(n);
  }
  // Held by no job in the plan, and not down.
  [[nodiscard]] bool device_free(DeviceId d) const {
    return view_->device(d).count + dheld_[d] == 0 && !view_->device_down(d);
  }
  // How many of job j's workers fit on node n in the plan, on its free devices of type t, cores
  // and memory (a host task's by cores and memory alone): workers_fit (fit.h), the runtime's rule.
  // View::workers_fitting_on's answer in the plan (a host task's at most its workers).
  [[nodiscard]] std::uint32_t workers_fit(JobId j, NodeId n, DeviceTypeId t) const;
  // Calls fn(n) for each node with at least k >= 1 free devices of type t in the plan, in
  // increasing id order, until fn returns false. Costs the runtime's buckets from k up plus the
  // nodes the plan changed.
  template <class Fn>
  void for_nodes_with_at_least(DeviceTypeId t, std::uint32_t k, Fn&& fn) const;
  // The same for the nodes with exactly k >= 1 free (FreeIndex::nodes_with in the plan).
  template <class Fn>
  void for_nodes_with(DeviceTypeId t, std::uint32_t k, Fn&& fn) const;
  // The largest k for which for_nodes_with(t, k) can find a node.
  [[nodiscard]] std::uint32_t max_per_node(DeviceTypeId t) const {
    return view_->free().max_per_node(t);
  }
  // Appends the first `count` devices of type t on node n that are free in the plan, lowest ids
  // first (fewer when the node has fewer).
  void take_on_node(NodeId n, DeviceTypeId t, std::uint32_t count,
                    std::vector<DeviceId>& out) const;

  // ---- Tentative changes
  // Pending or suspended job j onto `devices` (devices_per_worker per worker, one node each), or
  // a host task (empty devices) onto `hosts` (one entry per worker): committed as a start (a
  // resume when suspended). The plan does not check that they fit: ask it first.
  void reserve(JobId j, std::span<const DeviceId> devices, std::span<const NodeId> hosts = {});
  // reserve() when every device is free in the plan and no node's cores or memory would go
  // below zero (fits_in, the runtime's rule), workers and servers together; else false, and
  // nothing reserved.
  bool try_reserve(JobId j, std::span<const DeviceId> devices, std::span<const NodeId> hosts = {});
  // What job j holds now (devices, worker cores and memory, its servers' cores) becomes free.
  // A what-if only: commit() does nothing for it (suspending or ending a job is the policy's own
  // action, and a suspend frees the devices once its cost is paid).
  void release(JobId j);
  // Running job j gives back its worker w (an index into its workers now): committed as a resize
  // to the workers left. Its servers' cores follow the workers, as the runtime places them.
  void drop_worker(JobId j, std::uint32_t w);

  // A point to roll back to; rollback(m) undoes every change and action since m, exactly.
  [[nodiscard]] Mark mark() const { return {log_.size(), actions_.size()}; }
  void rollback(Mark m);
  // Nothing reserved or dropped since reset().
  [[nodiscard]] bool no_actions() const { return actions_.empty(); }

  // Applies the plan's actions in the order they were made: each reserve() as Control::start
  // (resume for a suspended job), each job's dropped workers as one Control::resize. Control
  // validates each as it does any action (an ActionError names the job and the reason). The
  // plan is then empty again, against the new state.
  void commit(Control& control, std::string_view reason = {});

private:
  enum class Kind : std::uint8_t { kHold, kCpu, kMem, kDrop };
  // One change, enough to undo it exactly: a device's holders by +-1 (kHold), a node's change
  // to cores or memory before this one (kCpu, kMem), a worker dropped from an edit (kDrop).
  struct Entry {
    Kind kind;
    std::int32_t delta;
    std::uint32_t index;
    double before;
  };
  struct Action {
    JobId job;
    std::uint32_t edit; // kResize: index into edits_; else unused
    std::uint32_t first, count;
    bool resize;
    bool hosts; // a host task: first/count into hosts_, else devices_
  };
  // The workers job j keeps in the plan (drop_worker), by index into its devices now.
  struct Edit {
    JobId job;
    std::vector<char> dropped; // [worker]
    std::uint32_t action;      // its kResize action
  };

  void hold(DeviceId d, std::int32_t delta, bool log = true);
  void add_host(NodeId n, double cpu, double mem, bool log = true);
  void touch_host(NodeId n);
  // The servers' cores of job j on the nodes of `devices` (dpw per worker), times sign.
  void ps_cores_on(JobId j, std::span<const DeviceId> devices, double sign);
  [[nodiscard]] std::vector<DeviceId> kept_devices(const Edit& e) const;

  const View* view_ = nullptr;
  std::size_t types_ = 0;
  std::vector<std::int32_t> dheld_; // [device]: change to its holders
  std::vector<DeviceId> held_touched_;
  std::vector<char> held_mark_;                    // [device]: in held_touched_
  std::vector<std::int32_t> dslot_;                // [node * types + type]: change to free devices
  std::vector<char> slot_mark_;                    // [node * types + type]: in slots_by_type_
  std::vector<std::vector<NodeId>> slots_by_type_; // [type]: nodes with a dslot_ entry
  std::vector<std::int64_t> dtotal_;               // [type]: change to free devices
  std::vector<double> dcpu_, dmem_; // [node]: change to free cores, memory, where host_mark_
  std::vector<char> host_mark_;
  std::vector<NodeId> host_touched_;
  std::vector<Entry> log_;
  std::vector<Action> actions_;
  std::vector<DeviceId> devices_; // the devices of reserve actions
  std::vector<NodeId> hosts_;     // the nodes of host-task reserve actions
  std::vector<Edit> edits_;
};

template <class Fn>
void Plan::for_nodes_with_at_least(DeviceTypeId t, std::uint32_t k, Fn&& fn) const {
  k = std::max<std::uint32_t>(k, 1);
  const FreeIndex& free = view_->free();
  // The nodes the plan changed that have k free in it, in id order ...
  std::vector<NodeId> changed_nodes;
  for (NodeId n : slots_by_type_[t]) {
    if (free_on(n, t) >= k) changed_nodes.push_back(n);
  }
  std::sort(changed_nodes.begin(), changed_nodes.end());
  // ... merged with the runtime's buckets from k up, less the nodes the plan changed. A node is
  // in one bucket (its free count), so merging them by id gives each node once.
  struct Cursor {
    FreeIndex::Nodes::Iterator at, end;
  };
  std::vector<Cursor> cursors;
  for (std::uint32_t c = k; c <= free.max_per_node(t); ++c) {
    const FreeIndex::Nodes nodes = free.nodes_with(t, c);
    if (!nodes.empty()) cursors.push_back({nodes.begin(), nodes.end()});
  }
  std::size_t changed = 0;
  for (;;) {
    Cursor* pick = nullptr;
    for (Cursor& c : cursors) {
      while (c.at != c.end && slot_mark_[static_cast<std::size_t>(*c.at) * types_ + t])
        ++c.at;
      if (c.at != c.end && (pick == nullptr || *c.at < *pick->at)) pick = &c;
    }
    NodeId n = 0;
    if (pick != nullptr &&
        (changed == changed_nodes.size() || *pick->at < changed_nodes[changed])) {
      n = *pick->at;
      ++pick->at;
    } else if (changed < changed_nodes.size()) {
      n = changed_nodes[changed++];
    } else {
      return;
    }
    if (!fn(n)) return;
  }
}

template <class Fn>
void Plan::for_nodes_with(DeviceTypeId t, std::uint32_t k, Fn&& fn) const {
  if (k == 0 || k > max_per_node(t)) return;
  std::vector<NodeId> changed_nodes; // the nodes the plan changed with k free in it, in id order
  for (NodeId n : slots_by_type_[t]) {
    if (free_on(n, t) == k) changed_nodes.push_back(n);
  }
  std::sort(changed_nodes.begin(), changed_nodes.end());
  std::size_t changed = 0;
  const FreeIndex::Nodes bucket = view_->free().nodes_with(t, k);
  auto at = bucket.begin();
  for (;;) {
    while (at != bucket.end() && slot_mark_[static_cast<std::size_t>(*at) * types_ + t])
      ++at;
    NodeId n = 0;
    if (at != bucket.end() && (changed == changed_nodes.size() || *at < changed_nodes[changed])) {
      n = *at;
      ++at;
    } else if (changed < changed_nodes.size()) {
      n = changed_nodes[changed++];
    } else {
      return;
    }
    if (!fn(n)) return;
  }
}

} // namespace dlsim
