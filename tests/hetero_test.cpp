// Heterogeneity: per-model speeds on every device kind, jobs that accept several
// types, and the heterogeneity-aware policies (max-throughput, fifo and las with hetero: true).
#include "support/harness.h"
#include "support/invariants.h"

#include "policies/registry.h"
#include "policies/type_choice.h"
#include "sim/engine/error.h"
#include "sim/engine/rng.h"
#include "workloads/build_workload.h"
#include "workloads/gen_trace.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Runs a registry policy with the given params (YAML flow mapping) under the invariant checker.
SimState run_with(const std::string& name, const std::string& params, const Cluster& c,
                  const Workload& w) {
  const PolicyEntry& entry = find_policy(name);
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))};
  auto policy = entry.make(setup);
  Simulation sim(c, w, RuntimeConfig{}, *policy, PolicyInfo{name, false});
  InvariantChecker checker;
  sim.add_observer(&checker);
  sim.run();
  checker.check_final(sim.state());
  return sim.state();
}

double end_s(const SimState& s, const Workload& w, const std::string& job) {
  return to_seconds(s.jobs[job_named(w, job)].end);
}

double mean_jct(const SimState& s, const Workload& w) {
  double sum = 0;
  for (JobId j = 0; j < w.jobs.size(); ++j)
    sum += to_seconds(s.jobs[j].end - w.jobs[j].request.submit);
  return sum / static_cast<double>(w.jobs.size());
}

double makespan(const SimState& s) {
  SimTime last = 0;
  for (const JobState& j : s.jobs)
    last = std::max(last, j.end);
  return to_seconds(last);
}

// Sum of need x value over assigned jobs, or -1 if an assignment breaks a capacity.
double objective(const TypeChoiceProblem& p, const std::vector<std::int32_t>& at) {
  std::vector<std::int64_t> left(p.capacity.begin(), p.capacity.end());
  double sum = 0;
  for (std::size_t j = 0; j < at.size(); ++j) {
    if (at[j] == kNoType) continue;
    auto t = static_cast<std::size_t>(at[j]);
    if (p.value[j * p.types + t] < 0) return -1;
    left[t] -= p.need[j];
    sum += p.need[j] * p.value[j * p.types + t];
  }
  for (auto l : left) {
    if (l < 0) return -1;
  }
  return sum;
}

double brute_force(const TypeChoiceProblem& p, std::vector<std::int32_t>& at, std::size_t j) {
  if (j == at.size()) return objective(p, at);
  double best = -1;
  for (std::int32_t t = kNoType; t < static_cast<std::int32_t>(p.types); ++t) {
    at[j] = t;
    best = std::max(best, brute_force(p, at, j + 1));
  }
  at[j] = kNoType;
  return best;
}

const char* const kTwoByTwo = "nodes:\n  - {count: 1, devices: {V100: 2}}\n"
                              "  - {count: 1, devices: {K80: 2}}\n";
// The case: 2 lstm then 4 resnet50 jobs, all at 0, 1000 s each on the reference V100.
const char* const kTwoByTwoTrace = "id,submit_s,workers,duration_s,model\n"
                                   "l1,0,1,1000,lstm\nl2,0,1,1000,lstm\n"
                                   "r1,0,1,1000,resnet50\nr2,0,1,1000,resnet50\n"
                                   "r3,0,1,1000,resnet50\nr4,0,1,1000,resnet50\n";

} // namespace

