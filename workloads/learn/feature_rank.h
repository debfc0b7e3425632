// How strongly a feature goes with a label (docs/aiturbo.md#the-classifier): Pearson's r,
// Spearman's rho (Pearson on ranks, ties sharing their mean rank), Kendall's tau-b, and the Gini
// impurity decrease of the best single split on the feature (the impurity-based importance a
// decision stump gives it).
#pragma once

#include <vector>

namespace dlsim {

double pearson(const std::vector<double>& x, const std::vector<double>& y);
double spearman(const std::vector<double>& x, const std::vector<double>& y);
double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);
// y is 0 or 1: Gini(all) - the weighted Gini of the two sides of the best threshold on x.
double gini_decrease(const std::vector<double>& x, const std::vector<double>& y);

} // namespace dlsim
