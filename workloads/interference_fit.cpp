// The fitted co-location model: features, least squares, held-out errors, the run's table
// (interference_fit.h).
#include "workloads/interference_fit.h"

#include "sim/engine/error.h"
#include "workloads/interference_pairs.h"
#include "workloads/learn/ridge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace dlsim {

double fitted_slowdown(const InterferenceFit& f, double log_iter_self, double log_iter_other) {
  return std::exp(f.intercept + f.w_self * log_iter_self + f.w_other * log_iter_other);
}

namespace {

// gavel_resnet50_bs32 -> gavel_resnet50: every batch size of one architecture is one model to
// hold out, so that the score says how the fit does on an architecture it has never seen.
std::string architecture_of(const std::string& name) {
  auto cut = name.rfind("_bs");
  if (cut == std::string::npos || cut + 3 >= name.size()) return name;
  for (std::size_t i = cut + 3; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, cut);
}

Eigen::MatrixXd features_of(const std::vector<MeasuredPair>& rows,
                            const std::vector<std::size_t>& which) {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(which.size()), 2);
  for (std::size_t i = 0; i < which.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    x(r, 0) = rows[which[i]].log_iter_model;
    x(r, 1) = rows[which[i]].log_iter_with;
  }
  return x;
}

InterferenceFit fit_rows(const std::vector<MeasuredPair>& rows,
                         const std::vector<std::size_t>& which) {
  if (which.size() < 3) {
    throw InputError(fmt::format("interference fit: {} measured pairs cannot determine 3 "
                                 "parameters",
                                 which.size()));
  }
  Eigen::VectorXd y(static_cast<Eigen::Index>(which.size()));
  double sum_log_iter = 0;
  for (std::size_t i = 0; i < which.size(); ++i) {
    y(static_cast<Eigen::Index>(i)) = std::log(rows[which[i]].slowdown);
    sum_log_iter += rows[which[i]].log_iter_model;
  }
  learn::RidgeModel m = learn::fit_ridge(features_of(rows, which), y, 0.0);
  InterferenceFit f;
  f.intercept = m.intercept;
  f.w_self = m.weights(0);
  f.w_other = m.weights(1);
  f.mean_log_iter_s = sum_log_iter / static_cast<double>(which.size());
  return f;
}

} // namespace

std::vector<MeasuredPair> load_measured_pairs(const std::string& pairs_file, const ModelZoo& zoo,
                                              const std::vector<DeviceType>& types) {
  // The strict reader checks every row; the table it returns is indexed by the zoo's order.
  std::vector<std::string> names;
  names.reserve(zoo.models.size());
  for (const ModelInfo& m : zoo.models)
    names.push_back(m.name);
  InterferencePairs table = load_interference_pairs(pairs_file, types, zoo, names, true);
  std::vector<MeasuredPair> rows;
  for (std::size_t t = 0; t < types.size(); ++t) {
    for (std::size_t a = 0; a < names.size(); ++a) {
      for (std::size_t b = 0; b < names.size(); ++b) {
        double s = table.at(t, a, b);
        if (!(s > 0)) continue;
        const auto& ta = zoo.models[a].iteration_time_s;
        const auto& tb = zoo.models[b].iteration_time_s;
        auto ia = ta.find(types[t].name);
        auto ib = tb.find(types[t].name);
        if (ia == ta.end() || ib == tb.end()) continue;
        MeasuredPair p;
        p.type = types[t].name;
        p.model = names[a];
        p.with = names[b];
        p.model_arch = architecture_of(names[a]);
        p.with_arch = architecture_of(names[b]);
        p.slowdown = s;
        p.log_iter_model = std::log(ia->second);
        p.log_iter_with = std::log(ib->second);
        rows.push_back(std::move(p));
      }
    }
  }
  return rows;
}

InterferenceFit fit_interference(const std::vector<MeasuredPair>& rows) {
  std::vector<std::size_t> all(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    all[i] = i;
  return fit_rows(rows, all);
}

std::vector<double> leave_one_model_out_errors(const std::vector<MeasuredPair>& rows) {
  std::set<std::string> archs;
  for (const MeasuredPair& r : rows) {
    archs.insert(r.model_arch);
    archs.insert(r.with_arch);
  }
  std::vector<double> errors(rows.size(), 0.0);
  for (const std::string& arch : archs) {
    std::vector<std::size_t> train, test;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      (rows[i].model_arch == arch || rows[i].with_arch == arch ? test : train).push_back(i);
    }
    InterferenceFit f = fit_rows(rows, train);
    for (std::size_t i : test) {
      double predicted = fitted_slowdown(f, rows[i].log_iter_model, rows[i].log_iter_with);
      errors[i] = std::abs(rows[i].slowdown / predicted - 1.0);
    }
  }
  return errors;
}

ErrorSummary summarize_errors(std::vector<double> errors) {
  ErrorSummary s;
  s.n = errors.size();
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  s.median = n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90 = errors[std::max<std::size_t>(rank, 1) - 1];
  return s;
}

InterferencePairs fitted_pair_table(const InterferenceFit& fit, const InterferencePairs& measured,
                                    const PerfTable& perf, std::size_t types, std::size_t models) {
  auto log_iter = [&](std::size_t m, std::size_t t) {
    if (m == 0 || t >= perf.type_count || m * perf.type_count + t >= perf.iter_time_s.size()) {
      return fit.mean_log_iter_s;
    }
    double s = perf.iter_time(static_cast<ModelId>(m), static_cast<DeviceTypeId>(t));
    return std::isfinite(s) && s > 0 ? std::log(s) : fit.mean_log_iter_s;
  };
  InterferencePairs table;
  table.models = static_cast<std::uint32_t>(models);
  table.complete = true;
  table.slowdown.assign(types * models * models, 0.0);
  for (std::size_t t = 0; t < types; ++t) {
    for (std::size_t a = 0; a < models; ++a) {
      for (std::size_t b = 0; b < models; ++b) {
        std::size_t i = (t * models + a) * models + b;
        double m = measured.empty() ? 0.0 : measured.at(t, a, b);
        table.slowdown[i] = m > 0 ? m : fitted_slowdown(fit, log_iter(a, t), log_iter(b, t));
      }
    }
  }
  return table;
}

} // namespace dlsim