TEST_CASE("2 V100 + 2 K80: heterogeneity-aware policies swap lstm and resnet50",
          "[hetero][policies]") {
  // Zoo times (configs/models/zoo.yaml): lstm 0.0154 s on V100, 0.058 on K80 (3.77x);
  // resnet50 0.128 and 0.81 (6.33x). On a K80 a 1000 V100-second job takes
  //   lstm:     1000 x 0.058 / 0.0154 = 3766.23 s,   resnet50: 1000 x 0.81 / 0.128 = 6328.125 s.
  // Speed-blind FIFO gives the V100s to l1, l2 (first in order, fastest type first) and the
  // K80s to r1, r2; r3, r4 take the V100s at 1000:
  //   JCTs 1000, 1000, 6328.125, 6328.125, 2000, 2000: mean 18656.25 / 6 = 3109.375, makespan
  //   6328.125.
  // Summed normalized throughput at t = 0 (V100 = 1 for both; K80 = 0.0154/0.058 = 0.2655 for
  // lstm, 0.128/0.81 = 0.158 for resnet50): lstm on V100 + resnet on K80 = 2 x (1 + 0.158) = 2.316
  // < resnet on V100 + lstm on K80 = 2 x (1 + 0.2655) = 2.531, so the aware policies swap:
  // r1, r2 on V100 (end 1000), r3, r4 on V100 from 1000 (end 2000), l1, l2 on K80 (end 3766.23):
  //   mean (1000 + 1000 + 2000 + 2000 + 2 x 3766.23) / 6 = 2255.41, makespan 3766.23.
  Cluster c = cluster_from_yaml(kTwoByTwo);
  Workload w = workload_from_csv(c, kTwoByTwoTrace);
  const double lstm_k80 = 1000 * 0.058 / 0.0154;

  SimState blind = run_with("fifo", "{}", c, w);
  CHECK(mean_jct(blind, w) == Approx(3109.375).epsilon(1e-9));
  CHECK(makespan(blind) == Approx(6328.125).epsilon(1e-9));

  for (auto [policy, params] :
       {std::pair{"max-throughput", "{}"}, std::pair{"fifo", "{hetero: true}"},
        std::pair{"las", "{hetero: true, interval_s: 1.0e7}"}}) {
    INFO(policy << " " << params);
    SimState s = run_with(policy, params, c, w);
    CHECK(end_s(s, w, "r1") == Approx(1000).epsilon(1e-9));
    CHECK(end_s(s, w, "r4") == Approx(2000).epsilon(1e-9));
    CHECK(end_s(s, w, "l1") == Approx(lstm_k80).epsilon(1e-9));
    CHECK(mean_jct(s, w) == Approx((6000 + 2 * lstm_k80) / 6).epsilon(1e-9));
    CHECK(mean_jct(s, w) == Approx(2255.41).epsilon(1e-5));
    CHECK(makespan(s) == Approx(3766.23).epsilon(1e-5));
  }
  // LAS without hetero is blind: first fitting type, fastest first, like FIFO here.
  SimState las = run_with("las", "{interval_s: 1.0e7}", c, w);
  CHECK(mean_jct(las, w) == Approx(3109.375).epsilon(1e-9));
}

TEST_CASE("the type exchange finds the optimum of small random cases", "[hetero][policies]") {
  // Brute force over every assignment (each job: no type or one of 3) of 6 jobs needing 1 or 2
  // devices, capacities 0..3, normalized values with 1 on a random best type and ~20% of pairs
  // not allowed. The greedy start plus relocations with evictions is a local search, so it need
  // not be optimal; this measures how far it falls short. Measured at the commit that added it:
  // optimal in 285 of 300 cases, worst 84.4% of the optimum (docs/policies.md).
  Rng rng = Rng::stream(12, "test.type-exchange");
  int optimal = 0;
  double worst = 1;
  const int cases = 300;
  for (int k = 0; k < cases; ++k) {
    TypeChoiceProblem p;
    p.types = 3;
    for (std::size_t t = 0; t < p.types; ++t)
      p.capacity.push_back(static_cast<std::uint32_t>(rng.below(4)));
    const std::size_t jobs = 6;
    for (std::size_t j = 0; j < jobs; ++j) {
      p.need.push_back(1 + static_cast<std::uint32_t>(rng.below(2)));
      std::size_t best = rng.below(p.types);
      for (std::size_t t = 0; t < p.types; ++t) {
        double v = t == best ? 1.0 : rng.uniform(0.05, 1.0);
        if (t != best && rng.uniform01() < 0.2) v = -1;
        p.value.push_back(v);
      }
    }
    std::vector<std::int32_t> at(jobs, kNoType);
    double opt = brute_force(p, at, 0);
    double got = objective(p, choose_types(p, /*select=*/true));
    REQUIRE(got >= 0); // feasible
    REQUIRE(got <= opt + 1e-9);
    if (got >= opt - 1e-9) ++optimal;
    if (opt > 0) worst = std::min(worst, got / opt);
  }
  INFO("optimal in " << optimal << " of " << cases << ", worst ratio " << worst);
  CHECK(optimal >= cases * 9 / 10);
  CHECK(worst >= 0.8);
}

