// Failures and repairs of devices, nodes and node links, and periodic checkpoints: the
// experiment's `failures` section (docs/failures.md). Off by default.
#pragma once

#include "sim/engine/time.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

// The defaults come from the 419 unexpected interruptions of Llama 3 405B's pre-training on
// 16,384 H100 GPUs (2,048 servers of 8) over 54 days (Llama 3 paper, arXiv:2407.21783, section
// 3.3.4, Table 5). The table's counts sum to 419, so they are used (its first percentage, 30.1%
// for 148 faulty GPUs, is not 148/419 = 35.3%):
//   GPU hours:  16,384 x 54 d x 24 h = 21,233,664;  server hours: 2,048 x 1,296 h = 2,654,208
//   device (GPU): faulty GPU 148, HBM3 72, SRAM 19, system processor 17, silent data
//     corruption 6, thermal interface and sensor 6 = 268 (64.0%): MTBF = 21,233,664 / 268 =
//     79,230 h per GPU
//   link (the server's network): network switch or cable 35, NIC 7 = 42 (10.0%): MTBF =
//     2,654,208 / 42 = 63,195 h per server
//   node (the rest, all of which stopped the job: software bug 54, host maintenance 32, NCCL
//     watchdog 7, SSD 3, power supply 3, chassis 2, IO expansion board 2, dependency 2, CPU 2,
//     system memory 2) = 109 (26.0%): MTBF = 2,654,208 / 109 = 24,351 h per server
//   together 419 / 21,233,664 = 1.973e-5 interruptions per GPU-hour (a GPU's share of every
//   component: one per 50,677 h), one every 1,296 / 419 = 3.09 h on the whole cluster.
// The paper gives no repair times: those below are estimates (docs/failures.md).
inline constexpr double kLlama3DeviceMtbfH = 21233664.0 / 268.0;
inline constexpr double kLlama3NodeMtbfH = 2654208.0 / 109.0;
inline constexpr double kLlama3LinkMtbfH = 2654208.0 / 42.0;

// One class of component: how long it stays up (exponential, or Weibull of shape `shape`,
// with mean mtbf_h) and how long a repair takes (exponential or fixed, mean repair_h).
struct FailureProcess {
  double mtbf_h = 0;
  std::string distribution = "exponential"; // or "weibull"
  double shape = 1;                         // Weibull shape k (1: exponential)
  double repair_h = 0;
  std::string repair = "exponential"; // or "fixed"
};

// One row of a failure log: the component goes down at `time` for `duration`.
struct FailureRecord {
  SimTime time = 0;
  std::uint32_t component = 0; // failure_component.h: devices, then nodes, then links
  SimTime duration = 0;
};

struct FailureConfig {
  bool enabled = false;
  // GPUs (devices of kind GPU); other devices fail with their node.
  FailureProcess device{kLlama3DeviceMtbfH, "exponential", 1, 8, "exponential"};
  // Per GPU type, by DeviceTypeId (failures.device.by_type): empty when not given, else one
  // process per type of the cluster, `device` for the types not named.
  std::vector<FailureProcess> device_by_type;
  // A node: every device and host task on it.
  FailureProcess node{kLlama3NodeMtbfH, "exponential", 1, 2, "exponential"};
  // A node's link to the network (its NIC and cable): the node is cut off, as a node failure.
  FailureProcess link{kLlama3LinkMtbfH, "exponential", 1, 1, "exponential"};
  std::string log_file;           // failures.log: replay this CSV instead of drawing ("" for none)
  std::vector<FailureRecord> log; // read from log_file by the CLI (sim/cli/prepare.cpp)
  // Periodic checkpoints (also without failures): every interval of wall time while a job runs,
  // it pauses to write its state. 0: none.
  double checkpoint_interval_s = 0;
  // A checkpoint's cost: this when >= 0, else the model's state over runtime.checkpoint_gb_s.
  double checkpoint_s = -1;
  std::uint64_t seed =
      1; // the run's seed (set by the CLI): each component's stream derives from it
};

} // namespace dlsim
