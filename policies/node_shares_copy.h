// Every node's free shares (sim/runtime/node_shares.h: CPU, memory and milli-GPUs per GPU) as a
// policy last read them, kept in step with the runtime through its change logs, with room for
// tentative placements. A policy that scores every node for each job (the FGD paper's scorers)
// reads its nodes here instead of from the View: a node is read again only when the runtime marked
// it, or a job on it, since the last refresh.
#pragma once

#include "sim/runtime/node_shares.h"

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace dlsim {

class NodeSharesCopy {
public:
  // Reads every node on the first call (checking the cluster with check_node_shares); afterwards
  // the nodes the runtime's node log marked, and those of the jobs its job log marked (a job's
  // change of share on a device with no CPU or memory change leaves no node mark), every node
  // when a log no longer reaches back.
  void refresh(const View& view);

  [[nodiscard]] bool empty() const { return nodes_.empty(); }
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  [[nodiscard]] const NodeShares& operator[](NodeId n) const { return nodes_[n]; }
  // Bumped each time node n is read or changed: what was computed from the node stays valid
  // while its version does not move.
  [[nodiscard]] std::uint64_t version(NodeId n) const { return version_[n]; }

  // Node n as after a pod of shape s on its GPUs `gpus` (after()), those GPUs closed to the
  // pod's next worker. Tentative: reread() gives the node back as the runtime shows it.
  void take(NodeId n, const PodShape& s, std::span<const std::uint32_t> gpus);
  void reread(const View& view, NodeId n);
  // Job j was started with its first worker on node n: n is read again when the job changes
  // (a host task holds no device to find its node by).
  void placed(JobId j, NodeId n);

private:
  static constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();

  std::vector<NodeShares> nodes_;
  std::vector<std::uint64_t> version_;
  std::uint64_t clock_ = 0;
  std::uint64_t node_stamp_ = 0;
  std::uint64_t job_stamp_ = 0;
  std::vector<NodeId> placed_on_; // [job]: the node of its first worker, kNoNode
};

// Values computed from one node of a NodeSharesCopy, one per (key, node): each computed again only
// when the node's version or the epoch (what else the value reads, e.g. a workload mix) moved
// since. A policy that scores every node for each job then costs a lookup per node plus the
// scores of the nodes that changed.
template <class T>
class NodeMemo {
public:
  template <class Compute>
  const T& get(std::size_t key, NodeId n, const NodeSharesCopy& nodes, std::uint64_t epoch,
               Compute&& compute) {
    const std::size_t at = key * nodes.size() + n;
    if (entries_.size() <= at) entries_.resize((key + 1) * nodes.size());
    Entry& e = entries_[at];
    if (e.version != nodes.version(n) || e.epoch != epoch) {
      e.value = compute();
      e.version = nodes.version(n);
      e.epoch = epoch;
    }
    return e.value;
  }

private:
  struct Entry {
    std::uint64_t version = ~std::uint64_t{0};
    std::uint64_t epoch = 0;
    T value{};
  };
  std::vector<Entry> entries_;
};

} // namespace dlsim
