// The presets' numbers, each derived in docs/traces.md#gen-trace---like from
// /work/shared/traces/helios/helios_cluster_summary.csv (S-Lab-System-Group/HeliosData and
// HeliosArtifact; Hu et al., SC'21) and the Philly fit of gen_trace.h. They are constants, not
// solved at run time, so that a trace is the same on every platform's libm.
#include "workloads/gen_trace_presets.h"

#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <cmath>

namespace dlsim {

namespace {

// Helios' six months (April to September 2020: 30 + 31 + 30 + 31 + 31 + 30 = 183 days): no job of
// the trace can have run longer, so durations are clamped to [1 s, 183 days].
constexpr double kHeliosSpanS = 183 * 86400.0;

// One Helios cluster from its summary row: GPU jobs, median and mean GPU-job run time (s), mean
// GPUs per GPU job; sigma solves clamped_lognormal_mean(ln median, sigma, 1, span) = mean. The mean
// is not read here: it stays beside sigma as the figure sigma was solved for, and
// tests/trace_formats_a_test.cpp checks that the pair still agrees.
GenTraceOptions helios(double gpu_jobs, double median_s, [[maybe_unused]] double mean_s,
                       double mean_gpus, double sigma) {
  GenTraceOptions o;
  o.arrival_rate_per_hour = gpu_jobs / (kHeliosSpanS / 3600);
  o.duration_mu = std::round(std::log(median_s) * 1e4) / 1e4;
  o.duration_sigma = sigma;
  o.min_duration_s = 1;
  o.max_duration_s = kHeliosSpanS;
  // Median 1 GPU and the published mean: P(1 GPU) = p, the other jobs uniform over 2, 4, ..., 64
  // GPUs (mean 126 / 6 = 21), so mean = p + 21 (1 - p) and p = (21 - mean) / 20.
  double p1 = (21 - mean_gpus) / 20;
  o.gpu_sizes = {1, 2, 4, 8, 16, 32, 64};
  o.gpu_weights = {p1, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 1; i < o.gpu_weights.size(); ++i)
    o.gpu_weights[i] = (1 - p1) / 6;
  return o;
}

} // namespace

const std::vector<GenTracePreset>& gen_trace_presets() {
  static const std::vector<GenTracePreset> presets = {
      {"philly", "Microsoft Philly (pollux_philly.csv, 82,247 jobs): the default settings",
       GenTraceOptions{}},
      // Summary rows: Venus 125,303 GPU jobs, median 204 s, mean 13,040.598 s, 6.736 GPUs.
      {"helios-venus", "SenseTime Helios, cluster Venus (Hu et al., SC'21)",
       helios(125303, 204, 13040.598, 6.736, 2.9254)},
      // Earth 427,148 GPU jobs, median 234 s, mean 5,130.609 s, 2.101 GPUs.
      {"helios-earth", "SenseTime Helios, cluster Earth",
       helios(427148, 234, 5130.609, 2.101, 2.4898)},
      // Saturn 698,896 GPU jobs, median 124 s, mean 5,252.927 s, 4.01 GPUs.
      {"helios-saturn", "SenseTime Helios, cluster Saturn",
       helios(698896, 124, 5252.927, 4.01, 2.7506)},
      // Uranus 329,117 GPU jobs, median 280 s, mean 9,163.725 s, 4.038 GPUs.
      {"helios-uranus", "SenseTime Helios, cluster Uranus",
       helios(329117, 280, 9163.725, 4.038, 2.6568)},
  };
  return presets;
}

GenTraceOptions gen_trace_preset(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& p : gen_trace_presets()) {
    if (p.name == name) return p.options;
    names.push_back(p.name);
  }
  throw InputError("--like: " + unknown_name_message("trace", name, names));
}

double clamped_lognormal_mean(double mu, double sigma, double lo, double hi) {
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  double a = std::log(lo), b = std::log(hi), s2 = sigma * sigma;
  return lo * phi((a - mu) / sigma) +
         std::exp(mu + s2 / 2) * (phi((b - mu - s2) / sigma) - phi((a - mu - s2) / sigma)) +
         hi * (1 - phi((b - mu) / sigma));
}

} // namespace dlsim
