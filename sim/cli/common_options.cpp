#include "sim/cli/common_options.h"

#include "sim/cli/count_flag.h"
#include "sim/engine/error.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <string_view>

namespace po = boost::program_options;

namespace dlsim {

void add_input_options(po::options_description& o) {
  o.add_options()("experiment,e", po::value<std::string>(),
                  "experiment YAML (default: configs/experiments/default.yaml)")(
      "cluster", po::value<std::string>(), "cluster YAML (overrides the experiment's)")(
      "trace", po::value<std::string>(), "trace file (overrides trace.file)")(
      "format", po::value<std::string>(),
      "trace format, or auto to guess it (overrides trace.format; see dlsim list formats)")(
      "policy", po::value<std::string>(),
      "policy name (overrides policy.name; see dlsim list policies)")("seed", po::value<Count>(),
                                                                      "run seed (overrides seed)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override any key: --set key.path=value (repeatable)")(
      "skip-bad-jobs", po::bool_switch(),
      "skip bad trace rows (counted in the summary) instead of failing")(
      "time-origin", po::value<std::string>(),
      "time zero: first-submit (default), seconds, or 'YYYY-MM-DD HH:MM:SS' (trace.time_origin)")(
      "window", po::value<std::string>(),
      "replay jobs submitted in START:END, seconds after the origin (trace.window)")(
      "vc", po::value<std::string>(), "replay one virtual cluster / queue only (trace.vc)")(
      "sample", po::value<Count>(),
      "replay N jobs drawn without replacement, seeded by --seed (trace.sample)")(
      "unknown-models", po::value<std::string>(),
      "error (default) or duration: run jobs whose model the zoo lacks on their recorded run "
      "times (trace.unknown_models)")(
      "drop-failed", po::bool_switch(),
      "drop jobs the trace marks failed or killed (trace.drop_failed)");
}

ExperimentInputs inputs_from(const po::variables_map& vm) {
  ExperimentInputs in;
  if (vm.count("experiment")) in.experiment_file = vm["experiment"].as<std::string>();
  if (vm.count("cluster")) in.overrides.emplace_back("cluster", vm["cluster"].as<std::string>());
  if (vm.count("trace")) in.overrides.emplace_back("trace.file", vm["trace"].as<std::string>());
  if (vm.count("format")) in.overrides.emplace_back("trace.format", vm["format"].as<std::string>());
  if (vm.count("policy")) {
    // --policy external:CMD: the command goes to policy.params.command as a quoted YAML string,
    // so that a command with quotes, braces or ": " is taken as it is (docs/protocol.md).
    const std::string& policy = vm["policy"].as<std::string>();
    constexpr std::string_view kExternal = "external:";
    if (policy.compare(0, kExternal.size(), kExternal) == 0) {
      std::string command = policy.substr(kExternal.size());
      command.erase(0, command.find_first_not_of(' '));
      YAML::Emitter quoted;
      quoted << YAML::DoubleQuoted << command;
      in.overrides.emplace_back("policy.name", "external");
      in.overrides.emplace_back("policy.params.command", quoted.c_str());
    } else {
      in.overrides.emplace_back("policy.name", policy);
    }
  }
  if (vm.count("seed"))
    in.overrides.emplace_back("seed", std::to_string(vm["seed"].as<Count>().value));
  if (vm.count("until")) in.overrides.emplace_back("until_s", vm["until"].as<std::string>());
  if (vm["skip-bad-jobs"].as<bool>()) in.overrides.emplace_back("trace.skip_bad_jobs", "true");
  if (vm.count("time-origin"))
    in.overrides.emplace_back("trace.time_origin", vm["time-origin"].as<std::string>());
  if (vm.count("window")) in.overrides.emplace_back("trace.window", vm["window"].as<std::string>());
  if (vm.count("vc")) in.overrides.emplace_back("trace.vc", vm["vc"].as<std::string>());
  if (vm.count("sample"))
    in.overrides.emplace_back("trace.sample", std::to_string(vm["sample"].as<Count>().value));
  if (vm["drop-failed"].as<bool>()) in.overrides.emplace_back("trace.drop_failed", "true");
  if (vm.count("unknown-models"))
    in.overrides.emplace_back("trace.unknown_models", vm["unknown-models"].as<std::string>());
  if (vm.count("set")) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>()) {
      auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw po::error(fmt::format("--set expects key.path=value, got '{}'", s));
      }
      in.overrides.emplace_back(s.substr(0, eq), s.substr(eq + 1));
    }
  }
  return in;
}

bool parse_command_line(const std::vector<std::string>& args,
                        const po::options_description& visible,
                        const po::options_description& hidden, int max_positional,
                        po::variables_map& vm) {
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add(hidden.options().front()->long_name().c_str(), max_positional);
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << visible << '\n';
    return false;
  }
  return true;
}

bool parse_command_line(const std::vector<std::string>& args,
                        const po::options_description& visible, po::variables_map& vm) {
  po::parsed_options parsed = po::command_line_parser(args).options(visible).run();
  // Boost keeps a word that belongs to no option with a position and nothing reads it, so
  // `dlsim run my-experiment.yaml` ran the bundled default experiment instead; refuse it.
  for (const po::option& opt : parsed.options) {
    if (opt.position_key >= 0 && !opt.value.empty()) {
      throw po::error(fmt::format("unexpected argument '{}': this command takes only options "
                                  "(--name value)",
                                  opt.value.front()));
    }
  }
  po::store(parsed, vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << visible << '\n';
    return false;
  }
  return true;
}

} // namespace dlsim
