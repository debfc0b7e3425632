// The analytic scaling model against Pollux's measured step times (docs/scaling.md#checked-
// against-measured-scaling).
#include "sim/cli/scaling_check.h"

#include "sim/engine/error.h"
#include "sim/runtime/scaling_model.h"
#include "workloads/formats/pollux.h"
#include "workloads/formats/pollux_profile.h"

#include <boost/math/tools/minima.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

namespace dlsim {

namespace {

namespace fs = std::filesystem;

// Parameters of the configuration Pollux measured where the zoo's model of the same name is a
// different configuration. Pollux's ncf (petuum/adaptdl osdi21-artifact benchmark/models/ncf:
// NeuMF-end on MovieLens-1M, 32 factors, 3 MLP layers) has 6,040 users and 3,706 items (He et
// al., WWW'17, Table 1): embeddings (6,040 + 3,706) x (32 + 128) = 1,559,360, MLP 256x128 +
// 128x64 + 64x32 weights and biases = 43,232, prediction 64 + 1 = 65: 1,602,657 parameters.
// The zoo's ncf is NVIDIA's MovieLens-20M configuration (31.8 M).
double measured_params_m(const std::string& application, const ModelInfo& zoo_model) {
  if (application == "ncf") return 1.602657;
  return zoo_model.params_m;
}

void add_rows(ScalingCheckApp& app, const std::string& placement, unsigned nodes, unsigned replicas,
              const std::vector<StepTimePoint>& points, const std::vector<StepTimePoint>& single) {
  for (const StepTimePoint& p : points) {
    StepTimePoint one;
    if (!step_time_at(single, p.local_bsz, one)) {
      ++app.outside;
      continue;
    }
    app.rows.push_back({placement, nodes, replicas, p.local_bsz, one.step_time_s, p.step_time_s});
  }
}

} // namespace

std::vector<ScalingCheckApp> load_scaling_check(const std::string& profiles_dir,
                                                const ModelZoo& zoo) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(profiles_dir, ec)) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  if (ec)
    throw InputError(fmt::format("{}: cannot list the directory: {}", profiles_dir, ec.message()));
  std::sort(names.begin(), names.end());
  if (names.empty()) throw InputError(fmt::format("{}: no application profiles", profiles_dir));
  std::vector<ScalingCheckApp> apps;
  for (const std::string& name : names) {
    PolluxProfile profile = load_pollux_profile(profiles_dir, name, 0);
    ScalingCheckApp app;
    app.application = name;
    app.model = std::string(pollux_application_to_zoo(name));
    auto m = zoo.find(app.model);
    if (!m) {
      throw InputError(fmt::format("{}/{}: the zoo {} has no model '{}' for this application",
                                   profiles_dir, name, zoo.file, app.model));
    }
    const ModelInfo& info = zoo.models[*m];
    app.model_bytes = 4 * measured_params_m(name, info) * 1e6;
    app.overlap = info.comm_overlap;
    auto single = profile.placements.find("1");
    if (single == profile.placements.end()) {
      throw InputError(fmt::format("{}/{}/placements.csv: no single-GPU rows (placement 1)",
                                   profiles_dir, name));
    }
    for (const auto& [id, points] : profile.placements) {
      if (id == "1") continue;
      unsigned replicas = 0;
      for (char c : id)
        replicas += static_cast<unsigned>(c - '0');
      add_rows(app, id, static_cast<unsigned>(id.size()), replicas, points, single->second);
    }
    for (const auto& [key, points] : profile.scalability) {
      add_rows(app, fmt::format("{}x{}", key.first, key.second), static_cast<unsigned>(key.first),
               static_cast<unsigned>(key.second), points, single->second);
    }
    apps.push_back(std::move(app));
  }
  return apps;
}

namespace {

// step(points at b) / step(single at b), b clamped to the range both measured; 0 if none.
double step_ratio(const std::vector<StepTimePoint>& points,
                  const std::vector<StepTimePoint>& single, double batch) {
  if (points.empty() || single.empty()) return 0.0;
  const double lo = std::max(points.front().local_bsz, single.front().local_bsz);
  const double hi = std::min(points.back().local_bsz, single.back().local_bsz);
  if (lo > hi) return 0.0;
  const double b = std::clamp(batch, lo, hi);
  StepTimePoint at;
  StepTimePoint one;
  if (!step_time_at(points, b, at) || !step_time_at(single, b, one)) return 0.0;
  return at.step_time_s / one.step_time_s;
}

} // namespace

