// `dlsim predict`: trains GPU-utilization predictors on configs/utilization/, scores them leaving
// one architecture out, and writes the trained predictor a run loads (docs/utilization.md).
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/experiment.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"
#include "workloads/utilization/evaluate.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <iostream>
#include <map>

namespace po = boost::program_options;

namespace dlsim {

namespace {

void print_table(const std::string& title, const std::vector<UtilScore>& ridge,
                 const std::vector<UtilScore>& stumps) {
  fmt::print("\n{}\n", title);
  fmt::print("| {:<18} | {:>4} | {:>12} | {:>13} |\n", "", "rows", "ridge RMSLE", "stumps RMSLE");
  fmt::print("|{:-<20}|{:->6}|{:->14}|{:->15}|\n", "", "", "", "");
  for (std::size_t i = 0; i < ridge.size(); ++i) {
    fmt::print("| {:<18} | {:>4} | {:>12.4f} | {:>13.4f} |\n", ridge[i].key, ridge[i].rows,
               ridge[i].rmsle, stumps[i].rmsle);
  }
}

} // namespace

int command_predict(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim predict [options]\n\nTrains GPU-utilization predictors (ridge regression and "
      "boosted stumps on log\nfeatures of the computation graph, batch size and device), prints "
      "their RMSLE\nleaving one architecture out, per architecture and per device, and writes "
      "the\ntrained predictor that policy util-proactive loads (docs/utilization.md).\n\nOptions");
  o.add_options()("architectures",
                  po::value<std::string>()->default_value("configs/utilization/architectures.csv"),
                  "architectures and their graph features")(
      "dataset", po::value<std::string>()->default_value("configs/utilization/dataset.csv"),
      "(architecture, device, batch) -> solo GPU utilization")(
      "model", po::value<std::string>()->default_value("ridge"),
      "the predictor --out writes: ridge or stumps (both are scored)")(
      "lambda", po::value<double>()->default_value(1.0), "ridge penalty (standardized features)")(
      "rounds", po::value<int>()->default_value(200), "boosting rounds (at most 10000)")(
      "rate", po::value<double>()->default_value(0.1), "boosting learning rate, in (0, 1]")(
      "out", po::value<std::string>(),
      "write the predictor trained on all rows here, with one trained without each "
      "architecture, which a run uses for that architecture's jobs")("help,h", "this help");
  po::variables_map vm;
  if (!parse_command_line(args, o, vm)) return 0; // --help
  std::string model = vm["model"].as<std::string>();
  if (model != "ridge" && model != "stumps") {
    throw po::error(fmt::format("--model expects ridge or stumps, got '{}'", model));
  }
  UtilTrainOptions options;
  options.lambda = vm["lambda"].as<double>();
  options.boost.rounds = vm["rounds"].as<int>();
  options.boost.learning_rate = vm["rate"].as<double>();
  if (!(options.lambda >= 0)) throw po::error("--lambda must be >= 0");
  // Each round is a pass over every feature's splits, repeated for every left-out fold: the
  // bound keeps a run within seconds (2,000,000,000 ran without end).
  constexpr int kMaxRounds = 10000;
  if (options.boost.rounds < 0 || options.boost.rounds > kMaxRounds)
    throw po::error(fmt::format("--rounds must be 0 to {}", kMaxRounds));
  if (!(options.boost.learning_rate > 0 && options.boost.learning_rate <= 1)) {
    throw po::error("--rate must be in (0, 1]");
  }

  UtilDataset d = load_util_dataset(existing_file(vm, "architectures"),
                                    existing_file(vm, "dataset"), builtin_device_types());
  Eigen::VectorXd ridge = leave_one_arch_out(d, UtilModelKind::kRidge, options);
  Eigen::VectorXd stumps = leave_one_arch_out(d, UtilModelKind::kStumps, options);
  std::vector<std::string> arch_of, device_of;
  for (const UtilSample& s : d.rows) {
    arch_of.push_back(s.arch);
    device_of.push_back(s.device);
  }
  fmt::print("{} rows, {} architectures; leave-one-architecture-out RMSLE of the utilization "
             "(%) predicted for each held-out architecture\n",
             d.rows.size(), d.archs.size());
  print_table("per architecture", rmsle_by(d, ridge, arch_of), rmsle_by(d, stumps, arch_of));
  print_table("per device", rmsle_by(d, ridge, device_of), rmsle_by(d, stumps, device_of));

  if (vm.count("out")) {
    UtilModelKind kind = model == "ridge" ? UtilModelKind::kRidge : UtilModelKind::kStumps;
    UtilPredictor p = train_with_held_out(d, kind, options);
    std::string out = vm["out"].as<std::string>();
    write_file_atomically(out, [&](std::ostream& f) { f << util_predictor_text(p); });
    fmt::print("\nwrote the {} predictor trained on all {} rows, and one trained without each of "
               "the {} architectures (for its jobs), to {}\n",
               model, d.rows.size(), p.held_out.size(), out);
  }
  return 0;
}

} // namespace dlsim
