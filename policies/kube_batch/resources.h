// The resource vector that kube-batch's and Volcano's api.Resource holds, at dlsim's
// granularity: whole devices (the `nvidia.com/gpu` scalar resource, any device type), host CPU
// cores and host memory in GB. Queue shares, DRF shares and quotas are computed on it.
#pragma once

#include <algorithm>
#include <array>
#include <limits>

namespace dlsim::kb {

struct Resources {
  static constexpr int kDims = 3;
  static constexpr const char* kNames[kDims] = {"nvidia.com/gpu", "cpu", "memory"};
  std::array<double, kDims> v{0, 0, 0}; // devices, CPU cores, memory GB

  static Resources of(double devices, double cpu, double mem) {
    return Resources{{devices, cpu, mem}};
  }
  static Resources infinite() {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    return Resources{{kInf, kInf, kInf}};
  }
  [[nodiscard]] double devices() const { return v[0]; }

  Resources& operator+=(const Resources& o) {
    for (int d = 0; d < kDims; ++d)
      v[d] += o.v[d];
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    for (int d = 0; d < kDims; ++d)
      v[d] -= o.v[d];
    return *this;
  }
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend Resources operator-(Resources a, const Resources& b) { return a -= b; }
  friend Resources operator*(Resources a, double k) {
    for (double& x : a.v)
      x *= k;
    return a;
  }
  friend bool operator==(const Resources& a, const Resources& b) = default;
};

// Tolerance of the float comparisons (Volcano compares with a 0.1 milli-unit margin).
constexpr double kEps = 1e-9;

// a <= b in every dimension.
inline bool less_equal(const Resources& a, const Resources& b) {
  for (int d = 0; d < Resources::kDims; ++d) {
    if (a.v[d] > b.v[d] + kEps) return false;
  }
  return true;
}

// a <= b in the dimensions that `req` asks for (Volcano's LessEqualWithDimension): a quota on
// CPUs does not stop a job that asks for none.
inline bool less_equal_in(const Resources& a, const Resources& b, const Resources& req) {
  for (int d = 0; d < Resources::kDims; ++d) {
    if (req.v[d] > 0 && a.v[d] > b.v[d] + kEps) return false;
  }
  return true;
}

inline Resources min_each(const Resources& a, const Resources& b) {
  Resources r;
  for (int d = 0; d < Resources::kDims; ++d)
    r.v[d] = std::min(a.v[d], b.v[d]);
  return r;
}

// max(0, a - b) in each dimension (Volcano's ExceededPart).
inline Resources exceeded_part(const Resources& a, const Resources& b) {
  Resources r;
  for (int d = 0; d < Resources::kDims; ++d)
    r.v[d] = std::max(0.0, a.v[d] - b.v[d]);
  return r;
}

inline bool is_empty(const Resources& a) {
  return std::all_of(a.v.begin(), a.v.end(), [](double x) { return x <= kEps; });
}

// The largest of used/total over the dimensions (kube-batch's helpers.Share per dimension: a
// dimension with nothing to share counts 0 when unused and 1 when used).
inline double dominant_share(const Resources& used, const Resources& total) {
  double s = 0;
  for (int d = 0; d < Resources::kDims; ++d) {
    double x = total.v[d] > kEps ? used.v[d] / total.v[d] : (used.v[d] > kEps ? 1.0 : 0.0);
    s = std::max(s, x);
  }
  return s;
}

} // namespace dlsim::kb
