// `dlsim calibrate`: refits the co-location model to the bundled measured pairs, prints its
// parameters and its leave-one-model-out error, and whether they equal the shipped ones
// (docs/runtime.md#the-fitted-model, docs/models.md#fitted-parameters). `dlsim calibrate
// --scaling`: the analytic scaling model against Pollux's measured step times, with the
// inter-node bandwidth fitted leaving one application out (docs/scaling.md).
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/experiment.h"
#include "sim/cli/scaling_check.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "workloads/device_speeds.h"
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

// Prints the non-GPU device times derived from the kernel file, beside the zoo's, and the
// rule's error on the held-out P100 measurements. True when every derived time equals the zoo's.
bool print_device_speeds(const std::vector<KernelTime>& kernels, const ModelZoo& zoo,
                         const std::vector<MeasuredSpeed>& speeds, const ModelZoo& measured) {
  KernelRatios phi = kernel_ratios(kernels, KernelDevice::kXeonPhi);
  KernelRatios p100 = kernel_ratios(kernels, KernelDevice::kP100);
  fmt::print("\nnon-GPU devices: {} DeepBench kernels, time / V100 time (geometric means)\n",
             kernels.size());
  fmt::print("| {:<8} | {:>6} | {:>11} | {:>9} |\n", "device", "conv", "narrow GEMM", "wide GEMM");
  fmt::print("|{:-<10}|{:->8}|{:->13}|{:->11}|\n", "", "", "", "");
  fmt::print("| {:<8} | {:>6.3f} | {:>11.3f} | {:>9.3f} |\n", "XeonPhi", phi.conv, phi.gemm_narrow,
             phi.gemm_wide);
  fmt::print("| {:<8} | {:>6.3f} | {:>11.3f} | {:>9.3f} |\n", "P100", p100.conv, p100.gemm_narrow,
             p100.gemm_wide);
  fmt::print(
      "\nper model: derived seconds per iteration (XeonCPU = {} x XeonPhi, unless measured)\n",
      kSocketPerPhi);
  fmt::print("| {:<14} | {:>6} | {:>7} | {:>8} | {:>7} | {:>8} | {:>7} |\n", "model", "conv",
             "V100", "XeonPhi", "zoo", "XeonCPU", "zoo");
  fmt::print("|{:-<16}|{:->8}|{:->9}|{:->10}|{:->9}|{:->10}|{:->9}|\n", "", "", "", "", "", "", "");
  bool equal = true;
  auto shipped = [](const ModelInfo& m, const char* type) {
    auto it = m.iteration_time_s.find(type);
    return it == m.iteration_time_s.end() ? 0.0 : it->second;
  };
  for (const ModelInfo& m : zoo.models) {
    std::optional<DerivedDeviceTimes> d = derive_device_times(m, phi, speeds);
    if (!d) continue;
    std::optional<LayerMix> mix = layer_mix(m);
    double phi_zoo = shipped(m, "XeonPhi");
    double cpu_zoo = shipped(m, "XeonCPU");
    equal = equal && phi_zoo == d->xeon_phi_s && cpu_zoo == d->xeon_cpu_s;
    fmt::print("| {:<14} | {:>6} | {:>7} | {:>8} | {:>7} | {:>8} | {:>7} |\n", m.name,
               m.family == "recommendation" || !mix ? std::string("memory")
                                                    : fmt::format("{:.3f}", mix->conv),
               m.iteration_time_s.at("V100"),
               fmt::format("{}{}", d->xeon_phi_s, d->phi_measured ? " m" : ""), phi_zoo,
               fmt::format("{}{}", d->xeon_cpu_s, d->cpu_measured ? " m" : ""), cpu_zoo);
  }
  fmt::print("(m: a measurement of the model, configs/devices/measured-models.csv)\n");
  fmt::print("\nheld out: the rule against each measurement it gives way to\n");
  fmt::print("| {:<14} | {:>8} | {:>9} | {:>8} | {:>7} |\n", "model", "type", "predicted",
             "measured", "error");
  fmt::print("|{:-<16}|{:->10}|{:->11}|{:->10}|{:->9}|\n", "", "", "", "", "");
  for (const MeasuredSpeed& s : speeds) {
    auto i = zoo.find(s.model);
    if (!i) continue;
    const ModelInfo& m = zoo.models[*i];
    std::optional<DerivedDeviceTimes> rule = derive_device_times(m, phi, {});
    if (!rule) continue;
    double predicted = s.device_type == "XeonPhi" ? rule->xeon_phi_s : rule->xeon_cpu_s;
    double observed = measured_iteration_s(s, m.batch_size);
    fmt::print("| {:<14} | {:>8} | {:>9.3f} | {:>8.3f} | {:>6.1f}% |\n", s.model, s.device_type,
               predicted, observed, 100 * (predicted - observed) / observed);
  }
  fmt::print("\nheld out: the rule with DeepBench's P100 kernels against the P100 / V100 time "
             "ratios\nmeasured in one harness ({}), each with the graph counts of the zoo model "
             "of its\narchitecture\n",
             measured.file);
  fmt::print("| {:<23} | {:>9} | {:>8} | {:>7} |\n", "model", "predicted", "measured", "error");
  fmt::print("|{:-<25}|{:->11}|{:->10}|{:->9}|\n", "", "", "", "");
  std::vector<double> errors;
  for (const HeldOutRatio& r : held_out_p100_ratios(measured, zoo, p100)) {
    errors.push_back(r.error());
    fmt::print("| {:<23} | {:>9.3f} | {:>8.3f} | {:>6.1f}% |\n", r.model, r.predicted, r.measured,
               100 * r.error());
  }
  if (!errors.empty()) {
    ErrorSummary e = summarize_errors(errors);
    fmt::print("{} configurations: median error {:.1f}%, p90 {:.1f}%\n", e.n, 100 * e.median,
               100 * e.p90);
  }
  fmt::print("\n{}\n", equal ? "the zoo's XeonPhi and XeonCPU times equal this derivation"
                             : "the zoo's XeonPhi and XeonCPU times differ from this derivation: "
                               "copy the derived columns into the zoo");
  return equal;
}

