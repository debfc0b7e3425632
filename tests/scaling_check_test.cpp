// The analytic scaling model against measured scaling (docs/scaling.md#checked-against-measured-
// scaling) and the measured scaling the runtime uses (docs/scaling.md#measured-scaling-in-the-
// runtime), worked out by hand on small profiles.
#include "sim/cli/scaling_check.h"
#include "sim/runtime/measured_scaling.h"
#include "tests/support/harness.h"
#include "workloads/interference_fit.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>

using namespace dlsim;
using namespace dlsim::test;

namespace {

std::string source(const std::string& path) {
  return std::string(DLSIM_SOURCE_DIR_FOR_TESTS) + "/" + path;
}

constexpr const char* kValidation = "progress,grad_sqr,grad_var\n100,1,1\n";

// A profile of "imagenet" (the zoo's resnet50: M = 4 x 25.6e6 = 102.4e6 bytes, overlap 0.8) and
// of "cifar10" (resnet18), in `dir`. imagenet's single-GPU step: 0.15 s at batch 20, 0.25 s at
// 40. `six_by_six`: the measured step of 6 replicas on 6 nodes at batch 30.
void write_profiles(const ScratchDir& dir, const std::string& six_by_six) {
  std::filesystem::create_directories(dir.path() / "imagenet");
  std::filesystem::create_directories(dir.path() / "cifar10");
  dir.write("imagenet/placements.csv", "placement,local_bsz,step_time,sync_time\n"
                                       "1,20,0.15,0.001\n1,40,0.25,0.001\n"
                                       "11,20,0.30,0.1\n11,40,0.50,0.1\n"
                                       "4,20,0.16,0.01\n"
                                       "24,20,0.45,0.2\n24,40,0.75,0.3\n");
  dir.write("imagenet/scalability.csv", "num_nodes,num_replicas,local_bsz,step_time,sync_time\n"
                                        "6,6,30," +
                                            six_by_six + ",0.2\n");
  dir.write("imagenet/validation-64.csv", kValidation);
  dir.write("cifar10/placements.csv", "placement,local_bsz,step_time,sync_time\n"
                                      "1,32,0.04,0.001\n1,64,0.06,0.001\n11,32,0.10,0.05\n");
  dir.write("cifar10/scalability.csv", "num_nodes,num_replicas,local_bsz,step_time,sync_time\n");
  dir.write("cifar10/validation-64.csv", kValidation);
}

} // namespace

