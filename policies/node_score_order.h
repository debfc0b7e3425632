// The nodes that fit one kind of request, best score first (ties to the lower node id), kept
// from one request to the next. A policy that filters and scores every node for each request
// (kube-scheduler's scheduling cycle) asks here instead: only the nodes that the runtime's change
// log marked since the last request are scored again, and every other node's score is the one
// the full scan would compute again, since nothing it reads has changed.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/runtime/change_log.h"

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace dlsim {

class NodeScoreOrder {
public:
  // A node's score for the request and the device type it would use.
  struct Fit {
    double score = 0;
    DeviceTypeId type = 0;
  };

  // Brings the order up to date with `fit_of(n)` (a std::optional<Fit>, empty when node n does
  // not fit): for the nodes `log` marked since the last call, or every one of the `nodes` on
  // the first call and when the log no longer reaches back that far.
  template <class FitOf>
  void refresh(const ChangeLog& log, std::size_t nodes, FitOf&& fit_of) {
    auto update = [&](NodeId n) {
      if (fits_[n]) order_.erase({score_[n], n});
      const std::optional<Fit> fit = fit_of(n);
      fits_[n] = fit ? 1 : 0;
      if (!fit) return;
      score_[n] = fit->score;
      type_[n] = fit->type;
      order_.emplace(fit->score, n);
    };
    if (!built_ || !log.for_each_since(stamp_, update)) {
      fits_.assign(nodes, 0);
      score_.assign(nodes, 0);
      type_.assign(nodes, 0);
      order_.clear();
      for (NodeId n = 0; n < nodes; ++n)
        update(n);
      built_ = true;
    }
    stamp_ = log.stamp();
  }

  // The best node and its fit (the first node of the highest score, as a scan in node order
  // keeping the first strictly better score finds); empty when no node fits.
  [[nodiscard]] std::optional<std::pair<NodeId, Fit>> best() const {
    if (order_.empty()) return std::nullopt;
    const NodeId n = order_.begin()->second;
    return std::make_pair(n, Fit{score_[n], type_[n]});
  }

private:
  struct ByScore {
    bool operator()(const std::pair<double, NodeId>& a, const std::pair<double, NodeId>& b) const {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    }
  };

  std::uint64_t stamp_ = 0; // log.stamp() when last brought up to date
  bool built_ = false;
  std::vector<char> fits_;         // [node]
  std::vector<double> score_;      // [node], when it fits
  std::vector<DeviceTypeId> type_; // [node], when it fits
  std::set<std::pair<double, NodeId>, ByScore> order_;
};

} // namespace dlsim
