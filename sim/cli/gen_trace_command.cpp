// `dlsim gen-trace`: a synthetic native trace (docs/traces.md describes the distributions).
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/count_flag.h"
#include "sim/cli/experiment.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"
#include "workloads/gen_trace.h"
#include "workloads/gen_trace_presets.h"
#include "workloads/hyperparam_search.h"
#include "workloads/model_zoo.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <sstream>

namespace po = boost::program_options;

namespace dlsim {

namespace {

// The options; their notifiers write into `g`, which must outlive the parse.
po::options_description gen_trace_options(GenTraceOptions& g) {
  po::options_description o("dlsim gen-trace [options]\n\nWrites a synthetic trace in the native "
                            "format: Poisson arrivals, log-normal\ndurations and a 1/2/4/8/16-GPU "
                            "mix fitted to the Philly trace.\n\nOptions");
  o.add_options()("jobs,n",
                  po::value<Count>()
                      ->default_value(Count{g.jobs}, std::to_string(g.jobs))
                      ->notifier([&](Count c) { g.jobs = c.value; }),
                  "number of jobs")("seed",
                                    po::value<Count>()
                                        ->default_value(Count{g.seed}, std::to_string(g.seed))
                                        ->notifier([&](Count c) { g.seed = c.value; }),
                                    "seed")(
      "arrival-rate",
      po::value<double>(&g.arrival_rate_per_hour)
          ->default_value(g.arrival_rate_per_hour, fmt::format("{}", g.arrival_rate_per_hour)),
      "mean arrivals per hour")("like", po::value<std::string>(),
                                "fit to a real trace's published statistics: philly, helios-venus, "
                                "helios-earth, helios-saturn, helios-uranus (docs/traces.md)")(
      "models", po::bool_switch(),
      "give each job a model drawn uniformly from the model zoo (those not marked drawn: false)")(
      "max-duration",
      po::value<double>(&g.max_duration_s)
          ->default_value(g.max_duration_s, fmt::format("{}", g.max_duration_s)),
      "longest duration drawn, seconds (longer draws are cut to it)")(
      "model-list", po::value<std::string>(),
      "give each job a model drawn uniformly from these zoo models (comma-separated), e.g. "
      "resnet50,vgg16")(
      "loss-curves", po::value<double>(),
      "give each job a loss curve and a target loss instead of a duration, this share (0 to 1) "
      "of them predictable (docs/aiturbo.md); needs --models")(
      "device-types", po::value<std::string>(),
      "give each job a device_type drawn from this mix: TYPES:WEIGHT,... where TYPES is a type "
      "(V100), a set (V100|XeonPhi) or a kind (any-gpu, any-cpu, any-xeonphi, any-fpga, any); "
      "e.g. any-gpu:0.8,any:0.2")(
      "sessions", po::value<std::string>(),
      "add the trials of these hyper-parameter search sessions (docs/gandiva.md)")(
      "sessions-truth", po::value<std::string>(),
      "with --sessions: write each trial's accuracy and target to this CSV")(
      "out,o", po::value<std::string>(), "output file (default: standard output)")("help,h",
                                                                                   "this help");
  return o;
}

// What each job is given beyond its size and times: models, loss curves, device types.
void read_job_options(const po::variables_map& vm, GenTraceOptions& g) {
  if (vm["models"].as<bool>()) {
    const ModelZoo zoo = load_model_zoo(find_data_file("configs/models/zoo.yaml", ""));
    for (std::size_t m : drawn_models(zoo))
      g.models.push_back(zoo.models[m].name);
  }
  if (vm.count("model-list")) {
    if (!g.models.empty()) throw po::error("give --models or --model-list, not both");
    const ModelZoo zoo = load_model_zoo(find_data_file("configs/models/zoo.yaml", ""));
    std::stringstream list(vm["model-list"].as<std::string>());
    for (std::string name; std::getline(list, name, ',');) {
      if (std::none_of(zoo.models.begin(), zoo.models.end(),
                       [&](const auto& m) { return m.name == name; }))
        throw po::error(
            fmt::format("--model-list: unknown model '{}' (see dlsim list models)", name));
      g.models.push_back(name);
    }
    if (g.models.empty()) throw po::error("--model-list: expected at least one model");
  }
  if (vm.count("loss-curves")) {
    g.predictable_share = vm["loss-curves"].as<double>();
    if (!(g.predictable_share >= 0 && g.predictable_share <= 1))
      throw po::error("--loss-curves: expected a share from 0 to 1");
    if (g.models.empty()) throw po::error("--loss-curves needs --models or --model-list");
  }
  if (vm.count("device-types")) {
    try {
      parse_device_type_mix(vm["device-types"].as<std::string>(), g);
    } catch (const InputError& e) {
      throw po::error(e.what()); // a bad option value is a usage error (exit 2)
    }
  }
}

} // namespace

int command_gen_trace(const std::vector<std::string>& args) {
  GenTraceOptions g;
  const po::options_description o = gen_trace_options(g);
  po::variables_map vm;
  if (!parse_command_line(args, o, vm)) return 0; // --help
  if (vm.count("like")) {
    // The preset's settings; --jobs and --seed, and --arrival-rate when given, still apply.
    GenTraceOptions preset = gen_trace_preset(vm["like"].as<std::string>());
    preset.jobs = g.jobs;
    preset.seed = g.seed;
    if (!vm["arrival-rate"].defaulted()) preset.arrival_rate_per_hour = g.arrival_rate_per_hour;
    g = preset;
  }
  if (!vm["max-duration"].defaulted()) g.max_duration_s = vm["max-duration"].as<double>();
  if (g.jobs == 0) throw po::error("--jobs must be at least 1");
  if (!(g.max_duration_s >= g.min_duration_s) || !(g.max_duration_s <= 4628226))
    throw po::error(
        fmt::format("--max-duration: expected seconds from {} to 4628226", g.min_duration_s));
  if (!(g.arrival_rate_per_hour > 0)) throw po::error("--arrival-rate must be positive");
  read_job_options(vm, g);
  std::vector<SearchSession> sessions;
  if (vm.count("sessions"))
    sessions = load_search_sessions(find_data_file(vm["sessions"].as<std::string>(), ""));
  if (vm.count("sessions-truth") && sessions.empty())
    throw po::error("--sessions-truth needs --sessions");
  auto body = [&](std::ostream& s) {
    if (sessions.empty()) return generate_trace(g, s);
    std::ostringstream background;
    generate_trace(g, background);
    merge_trials_into_trace(background.str(), sessions, s);
  };
  if (vm.count("out")) {
    write_file_atomically(vm["out"].as<std::string>(), body);
  } else {
    body(std::cout);
  }
  if (vm.count("sessions-truth")) {
    write_file_atomically(vm["sessions-truth"].as<std::string>(),
                          [&](std::ostream& s) { write_trials_truth(sessions, s); });
  }
  return 0;
}

} // namespace dlsim
