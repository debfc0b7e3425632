// The failure model's arithmetic (docs/failures.md): components by one dense id, draws of up
// times and repair times from seeded streams, checkpoint costs and the Young/Daly interval.
#pragma once

// The runtime's truth: policies are compiled with DLSIM_POLICY_CODE (policies/CMakeLists.txt), so
// a policy that includes this header does not build (the ctest policy_cannot_include.*).
#ifdef DLSIM_POLICY_CODE
#error                                                                                             \
    "sim/runtime/failure_model.h is the failure model, the runtime's truth: a policy decides from observations (View, observations), never from the runtime's models (docs/architecture.md#the-layers)"
#endif

#include "sim/cluster/cluster.h"
#include "sim/engine/rng.h"
#include "sim/runtime/failure_config.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim {

// Every component that can fail has one id: the devices (0 .. D-1), then the nodes (D .. D+N-1),
// then the nodes' links to the network (D+N .. D+2N-1).
enum class ComponentKind : std::uint8_t { kDevice, kNode, kLink };

struct Component {
  ComponentKind kind = ComponentKind::kDevice;
  std::uint32_t index = 0; // the device or node id
};

[[nodiscard]] std::uint32_t component_count(const Cluster& c);
[[nodiscard]] Component component_of(const Cluster& c, std::uint32_t id);
[[nodiscard]] std::uint32_t component_id(const Cluster& c, Component comp);
// "device:12", "node:3", "link:3": what the failure log and events.csv write.
[[nodiscard]] std::string component_name(const Cluster& c, std::uint32_t id);
// The id of such a name, or nullopt when it names no component of the cluster.
[[nodiscard]] std::optional<std::uint32_t> parse_component(const Cluster& c, std::string_view name);
// The first device and how many a component takes down (a device: itself; a node or a link:
// the node's devices, which are contiguous).
struct DeviceRange {
  DeviceId first = 0;
  std::uint32_t count = 0;
};
[[nodiscard]] DeviceRange devices_of(const Cluster& c, std::uint32_t id);
// The failure process of a component, or nullptr when it never fails by itself (a device that
// is not a GPU).
[[nodiscard]] const FailureProcess* process_of(const Cluster& c, const FailureConfig& f,
                                               std::uint32_t id);

// Seconds up until the next failure: exponential with mean mtbf_h, or Weibull of shape k and
// scale mtbf / Gamma(1 + 1/k), whose mean is mtbf_h.
[[nodiscard]] double draw_uptime_s(const FailureProcess& p, Rng& rng);
// Seconds a repair takes: exponential with mean repair_h, or exactly repair_h ("fixed").
[[nodiscard]] double draw_repair_s(const FailureProcess& p, Rng& rng);

// The optimal checkpoint interval (seconds of work between checkpoints) for a checkpoint of
// `checkpoint_s` and a mean time between failures `mtbf_s` of the job:
//   Young (1974): sqrt(2 C M)
//   Daly (2006, first-order-corrected): sqrt(2 C M) (1 + sqrt(C / 2M) / 3 + (C / 2M) / 9) - C
//   for C < 2M, else M.
[[nodiscard]] double young_interval_s(double checkpoint_s, double mtbf_s);
[[nodiscard]] double daly_interval_s(double checkpoint_s, double mtbf_s);
// The mean time between interruptions of a job holding `gpus` GPUs on `nodes` nodes: every
// GPU, node and link it holds can stop it, 1 / (gpus / device + nodes / node + nodes / link).
[[nodiscard]] double job_mtbf_s(const FailureConfig& f, double gpus, double nodes);

} // namespace dlsim
