// Shockwave's batch-size rules as data (docs/gavel.md#batch-sizes-that-change). The numbers are
// Shockwave's (uw-mad-dash/shockwave, MIT licence): its dataset sizes, the largest batch sizes
// its jobs may grow to, the epochs at which get_gns_bs_pattern multiplies a gns job's batch
// size (read from the function's output for every job type of tacc_throughputs.json, its
// pattern over 760 epochs as _simulate_gns asks for it, less the change at the last epoch that
// the function's loop bound makes), and _simulate_accordion's critical regimes.
#include "workloads/batch_size_plan.h"

#include "sim/engine/error.h"
#include "workloads/formats/gavel.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

namespace dlsim {

namespace {

struct DatasetSize {
  std::string_view family;
  std::uint32_t samples;
};
// scheduler.py dataset_size_dict.
constexpr std::array<DatasetSize, 7> kDatasetSizes = {{{"ResNet-18", 50000},
                                                       {"ResNet-50", 100000},
                                                       {"Transformer", 10000},
                                                       {"LM", 59675},
                                                       {"Recommendation", 117907},
                                                       {"CycleGAN", 6287},
                                                       {"A3C", 4}}};

struct MaxBatch {
  std::string_view family;
  std::uint32_t gns_cap; // _simulate_gns: no doubling from this batch size on
  std::uint32_t max_bs;  // _scale_bs_and_iters' max_bs_dict: accordion's large batch size, and a
                         // job that starts at it never changes (0: not in the dict)
};
constexpr std::array<MaxBatch, 5> kMaxBatch = {{{"ResNet-18", 256, 256},
                                                {"ResNet-50", 128, 128},
                                                {"Transformer", 128, 0},
                                                {"LM", 80, 80},
                                                {"Recommendation", 8192, 8192}}};

// get_gns_bs_pattern: from pattern index `epoch` on, a job of (family, batch, scale) trains at
// batch x multiplier (until the next row of the same job type).
struct GnsStep {
  std::string_view family;
  std::uint32_t batch, scale, epoch, multiplier;
};
constexpr GnsStep kGnsSteps[] = {
    {"ResNet-18", 16, 1, 31, 2},
    {"ResNet-18", 16, 1, 41, 4},
    {"ResNet-18", 16, 1, 51, 8},
    {"ResNet-18", 16, 1, 71, 16},
    {"ResNet-18", 32, 1, 21, 2},
    {"ResNet-18", 32, 1, 31, 4},
    {"ResNet-18", 32, 1, 51, 8},
    {"ResNet-18", 64, 1, 11, 2},
    {"ResNet-18", 64, 1, 31, 4},
    {"ResNet-18", 128, 1, 11, 2},
    {"ResNet-50", 64, 1, 101, 2},
    {"LM", 5, 1, 31, 2},
    {"LM", 5, 1, 41, 4},
    {"LM", 5, 1, 61, 8},
    {"LM", 5, 1, 71, 16},
    {"LM", 10, 1, 11, 2},
    {"LM", 10, 1, 21, 4},
    {"LM", 10, 1, 41, 8},
    {"LM", 20, 1, 11, 2},
    {"LM", 20, 1, 41, 4},
    {"LM", 40, 1, 11, 2},
    {"Recommendation", 512, 1, 21, 2},
    {"Recommendation", 512, 1, 41, 4},
    {"Recommendation", 512, 1, 71, 8},
    {"Recommendation", 512, 1, 91, 16},
    {"Recommendation", 1024, 1, 21, 2},
    {"Recommendation", 1024, 1, 51, 4},
    {"Recommendation", 1024, 1, 91, 8},
    {"Recommendation", 2048, 1, 21, 2},
    {"Recommendation", 2048, 1, 41, 4},
    {"Recommendation", 4096, 1, 41, 2},
    {"ResNet-18", 16, 2, 21, 2},
    {"ResNet-18", 16, 2, 31, 4},
    {"ResNet-18", 16, 2, 91, 8},
    {"ResNet-18", 16, 2, 111, 16},
    {"ResNet-18", 32, 2, 11, 2},
    {"ResNet-18", 32, 2, 21, 4},
    {"ResNet-18", 32, 2, 41, 8},
    {"ResNet-18", 64, 2, 21, 2},
    {"ResNet-18", 64, 2, 41, 4},
    {"ResNet-18", 128, 2, 41, 2},
    {"ResNet-50", 32, 2, 101, 2},
    {"ResNet-50", 32, 2, 111, 4},
    {"ResNet-50", 64, 2, 81, 2},
    {"LM", 5, 2, 31, 2},
    {"LM", 5, 2, 51, 4},
    {"LM", 5, 2, 61, 8},
    {"LM", 5, 2, 71, 16},
    {"LM", 10, 2, 11, 2},
    {"LM", 10, 2, 31, 4},
    {"LM", 10, 2, 41, 8},
    {"LM", 20, 2, 31, 2},
    {"LM", 20, 2, 41, 4},
    {"LM", 40, 2, 11, 2},
    {"ResNet-18", 16, 4, 11, 2},
    {"ResNet-18", 16, 4, 21, 4},
    {"ResNet-18", 16, 4, 81, 8},
    {"ResNet-18", 16, 4, 91, 16},
    {"ResNet-18", 32, 4, 21, 2},
    {"ResNet-18", 32, 4, 31, 4},
    {"ResNet-18", 32, 4, 61, 8},
    {"ResNet-18", 64, 4, 11, 2},
    {"ResNet-18", 64, 4, 61, 4},
    {"ResNet-18", 128, 4, 11, 2},
    {"ResNet-50", 32, 4, 131, 2},
    {"ResNet-50", 32, 4, 221, 4},
    {"ResNet-50", 64, 4, 191, 2},
    {"LM", 5, 4, 11, 2},
    {"LM", 5, 4, 31, 4},
    {"LM", 5, 4, 71, 8},
    {"LM", 5, 4, 91, 16},
    {"LM", 10, 4, 11, 2},
    {"LM", 10, 4, 31, 4},
    {"LM", 10, 4, 61, 8},
    {"LM", 20, 4, 11, 2},
    {"LM", 20, 4, 61, 4},
    {"LM", 40, 4, 61, 2},
};

const MaxBatch* max_batch(std::string_view family) {
  for (const MaxBatch& m : kMaxBatch)
    if (m.family == family) return &m;
  return nullptr;
}

// The gns pattern's multiplier at pattern index `epoch`.
std::uint32_t gns_multiplier(const BatchJobType& type, std::uint32_t k, std::uint32_t epoch) {
  std::uint32_t m = 1;
  for (const GnsStep& s : kGnsSteps) {
    if (s.family == type.family && s.batch == type.batch && s.scale == k && s.epoch <= epoch)
      m = s.multiplier;
  }
  return m;
}

// _simulate_accordion's critical regimes, by the epoch count c it computes (the epoch in
// progress, counted from 1); `changes` false for the job types it never changes.
bool accordion_critical(const BatchJobType& type, std::uint32_t c, bool& changes) {
  changes = true;
  if (type.family == "LM") return c < 10;
  if (type.family == "Recommendation") {
    if (type.batch == 512 || type.batch == 1024) return c < 30;
    if (type.batch == 2048) return c < 40;
    if (type.batch == 4096 || type.batch == 8192) return c < 10;
  } else if (type.family == "ResNet-50") {
    return c % 30 < 10;
  } else if (type.family == "ResNet-18") {
    const std::uint32_t head = type.batch == 256 ? 20 : 10;
    return c < head || (c >= 150 && c < 160) || (c >= 250 && c < 260);
  }
  changes = false; // Transformer (Shockwave returns early), and what it has no regime for
  return true;
}

std::optional<BatchJobType> parse_batch_job_type(std::string_view job_type) {
  constexpr std::string_view kBatch = " (batch size ";
  const auto open = job_type.find(kBatch);
  if (open == std::string_view::npos || !job_type.ends_with(")")) return std::nullopt;
  BatchJobType out;
  out.family = std::string(job_type.substr(0, open));
  const std::string_view digits =
      job_type.substr(open + kBatch.size(), job_type.size() - 1 - open - kBatch.size());
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.batch);
  if (ec != std::errc() || end != digits.data() + digits.size() || out.batch == 0)
    return std::nullopt;
  return out;
}

} // namespace

