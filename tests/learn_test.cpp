// The learners of workloads/learn/: each checked against numbers worked out by hand.
#include "sim/engine/error.h"
#include "workloads/learn/boosted_stumps.h"
#include "workloads/learn/cross_validation.h"
#include "workloads/learn/ridge.h"
#include "workloads/learn/rmsle.h"
#include "workloads/learn/standardize.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dlsim;
using namespace dlsim::learn;

TEST_CASE("ridge on a tiny hand dataset gives the closed-form coefficients", "[learn]") {
  // x = (1, 2, 3), y = (1, 3, 4). Means: x 2, y 8/3.
  // Centred: xc = (-1, 0, 1), yc = (-5/3, 1/3, 4/3).
  // xc'xc = 1 + 0 + 1 = 2;  xc'yc = 5/3 + 0 + 4/3 = 3.
  // lambda = 1: w = 3 / (2 + 1) = 1,   b = 8/3 - 2 x 1 = 2/3.
  // lambda = 0: w = 3 / 2 = 1.5 (least squares), b = 8/3 - 3 = -1/3.
  Eigen::MatrixXd x(3, 1);
  x << 1, 2, 3;
  Eigen::VectorXd y(3);
  y << 1, 3, 4;
  RidgeModel m = fit_ridge(x, y, 1.0);
  CHECK(m.weights(0) == Approx(1.0).margin(1e-12));
  CHECK(m.intercept == Approx(2.0 / 3.0).margin(1e-12));
  // Prediction at x = 4: 2/3 + 4 = 14/3.
  Eigen::VectorXd row(1);
  row << 4;
  CHECK(predict_ridge(m, row) == Approx(14.0 / 3.0).margin(1e-12));

  RidgeModel ols = fit_ridge(x, y, 0.0);
  CHECK(ols.weights(0) == Approx(1.5).margin(1e-12));
  CHECK(ols.intercept == Approx(-1.0 / 3.0).margin(1e-12));
}

TEST_CASE("ridge with two features shrinks both weights by the 2x2 closed form", "[learn]") {
  // x rows (1,0), (0,1), (1,1), (0,0); y = (1, 2, 3, 0). Means: x (0.5, 0.5), y 1.5.
  // xc rows (.5,-.5), (-.5,.5), (.5,.5), (-.5,-.5): xc'xc = [[1, 0], [0, 1]].
  // yc = (-.5, .5, 1.5, -1.5): xc'yc = (-.25 - .25 + .75 + .75, .25 + .25 + .75 + .75) = (1, 2).
  // lambda = 1: w = (1, 2) / 2 = (0.5, 1.0); b = 1.5 - 0.5 x 0.5 - 0.5 x 1.0 = 0.75.
  Eigen::MatrixXd x(4, 2);
  x << 1, 0, 0, 1, 1, 1, 0, 0;
  Eigen::VectorXd y(4);
  y << 1, 2, 3, 0;
  RidgeModel m = fit_ridge(x, y, 1.0);
  CHECK(m.weights(0) == Approx(0.5).margin(1e-12));
  CHECK(m.weights(1) == Approx(1.0).margin(1e-12));
  CHECK(m.intercept == Approx(0.75).margin(1e-12));
}

TEST_CASE("ridge refuses bad inputs with a reason", "[learn]") {
  Eigen::MatrixXd x(2, 2);
  x << 1, 2, 2, 4; // collinear
  Eigen::VectorXd y(2);
  y << 1, 2;
  CHECK_THROWS_WITH(fit_ridge(x, y, 0.0), Catch::Contains("singular"));
  CHECK_THROWS_WITH(fit_ridge(x, y, -1.0), Catch::Contains("lambda must be >= 0"));
  Eigen::VectorXd y3(3);
  y3 << 1, 2, 3;
  CHECK_THROWS_WITH(fit_ridge(x, y3, 1.0), Catch::Contains("2 rows of features but 3 targets"));
}

