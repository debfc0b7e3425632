// libFuzzer target for Gavel's and Shockwave's throughput files (trace.throughputs):
// read_measured_throughputs, then apply_measured_throughputs on a fixed two-job trace and a
// V100/K80 cluster (workloads/measured_throughputs.cpp). Each must give a result or throw
// InputError. A model it makes must have a time per iteration that is finite and > 0 on every
// type it supports, and each job must then name one of those models.
#include "fuzz/fuzz_scratch.h"
#include "sim/cluster/device_catalog.h"
#include "sim/engine/error.h"
#include "workloads/measured_throughputs.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

dlsim::Trace two_jobs() {
  dlsim::Trace t;
  t.file = "fuzz.trace";
  dlsim::TraceJob a;
  a.model = t.models.intern("gavel_resnet18_bs16");
  a.iterations = 100;
  a.line = 1;
  t.add(a, "0");
  dlsim::TraceJob b = a;
  b.workers = 2;
  b.line = 2;
  b.duration_s = 50;
  b.duration_is_work = true;
  t.add(b, "1");
  return t;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = dlsim::fuzz::memory_input("throughputs.json", data, size);
  static const std::vector<dlsim::DeviceType> types = [] {
    std::vector<dlsim::DeviceType> all = dlsim::builtin_device_types();
    std::vector<dlsim::DeviceType> two;
    for (const auto& t : all)
      if (t.name == "V100" || t.name == "K80") two.push_back(t);
    return two;
  }();
  dlsim::MeasuredThroughputs m;
  try {
    m = dlsim::read_measured_throughputs(file);
  } catch (const dlsim::InputError&) {
    return 0;
  }
  dlsim::Trace trace = two_jobs();
  dlsim::ModelZoo zoo;
  try {
    dlsim::apply_measured_throughputs(trace, zoo, m, types);
  } catch (const dlsim::InputError&) {
    return 0;
  }
  for (const auto& model : zoo.models) {
    for (const auto& [type, s] : model.iteration_time_s) {
      if (model.unsupported.count(type) == 0 && !(std::isfinite(s) && s > 0)) {
        std::cerr << "fuzz: model " << model.name << " has time " << s << " on " << type << "\n";
        std::abort();
      }
    }
  }
  for (const auto& job : trace.jobs) {
    if (!zoo.find(trace.models.at(job.model)) || job.duration_is_work) {
      std::cerr << "fuzz: job on line " << job.line << " was not given a measured model\n";
      std::abort();
    }
  }
  return 0;
}