bool same_value(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

// The held-out table of one kind of fit: per application, the error at the nominal testbed and
// with the ring parameters fitted to the five other applications.
void print_held_out(const std::vector<ScalingCheckApp>& apps, RingFitted which) {
  fmt::print("| {:<11} | {:<11} | {:>5} | {:>7} | {:>7} | {:>9} | {:>8} | {:>8} | {:>7} | {:>7} "
             "|\n",
             "application", "model", "steps", "nominal", "p90", "held GB/s", "local us", "NIC us",
             "median", "p90");
  fmt::print("|{:-<13}|{:-<13}|{:->7}|{:->9}|{:->9}|{:->11}|{:->10}|{:->10}|{:->9}|{:->9}|\n", "",
             "", "", "", "", "", "", "", "", "");
  std::vector<double> all_nominal;
  std::vector<double> all_held;
  for (std::size_t a = 0; a < apps.size(); ++a) {
    std::vector<double> nominal = step_errors(apps[a], kPolluxNominalRing);
    const RingFit held_fit = fit_ring(apps, which, a);
    std::vector<double> held = step_errors(apps[a], held_fit);
    all_nominal.insert(all_nominal.end(), nominal.begin(), nominal.end());
    all_held.insert(all_held.end(), held.begin(), held.end());
    ErrorSummary n = summarize_errors(nominal);
    ErrorSummary h = summarize_errors(held);
    fmt::print("| {:<11} | {:<11} | {:>5} | {:>6.1f}% | {:>6.1f}% | {:>9.3f} | {:>8.1f} | "
               "{:>8.1f} | {:>6.1f}% | {:>6.1f}% |\n",
               apps[a].application, apps[a].model, n.n, 100 * n.median, 100 * n.p90,
               held_fit.nic_gb_s, held_fit.local_step_s * 1e6, held_fit.nic_step_s * 1e6,
               100 * h.median, 100 * h.p90);
  }
  ErrorSummary n = summarize_errors(all_nominal);
  ErrorSummary h = summarize_errors(all_held);
  fmt::print(
      "| {:<11} | {:<11} | {:>5} | {:>6.1f}% | {:>6.1f}% | {:>9} | {:>8} | {:>8} | {:>6.1f}% "
      "| {:>6.1f}% |\n",
      "all", "", n.n, 100 * n.median, 100 * n.p90, "", "", "", 100 * h.median, 100 * h.p90);
}

int calibrate_scaling(const std::string& profiles_dir, const std::string& zoo_file) {
  ModelZoo zoo = load_model_zoo(zoo_file);
  std::vector<ScalingCheckApp> apps = load_scaling_check(profiles_dir, zoo);
  std::size_t rows = 0;
  std::size_t outside = 0;
  for (const auto& a : apps) {
    rows += a.rows.size();
    outside += a.outside;
  }
  fmt::print("{} measured multi-GPU steps of {} applications ({} without a single-GPU step at "
             "their batch, skipped)\n",
             rows, apps.size(), outside);
  fmt::print("predicted: the measured single-GPU step at the same per-GPU batch + the ring "
             "all-reduce's exposed part\n+ 2 (n - 1) step latencies, PCIe {} GB/s inside a node; "
             "error |predicted - measured| / measured\n",
             kPolluxPcieGbS);
  fmt::print("nominal: {} Gbit/s between nodes, steps of {:.1f} us inside a node and {:.1f} us "
             "across (NCCL)\n",
             kPolluxNominalRing.nic_gb_s * 8, kPolluxNominalRing.local_step_s * 1e6,
             kPolluxNominalRing.nic_step_s * 1e6);
  const RingFit bandwidth = fit_ring(apps, RingFitted::kBandwidth);
  const RingFit joint = fit_ring(apps, RingFitted::kBandwidthAndLatencies);
  fmt::print(
      "\nbandwidth fitted to all, NCCL's step latencies (shipped): {} GB/s ({:.2f} Gbit/s)\n\n",
      bandwidth.nic_gb_s, bandwidth.nic_gb_s * 8);
  print_held_out(apps, RingFitted::kBandwidth);
  fmt::print(
      "\nfitted jointly to all: inter-node bandwidth {} GB/s ({:.2f} Gbit/s), ring step {} s "
      "inside a node, {} s across nodes\n\n",
      joint.nic_gb_s, joint.nic_gb_s * 8, joint.local_step_s, joint.nic_step_s);
  print_held_out(apps, RingFitted::kBandwidthAndLatencies);
  const RingFit& fitted = kShippedRingFitted == RingFitted::kBandwidth ? bandwidth : joint;
  const bool shipped = same_value(fitted.nic_gb_s, kShippedPolluxRing.nic_gb_s) &&
                       same_value(fitted.local_step_s, kShippedPolluxRing.local_step_s) &&
                       same_value(fitted.nic_step_s, kShippedPolluxRing.nic_step_s);
  fmt::print("\n{}\n", shipped
                           ? "the shipped ring parameters (sim/cli/scaling_check.h) equal this fit"
                           : "the shipped ring parameters (sim/cli/scaling_check.h) differ from "
                             "this fit: copy it into kShippedPolluxRing");
  return 0;
}

po::options_description calibrate_options() {
  po::options_description o(
      "dlsim calibrate [options]\n\nFits the co-location model (log slowdown = intercept + "
      "w_self x log own\nseconds per iteration + w_other x log partner's) to measured pairs by "
      "least\nsquares, prints its parameters and its leave-one-model-out error per device\n"
      "type (|predicted - measured| / measured speed), and says whether the fit equals\nthe "
      "parameters this dlsim ships (docs/runtime.md#the-fitted-model). Then derives\nthe "
      "zoo's XeonPhi and XeonCPU times from measured kernel times, prints the\nrule's error on "
      "held-out P100 measurements and whether the zoo equals the\nderivation "
      "(docs/models.md#non-gpu-devices).\n\nOptions");
  o.add_options()("pairs",
                  po::value<std::string>()->default_value("configs/interference/gavel-pairs.csv"),
                  "measured pairs: device_type,model,with,slowdown")(
      "models", po::value<std::string>()->default_value("configs/models/gavel.yaml"),
      "the models of those pairs, with their time per iteration on each type")(
      "kernels", po::value<std::string>()->default_value("configs/devices/deepbench-train.csv"),
      "kernel times on Xeon Phi, V100 and P100: kind,shape,n,XeonPhi_ms,V100_ms,P100_ms")(
      "measured", po::value<std::string>()->default_value("configs/devices/measured-models.csv"),
      "measured throughputs of zoo models on XeonPhi or XeonCPU, used as measured")(
      "scaling", po::bool_switch(),
      "instead: the analytic scaling model against Pollux's measured step times\n"
      "(docs/scaling.md#checked-against-measured-scaling)")(
      "profiles", po::value<std::string>()->default_value("traces/pollux-profiles"),
      "with --scaling: the directory of the application profiles")(
      "zoo", po::value<std::string>()->default_value("configs/models/zoo.yaml"),
      "the zoo whose XeonPhi and XeonCPU times are derived from the kernel times; with "
      "--scaling, the one giving each application's parameters")("help,h", "this help");
  return o;
}

} // namespace

