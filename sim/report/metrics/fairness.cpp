// Fairness over finished jobs whose solo time is known (summary.json `fairness`,
// docs/outputs.md#fairness): slowdown = JCT / solo_s per job, Jain's index over the users' mean
// slowdowns, and finish-time fairness rho.
#include "sim/report/summary_metric.h"

#include <algorithm>
#include <optional>

namespace dlsim {

namespace {

// Jain's fairness index (Jain, Chiu and Hawe, DEC-TR-301, 1984): (sum x)^2 / (n sum x^2). None
// for fewer than two values (one is 1 by the formula, and says nothing about fairness) or when
// every value is 0 (0/0).
std::optional<double> jain_index(const std::vector<double>& x) {
  double sum = 0, squares = 0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  if (x.size() < 2 || !(squares > 0)) return std::nullopt;
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

// The sums are added one finished job at a time in job id order (summarize's one pass over the
// jobs), so the figures never depend on the order jobs finished in.
class FairnessMetric final : public SummaryMetric {
public:
  [[nodiscard]] bool wants_jobs() const override { return true; }

  void add_job(const SimState& s, std::size_t j) override {
    const JobState& job = s.jobs[j];
    if (job.status != JobStatus::kFinished) return;
    const Workload& w = *s.workload;
    double solo = solo_seconds(w, j);
    if (!(solo > 0)) return;
    if (user_sum_.empty()) { // + 1: a user id past the names
      user_sum_.assign(w.users.size() + 1, 0.0);
      user_jobs_.assign(user_sum_.size(), 0);
    }
    double slowdown = to_seconds(job.end - w.jobs[j].request.submit) / solo;
    std::size_t u = std::min<std::size_t>(w.jobs[j].request.user, user_sum_.size() - 1);
    user_sum_[u] += slowdown;
    ++user_jobs_[u];
    ++jobs_;
    sum_ += slowdown;
    max_ = std::max(max_, slowdown);
  }

  void write(nlohmann::ordered_json& summary, const RunEnd& /*end*/) const override {
    std::vector<double> user_means;
    for (std::size_t u = 0; u < user_sum_.size(); ++u) {
      if (user_jobs_[u] > 0)
        user_means.push_back(user_sum_[u] / static_cast<double>(user_jobs_[u]));
    }
    const double mean = jobs_ > 0 ? sum_ / static_cast<double>(jobs_) : 0.0;
    const std::optional<double> jain = jobs_ > 0 ? jain_index(user_means) : std::nullopt;
    nlohmann::ordered_json fair;
    fair["jobs"] = jobs_;
    fair["users"] = static_cast<std::uint64_t>(user_means.size());
    // Only with two users or more: with one it is 1 by the formula (docs/outputs.md#fairness).
    if (jain) fair["jain_user_slowdown"] = *jain;
    fair["slowdown_mean"] = mean;
    fair["slowdown_max"] = max_;
    // Isolated JCT = solo_s, so rho is the slowdown (docs/outputs.md#fairness says why).
    fair["ftf_rho_mean"] = mean;
    fair["ftf_rho_max"] = max_;
    summary["fairness"] = std::move(fair);
  }

private:
  std::vector<double> user_sum_;
  std::vector<std::uint64_t> user_jobs_;
  std::uint64_t jobs_ = 0; // finished jobs with solo_s > 0
  double sum_ = 0;
  double max_ = 0;
};

} // namespace

MetricEntry fairness_metric() {
  return {"fairness", [](const MetricSetup&) { return std::make_unique<FairnessMetric>(); }};
}

} // namespace dlsim