MeasuredScalingTable build_measured_scaling(const std::string& profiles_dir, const ModelZoo& zoo,
                                            const std::vector<std::string>& models,
                                            DeviceTypeId type) {
  MeasuredScalingTable table;
  table.by_model.resize(models.size());
  table.has.assign(models.size(), false);
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(profiles_dir, ec)) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string zoo_name(pollux_application_to_zoo(name));
    auto m = std::find(models.begin(), models.end(), zoo_name);
    auto info = zoo.find(zoo_name);
    if (m == models.end() || !info) continue;
    const PolluxProfile profile = load_pollux_profile(profiles_dir, name, 0);
    auto single = profile.placements.find("1");
    if (single == profile.placements.end()) continue;
    const double batch = zoo.models[*info].batch_size;
    MeasuredScaling ms;
    ms.type = type;
    for (const auto& [id, points] : profile.placements) {
      const double r = step_ratio(points, single->second, batch);
      if (r > 0) ms.by_placement[id] = r;
    }
    for (const auto& [key, points] : profile.scalability) {
      const double r = step_ratio(points, single->second, batch);
      if (r > 0)
        ms.by_counts[{static_cast<std::uint32_t>(key.first),
                      static_cast<std::uint32_t>(key.second)}] = r;
    }
    const auto id = static_cast<std::size_t>(m - models.begin());
    table.by_model[id] = std::move(ms);
    table.has[id] = true;
  }
  return table;
}

double predicted_step_s(const ScalingCheckApp& app, const ScalingCheckRow& row,
                        const RingFit& ring) {
  ScalingPlacement p;
  p.replicas = row.replicas;
  p.nodes = row.nodes;
  p.local_gb_s = kPolluxPcieGbS;
  p.host_gb_s = kPolluxPcieGbS;
  p.nic_gb_s = ring.nic_gb_s;
  p.local_step_s = ring.local_step_s;
  p.nic_step_s = ring.nic_step_s;
  return analytic_step_s(row.compute_s, app.model_bytes, app.overlap, p);
}

std::vector<double> step_errors(const ScalingCheckApp& app, const RingFit& ring) {
  std::vector<double> errors;
  errors.reserve(app.rows.size());
  for (const ScalingCheckRow& r : app.rows)
    errors.push_back(std::abs(predicted_step_s(app, r, ring) - r.measured_s) / r.measured_s);
  return errors;
}

namespace {

// The minimum of `loss` over [lo, hi]: the loss is not convex in general (an L1 sum), so a grid
// of 200 points finds the basin, Brent's method (Boost.Math) its minimum between the grid's
// neighbours. Returns the argument; `best_loss` gets its loss.
template <class Loss>
double grid_brent(Loss loss, double lo, double hi, double& best_loss) {
  constexpr int kGrid = 200;
  const double stepx = (hi - lo) / kGrid;
  int best = 0;
  best_loss = loss(lo);
  for (int i = 1; i <= kGrid; ++i) {
    const double l = loss(lo + i * stepx);
    if (l < best_loss) {
      best_loss = l;
      best = i;
    }
  }
  const double a = lo + std::max(0, best - 1) * stepx;
  const double b = lo + std::min(kGrid, best + 1) * stepx;
  auto [x, fx] = boost::math::tools::brent_find_minima(loss, a, b, 26);
  if (fx <= best_loss) {
    best_loss = fx;
    return x;
  }
  return lo + best * stepx;
}

} // namespace

RingFit fit_ring(const std::vector<ScalingCheckApp>& apps, RingFitted fitted,
                 std::size_t leave_out) {
  // The three parameters as logarithms, each searched in turn with the others held (cyclic
  // coordinate descent), until a whole round improves the loss by less than 1e-12.
  std::array<double, 3> x = {std::log(1.0), std::log(kPolluxNominalRing.local_step_s),
                             std::log(kPolluxNominalRing.nic_step_s)};
  const std::array<double, 3> lo = {std::log(0.05), std::log(1e-7), std::log(1e-7)};
  const std::array<double, 3> hi = {std::log(50.0), std::log(1e-2), std::log(1e-2)};
  auto ring_of = [](const std::array<double, 3>& v) {
    return RingFit{std::exp(v[0]), std::exp(v[1]), std::exp(v[2])};
  };
  auto loss = [&](const std::array<double, 3>& v) {
    const RingFit ring = ring_of(v);
    double sum = 0;
    std::size_t used = 0;
    for (std::size_t a = 0; a < apps.size(); ++a) {
      if (a == leave_out || apps[a].rows.empty()) continue;
      double app_sum = 0;
      for (const ScalingCheckRow& r : apps[a].rows)
        app_sum += std::abs(std::log(predicted_step_s(apps[a], r, ring) / r.measured_s));
      sum += app_sum / static_cast<double>(apps[a].rows.size());
      ++used;
    }
    return used > 0 ? sum / static_cast<double>(used) : 0.0;
  };
  double current = loss(x);
  // The bandwidth alone: one search along it, the latencies held at NCCL's.
  const std::size_t searched = fitted == RingFitted::kBandwidth ? 1 : x.size();
  for (int round = 0; round < 50; ++round) {
    const double before = current;
    for (std::size_t k = 0; k < searched; ++k) {
      auto along = [&](double v) {
        std::array<double, 3> y = x;
        y[k] = v;
        return loss(y);
      };
      double l = 0;
      const double v = grid_brent(along, lo[k], hi[k], l);
      if (l < current) {
        x[k] = v;
        current = l;
      }
    }
    if (before - current < 1e-12) break;
  }
  return ring_of(x);
}

} // namespace dlsim
