#include "tests/support/harness.h"

#include "policies/registry.h"
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/error.h"
#include "sim/report/metrics.h"
#include "sim/report/summary.h"
#include "tests/support/invariants.h"
#include "workloads/build_workload.h"
#include "workloads/formats/native.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace dlsim::test {

Cluster cluster_from_yaml(const std::string& yaml) {
  return load_cluster(YAML::Load(yaml), "test.yaml");
}

ScratchDir::ScratchDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "dlsim-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ScratchDir::write(const std::string& name, const std::string& content) const {
  std::string p = file(name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Trace trace_from_csv(const std::string& csv, bool skip_bad_jobs) {
  ScratchDir dir;
  return read_native_trace(dir.write("trace.csv", csv), ReadOptions{skip_bad_jobs});
}

const ModelZoo& zoo() {
  static const ModelZoo z =
      load_model_zoo(std::string(DLSIM_SOURCE_DIR_FOR_TESTS) + "/configs/models/zoo.yaml");
  return z;
}

Workload workload_from_csv(const Cluster& cluster, const std::string& csv) {
  return build_workload(trace_from_csv(csv), zoo(), cluster, WorkloadOptions{});
}

void ScriptPolicy::schedule(Control& control) {
  while (next_ < steps_.size() && steps_[next_].at <= control.now()) {
    steps_[next_].act(control);
    ++next_;
  }
  if (next_ < steps_.size()) control.wake_at(steps_[next_].at);
}

JobId job_named(const Workload& w, const std::string& name) {
  for (JobId j = 0; j < w.jobs.size(); ++j) {
    if (w.job_names[j] == name) return j;
  }
  throw std::runtime_error("no job named " + name);
}

RunOutput run_policy(const std::string& name, const Cluster& cluster, const Workload& workload,
                     const RuntimeConfig& config, const std::string& placement) {
  return run_policy(find_policy(name), cluster, workload, YAML::Node(), config, placement);
}

RunOutput run_policy(const PolicyEntry& entry, const Cluster& cluster, const Workload& workload,
                     const YAML::Node& params, const RuntimeConfig& config,
                     const std::string& placement) {
  const std::string& name = entry.name;
  PolicySetup setup{parse_placement(placement), resolve_params(entry, params)};
  auto policy = entry.make(setup);
  Simulation sim(cluster, workload, config, *policy,
                 PolicyInfo{name, uses_oracle(entry, setup.params)});
  InvariantChecker checker;
  UtilizationMeter meter;
  sim.add_observer(&checker);
  sim.add_observer(&meter);
  RunOutput out;
  out.result = sim.run();
  checker.check_final(sim.state());
  out.state = sim.state();
  Summary s = summarize(sim.state(), out.result, meter, name, 0);
  out.gpu_util_alloc = s.gpu_util_alloc;
  return out;
}

Outcome run_dlsim(const std::string& args, const ScratchDir& dir) {
  std::string out = dir.file("stdout.txt");
  std::string err = dir.file("stderr.txt");
  std::string cmd = "cd '" DLSIM_SOURCE_DIR_FOR_TESTS "' && '" DLSIM_BINARY "' " + args + " > '" +
                    out + "' 2> '" + err + "'";
  int status = std::system(cmd.c_str());
  return Outcome{WEXITSTATUS(status), read_file(out), read_file(err)};
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace dlsim::test
