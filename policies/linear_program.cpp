#include "policies/linear_program.h"

#include <glpk.h>

#include <stdexcept>
#include <string>

namespace dlsim {

LinearProgram::LinearProgram() : lp_(nullptr, glp_delete_prob) {
  glp_term_out(GLP_OFF);
  lp_.reset(glp_create_prob());
  glp_set_obj_dir(lp_.get(), GLP_MAX);
}

int LinearProgram::add_columns(int n) {
  return glp_add_cols(lp_.get(), n);
}

void LinearProgram::bound_column(int c, double lo, double hi) {
  glp_set_col_bnds(lp_.get(), c, GLP_DB, lo, hi);
}

int LinearProgram::add_rows(int n) {
  return glp_add_rows(lp_.get(), n);
}

void LinearProgram::set_row(int r, const Entries& entries, int kind, double lo, double hi) {
  std::vector<int> ind(1, 0);
  std::vector<double> val(1, 0.0);
  for (const auto& [c, v] : entries) {
    ind.push_back(c);
    val.push_back(v);
  }
  glp_set_mat_row(lp_.get(), r, static_cast<int>(entries.size()), ind.data(), val.data());
  glp_set_row_bnds(lp_.get(), r, kind, lo, hi);
}

void LinearProgram::set_row_at_most(int r, const Entries& entries, double hi) {
  set_row(r, entries, GLP_UP, 0.0, hi);
}

void LinearProgram::set_row_at_least(int r, const Entries& entries, double lo) {
  set_row(r, entries, GLP_LO, lo, 0.0);
}

void LinearProgram::set_objective(int c, double v) {
  glp_set_obj_coef(lp_.get(), c, v);
}

int LinearProgram::add_bottleneck(std::vector<Entries> rows,
                                  const std::vector<double>& coefficient) {
  z_ = glp_add_cols(lp_.get(), 1);
  glp_set_col_bnds(lp_.get(), z_, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(lp_.get(), z_, 1.0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (coefficient[k] == 0) continue;
    Entries& row = rows[k];
    row.emplace_back(z_, -coefficient[k]);
    const int r = glp_add_rows(lp_.get(), 1);
    set_row_at_least(r, row, 0.0);
    bottleneck_rows_.push_back(r);
  }
  return z_;
}

void LinearProgram::set_bottleneck_coefficients(const std::vector<double>& coefficient) {
  std::vector<int> ind(1, 0);
  std::vector<double> val(1, 0.0);
  std::size_t row = 0;
  for (double c : coefficient) {
    if (c == 0) continue;
    ind.push_back(bottleneck_rows_[row++]);
    val.push_back(-c);
  }
  glp_set_mat_col(lp_.get(), z_, static_cast<int>(ind.size() - 1), ind.data(), val.data());
}

double LinearProgram::solve() {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  if (!solved_once_) glp_adv_basis(lp_.get(), 0);
  solved_once_ = true;
  int rc = glp_simplex(lp_.get(), &parm);
  if (rc != 0 || glp_get_status(lp_.get()) != GLP_OPT) {
    // A warm start that went wrong: start again from the advanced basis before giving up.
    glp_adv_basis(lp_.get(), 0);
    rc = glp_simplex(lp_.get(), &parm);
  }
  if (rc != 0 || glp_get_status(lp_.get()) != GLP_OPT) {
    // A basis GLPK could not factorize (GLP_EFAIL: the rows' scales span many orders of
    // magnitude, e.g. a row of seconds beside one of months): scale the rows and columns, and
    // solve from the standard basis through the presolver.
    glp_scale_prob(lp_.get(), GLP_SF_AUTO);
    glp_std_basis(lp_.get());
    parm.presolve = GLP_ON;
    rc = glp_simplex(lp_.get(), &parm);
    parm.presolve = GLP_OFF;
  }
  if (rc != 0 || glp_get_status(lp_.get()) != GLP_OPT) {
    throw std::runtime_error("GLPK did not solve the allocation LP (glp_simplex returned " +
                             std::to_string(rc) + ", status " +
                             std::to_string(glp_get_status(lp_.get())) + ")");
  }
  return glp_get_obj_val(lp_.get());
}

double LinearProgram::value(int c) const {
  return glp_get_col_prim(lp_.get(), c);
}

} // namespace dlsim