TEST_CASE("every zoo model has a time or a reason on every catalog type", "[hetero][zoo]") {
  // The GPU columns came first (gpt2 has no K80 entry: 12 GB does not fit a K80 die,
  // which the memory check enforces). Every model says how fast it trains on each non-GPU kind,
  // or why it cannot.
  for (const ModelInfo& m : zoo().models) {
    for (const char* type : {"XeonCPU", "XeonPhi", "FPGA"}) {
      INFO(m.name << " on " << type);
      CHECK((m.iteration_time_s.count(type) > 0) != (m.unsupported.count(type) > 0));
    }
  }
  // The rules of docs/models.md, checked on one entry each (tests/device_speeds_test.cpp checks
  // every entry against a fresh derivation): resnet50 XeonPhi = 0.128 x (53/54 x 3.543 + 1/54 x
  // 2.810) = 0.452 (the kernel ratios of DeepBench's Phi); XeonCPU = 32 / (81.69 / 2) = 0.783
  // (PaddlePaddle's measurement on two sockets); FPGA = 0.128 x 15.7 / 1.4 / 0.5 = 2.871;
  // ncf XeonPhi = 0.101 x 900 / 450 = 0.202.
  const ModelInfo& r = zoo().models[*zoo().find("resnet50")];
  CHECK(r.iteration_time_s.at("XeonPhi") ==
        Approx(0.128 * (53.0 / 54 * 3.543 + 1.0 / 54 * 2.810)).epsilon(0.002));
  CHECK(r.iteration_time_s.at("XeonCPU") == Approx(32 / (81.69 / 2)).epsilon(0.002));
  CHECK(r.iteration_time_s.at("FPGA") == Approx(0.128 * 15.7 / 1.4 / 0.5).epsilon(0.002));
  CHECK(zoo().models[*zoo().find("ncf")].iteration_time_s.at("XeonPhi") ==
        Approx(0.101 * 900 / 450).epsilon(0.002));
}

namespace {

const char* const kFourKinds = "nodes:\n"
                               "  - {count: 1, devices: {V100: 1}}\n"
                               "  - {count: 1, devices: {XeonPhi: 1}}\n"
                               "  - {count: 1, devices: {FPGA: 1}}\n"
                               "  - {count: 1, devices: {XeonCPU: 1}}\n";

} // namespace

