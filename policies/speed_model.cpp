#include "policies/speed_model.h"

#include <Eigen/Dense>

#include <algorithm>
#include <bit>
#include <cstdint>

namespace dlsim {

namespace {

Eigen::Vector3d features(std::uint32_t workers, std::uint32_t ps) {
  return {1.0 / std::max<std::uint32_t>(1, workers), 1.0, ps > 0 ? 1.0 / ps : 0.0};
}

} // namespace

SpeedModel make_speed_model(double t0, double t1, double t2) {
  SpeedModel m;
  m.prior[0] = m.theta[0] = t0;
  m.prior[1] = m.theta[1] = t1;
  m.prior[2] = m.theta[2] = t2;
  return m;
}

void observe_speed(SpeedModel& m, std::uint32_t workers, std::uint32_t ps, double seconds) {
  // The same time at the same shape as last: its mean would move by (seconds - mean) / count =
  // 0, so only its count changes.
  if (!m.shapes.empty() && workers == m.last_workers && ps == m.last_ps &&
      std::bit_cast<std::uint64_t>(seconds) == std::bit_cast<std::uint64_t>(m.last_mean_s)) {
    ++m.repeats;
    return;
  }
  if (!m.shapes.empty()) {
    m.shapes[m.last].count += m.repeats;
    m.repeats = 0;
  }
  auto it = std::find_if(m.shapes.begin(), m.shapes.end(), [&](const SpeedModel::Shape& s) {
    return s.workers == workers && s.ps == ps;
  });
  bool moved = true;
  if (it == m.shapes.end()) {
    m.shapes.push_back({workers, ps, seconds, 1});
    it = m.shapes.end() - 1;
  } else {
    const double before = it->mean_s;
    ++it->count;
    it->mean_s += (seconds - it->mean_s) / it->count;
    moved = std::bit_cast<std::uint64_t>(it->mean_s) != std::bit_cast<std::uint64_t>(before);
  }
  m.last = static_cast<std::uint32_t>(it - m.shapes.begin());
  m.last_workers = workers;
  m.last_ps = ps;
  m.last_mean_s = it->mean_s;
  // The fit reads the shapes' means only: an unchanged mean (a job measured at the same speed
  // again, every round while nothing moves) leaves theta as it is, bit for bit.
  if (!moved) return;
  // Ridge towards the prior: minimise sum (x_i . theta - T_i)^2 + lambda |theta - prior|^2 with
  // lambda = kSpeedPrior x the mean squared feature, so the prior weighs like kSpeedPrior shapes.
  Eigen::Matrix3d a = Eigen::Matrix3d::Zero();
  Eigen::Vector3d b = Eigen::Vector3d::Zero();
  for (const auto& s : m.shapes) {
    const Eigen::Vector3d x = features(s.workers, s.ps);
    a += x * x.transpose();
    b += x * s.mean_s;
  }
  const double lambda = kSpeedPrior * std::max(1e-12, a.trace() / 3.0 / m.shapes.size());
  const Eigen::Vector3d prior(m.prior[0], m.prior[1], m.prior[2]);
  a += lambda * Eigen::Matrix3d::Identity();
  b += lambda * prior;
  const Eigen::Vector3d theta = a.ldlt().solve(b);
  for (int i = 0; i < 3; ++i)
    m.theta[i] = theta(i);
}

double predict_speed(const SpeedModel& m, std::uint32_t workers, std::uint32_t ps) {
  const Eigen::Vector3d x = features(workers, ps);
  const double t = x(0) * m.theta[0] + x(1) * m.theta[1] + x(2) * m.theta[2];
  // A fit can go below zero away from the measured shapes; a step takes some time.
  return std::max(t, 1e-3 * std::max(m.prior[0], 1e-9));
}

} // namespace dlsim