int command_calibrate(const std::vector<std::string>& args) {
  const po::options_description o = calibrate_options();
  po::variables_map vm;
  if (!parse_command_line(args, o, vm)) return 0; // --help
  if (vm["scaling"].as<bool>()) {
    const std::string given = vm["profiles"].as<std::string>();
    const std::string dir = find_data_file(given, "");
    if (!is_directory_path(dir)) {
      throw InputError(fmt::format("--profiles: {}: no such directory (looked in the current "
                                   "directory and in dlsim's source tree)",
                                   given));
    }
    return calibrate_scaling(dir, existing_file(vm, "zoo"));
  }
  ModelZoo zoo = load_model_zoo(existing_file(vm, "models"));
  std::vector<MeasuredPair> rows =
      load_measured_pairs(existing_file(vm, "pairs"), zoo, builtin_device_types());
  // Every input is read before anything is printed: a bad file gives its error and no half table.
  std::vector<KernelTime> kernels = load_kernel_times(existing_file(vm, "kernels"));
  ModelZoo device_zoo = load_model_zoo(existing_file(vm, "zoo"));
  std::vector<MeasuredSpeed> speeds = load_measured_speeds(existing_file(vm, "measured"));
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
  auto same = same_value;
  bool equal = same(fit.intercept, shipped.intercept) && same(fit.w_self, shipped.w_self) &&
               same(fit.w_other, shipped.w_other) &&
               same(fit.mean_log_iter_s, shipped.mean_log_iter_s);
  fmt::print("\n{}\n", equal
                           ? "the shipped parameters (workloads/interference_fit.h) equal this fit"
                           : "the shipped parameters (workloads/interference_fit.h) differ from "
                             "this fit: copy the line above into kShippedInterferenceFit");
  print_device_speeds(kernels, device_zoo, speeds, zoo);
  return 0;
}

} // namespace dlsim
