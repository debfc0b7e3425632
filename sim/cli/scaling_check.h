// The analytic scaling model (docs/scaling.md) checked against measured scaling: Pollux's step
// times per placement and per-GPU batch (traces/pollux-profiles; Qiao et al., OSDI'21), measured
// on nodes of 4 T4 GPUs. For every multi-GPU row the model predicts the step from the measured
// single-GPU step at the same per-GPU batch (its compute) plus the ring all-reduce the placement
// allows; the one parameter the nominal hardware does not give, the bandwidth a ring achieves
// between nodes, is fitted leaving one application out (docs/scaling.md#checked-against-measured-
// scaling). `dlsim calibrate --scaling` prints the errors; tests/scaling_check_test.cpp checks
// the shipped bandwidth against a fresh fit.
#pragma once

// The runtime's truth (its scaling model and the measured scaling the runtime uses): a policy
// that includes this header does not build (the ctest policy_cannot_include.*).
#ifdef DLSIM_POLICY_CODE
#error                                                                                             \
    "sim/cli/scaling_check.h checks the runtime's scaling model against measurements: a policy decides from observations (View, observations), never from the runtime's models (docs/architecture.md#the-layers)"
#endif

#include "sim/runtime/measured_scaling.h"
#include "workloads/model_zoo.h"

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace dlsim {

// The testbed of the profiles: AWS g4dn.12xlarge nodes (Pollux, OSDI'21, sec. 5.1), 4 T4 GPUs
// on PCIe gen3 x16 (15.76 GB/s, PCI-SIG) and a 50 Gbit/s network (AWS's instance type table).
inline constexpr double kPolluxPcieGbS = 15.76;
inline constexpr double kPolluxNominalNicGbS = 50.0 / 8;

// The ring all-reduce's parameters that the nominal hardware does not give: the bandwidth it
// achieves between nodes and the latency of one of its steps inside a node and across nodes
// (docs/scaling.md#the-formula).
struct RingFit {
  double nic_gb_s = 0;
  double local_step_s = 0;
  double nic_step_s = 0;
};

// The nominal testbed: 50 Gbit/s and NCCL's Ring/Simple step latencies (docs/cluster.md).
inline constexpr RingFit kPolluxNominalRing{kPolluxNominalNicGbS, 5.7e-6, 9.6e-6};

// Which of the ring's parameters a fit searches: the inter-node bandwidth alone (the step
// latencies stay NCCL's, kPolluxNominalRing), or the bandwidth and both latencies jointly.
enum class RingFitted { kBandwidth, kBandwidthAndLatencies };

// The fit shipped (configs/clusters/pollux.yaml) is the one with the lower held-out error: the
// bandwidth alone (12% median against 18% for the joint fit, docs/scaling.md), fitted to all six
// applications (fit_ring): `dlsim calibrate --scaling` prints it (scripts/calibrate).
inline constexpr RingFitted kShippedRingFitted = RingFitted::kBandwidth;
inline constexpr RingFit kShippedPolluxRing{0.5221300122903606, kPolluxNominalRing.local_step_s,
                                            kPolluxNominalRing.nic_step_s};

// One measured multi-GPU step.
struct ScalingCheckRow {
  std::string placement; // "24" (GPUs per node), or "6x16" (nodes x replicas, scalability.csv)
  unsigned nodes = 0;
  unsigned replicas = 0;
  double local_bsz = 0;
  double compute_s = 0;  // the measured single-GPU step at this local_bsz
  double measured_s = 0; // the measured step at this placement
};

struct ScalingCheckApp {
  std::string application; // Pollux's name (bert, cifar10, ...)
  std::string model;       // the zoo model it maps to
  double model_bytes = 0;  // FP32 gradients of the configuration that was measured
  double overlap = 0;      // the zoo model's comm_overlap
  std::vector<ScalingCheckRow> rows;
  std::size_t outside = 0; // rows whose local_bsz has no single-GPU measurement (skipped)
};

// Every application of `profiles_dir` (its subdirectories, sorted) with its multi-GPU rows from
// placements.csv and scalability.csv. InputError for a bad profile or an application whose zoo
// model `zoo` lacks.
std::vector<ScalingCheckApp> load_scaling_check(const std::string& profiles_dir,
                                                const ModelZoo& zoo);

// The analytic model's step for a row: ring all-reduce at kPolluxPcieGbS inside a node and
// min(that, ring.nic_gb_s) across nodes, plus its step latencies (scaling_model.h).
double predicted_step_s(const ScalingCheckApp& app, const ScalingCheckRow& row,
                        const RingFit& ring);

// |predicted - measured| / measured for each row of `app`.
std::vector<double> step_errors(const ScalingCheckApp& app, const RingFit& ring);

// The inter-node bandwidth and the two step latencies that minimize, jointly, the mean over
// applications (each weighted alike) of the mean |log(predicted / measured)| over their rows,
// leaving out application `leave_out` (an index into `apps`; none by default). Searched between
// 0.05 and 50 GB/s and between 0.1 us and 10 ms.
RingFit fit_ring(const std::vector<ScalingCheckApp>& apps, RingFitted fitted,
                 std::size_t leave_out = std::numeric_limits<std::size_t>::max());

// The device type Pollux's profiles were measured on.
inline constexpr const char* kPolluxDeviceType = "T4";

// The measured scaling of the run's models (docs/scaling.md#measured-scaling-in-the-runtime):
// for each model of `models` (Workload::models) that a profile of `profiles_dir` maps to, its
// step ratios on device type `type` at the zoo's per-GPU batch of the model, clamped to the
// measured local_bsz range of each placement and interpolated linearly in local_bsz there.
MeasuredScalingTable build_measured_scaling(const std::string& profiles_dir, const ModelZoo& zoo,
                                            const std::vector<std::string>& models,
                                            DeviceTypeId type);

} // namespace dlsim