TEST_CASE("standardize gives z-scores and leaves a constant column at 0", "[learn]") {
  // Column 0 = (1, 3): mean 2, population sd 1 -> (-1, 1). Column 1 constant 5 -> scale 1 -> 0.
  Eigen::MatrixXd x(2, 2);
  x << 1, 5, 3, 5;
  Standardizer s = fit_standardizer(x);
  Eigen::MatrixXd z = standardize(s, x);
  CHECK(z(0, 0) == Approx(-1));
  CHECK(z(1, 0) == Approx(1));
  CHECK(z(0, 1) == 0);
  CHECK(s.scale(1) == 1);
  Eigen::VectorXd row(2);
  row << 4, 7;
  Eigen::VectorXd zr = standardize_row(s, row);
  CHECK(zr(0) == Approx(2)); // (4 - 2) / 1
  CHECK(zr(1) == Approx(2)); // (7 - 5) / 1
  Eigen::MatrixXd three(1, 3);
  three << 1, 2, 3;
  CHECK_THROWS_WITH(standardize(s, three), Catch::Contains("3 features given, the fit has 2"));
}

TEST_CASE("boosted stumps: one round of rate 1 fits a step exactly", "[learn]") {
  // x = (0, 1, 2, 3), y = (0, 0, 4, 4): base = mean = 2, residuals (-2, -2, 2, 2).
  // Splits: at 0.5 the sides' sums are -2 and 2 (gain 4/1 + 4/3 = 5.33); at 1.5 -4 and 4
  // (gain 16/2 + 16/2 = 16); at 2.5 -2 and 2 (gain 4/3 + 4/1 = 5.33): 1.5 wins: left -2, right +2.
  // Predictions 2 - 2 = 0 and 2 + 2 = 4, the targets.
  Eigen::MatrixXd x(4, 1);
  x << 0, 1, 2, 3;
  Eigen::VectorXd y(4);
  y << 0, 0, 4, 4;
  BoostedStumps m = fit_boosted_stumps(x, y, {.rounds = 1, .learning_rate = 1.0});
  REQUIRE(m.stumps.size() == 1);
  CHECK(m.base == 2);
  CHECK(m.stumps[0].threshold == 1.5);
  CHECK(m.stumps[0].left == -2);
  CHECK(m.stumps[0].right == 2);
  Eigen::VectorXd p = predict_stumps(m, x);
  CHECK(p(0) == 0);
  CHECK(p(3) == 4);
}

TEST_CASE("boosted stumps at rate 0.5 close half the residual each round", "[learn]") {
  // Same step. Round 1 adds (-1, +1): fitted (1, 1, 3, 3), residuals (-1, -1, 1, 1).
  // Round 2 splits at 1.5 again and adds (-0.5, +0.5): fitted (0.5, 0.5, 3.5, 3.5).
  Eigen::MatrixXd x(4, 1);
  x << 0, 1, 2, 3;
  Eigen::VectorXd y(4);
  y << 0, 0, 4, 4;
  BoostedStumps m = fit_boosted_stumps(x, y, {.rounds = 2, .learning_rate = 0.5});
  Eigen::VectorXd p = predict_stumps(m, x);
  CHECK(p(0) == Approx(0.5));
  CHECK(p(2) == Approx(3.5));
  CHECK_THROWS_WITH(fit_boosted_stumps(x, y, {.rounds = 1, .learning_rate = 0}),
                    Catch::Contains("learning rate must be in (0, 1]"));
}

TEST_CASE("rmsle matches the formula on a hand case", "[learn]") {
  // p = (e - 1, 0), y = (0, 0): log(p + 1) - log(y + 1) = (1, 0); sqrt((1 + 0) / 2) = 0.7071.
  Eigen::VectorXd p(2);
  p << std::exp(1.0) - 1, 0;
  Eigen::VectorXd y(2);
  y << 0, 0;
  CHECK(rmsle(p, y) == Approx(std::sqrt(0.5)));
  Eigen::VectorXd bad(2);
  bad << -1, 0;
  CHECK_THROWS_WITH(rmsle(bad, y), Catch::Contains("is not > -1"));
}

TEST_CASE("leave-one-group-out holds out each group whole", "[learn]") {
  // Rows 0..4 in groups (7, 3, 7, 3, 5): folds for 3, 5, 7 in that order.
  std::vector<int> groups = {7, 3, 7, 3, 5};
  auto folds = leave_one_group_out(groups);
  REQUIRE(folds.size() == 3);
  CHECK(folds[0].group == 3);
  CHECK(folds[0].test == std::vector<Eigen::Index>{1, 3});
  CHECK(folds[0].train == std::vector<Eigen::Index>{0, 2, 4});
  CHECK(folds[2].group == 7);
  CHECK(folds[2].test == std::vector<Eigen::Index>{0, 2});
  CHECK_THROWS_WITH(leave_one_group_out({1, 1}), Catch::Contains("at least two groups"));
}
