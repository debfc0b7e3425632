// Leave-one-architecture-out evaluation (evaluate.h).
#include "workloads/utilization/evaluate.h"

#include "workloads/learn/cross_validation.h"
#include "workloads/learn/rmsle.h"

#include <map>

namespace dlsim {

Eigen::VectorXd leave_one_arch_out(const UtilDataset& d, UtilModelKind kind,
                                   const UtilTrainOptions& options) {
  std::vector<int> groups;
  groups.reserve(d.rows.size());
  for (const UtilSample& s : d.rows)
    groups.push_back(s.arch_id);
  Eigen::VectorXd out(static_cast<Eigen::Index>(d.rows.size()));
  for (const learn::Fold& f : learn::leave_one_group_out(groups)) {
    UtilPredictor p = train_util_predictor(kind, learn::take_rows(d.x, f.train),
                                           learn::take_rows(d.util_pct, f.train), options);
    for (Eigen::Index i : f.test)
      out(i) = predict_util_pct(p, Eigen::VectorXd(d.x.row(i).transpose()));
  }
  return out;
}

UtilPredictor train_with_held_out(const UtilDataset& d, UtilModelKind kind,
                                  const UtilTrainOptions& options) {
  UtilPredictor p = train_util_predictor(kind, d.x, d.util_pct, options);
  std::vector<int> groups;
  groups.reserve(d.rows.size());
  for (const UtilSample& s : d.rows)
    groups.push_back(s.arch_id);
  for (const learn::Fold& f : learn::leave_one_group_out(groups)) {
    const UtilArchitecture& a = d.archs[static_cast<std::size_t>(f.group)];
    p.held_out.push_back({a.name, a.graph,
                          train_util_predictor(kind, learn::take_rows(d.x, f.train),
                                               learn::take_rows(d.util_pct, f.train), options)});
  }
  return p;
}

std::vector<UtilScore> rmsle_by(const UtilDataset& d, const Eigen::VectorXd& predicted,
                                const std::vector<std::string>& key_of_row) {
  std::map<std::string, std::vector<Eigen::Index>> rows_of;
  for (std::size_t i = 0; i < key_of_row.size(); ++i)
    rows_of[key_of_row[i]].push_back(static_cast<Eigen::Index>(i));
  std::vector<UtilScore> scores;
  auto score = [&](const std::string& key, const std::vector<Eigen::Index>& rows) {
    scores.push_back(
        {key, rows.size(),
         learn::rmsle(learn::take_rows(predicted, rows), learn::take_rows(d.util_pct, rows))});
  };
  for (const auto& [key, rows] : rows_of)
    score(key, rows);
  std::vector<Eigen::Index> all(key_of_row.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<Eigen::Index>(i);
  score("all", all);
  return scores;
}

} // namespace dlsim