// imagenet's multi-GPU rows, each predicted from the single-GPU step at its batch,
// step = compute + 0.2 comm + max(0, 0.8 comm - 2/3 compute) (overlap 0.8), ring comm =
// 2 (n-1)/n x 102.4e6 / B, B = 15.76 GB/s inside a node, else the inter-node bandwidth.
// At 0.5 GB/s:
//   "11" batch 20: compute 0.15, comm 102.4e6 / 0.5e9 = 0.2048, exposed 0.04096 + (0.16384 -
//     0.1) = 0.1048, predicted 0.2548; measured 0.30: error 0.150667. Batch 40: compute 0.25,
//     exposed 0.04096 + 0 (0.16384 < 0.1666667) = 0.04096, predicted 0.29096; measured 0.50:
//     error 0.41808.
//   "4" batch 20: comm 1.5 x 102.4e6 / 15.76e9 = 0.0097462, exposed 0.0019492, predicted
//     0.1519492; measured 0.16: error 0.0503173.
//   "24" (2 nodes, 6 replicas) batch 20: comm 5/3 x 0.2048 = 0.3413333, exposed 0.0682667 +
//     (0.2730667 - 0.1) = 0.2413333, predicted 0.3913333; measured 0.45: error 0.1303704.
//     Batch 40: exposed 0.0682667 + (0.2730667 - 0.1666667) = 0.1746667, predicted 0.4246667;
//     measured 0.75: error 0.4337778.
//   "6x6" batch 30: compute 0.20 (between 0.15 and 0.25), comm 0.3413333, exposed 0.0682667 +
//     (0.2730667 - 0.1333333) = 0.208, predicted 0.408; measured 0.40: error 0.02.
TEST_CASE("scaling check: each measured step against the analytic model, by hand",
          "[scaling_check]") {
  ScratchDir dir;
  write_profiles(dir, "0.40");
  std::vector<ScalingCheckApp> apps = load_scaling_check(dir.path().string(), test::zoo());
  REQUIRE(apps.size() == 2);
  CHECK(apps[0].application == "cifar10");
  CHECK(apps[0].model == "resnet18");
  const ScalingCheckApp& imagenet = apps[1];
  CHECK(imagenet.model == "resnet50");
  CHECK(imagenet.model_bytes == Approx(102.4e6));
  CHECK(imagenet.overlap == Approx(0.8));
  REQUIRE(imagenet.rows.size() == 6);
  CHECK(imagenet.outside == 0);
  // Rows in placement order (11, 24, 4), then the scalability rows.
  const ScalingCheckRow& six = imagenet.rows[5];
  CHECK(six.placement == "6x6");
  CHECK(six.nodes == 6);
  CHECK(six.replicas == 6);
  CHECK(six.compute_s == Approx(0.20));
  const RingFit bandwidth_only{0.5, 0, 0};
  CHECK(predicted_step_s(imagenet, six, bandwidth_only) == Approx(0.408).epsilon(1e-9));
  std::vector<double> e = step_errors(imagenet, bandwidth_only);
  CHECK(e[0] == Approx(0.150667).epsilon(1e-5));
  CHECK(e[1] == Approx(0.41808).epsilon(1e-5));
  CHECK(e[2] == Approx(0.1303704).epsilon(1e-5));
  CHECK(e[3] == Approx(0.4337778).epsilon(1e-5));
  CHECK(e[4] == Approx(0.0503173).epsilon(1e-5));
  CHECK(e[5] == Approx(0.02).epsilon(1e-6));
  // Sorted: 0.02, 0.0503, 0.1304, 0.1507, 0.4181, 0.4338: median (0.1303704 + 0.150667) / 2.
  ErrorSummary s = summarize_errors(e);
  CHECK(s.median == Approx((0.1303704 + 0.150667) / 2).epsilon(1e-5));
  CHECK(s.p90 == Approx(0.4337778).epsilon(1e-5));
  // With step latencies of 1 ms inside a node and 2 ms across: "4" (1 node, 4 replicas) adds
  // 2 x 3 x 1 ms = 0.006 s, 0.1519492 + 0.006 = 0.1579492, error (0.16 - 0.1579492) / 0.16 =
  // 0.0128175; "6x6" (6 nodes) adds 2 x 5 x 2 ms = 0.02 s, 0.408 + 0.02 = 0.428, error 0.07.
  const RingFit with_latency{0.5, 1e-3, 2e-3};
  CHECK(predicted_step_s(imagenet, imagenet.rows[4], with_latency) ==
        Approx(0.1579492).epsilon(1e-6));
  CHECK(predicted_step_s(imagenet, six, with_latency) == Approx(0.428).epsilon(1e-9));
  e = step_errors(imagenet, with_latency);
  CHECK(e[4] == Approx(0.0128175).epsilon(1e-4));
  CHECK(e[5] == Approx(0.07).epsilon(1e-6));
  // A batch without a single-GPU step around it is skipped and counted.
  dir.write("imagenet/scalability.csv",
            "num_nodes,num_replicas,local_bsz,step_time,sync_time\n6,6,50,0.4,0.2\n");
  CHECK(load_scaling_check(dir.path().string(), test::zoo())[1].outside == 1);
}

// `dlsim calibrate --scaling` reports errors it computes from the profiles it is given: the
// nominal column at 50 Gbit/s = 6.25 GB/s and NCCL's step latencies (5.7 us inside a node, 9.6
// us across), imagenet rows (as above, comm at 6.25 GB/s):
//   "11" b20: comm 0.016384, exposed 0.0032768, latency 2 x 9.6e-6, predicted 0.153296, error
//     0.4890133;
//   "11" b40: predicted 0.253296, error 0.493408;
//   "24" b20: comm 0.0273067, exposed 0.0054613, latency 10 x 9.6e-6, predicted 0.1555573,
//     error 0.6543171;
//   "24" b40: predicted 0.2555573, error 0.6592569;
//   "4" b20: latency 6 x 5.7e-6, predicted 0.1519834, error 0.0501038; "6x6" b30 (measured
//     0.40): predicted 0.2055573, error 0.4861067.
// Median of the 6: (0.4890133 + 0.493408) / 2 = 49.1%; p90 (ceil(0.9 x 6) = the 6th): 65.9%.
TEST_CASE("dlsim calibrate --scaling computes its errors from the profiles given",
          "[scaling_check]") {
  ScratchDir dir;
  write_profiles(dir, "0.40");
  const std::string args =
      "calibrate --scaling --profiles " + dir.path().string() + " --zoo configs/models/zoo.yaml";
  Outcome out = run_dlsim(args, dir);
  CHECK(out.code == 0);
  CHECK_THAT(out.out, Catch::Contains("7 measured multi-GPU steps of 2 applications"));
  CHECK_THAT(out.out, Catch::Contains("| imagenet    | resnet50    |     6 |   49.1% |   65.9% |"));
  // The 6 x 6 step measured where the model predicts it, "4" far off: the figures follow.
  write_profiles(dir, "0.2055573");
  dir.write("imagenet/placements.csv", "placement,local_bsz,step_time,sync_time\n"
                                       "1,20,0.15,0.001\n1,40,0.25,0.001\n"
                                       "11,20,0.30,0.1\n11,40,0.50,0.1\n"
                                       "4,20,1.5194920,0.01\n"
                                       "24,20,0.45,0.2\n24,40,0.75,0.3\n");
  // "4": predicted 0.1519834 against 1.519492: error 0.8999775. Sorted: 0, 0.4890, 0.4934,
  // 0.6543, 0.6593, 0.9000: median (0.493408 + 0.6543171) / 2 = 57.4%, p90 90.0%.
  out = run_dlsim(args, dir);
  CHECK(out.code == 0);
  CHECK_THAT(out.out, Catch::Contains("| imagenet    | resnet50    |     6 |   57.4% |   90.0% |"));
}

