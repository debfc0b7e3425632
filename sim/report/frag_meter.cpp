#include "sim/report/frag_meter.h"

#include "sim/engine/time.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>

namespace dlsim {

void FragMeter::init(const View& view) {
  ready_ = true;
  const Cluster& c = view.cluster();
  check_node_shares(c);
  capacity_milli_ = static_cast<std::int64_t>(c.count_of_kind(DeviceKind::kGpu)) * kMilli;
  // The measure's shapes: the whole workload's, as FGD's simulator takes them from its pod list.
  const SimState& all = view.raw();
  std::vector<PodShape> shapes(all.jobs.size());
  for (JobId j = 0; j < shapes.size(); ++j)
    shapes[j] = shape_of(all, j);
  mix_ = typical_shapes(shapes);
  node_frag_.assign(c.nodes.size(), 0);
  node_held_.assign(c.nodes.size(), 0);
  dirty_.assign(c.nodes.size(), false);
  for (NodeId n = 0; n < c.nodes.size(); ++n)
    mark(n);
}

void FragMeter::mark(NodeId n) {
  if (dirty_[n]) return;
  dirty_[n] = true;
  dirty_list_.push_back(n);
}

void FragMeter::on_job_event(const JobEvent& event, const View& view) {
  if (!ready_) init(view);
  const Cluster& c = view.cluster();
  for (DeviceId d : event.devices)
    mark(c.devices[d].node);
  if (event.action == JobAction::kSubmit) {
    const PodShape s = shape_of(view, event.job);
    arrived_milli_ += s.total_gpu_milli() * view.request(event.job).workers;
    ++arrived_jobs_;
    just_arrived_.push_back(event.job);
  }
}

void FragMeter::on_decided(const View& view) {
  if (!ready_) init(view);
  if (just_arrived_.empty()) return;
  auto mark_node = [&](std::uint32_t n) { mark(n); };
  if (!view.changes().nodes.for_each_since(node_stamp_, mark_node)) {
    for (NodeId n = 0; n < dirty_.size(); ++n)
      mark(n);
  }
  node_stamp_ = view.changes().nodes.stamp();
  for (NodeId n : dirty_list_) {
    const NodeShares node = read_node(view, n);
    std::int64_t held = 0;
    for (std::uint32_t g = 0; g < node.gpus; ++g)
      held += kMilli - node.left[g];
    const double frag = expected_frag_milli(node, mix_);
    held_total_ += held - node_held_[n];
    frag_total_ += frag - node_frag_[n];
    node_held_[n] = held;
    node_frag_[n] = frag;
    dirty_[n] = false;
  }
  dirty_list_.clear();
  for (JobId j : just_arrived_) {
    if (view.state(j).first_start < 0) ++unplaced_;
  }
  just_arrived_.clear();
  rows_.push_back({view.now(), arrived_milli_, held_total_, frag_total_, arrived_jobs_, unplaced_});
}

std::vector<SharingBucket> FragMeter::buckets() const {
  std::vector<SharingBucket> out;
  if (rows_.empty() || capacity_milli_ == 0) return out;
  const double cap = static_cast<double>(capacity_milli_);
  // Python's round(): to the nearest, halves to even, as std::nearbyint in the default mode.
  auto pct = [&](double milli) { return 100.0 * milli / cap; };
  std::vector<int> key(rows_.size());
  int top = 0;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    key[i] = static_cast<int>(std::nearbyint(pct(static_cast<double>(rows_[i].arrived_milli))));
    top = std::max(top, key[i]);
  }
  for (int k = 0; k <= top; ++k) {
    for (int spread : {0, 1}) {
      SharingBucket b;
      b.arrived_pct = k;
      for (std::size_t i = 0; i < rows_.size(); ++i) {
        if (std::abs(key[i] - k) > spread) continue;
        // FGD rounds each row's ratio to 0.01% before averaging.
        b.alloc_pct +=
            std::nearbyint(pct(static_cast<double>(rows_[i].allocated_milli)) * 100) / 100;
        b.frag_pct += pct(rows_[i].frag_milli);
        ++b.rows;
      }
      if (b.rows == 0) continue;
      b.alloc_pct /= static_cast<double>(b.rows);
      b.frag_pct /= static_cast<double>(b.rows);
      out.push_back(b);
      break;
    }
  }
  return out;
}

void write_allocation_csv(std::ostream& out, const std::vector<SharingBucket>& buckets) {
  out << "arrived_pct,alloc_pct,frag_pct,rows\n";
  for (const SharingBucket& b : buckets)
    fmt::print(out, "{},{:.4f},{:.4f},{}\n", b.arrived_pct, b.alloc_pct, b.frag_pct, b.rows);
}

void write_fragmentation_csv(std::ostream& out, const std::vector<SharingRow>& rows) {
  out << "time_s,arrived_gpus,allocated_gpus,frag_gpus,arrived_jobs,unplaced_jobs\n";
  for (const SharingRow& r : rows) {
    fmt::print(out, "{},{:.3f},{:.3f},{:.3f},{},{}\n", to_seconds(r.time),
               static_cast<double>(r.arrived_milli) / kMilli,
               static_cast<double>(r.allocated_milli) / kMilli, r.frag_milli / kMilli,
               r.arrived_jobs, r.unplaced_jobs);
  }
}

} // namespace dlsim