TEST_CASE("a mixed run uses all four kinds, and GPU jobs do not wait behind FPGA jobs",
          "[hetero][policies]") {
  // All at 0, 100 s each on the reference V100 (zoo times: resnet18 V100 0.056, FPGA 1.26;
  // resnet50 V100 0.128, XeonPhi 0.452; lstm V100 0.0154, XeonCPU 0.0865):
  //   f1 resnet18 on the FPGA: 100 x 1.26 / 0.056 = 2250 s.
  //   f2 the same: waits for the FPGA, 2250 -> 4500; it reserves the FPGA only.
  //   g1 resnet50, no type (any GPU): the V100 at 0, ends at 100 (strict FIFO: 4600).
  //   a1 resnet50, `any`: V100 taken, fastest free is the Phi: 100 x 0.452 / 0.128 = 353.13 s.
  //   a2 lstm, `XeonCPU|XeonPhi`: the Phi taken, the socket: 100 x 0.0865 / 0.0154 = 561.69 s.
  Cluster c = cluster_from_yaml(kFourKinds);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model,device_type\n"
                                    "f1,0,1,100,resnet18,FPGA\nf2,0,1,100,resnet18,FPGA\n"
                                    "g1,0,1,100,resnet50,\na1,0,1,100,resnet50,any\n"
                                    "a2,0,1,100,lstm,XeonCPU|XeonPhi\n");
  SimState s = run_with("fifo", "{}", c, w);
  CHECK(end_s(s, w, "f1") == Approx(2250).epsilon(1e-9));
  CHECK(end_s(s, w, "f2") == Approx(4500).epsilon(1e-9));
  CHECK(end_s(s, w, "g1") == Approx(100).epsilon(1e-9));
  CHECK(end_s(s, w, "a1") == Approx(100 * 0.452 / 0.128).epsilon(1e-9));
  CHECK(end_s(s, w, "a2") == Approx(100 * 0.0865 / 0.0154).epsilon(1e-9));
  const auto kind_of = [&](const std::string& job) {
    return c.types[s.jobs[job_named(w, job)].type].kind;
  };
  CHECK(kind_of("f1") == DeviceKind::kFpga);
  CHECK(kind_of("a1") == DeviceKind::kXeonPhi);
  CHECK(kind_of("a2") == DeviceKind::kCpu);
  CHECK(kind_of("g1") == DeviceKind::kGpu);
  // No device type is left that no job can use.
  CHECK(unusable_device_types(w, c).empty());
}

TEST_CASE("aiturbo places a worker on a CPU socket when no GPU of the job's set is free",
          "[hetero][aiturbo]") {
  // Unified CPU-GPU placement (AITurbo slides 9-10, docs/aiturbo.md#unified-cpu-gpu-placement):
  // one node with one V100 and one XeonCPU socket, two lstm jobs at 0 that accept `V100|XeonCPU`,
  // 100 s each on the V100 (zoo: lstm V100 0.0154 s, XeonCPU 0.0865 s per iteration):
  //   c1 takes the V100 (the set's fastest free type): ends at 100.
  //   c2 finds no V100 free and takes the socket: 100 x 0.0865 / 0.0154 = 561.69 s.
  // A job that names no type (g1) stays on GPUs: it waits for the V100 and starts at 100.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1, XeonCPU: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model,device_type\n"
                                    "c1,0,1,100,lstm,V100|XeonCPU\n"
                                    "c2,0,1,100,lstm,V100|XeonCPU\n"
                                    "g1,0,1,100,lstm,\n");
  SimState s = run_with("aiturbo", "{classifier: \"\"}", c, w);
  const auto kind_of = [&](const std::string& job) {
    return c.types[s.jobs[job_named(w, job)].type].kind;
  };
  CHECK(kind_of("c1") == DeviceKind::kGpu);
  CHECK(kind_of("c2") == DeviceKind::kCpu);
  CHECK(kind_of("g1") == DeviceKind::kGpu);
  CHECK(end_s(s, w, "c1") == Approx(100).epsilon(1e-9));
  CHECK(end_s(s, w, "c2") == Approx(100 * 0.0865 / 0.0154).epsilon(1e-9));
  CHECK(to_seconds(s.jobs[job_named(w, "g1")].first_start) == Approx(100).epsilon(1e-9));
}

