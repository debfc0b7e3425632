#include "sim/cli/common_options.h"

#include "sim/cli/count_flag.h"
#include "sim/config/path_probe.h"
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
      "inflate", po::value<std::string>(),
      "inflate the workload to TUNE x the cluster's GPUs, FGD's experiment (trace.inflate)")(
      "throughputs", po::value<std::string>(),
      "Gavel's or Shockwave's measured throughputs JSON: jobs run at them (trace.throughputs)")(
      "drop-failed", po::bool_switch(),
      "drop jobs the trace marks failed or killed (trace.drop_failed)");
}

ExperimentInputs inputs_from(const po::variables_map& vm) {
  ExperimentInputs in;
  // Each flag is an override of one key, and an error about its value names the flag.
  auto from_flag = [&in](const char* flag, const std::string& key, std::string value) {
    in.overrides.emplace_back(key, std::move(value));
    in.origins.push_back(std::string("--") + flag);
  };
  if (vm.count("experiment")) in.experiment_file = vm["experiment"].as<std::string>();
  auto text = [&vm](const char* flag) { return vm[flag].as<std::string>(); };
  if (vm.count("cluster")) from_flag("cluster", "cluster", text("cluster"));
  if (vm.count("trace")) from_flag("trace", "trace.file", text("trace"));
  if (vm.count("format")) from_flag("format", "trace.format", text("format"));
  if (vm.count("policy")) {
    // --policy external:CMD: the command goes to policy.params.command as a quoted YAML string,
    // so that a command with quotes, braces or ": " is taken as it is (docs/protocol.md).
    const std::string policy = text("policy");
    constexpr std::string_view kExternal = "external:";
    if (policy.compare(0, kExternal.size(), kExternal) == 0) {
      std::string command = policy.substr(kExternal.size());
      command.erase(0, command.find_first_not_of(' '));
      YAML::Emitter quoted;
      quoted << YAML::DoubleQuoted << command;
      from_flag("policy", "policy.name", "external");
      from_flag("policy", "policy.params.command", quoted.c_str());
    } else {
      from_flag("policy", "policy.name", policy);
    }
  }
  if (vm.count("seed")) from_flag("seed", "seed", std::to_string(vm["seed"].as<Count>().value));
  if (vm.count("until")) from_flag("until", "until_s", text("until"));
  if (vm["skip-bad-jobs"].as<bool>()) from_flag("skip-bad-jobs", "trace.skip_bad_jobs", "true");
  if (vm.count("time-origin")) from_flag("time-origin", "trace.time_origin", text("time-origin"));
  if (vm.count("window")) from_flag("window", "trace.window", text("window"));
  if (vm.count("vc")) from_flag("vc", "trace.vc", text("vc"));
  if (vm.count("sample"))
    from_flag("sample", "trace.sample", std::to_string(vm["sample"].as<Count>().value));
  if (vm.count("inflate")) from_flag("inflate", "trace.inflate", text("inflate"));
  if (vm["drop-failed"].as<bool>()) from_flag("drop-failed", "trace.drop_failed", "true");
  if (vm.count("throughputs")) from_flag("throughputs", "trace.throughputs", text("throughputs"));
  if (vm.count("unknown-models"))
    from_flag("unknown-models", "trace.unknown_models", text("unknown-models"));
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

// A path option given as "" (`-o ""`, as a script with an unset variable writes it) names no
// file: `run` took it for "not given" and wrote to the default directory.
namespace {

void refuse_empty_paths(const po::variables_map& vm) {
  for (const char* name : {"out", "trace", "cluster", "experiment", "models"}) {
    if (vm.count(name) == 0) continue;
    const auto* text = boost::any_cast<std::string>(&vm[name].value());
    if (text != nullptr && text->empty())
      throw po::error(fmt::format("--{}: an empty path names no file", name));
  }
}

// Stores what was parsed, checks it, and prints the options for --help (then false: nothing to
// run).
bool store_parsed(const po::parsed_options& parsed, const po::options_description& visible,
                  po::variables_map& vm) {
  po::store(parsed, vm);
  po::notify(vm);
  refuse_empty_paths(vm);
  if (vm.count("help")) {
    std::cout << visible << '\n';
    return false;
  }
  return true;
}

} // namespace

bool parse_command_line(const std::vector<std::string>& args,
                        const po::options_description& visible,
                        const po::options_description& hidden, int max_positional,
                        po::variables_map& vm) {
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add(hidden.options().front()->long_name().c_str(), max_positional);
  return store_parsed(po::command_line_parser(args).options(all).positional(pos).run(), visible,
                      vm);
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
  return store_parsed(parsed, visible, vm);
}

std::string existing_file(const po::variables_map& vm, const char* flag) {
  std::string path = vm[flag].as<std::string>();
  std::string file = find_data_file(path, "");
  if (!path_exists(file)) {
    throw InputError(fmt::format("--{}: {}: no such file (looked in the current directory and in "
                                 "dlsim's source tree)",
                                 flag, path));
  }
  return file;
}

} // namespace dlsim