std::uint32_t shockwave_dataset_size(const std::string& family) {
  for (const DatasetSize& d : kDatasetSizes)
    if (d.family == family) return d.samples;
  return 0;
}

std::vector<std::uint32_t>
shockwave_batch_sizes(const BatchJobType& type, std::uint32_t k, std::uint8_t mode,
                      std::uint32_t epochs, const std::function<bool(std::uint32_t batch)>& known) {
  if (shockwave_dataset_size(type.family) == 0) return {};
  std::vector<std::uint32_t> sizes(epochs, type.batch);
  const MaxBatch* max = max_batch(type.family);
  // _scale_bs_and_iters refuses every change of a job that starts at its family's largest size.
  if (max == nullptr || (max->max_bs != 0 && type.batch == max->max_bs)) return sizes;
  for (std::uint32_t e = 0; e < epochs; ++e) {
    // The epoch in progress as _get_num_epochs counts it (ceil of steps over steps per epoch):
    // e + 1 while epoch e (from 0) is under way.
    const std::uint32_t c = e + 1;
    if (mode == 1) {
      // _simulate_gns doubles the batch size while the pattern at c or c + 1 is larger, up to
      // the cap, and _scale_bs_and_iters refuses a size the throughputs file lacks.
      const std::uint64_t target =
          static_cast<std::uint64_t>(type.batch) * gns_multiplier(type, k, c + 1);
      std::uint32_t bs = type.batch;
      while (2ULL * bs <= target && bs != max->gns_cap && known(2 * bs))
        bs *= 2;
      sizes[e] = bs;
    } else if (mode == 2) {
      // _simulate_accordion: the largest size outside the critical regimes, the trace's inside.
      bool changes = false;
      const bool critical = accordion_critical(type, c, changes);
      if (changes && !critical && max->max_bs != 0 && known(max->max_bs)) sizes[e] = max->max_bs;
    }
  }
  return sizes;
}

