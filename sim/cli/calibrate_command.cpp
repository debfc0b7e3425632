// `dlsim calibrate`: refits the co-location model to the bundled measured pairs, prints its
// parameters and its leave-one-model-out error, and whether they equal the shipped ones
// (docs/runtime.md#the-fitted-model, docs/models.md#fitted-parameters).
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/experiment.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "workloads/interference_fit.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace po = boost::program_options;

namespace dlsim {

namespace {

void print_errors(const std::string& what, const std::vector<double>& errors) {
  ErrorSummary e = summarize_errors(errors);
  fmt::print("| {:<8} | {:>5} | {:>7.1f}% | {:>7.1f}% |\n", what, e.n, 100 * e.median, 100 * e.p90);
}

} // namespace

int command_calibrate(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim calibrate [options]\n\nFits the co-location model (log slowdown = intercept + "
      "w_self x log own\nseconds per iteration + w_other x log partner's) to measured pairs by "
      "least\nsquares, prints its parameters and its leave-one-model-out error per device\n"
      "type (|predicted - measured| / measured speed), and says whether the fit equals\nthe "
      "parameters this dlsim ships (docs/runtime.md#the-fitted-model).\n\nOptions");
  o.add_options()("pairs",
                  po::value<std::string>()->default_value("configs/interference/gavel-pairs.csv"),
                  "measured pairs: device_type,model,with,slowdown")(
      "models", po::value<std::string>()->default_value("configs/models/gavel.yaml"),
      "the models of those pairs, with their time per iteration on each type")("help,h",
                                                                               "this help");
  po::variables_map vm;
  if (!parse_command_line(args, o, vm)) return 0; // --help
  ModelZoo zoo = load_model_zoo(existing_file(vm, "models"));
  std::vector<MeasuredPair> rows =
      load_measured_pairs(existing_file(vm, "pairs"), zoo, builtin_device_types());
  InterferenceFit fit = fit_interference(rows);
  std::vector<double> errors = leave_one_model_out_errors(rows);

  std::map<std::string, std::vector<double>> by_type;
  std::set<std::string> archs;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    by_type[rows[i].type].push_back(errors[i]);
    archs.insert(rows[i].model_arch);
  }
  fmt::print("{} measured pairs of {} models ({} architectures)\n\n", rows.size(),
             zoo.models.size(), archs.size());
  fmt::print("fitted: log slowdown = intercept + w_self x log iter_s(self) + w_other x log "
             "iter_s(partner)\n");
  fmt::print("parameters: intercept {} w_self {} w_other {} mean_log_iter_s {}\n", fit.intercept,
             fit.w_self, fit.w_other, fit.mean_log_iter_s);
  fmt::print("\nleave-one-model-out error of the co-located speed, |predicted - measured| / "
             "measured\n");
  fmt::print("| {:<8} | {:>5} | {:>8} | {:>8} |\n", "type", "pairs", "median", "p90");
  fmt::print("|{:-<10}|{:->7}|{:->10}|{:->10}|\n", "", "", "", "");
  for (const auto& [type, e] : by_type)
    print_errors(type, e);
  print_errors("all", errors);

  const InterferenceFit& shipped = kShippedInterferenceFit;
  auto same = [](double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
  };
  bool equal = same(fit.intercept, shipped.intercept) && same(fit.w_self, shipped.w_self) &&
               same(fit.w_other, shipped.w_other) &&
               same(fit.mean_log_iter_s, shipped.mean_log_iter_s);
  fmt::print("\n{}\n", equal
                           ? "the shipped parameters (workloads/interference_fit.h) equal this fit"
                           : "the shipped parameters (workloads/interference_fit.h) differ from "
                             "this fit: copy the line above into kShippedInterferenceFit");
  return 0;
}

} // namespace dlsim
