// Packing by GPU utilization (Yeung et al., "Towards GPU Utilization Prediction for Cloud Deep
// Learning", HotCloud'20; placement by the Horus cost rule of Yeung et al., TPDS'21). Three modes
// over one loop, the look-ahead of the authors' schedule_horus: among the first k waiting jobs,
// the first one that fits is placed, and the loop repeats until none of them fits.
//   slot:      one job per GPU (start on free devices): the paper's baseline.
//   reactive:  a job whose utilization is unknown runs alone on a free GPU until the runtime has
//              measured it (runtime.profile_s); then, while jobs wait, it is migrated onto the
//              GPU of least Horus cost among those holding measured jobs, freeing its own.
//   proactive: every job is placed at submission by the Horus cost of its utilization predicted
//              from its model's graph features (a trained predictor file), replaced by the
//              measured one once the runtime has measured it.
// Honest: reads requests, measured utilization and model features, never a job's true
// utilization or length. docs/utilization.md.
#include "policies/util_packing.h"

#include "policies/horus_cost.h"
#include "policies/horus_devices.h"
#include "sim/engine/error.h"
#include "sim/engine/time.h"
#include "workloads/utilization/features.h"
#include "workloads/utilization/predictor.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>

namespace dlsim {

namespace {

enum class PackMode { kSlot, kReactive, kProactive };

struct UtilPackingOptions {
  PackMode mode = PackMode::kSlot;
  std::string name;
  Placement placement = Placement::kConsolidate;
  HorusParams horus;
  std::size_t lookahead = 5;
  std::optional<UtilPredictor> predictor; // proactive
};

class UtilPacking final : public Policy {
public:
  explicit UtilPacking(UtilPackingOptions o) : o_(std::move(o)) {}

  void on_arrival(JobId j, const View& view) override {
    if (o_.mode == PackMode::kProactive) check_features(view, j);
    waiting_.push_back(j);
  }

  void schedule(Control& control) override {
    // The groups follow the runtime's node log at every decision, so that the log never
    // starts over between two choices (each would then read every device again).
    if (o_.mode != PackMode::kSlot) devices_.refresh(control);
    // Reactive: how long a job runs alone to be measured.
    const SimTime window = o_.mode == PackMode::kReactive
                               ? from_seconds(control.config().profile_s, "runtime.profile_s")
                               : 0;
    if (o_.mode == PackMode::kReactive) consolidate(control, window);
    const std::size_t profiled_before = profiling_.size();
    bool placed = true;
    while (placed && !waiting_.empty()) {
      placed = false;
      const std::size_t k = std::min(o_.lookahead, waiting_.size());
      for (std::size_t i = 0; i < k; ++i) {
        if (try_place(control, waiting_[i])) {
          waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
          placed = true;
          break;
        }
      }
    }
    if (o_.mode != PackMode::kReactive) return;
    // The jobs placed alone by this decision; consolidate asked for the others.
    for (std::size_t i = profiled_before; i < profiling_.size(); ++i) {
      if (!control.measured_gpu_util(profiling_[i]))
        wake_for_profile(control, profiling_[i], window);
    }
  }

private:
  // Proactive predicts from the graph: a job whose model has none cannot be placed honestly.
  void check_features(const View& view, JobId j) const {
    const JobRequest& req = view.request(j);
    if (is_host_task(req)) return; // no GPU to predict for
    if (!view.model_features(req.model).has_graph) {
      std::string model =
          req.model < view.model_names().size() ? view.model_names()[req.model] : std::string();
      throw InputError(fmt::format(
          "policy {}: job '{}' ({}) has no graph features to predict its GPU utilization from; "
          "give its zoo model a `graph` block (docs/models.md#graph-features) or use "
          "util-reactive",
          o_.name, view.job_name(j),
          model.empty() ? std::string("no model") : fmt::format("model '{}'", model)));
    }
  }

  // The utilization (percent) the policy expects of job j on a device of type t: measured once
  // the runtime has it; before that predicted (proactive) or unknown (reactive).
  std::optional<double> expected_util(const View& view, JobId j, DeviceTypeId t) const {
    if (std::optional<double> m = view.measured_gpu_util(j)) return *m * 100;
    if (o_.mode != PackMode::kProactive) return std::nullopt;
    // Predicted once per (job, device type): the cost rule asks for every holder of every
    // candidate GPU at every decision.
    const std::size_t types = view.cluster().types.size();
    const std::size_t at = static_cast<std::size_t>(j) * types + t;
    if (predicted_.size() <= at) {
      predicted_.resize(view.job_count() * types, std::numeric_limits<double>::quiet_NaN());
    }
    if (std::isnan(predicted_[at])) {
      const ModelFeatures& f = view.model_features(view.request(j).model);
      GraphFeatures g{f.gflops_per_sample, f.params_m,         f.conv_layers,
                      f.linear_layers,     f.recurrent_layers, f.activation_mb};
      // Out of sample: a job of an architecture the predictor was trained on is predicted by
      // the model trained without it.
      predicted_[at] = predict_util_pct(
          util_model_for(*o_.predictor, g),
          util_feature_row(g, f.batch_size, view.cluster().types[t].peak_fp32_tflops));
    }
    return predicted_[at];
  }

