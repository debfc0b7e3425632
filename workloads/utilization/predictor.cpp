// Training, prediction and the file of a GPU-utilization predictor (predictor.h).
#include "workloads/utilization/predictor.h"

#include "sim/engine/error.h"
#include "sim/engine/utf8.h"
#include "workloads/keyword_lines.h"
#include "workloads/utilization/features.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dlsim {

namespace {

constexpr const char* kMagic = "dlsim-util-predictor 1";

} // namespace

std::string_view to_string(UtilModelKind kind) {
  return kind == UtilModelKind::kRidge ? "ridge" : "stumps";
}

UtilPredictor train_util_predictor(UtilModelKind kind, const Eigen::MatrixXd& x,
                                   const Eigen::VectorXd& util_pct,
                                   const UtilTrainOptions& options) {
  UtilPredictor p;
  p.kind = kind;
  p.standardizer = learn::fit_standardizer(x);
  const Eigen::MatrixXd z = learn::standardize(p.standardizer, x);
  // Fitting log(1 + u) by least squares minimizes the RMSLE of the predictions exp(.) - 1.
  const Eigen::VectorXd target = util_pct.array().log1p();
  if (kind == UtilModelKind::kRidge) {
    p.ridge = learn::fit_ridge(z, target, options.lambda);
  } else {
    p.stumps = learn::fit_boosted_stumps(z, target, options.boost);
  }
  return p;
}

double predict_util_pct(const UtilModel& p, const Eigen::VectorXd& row) {
  const Eigen::VectorXd z = learn::standardize_row(p.standardizer, row);
  const double log_u = p.kind == UtilModelKind::kRidge ? learn::predict_ridge(p.ridge, z)
                                                       : learn::predict_stumps(p.stumps, z);
  return std::clamp(std::expm1(log_u), 0.0, 100.0);
}

namespace {

bool same_graph(const GraphFeatures& a, const GraphFeatures& b) {
  auto near = [](double x, double y) {
    return std::abs(x - y) <= 1e-4 * std::max(std::abs(x), std::abs(y));
  };
  return near(a.gflops_per_sample, b.gflops_per_sample) && near(a.params_m, b.params_m) &&
         near(a.conv_layers, b.conv_layers) && near(a.linear_layers, b.linear_layers) &&
         near(a.recurrent_layers, b.recurrent_layers) && near(a.activation_mb, b.activation_mb);
}

// The graph features in the file's order.
std::vector<double> graph_values(const GraphFeatures& g) {
  return {g.gflops_per_sample, g.params_m,         g.conv_layers,
          g.linear_layers,     g.recurrent_layers, g.activation_mb};
}

// A model's lines after `model` and `features` (mean, scale, then its parameters).
void put_model(std::string& out, const UtilModel& p) {
  put_keyword_vector(out, "mean", p.standardizer.mean);
  put_keyword_vector(out, "scale", p.standardizer.scale);
  if (p.kind == UtilModelKind::kRidge) {
    out += fmt::format("intercept {}\n", p.ridge.intercept);
    put_keyword_vector(out, "weights", p.ridge.weights);
  } else {
    out += fmt::format("base {}\n", p.stumps.base);
    for (const learn::Stump& s : p.stumps.stumps)
      out += fmt::format("stump {} {} {} {}\n", s.feature, s.threshold, s.left, s.right);
  }
}

// Reads put_model's lines into p (whose kind is set); stumps run to the next `held_out` line.
void read_model(KeywordLines& in, UtilModel& p) {
  const std::size_t n = kUtilFeatureNames.size();
  p.standardizer.mean = in.vector("mean", n);
  p.standardizer.scale = in.vector("scale", n, /*positive=*/true);
  if (p.kind == UtilModelKind::kRidge) {
    p.ridge.intercept = in.scalar("intercept");
    p.ridge.weights = in.vector("weights", n);
    return;
  }
  p.stumps.base = in.scalar("base");
  while (!in.at_end() && in.peek().words[0] != "held_out") {
    const KeywordLine& line = in.expect("stump");
    if (line.words.size() != 5) {
      in.fail(line.number, "stump: expected 4 values: feature threshold left right");
    }
    double f = in.number(line, 1);
    if (f < 0 || f >= static_cast<double>(n) || f != std::floor(f)) {
      in.fail(line.number,
              fmt::format("stump: feature {} is not a feature index 0..{}", line.words[1], n - 1));
    }
    p.stumps.stumps.push_back(
        {static_cast<int>(f), in.number(line, 2), in.number(line, 3), in.number(line, 4)});
  }
}

} // namespace