TEST_CASE("the shipped ring parameters equal a fresh fit of Pollux's profiles", "[scaling_check]") {
  std::vector<ScalingCheckApp> apps =
      load_scaling_check(source("traces/pollux-profiles"), test::zoo());
  REQUIRE(apps.size() == 6);
  std::size_t rows = 0;
  for (const auto& a : apps)
    rows += a.rows.size();
  // Every multi-GPU row: the six placements.csv files hold 5,542 rows, the six scalability.csv
  // 1,561 (wc -l less the headers), 7,103 in all, of which 57 are single-GPU rows ("1": bert 5,
  // cifar10 11, deepspeech2 7, imagenet 8, ncf 21, yolov3 5). 7,103 - 57 = 7,046.
  CHECK(rows == 7046);
  // The shipped fit: the bandwidth alone, the step latencies NCCL's.
  const RingFit fit = fit_ring(apps, kShippedRingFitted);
  CHECK(fit.nic_gb_s == Approx(kShippedPolluxRing.nic_gb_s).epsilon(1e-9));
  CHECK(fit.local_step_s == Approx(kPolluxNominalRing.local_step_s).epsilon(1e-12));
  CHECK(fit.nic_step_s == Approx(kPolluxNominalRing.nic_step_s).epsilon(1e-12));
  // Held out, the bandwidth moves but stays near: each of the six leave-one-out fits within 10%.
  for (std::size_t a = 0; a < apps.size(); ++a) {
    CHECK(fit_ring(apps, kShippedRingFitted, a).nic_gb_s ==
          Approx(kShippedPolluxRing.nic_gb_s).epsilon(0.1));
  }
  // It is shipped because its held-out error is lower than the joint fit's, all rows pooled.
  std::vector<double> alone;
  std::vector<double> jointly;
  for (std::size_t a = 0; a < apps.size(); ++a) {
    auto e = step_errors(apps[a], fit_ring(apps, RingFitted::kBandwidth, a));
    alone.insert(alone.end(), e.begin(), e.end());
    e = step_errors(apps[a], fit_ring(apps, RingFitted::kBandwidthAndLatencies, a));
    jointly.insert(jointly.end(), e.begin(), e.end());
  }
  CHECK(summarize_errors(alone).median < summarize_errors(jointly).median);
}

