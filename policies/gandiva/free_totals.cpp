// Free devices per type kept from the node log and the reservations (free_totals.h).
#include "policies/gandiva/free_totals.h"

#include "policies/gandiva/affinity.h"

namespace dlsim::gandiva {

void FreeTotals::recount(const View& view, const State& st, NodeId n) {
  for (std::size_t t = 0; t < types_; ++t) {
    std::uint32_t& c = count_[n * types_ + t];
    total_[t] -= c;
    c = free_count(view, st, n, static_cast<DeviceTypeId>(t));
    total_[t] += c;
  }
}

std::size_t FreeTotals::of_type(const View& view, const State& st, DeviceTypeId t) {
  const std::size_t nodes = view.cluster().nodes.size();
  const ChangeLog& log = view.changes().nodes;
  bool all = !known_;
  if (!all) {
    all = !log.for_each_since(stamp_, [&](std::uint32_t n) { recount(view, st, n); });
  }
  if (all) {
    types_ = view.cluster().types.size();
    count_.assign(nodes * types_, 0);
    total_.assign(types_, 0);
    for (NodeId n = 0; n < nodes; ++n)
      recount(view, st, n);
    known_ = true;
  } else {
    for (NodeId n : nodes_)
      recount(view, st, n);
  }
  for (NodeId n : nodes_)
    marked_[n] = 0;
  nodes_.clear();
  stamp_ = log.stamp();
  return total_[t];
}

} // namespace dlsim::gandiva