void plan_batch_sizes(Trace& trace, TraceJob& job, const std::string& type_model,
                      MeasuredModels& models) {
  if (job.batch_mode == 0 || !(job.iterations > 0)) return;
  const std::uint32_t k = job.workers * job.devices_per_worker;
  const auto& entry = models.measured().entries.at({type_model, k});
  auto type = parse_batch_job_type(entry.job_type);
  if (!type) return; // a job type without a batch size (A3C, CycleGAN) never changes it
  const std::uint32_t samples = shockwave_dataset_size(type->family);
  if (samples == 0) return;
  auto steps_per_epoch = [&](std::uint32_t bs) { return std::ceil(double(samples) / bs); };
  auto model_at = [&](std::uint32_t bs) -> std::optional<std::uint32_t> {
    auto name = gavel_job_type_model(fmt::format("{} (batch size {})", type->family, bs));
    return name ? models.model(*name, k) : std::nullopt;
  };
  // The job's iterations are Gavel's steps over k; an epoch is steps_per_epoch steps.
  const double steps = job.iterations * k;
  const double base_epoch = steps_per_epoch(type->batch);
  // Shockwave's rules change nothing past epoch 260 but ResNet-50's accordion regimes (every 30
  // epochs); epochs past kMostEpochs, which no trace has, keep the batch size of the last one.
  constexpr double kMostEpochs = 10000;
  const auto epochs =
      static_cast<std::uint32_t>(std::min(std::ceil(steps / base_epoch), kMostEpochs));
  const std::vector<std::uint32_t> sizes = shockwave_batch_sizes(
      *type, k, job.batch_mode, epochs, [&](std::uint32_t bs) { return model_at(bs).has_value(); });
  std::vector<Trace::Phase> plan;
  std::uint32_t current = 0;
  for (std::uint32_t e = 0; e < sizes.size(); ++e) {
    if (sizes[e] == current) continue;
    current = sizes[e];
    // An epoch is base_epoch / k of the job's iterations, at any batch size; one iteration at
    // batch size b (k steps) does base_epoch / steps_per_epoch(b) of them.
    plan.push_back(Trace::Phase{e * base_epoch / k, *model_at(current),
                                base_epoch / steps_per_epoch(current)});
  }
  if (plan.size() < 2) return;
  trace.phase_plans.push_back(std::move(plan));
  if (trace.phase_plan_of.size() < trace.names.size())
    trace.phase_plan_of.resize(trace.names.size(), 0);
  trace.phase_plan_of[job.name] = static_cast<std::uint32_t>(trace.phase_plans.size());
}

} // namespace dlsim