TEST_CASE("measured scaling: placement keys and ratios between measured counts",
          "[scaling_check][measured_scaling]") {
  const std::uint32_t a[] = {4, 2};
  CHECK(placement_key(a) == "24");
  const std::uint32_t b[] = {2, 1, 2, 1};
  CHECK(placement_key(b) == "1212");
  const std::uint32_t c[] = {3, 1, 2};
  CHECK(placement_key(c) == "123");
  const std::uint32_t big[] = {8};
  CHECK(placement_key(big) == "8");
  const std::uint32_t huge[] = {16};
  CHECK(placement_key(huge).empty());

  MeasuredScaling m;
  m.by_placement["24"] = 3.0;
  m.by_counts[{6, 6}] = 2.0;
  m.by_counts[{6, 8}] = 3.0;
  m.by_counts[{8, 8}] = 4.0;
  CHECK(measured_step_ratio(m, a) == 3.0);
  const std::uint32_t six_of_six[] = {1, 1, 1, 1, 1, 1};
  CHECK(measured_step_ratio(m, six_of_six) == 2.0);
  // 7 replicas on 6 nodes: halfway between the measured 6 (2.0) and 8 (3.0): 2.5.
  const std::uint32_t seven[] = {2, 1, 1, 1, 1, 1};
  CHECK(measured_step_ratio(m, seven) == Approx(2.5));
  // 9 on 6 nodes: above the last measured count of 6 nodes, not extrapolated; 5 nodes: none.
  const std::uint32_t nine[] = {4, 1, 1, 1, 1, 1};
  CHECK(measured_step_ratio(m, nine) == 0);
  const std::uint32_t five[] = {1, 1, 1, 1, 1};
  CHECK(measured_step_ratio(m, five) == 0);
  CHECK(measured_step_ratio(m, big) == 0);
}

// resnet50's zoo batch is 32: imagenet's "1" at 32 = 0.15 + 12/20 x 0.10 = 0.21 s, "24" =
// 0.45 + 12/20 x 0.30 = 0.63 s: ratio 3.0; "11": 0.30 + 12/20 x 0.20 = 0.42, ratio 2.0; "4" only
// at 20: 0.16 / 0.15 = 1.0666667 (the batch clamped to the range both measured); "6x6" only at
// 30: 0.40 / 0.20 = 2.0. A 6-worker resnet50 job of 1000 iterations on two nodes of 4 T4s
// (consolidated: 4 + 2, "24") steps in 0.223 s (the zoo's T4 time) x 3.0 = 0.669 s: 669 s.
// Without the measurement (runtime.measured_scaling false): ring over 2 nodes at the default
// 12.5 GB/s, comm 5/3 x 102.4e6 / 12.5e9 = 0.0136533, exposed 0.0027307, latency 2 x 5 x 9.6e-6
// = 0.000096 a step: 1000 x (0.223 + 0.0027307 + 0.000096) = 225.8267 s.
TEST_CASE("measured scaling: the runtime uses the profile's step at the job's placement",
          "[scaling_check][measured_scaling]") {
  ScratchDir dir;
  write_profiles(dir, "0.40");
  Cluster cluster = cluster_from_yaml("nodes:\n  - {count: 2, devices: {T4: 4}}\n");
  Workload w = workload_from_csv(cluster, "id,submit_s,workers,iterations,model\n"
                                          "a,0,6,1000,resnet50\n");
  auto t4 =
      static_cast<DeviceTypeId>(std::find_if(cluster.types.begin(), cluster.types.end(),
                                             [](const DeviceType& d) { return d.name == "T4"; }) -
                                cluster.types.begin());
  REQUIRE(t4 < cluster.types.size());
  MeasuredScalingTable table =
      build_measured_scaling(dir.path().string(), test::zoo(), w.models, t4);
  auto resnet50 = static_cast<ModelId>(std::find(w.models.begin(), w.models.end(), "resnet50") -
                                       w.models.begin());
  const MeasuredScaling* m = table.find(resnet50);
  REQUIRE(m != nullptr);
  CHECK(m->by_placement.at("24") == Approx(3.0));
  CHECK(m->by_placement.at("11") == Approx(2.0));
  CHECK(m->by_placement.at("4") == Approx(0.16 / 0.15));
  CHECK(m->by_counts.at({6, 6}) == Approx(2.0));

  RuntimeConfig cfg;
  cfg.scaling = "analytic";
  cfg.measured_scaling_table = std::make_shared<const MeasuredScalingTable>(table);
  RunOutput measured = run_policy("fifo", cluster, w, cfg);
  CHECK(measured.state.jobs[0].nodes_used == 2);
  CHECK(to_seconds(measured.state.jobs[0].end) == Approx(669.0).margin(1e-3));
  cfg.measured_scaling_table = nullptr;
  RunOutput formula = run_policy("fifo", cluster, w, cfg);
  CHECK(to_seconds(formula.state.jobs[0].end) == Approx(225.8267).margin(1e-3));
  // Measured on another type than the job's: the formula.
  MeasuredScalingTable other = table;
  other.by_model[resnet50].type = t4 + 1;
  cfg.measured_scaling_table = std::make_shared<const MeasuredScalingTable>(other);
  CHECK(to_seconds(run_policy("fifo", cluster, w, cfg).state.jobs[0].end) ==
        Approx(225.8267).margin(1e-3));
}