const UtilModel& util_model_for(const UtilPredictor& p, const GraphFeatures& g) {
  for (const UtilHeldOut& h : p.held_out) {
    if (same_graph(h.graph, g)) return h.model;
  }
  return p;
}

std::string util_predictor_text(const UtilPredictor& p) {
  std::string out = fmt::format("{}\nmodel {}\nfeatures {}\n", kMagic, to_string(p.kind),
                                fmt::join(kUtilFeatureNames, " "));
  put_model(out, p);
  for (const UtilHeldOut& h : p.held_out) {
    out += fmt::format("held_out {} {}\n", h.arch, fmt::join(graph_values(h.graph), " "));
    put_model(out, h.model);
  }
  return out;
}

UtilPredictor parse_util_predictor(std::string_view text, const std::string& name) {
  KeywordLines in(text, name);
  {
    if (in.at_end()) in.fail(1, fmt::format("empty file; expected '{}'", kMagic));
    const KeywordLine& first = in.peek();
    std::string joined = fmt::format("{}", fmt::join(first.words, " "));
    if (joined != kMagic) {
      in.fail(first.number, fmt::format("not a dlsim utilization predictor (expected '{}', "
                                        "written by dlsim predict --out)",
                                        kMagic));
    }
    (void)in.expect(first.words[0]);
  }
  UtilPredictor p;
  const KeywordLine& model = in.expect("model");
  if (model.words.size() != 2 || (model.words[1] != "ridge" && model.words[1] != "stumps")) {
    in.fail(model.number, "model: expected 'ridge' or 'stumps'");
  }
  p.kind = model.words[1] == "ridge" ? UtilModelKind::kRidge : UtilModelKind::kStumps;
  const KeywordLine& features = in.expect("features");
  std::vector<std::string> want(kUtilFeatureNames.begin(), kUtilFeatureNames.end());
  if (std::vector<std::string>(features.words.begin() + 1, features.words.end()) != want) {
    in.fail(features.number, fmt::format("features: expected '{}' (this dlsim's feature list)",
                                         fmt::join(want, " ")));
  }
  read_model(in, p);
  // held_out ARCH GFLOPS PARAMS_M CONV LINEAR RECURRENT ACTIVATION_MB, then that model's lines.
  while (!in.at_end() && in.peek().words[0] == "held_out") {
    const KeywordLine& line = in.expect("held_out");
    if (line.words.size() != 8) {
      in.fail(line.number, "held_out: expected an architecture and its 6 graph features "
                           "(gflops_per_sample params_m conv_layers linear_layers "
                           "recurrent_layers activation_mb)");
    }
    UtilHeldOut h;
    h.arch = line.words[1];
    if (std::string bad = utf8_problem(h.arch); !bad.empty())
      in.fail(line.number, fmt::format("held_out: the architecture's name is {}", bad));
    for (const UtilHeldOut& other : p.held_out) {
      if (other.arch == h.arch)
        in.fail(line.number, fmt::format("held_out: {} twice", quote_input(h.arch)));
    }
    double v[6];
    for (int i = 0; i < 6; ++i) {
      v[i] = in.number(line, 2 + i);
      if (!(v[i] >= 0)) in.fail(line.number, "held_out: a graph feature is negative");
    }
    h.graph = {v[0], v[1], v[2], v[3], v[4], v[5]};
    h.model.kind = p.kind;
    read_model(in, h.model);
    p.held_out.push_back(std::move(h));
  }
  if (!in.at_end()) {
    in.fail(in.peek().number,
            fmt::format("unexpected {} after the model", quote_input(in.peek().words[0])));
  }
  return p;
}

} // namespace dlsim
