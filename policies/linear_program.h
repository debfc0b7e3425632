// A linear program solved with GLPK's simplex (GNU Linear Programming Kit), as a policy builds
// one: columns with bounds, rows given by their non-zero entries, an objective to maximise, and
// the bottleneck form (maximise z subject to row_k >= c_k z for every k) that turns a max-min or
// min-max objective into one LP. A solve warm-starts from the last basis and, when GLPK fails,
// tries again from a fresh basis and then with scaling and the presolver before giving up.
#pragma once

#include <memory>
#include <utility>
#include <vector>

struct glp_prob;

namespace dlsim {

class LinearProgram {
public:
  // (column, coefficient) pairs of one row; columns count from 1, as GLPK's.
  using Entries = std::vector<std::pair<int, double>>;

  // An empty problem to maximise, GLPK's terminal output off.
  LinearProgram();

  // n new columns, the first's index returned; a column is free until bounded.
  int add_columns(int n);
  void bound_column(int c, double lo, double hi);
  // n new rows, the first's index returned.
  int add_rows(int n);
  // Row r reads sum(entries) <= hi, or sum(entries) >= lo.
  void set_row_at_most(int r, const Entries& entries, double hi);
  void set_row_at_least(int r, const Entries& entries, double lo);
  void set_objective(int c, double v);

  // A column z >= 0 of objective coefficient 1 and, for each k with coefficient[k] != 0, a row
  // sum(rows[k]) - coefficient[k] z >= 0. Returns z's column.
  int add_bottleneck(std::vector<Entries> rows, const std::vector<double>& coefficient);
  // Replaces z's coefficients in the bottleneck rows: those k of coefficient[k] != 0, the same
  // as when they were added.
  void set_bottleneck_coefficients(const std::vector<double>& coefficient);
  [[nodiscard]] double z() const { return value(z_); }

  // Solves; returns the objective's value. Throws std::runtime_error when GLPK finds no optimum.
  double solve();
  // Column c's value in the last solution.
  [[nodiscard]] double value(int c) const;

private:
  void set_row(int r, const Entries& entries, int kind, double lo, double hi);

  std::unique_ptr<glp_prob, void (*)(glp_prob*)> lp_;
  int z_ = 0;
  std::vector<int> bottleneck_rows_;
  bool solved_once_ = false;
};

} // namespace dlsim
