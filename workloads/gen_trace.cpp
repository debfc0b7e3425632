#include "workloads/gen_trace.h"

#include "sim/engine/error.h"
#include "sim/engine/rng.h"
#include "workloads/formats/trace_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

namespace dlsim {

namespace {

// GenTraceOptions' default GPU demand classes are their counts in the Philly trace
// (pollux_philly.csv): 76,627 1-GPU, 1,818 2-GPU, 1,870 4-GPU, 1,643 8-GPU jobs; the 289 jobs
// above 8 GPUs form the 16-GPU class.
constexpr std::uint32_t kGpusPerNode = 8;

} // namespace

LossCurve draw_loss_curve(Rng& rng, double iterations, bool predictable) {
  LossCurve curve;
  const double l0 = rng.uniform(2.3, 6.9);
  curve.c = rng.uniform(0.05, 0.5);
  curve.b = 1.0 / (l0 - curve.c);
  curve.target = curve.c + 0.05 * (l0 - curve.c);
  const bool plateau = !predictable && rng.uniform01() < 0.5;
  curve.family = plateau ? CurveFamily::kPlateau : CurveFamily::kOptimus;
  curve.plateau = plateau ? std::round(rng.uniform(0.2, 0.6) * iterations) : 0;
  curve.a = 19.0 * curve.b / std::max(1.0, iterations - curve.plateau);
  curve.noise = predictable || plateau ? 0.01 : 0.25;
  curve.every = kGeneratedLossEvery;
  return curve;
}

std::string loss_curve_field(const LossCurve& c) {
  const bool plateau = c.family == CurveFamily::kPlateau;
  std::string f =
      fmt::format("{};a={:.6e};b={:.6g};c={:.6g};target={:.6g};noise={};every={}",
                  plateau ? "plateau" : "optimus", c.a, c.b, c.c, c.target, c.noise, c.every);
  if (plateau) f += fmt::format(";plateau={}", c.plateau);
  return f;
}

void parse_device_type_mix(const std::string& text, GenTraceOptions& o) {
  o.device_types.clear();
  o.device_type_weights.clear();
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string entry = text.substr(start, comma == std::string::npos ? comma : comma - start);
    std::size_t colon = entry.rfind(':');
    std::string types = entry.substr(0, colon);
    double weight = 1;
    if (colon != std::string::npos) {
      std::string w = entry.substr(colon + 1);
      char* end = nullptr;
      weight = std::strtod(w.c_str(), &end);
      if (w.empty() || end != w.c_str() + w.size() || !(weight > 0) || !std::isfinite(weight))
        throw InputError(
            fmt::format("--device-types: '{}': the weight must be a positive number", entry));
    }
    if (types.empty() || types.find_first_of(" \t\",\"") != std::string::npos)
      throw InputError(fmt::format(
          "--device-types: '{}': expected TYPES[:WEIGHT], e.g. any-gpu:0.8 or V100|XeonPhi:0.2",
          entry));
    o.device_types.push_back(types);
    o.device_type_weights.push_back(weight);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

void generate_trace(const GenTraceOptions& o, std::ostream& out) {
  // Independent streams: changing one aspect (say, the model list) leaves the others' draws
  // unchanged.
  Rng arrivals = Rng::stream(o.seed, "gen-trace.arrivals");
  Rng durations = Rng::stream(o.seed, "gen-trace.durations");
  Rng sizes = Rng::stream(o.seed, "gen-trace.sizes");
  Rng models = Rng::stream(o.seed, "gen-trace.models");
  Rng users = Rng::stream(o.seed, "gen-trace.users");
  Rng device_types = Rng::stream(o.seed, "gen-trace.device-types");
  Rng curves = Rng::stream(o.seed, "gen-trace.curves");
  const bool with_curves = o.predictable_share >= 0;
  if (with_curves && o.models.empty())
    throw InputError("--loss-curves: jobs given by loss curves need models (--models)");
  const double rate_per_s = o.arrival_rate_per_hour / 3600.0;
  // The last arrival is a sum of jobs-1 exponential gaps: past the span a trace may have
  // (trace_limits.h), `validate` would reject the trace written. Checked before a line is
  // written, with a margin of 20 standard deviations of that sum (a gamma: sd = sqrt(n) x mean
  // gap), and at least 21 mean gaps for a tiny n (e^-21 for one gap), so that no draw passes it.
  if (o.jobs > 1) {
    const double gaps = static_cast<double>(o.jobs - 1);
    const double span_s = gaps / rate_per_s * (1 + 20 / std::sqrt(gaps));
    if (!(span_s <= kMaxTraceSeconds)) {
      throw InputError(fmt::format(
          "arrival rate {:g} per hour: {} jobs would arrive over up to {:g} s, more than the "
          "{:g} s a trace may span; give a higher rate or fewer jobs",
          o.arrival_rate_per_hour, o.jobs, span_s, kMaxTraceSeconds));
    }
  }

  out << "id,submit_s,workers,gpus_per_worker,duration_s,user";
  if (!o.models.empty()) out << ",model";
  if (!o.device_types.empty()) out << ",device_type";
  if (with_curves) out << ",loss_curve";
  out << '\n';
  double t = 0;
  fmt::memory_buffer line;
  for (std::uint64_t i = 0; i < o.jobs; ++i) {
    if (i > 0) t += arrivals.exponential(rate_per_s);
    if (t > kMaxTraceSeconds) {
      throw InputError(fmt::format("arrival rate {:g} per hour: job {} arrives at {:g} s, past the "
                                   "{:g} s a trace may span",
                                   o.arrival_rate_per_hour, i, t, kMaxTraceSeconds));
    }
    double d = durations.lognormal(o.duration_mu, o.duration_sigma);
    d = std::clamp(std::round(d), o.min_duration_s, o.max_duration_s);
    std::uint32_t gpus = o.gpu_sizes[sizes.weighted(o.gpu_weights)];
    std::uint32_t per_worker = std::min(gpus, kGpusPerNode);
    std::uint32_t workers = gpus / per_worker;
    std::uint64_t user = users.below(std::max<std::uint32_t>(1, o.users));
    line.clear();
    // Submit times are written to the millisecond: enough for ordering, short to read.
    if (with_curves) {
      // The curve gives the length: duration_s stays empty.
      fmt::format_to(std::back_inserter(line), "job{},{:.3f},{},{},,u{}", i, t, workers, per_worker,
                     user);
    } else {
      fmt::format_to(std::back_inserter(line), "job{},{:.3f},{},{},{},u{}", i, t, workers,
                     per_worker, d, user);
    }
    if (!o.models.empty())
      fmt::format_to(std::back_inserter(line), ",{}", o.models[models.below(o.models.size())]);
    if (!o.device_types.empty())
      fmt::format_to(std::back_inserter(line), ",{}",
                     o.device_types[device_types.weighted(o.device_type_weights)]);
    if (with_curves) {
      const bool predictable = curves.uniform01() < o.predictable_share;
      fmt::format_to(
          std::back_inserter(line), ",{}",
          loss_curve_field(draw_loss_curve(
              curves, std::max(100.0, std::round(d / kNominalIterationS)), predictable)));
    }
    line.push_back('\n');
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
}

} // namespace dlsim