  // What the cost rule reads of device d, or nullopt when a holder's utilization is unknown.
  std::optional<HorusDevice> horus_view(const View& view, DeviceId d, JobId except) const {
    const DeviceSlot& slot = view.device(d);
    const DeviceTypeId t = view.cluster().devices[d].type;
    HorusDevice h{view.cluster().types[t].memory_gb, 0, 0, 0};
    for (unsigned i = 0; i < slot.count; ++i) {
      const JobId other = slot.jobs[i];
      if (other == except) continue;
      std::optional<double> u = expected_util(view, other, t);
      if (!u) return std::nullopt;
      h.held_gb += view.details(other).gpu_mem_gb;
      h.util_pct += *u;
      ++h.tasks;
    }
    return h;
  }

  [[nodiscard]] HorusParams params_for(const View& view) const {
    HorusParams p = o_.horus;
    p.max_tasks = std::min(p.max_tasks, static_cast<int>(view.config().max_jobs_per_device));
    return p;
  }

  bool try_place(Control& control, JobId j) {
    const JobRequest& req = control.request(j);
    if (o_.mode == PackMode::kSlot) {
      auto devices = place(control, j, o_.placement);
      if (!devices) return false;
      control.start(j, *devices);
      return true;
    }
    if (req.devices_per_worker > 1 || (o_.mode == PackMode::kReactive &&
                                       !expected_util(control, j, control.reference_device()))) {
      // Alone on free devices: a job still to be profiled, or one whose workers span several
      // GPUs each (the cost rule is per GPU). Placed with pack so that others may join later.
      auto devices = place(control, j, o_.placement);
      if (!devices || control.check_start(j, *devices, /*allow_shared=*/true)) return false;
      control.pack(j, *devices, o_.mode == PackMode::kReactive ? "alone, to be profiled" : "alone");
      if (o_.mode == PackMode::kReactive) profiling_.push_back(j);
      return true;
    }
    auto devices = choose_by_cost(control, j, std::nullopt);
    if (!devices || control.check_start(j, *devices, /*allow_shared=*/true)) return false;
    control.pack(j, *devices, "least Horus cost");
    return true;
  }

  // One device per worker, each the least-cost fitting device of the first compatible type where
  // all workers fit. `leaving`: a device the job leaves (reactive consolidation); then only
  // devices already holding jobs are considered. For a one-GPU job, a device the runtime would
  // refuse it on (a share guaranteed to others, node CPUs or memory) gives way to the next best:
  // the cost rule reads GPU memory and utilization only. (A gang's devices are checked together,
  // by the caller.)
  std::optional<std::vector<DeviceId>> choose_by_cost(const Control& control, JobId j,
                                                      std::optional<DeviceId> leaving) {
    const View& view = control;
    const JobRequest& req = view.request(j);
    const RequestDetails& rd = view.details(j);
    const HorusParams p = params_for(view);
    devices_.refresh(view);
    const auto read = [&](DeviceId d, JobId except) { return horus_view(view, d, except); };
    for (DeviceTypeId t : view.compatible_types(j)) {
      std::optional<double> u = expected_util(view, j, t);
      if (!u) continue;
      chosen_.clear();
      if (req.workers > 0) {
        // Least cost first, each device once (HorusDevices::choose is repeated horus_choose).
        devices_.choose(view, t, j, leaving, p, rd.gpu_mem_gb, *u, read, [&](DeviceId d) {
          const std::array<DeviceId, 1> one{d};
          if (leaving ? control.check_migrate(j, one).has_value()
                      : req.workers == 1 && control.check_start(j, one, /*allow_shared=*/true))
            return true; // the runtime would refuse it: the next best
          chosen_.push_back(d);
          return chosen_.size() < req.workers;
        });
      }
      if (chosen_.size() == req.workers) {
        std::vector<DeviceId> chosen = chosen_;
        std::sort(chosen.begin(), chosen.end());
        return chosen;
      }
    }
    return std::nullopt;
  }