TEST_CASE("device type sets: bad input is a file:line error", "[hetero][errors]") {
  Cluster c = cluster_from_yaml(kFourKinds);
  auto error = [&](const std::string& row) {
    try {
      workload_from_csv(c, "id,submit_s,workers,duration_s,model,device_type\n" + row + "\n");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error("x,0,1,10,resnet50,V100|TPUv4"),
             Catch::Contains(":2: device_type: job 'x': unknown device type 'TPUv4' in "
                             "'V100|TPUv4'"));
  CHECK_THAT(error("x,0,1,10,resnet50,V100|"),
             Catch::Contains(":2: device_type: job 'x': empty device type in 'V100|'"));
  CHECK_THAT(error("x,0,1,10,resnet50,|"), Catch::Contains("empty device type in '|'"));
  CHECK_THAT(error("x,0,1,10,resnet50,K80|P100"),
             Catch::Contains(":2: device_type: job 'x': no node of the cluster has any of the "
                             "types 'K80|P100'"));
  CHECK_THAT(error("x,0,1,10,lstm,FPGA"),
             Catch::Contains(":2: device_type: job 'x': model 'lstm' cannot train on FPGA: "
                             "FPGA training toolflows train CNNs only"));
  // A set is fine when one of its types is here, and `any-fpga` is the FPGA kind.
  CHECK(error("x,0,1,10,resnet50,K80|V100") == "no error");
  CHECK(error("x,0,1,10,resnet18,any-fpga") == "no error");
}

TEST_CASE("jobs that name no type leave non-GPU devices unusable, and that is reported",
          "[hetero]") {
  Cluster c = cluster_from_yaml(kFourKinds);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\nx,0,1,10,resnet50\n");
  std::vector<std::string> idle;
  for (DeviceTypeId t : unusable_device_types(w, c))
    idle.push_back(c.types[t].name);
  CHECK(idle == std::vector<std::string>{"XeonCPU", "XeonPhi", "FPGA"});
  // build_workload finds the same as it builds the jobs (WorkloadOptions::unusable_types); with
  // a second job that may run on XeonPhi (a set), only XeonCPU and FPGA stay unused.
  const std::string csv = "id,submit_s,workers,duration_s,model,device_type\n"
                          "x,0,1,10,resnet50,\ny,1,1,10,resnet50,V100|XeonPhi\n";
  WorkloadOptions options;
  std::vector<DeviceTypeId> found;
  options.unusable_types = &found;
  const Workload both = build_workload(trace_from_csv(csv), zoo(), c, options);
  CHECK(found == unusable_device_types(both, c));
  std::vector<std::string> names;
  names.reserve(found.size());
  for (DeviceTypeId t : found)
    names.push_back(c.types[t].name);
  CHECK(names == std::vector<std::string>{"XeonCPU", "FPGA"});
}

TEST_CASE("gen-trace --device-types draws each job's device_type from the mix", "[hetero][gen]") {
  GenTraceOptions o;
  o.jobs = 2000;
  parse_device_type_mix("any-gpu:3,V100|XeonPhi", o);
  CHECK(o.device_types == std::vector<std::string>{"any-gpu", "V100|XeonPhi"});
  CHECK(o.device_type_weights == std::vector<double>{3, 1});
  std::ostringstream out;
  generate_trace(o, out);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  CHECK(line.substr(line.size() - 12) == ",device_type");
  int set = 0;
  int any = 0;
  while (std::getline(lines, line)) {
    set += line.ends_with(",V100|XeonPhi") ? 1 : 0;
    any += line.ends_with(",any-gpu") ? 1 : 0;
  }
  CHECK(set + any == 2000);
  // Weight 1 of 4: 500 expected; the binomial standard deviation is sqrt(2000 x 0.25 x 0.75)
  // = 19.4.
  CHECK(set > 500 - 4 * 19.4);
  CHECK(set < 500 + 4 * 19.4);
  GenTraceOptions bad;
  CHECK_THROWS_WITH(parse_device_type_mix("V100:0", bad),
                    Catch::Contains("'V100:0': the weight must be a positive number"));
  CHECK_THROWS_WITH(parse_device_type_mix("any,,V100", bad),
                    Catch::Contains("'': expected TYPES[:WEIGHT]"));
}
