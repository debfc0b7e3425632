// gpu-share: the scheduler of a multi-tenant GPU controller (the NTHU slides' "GPU multi-tenant
// controller", KubeShare / Gemini). Jobs start in submission order and the head blocks the rest,
// as under fifo. A job asking for a share of a GPU (gpu_share_min < 1) is packed, worker by
// worker, onto the device with the least share left after its min (best fit), among devices
// already shared under the controller whose guarantees and memory leave room; a worker that
// fits on none takes a free device. The runtime's controller then grants each job between its
// min and max (docs/runtime.md#fractional-shares). Whole-GPU jobs start on free devices with the
// configured placement. Reads only requests: not an oracle.
#include "policies/gpu_share.h"

#include "sim/cluster/fit.h"

#include <algorithm>
#include <limits>

namespace dlsim {

namespace {

class GpuShare final : public Policy {
public:
  explicit GpuShare(Placement placement) : placement_(placement) {}

  void schedule(Control& control) override {
    prune(control);
    // The runtime's pending list is in arrival order, and nothing here preempts.
    for (JobId j : control.pending_jobs()) {
      const RequestDetails& rd = control.details(j);
      if (rd.gpu_share_min < 1) {
        auto devices = share_fit(control, j);
        // Node CPUs and memory of the whole gang are the runtime's to check: a refusal waits,
        // like a job that does not fit.
        if (!devices || control.check_start(j, *devices, /*allow_shared=*/true)) return;
        control.pack(j, *devices, "best fit by share");
        for (DeviceId d : *devices) {
          auto at = std::lower_bound(shared_.begin(), shared_.end(), d);
          if (at == shared_.end() || *at != d) shared_.insert(at, d);
        }
      } else {
        auto devices = place(control, j, placement_);
        if (!devices) return;
        control.start(j, *devices);
      }
    }
  }

private:
  // Forgets the devices no job holds any more.
  void prune(const View& view) {
    std::erase_if(shared_, [&](DeviceId d) { return view.device(d).count == 0; });
  }

  // Whether device d, already shared under the controller, can take one more worker of j.
  static bool has_room(const View& view, JobId j, DeviceId d) {
    const DeviceSlot& slot = view.device(d);
    const RequestDetails& rd = view.details(j);
    if (slot.count >= DeviceSlot::kMaxShare) return false;
    if (!fits_in(slot.guaranteed + rd.gpu_share_min, 1)) return false;
    double cap = view.cluster().type_of(d).memory_gb;
    if (cap > 0 && rd.gpu_mem_gb > 0 && !fits_in(slot.mem_gb + rd.gpu_mem_gb, cap)) return false;
    // Host CPUs and memory for one more worker on the device's node.
    NodeId n = view.cluster().devices[d].node;
    return fits_in(rd.cpus_per_worker, view.node_cpu_free(n)) &&
           fits_in(rd.mem_gb_per_worker, view.node_mem_free(n));
  }

  // Best fit: for each worker, the shared device of one compatible type with the least share
  // left after the job's min (ties: lowest id), each device once; workers that fit on none take
  // free devices of that type by the placement strategy. nullopt when the job does not fit now.
  std::optional<std::vector<DeviceId>> share_fit(const View& view, JobId j) const {
    const JobRequest& req = view.request(j);
    const RequestDetails& rd = view.details(j);
    std::vector<DeviceId> chosen;
    for (DeviceTypeId t : view.compatible_types(j)) {
      chosen.clear();
      for (std::uint32_t w = 0; w < req.workers; ++w) {
        DeviceId best = 0;
        double best_left = std::numeric_limits<double>::infinity();
        for (DeviceId d : shared_) {
          if (view.cluster().devices[d].type != t) continue;
          if (std::find(chosen.begin(), chosen.end(), d) != chosen.end()) continue;
          if (!has_room(view, j, d)) continue;
          double left = 1 - view.device(d).guaranteed - rd.gpu_share_min;
          if (left < best_left) {
            best_left = left;
            best = d;
          }
        }
        if (best_left == std::numeric_limits<double>::infinity()) break;
        chosen.push_back(best);
      }
      const auto rest = static_cast<std::uint32_t>(req.workers - chosen.size());
      if (rest > 0) {
        auto free = place_on_type(view, j, placement_, rest, t);
        if (!free) continue;
        chosen.insert(chosen.end(), free->begin(), free->end());
      }
      return chosen;
    }
    return std::nullopt;
  }

  Placement placement_;
  // Devices this policy packed shares onto and still held, in id order (ties to the lowest id).
  std::vector<DeviceId> shared_;
};

} // namespace

PolicyEntry gpu_share_policy() {
  return {"gpu-share",
          "FIFO order; jobs asking for a share of a GPU packed by best fit on guaranteed share "
          "and memory, granted between their min and max by the runtime's share controller",
          false,
          {},
          [](const PolicySetup& s) { return std::make_unique<GpuShare>(s.placement); }};
}

} // namespace dlsim