  // Reactive: a job measured alone while others wait moves to the least-cost GPU that holds
  // measured jobs, which frees its GPU for the next job to be profiled on.
  void consolidate(Control& control, SimTime window) {
    // At most `lookahead` jobs look for a GPU to join per decision, as placement looks at most
    // `lookahead` waiting jobs: each look scans the GPUs of the job's type.
    std::size_t looks = 0;
    std::erase_if(profiling_, [&](JobId j) {
      const JobState& s = control.state(j);
      if (is_over(s.status)) return true;
      if (!control.measured_gpu_util(j)) {
        // Still being profiled. Nothing in this decision changes its spell alone: placements
        // and moves go to free GPUs or to GPUs whose jobs are all measured (horus_view), so
        // its wake-up is asked now rather than in a second walk after placement.
        wake_for_profile(control, j, window);
        return false;
      }
      // Measured. Only a running one-GPU job still alone on its GPU is moved; a job that is
      // paying a cost or spans GPUs stays where it is.
      if (s.status != JobStatus::kRunning || s.devices.size() != 1) return true;
      if (control.device(s.devices[0]).count != 1) return true;
      // Alone is best while nobody waits for its GPU.
      if (waiting_.empty() || looks >= o_.lookahead) return false;
      ++looks;
      auto target = choose_by_cost(control, j, s.devices[0]);
      if (!target) return false; // no GPU to join now; try again at a later decision
      control.migrate(j, *target, "measured: packed by least Horus cost");
      return true;
    });
  }

  // Reactive: a decision when job j, being profiled (not measured yet), will have been
  // measured, if it runs alone now. Asked at every decision while it is profiled; the runtime
  // keeps one queue entry per instant, and counts each ask as an event.
  static void wake_for_profile(Control& control, JobId j, SimTime window) {
    if (!control.running_alone(j)) return;
    const SimTime done = control.alone_time(j);
    if (done < window) control.wake_at(control.now() + (window - done));
  }

  UtilPackingOptions o_;
  HorusDevices devices_;         // what the cost rule reads of each device, kept between decisions
  std::vector<DeviceId> chosen_; // scratch of choose_by_cost
  std::deque<JobId> waiting_;
  std::vector<JobId> profiling_; // reactive: placed alone, not yet packed, in placement order
  // proactive: predicted utilization (%) by job x device type, NaN until asked for
  mutable std::vector<double> predicted_;
};

std::vector<ParamSpec> horus_params() {
  return {{"lookahead",
           ParamType::kNumber,
           "5",
           "waiting jobs considered at each placement, in submission order (Horus k = 5)",
           {.min = 1, .max = 1e6, .whole = true}},
          {"mem_margin_gb",
           ParamType::kNumber,
           "0.5",
           "GPU memory that must stay free after a placement (Horus: 500 MB)",
           {.min = 0}},
          {"max_tasks",
           ParamType::kNumber,
           "3",
           "jobs per GPU at most (Horus: 3), also bounded by runtime.max_jobs_per_device",
           {.min = 1, .max = 8, .whole = true}}};
}

UtilPackingOptions options_from(const PolicySetup& s, PackMode mode, std::string name) {
  UtilPackingOptions o;
  o.mode = mode;
  o.name = std::move(name);
  o.placement = s.placement;
  if (mode == PackMode::kSlot) return o;
  o.lookahead = static_cast<std::size_t>(s.params.number("lookahead"));
  o.horus.mem_margin_gb = s.params.number("mem_margin_gb");
  o.horus.max_tasks = static_cast<int>(s.params.number("max_tasks"));
  if (mode == PackMode::kProactive) {
    const PolicySetup::DataFile* file = s.data_file("predictor");
    if (!file) {
      throw InputError("policy.params.predictor: util-proactive needs a predictor file (dlsim "
                       "predict --out FILE)");
    }
    o.predictor = parse_util_predictor(file->text, file->path);
  }
  return o;
}

} // namespace

PolicyEntry util_slot_policy() {
  return {"util-slot",
          "one job per GPU, the first of the first 5 waiting jobs that fits (HotCloud'20's "
          "slot-based baseline)",
          false,
          {},
          [](const PolicySetup& s) {
            return std::make_unique<UtilPacking>(options_from(s, PackMode::kSlot, "util-slot"));
          }};
}

PolicyEntry util_reactive_policy() {
  return {"util-reactive",
          "a job runs alone until its GPU utilization is measured (runtime.profile_s), then is "
          "packed by the Horus cost rule while others wait (HotCloud'20)",
          false, horus_params(), [](const PolicySetup& s) {
            return std::make_unique<UtilPacking>(
                options_from(s, PackMode::kReactive, "util-reactive"));
          }};
}

PolicyEntry util_proactive_policy() {
  std::vector<ParamSpec> params = horus_params();
  params.push_back({"predictor", ParamType::kDataFile, "configs/utilization/predictor-ridge.txt",
                    "the trained utilization predictor (dlsim predict --out)"});
  return {"util-proactive",
          "packed at submission by the Horus cost of the GPU utilization predicted from the "
          "model's graph features, measured once known (HotCloud'20)",
          false, std::move(params), [](const PolicySetup& s) {
            return std::make_unique<UtilPacking>(
                options_from(s, PackMode::kProactive, "util-proactive"));
          }};
}

} // namespace dlsim
