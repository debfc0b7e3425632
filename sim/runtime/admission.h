// Admission: whether a placement may be made, as small checks that each return the reason it may
// not (nullopt: it may). Control runs them before every action that places workers (control.h);
// they read the run's state and change nothing. The reasons reach the policy's error message
// (ActionError) or Control::check_start, so their wording and their order are part of the
// contract: the first check that fails names the problem.
#pragma once

#include "sim/runtime/sim_state.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace dlsim {

// How an action may share devices with the jobs already on them.
enum class Sharing : std::uint8_t {
  kExclusive, // free devices only
  kPack,      // co-located, running at once (interference model)
  kSlice,     // taking turns with other time-sliced jobs
};

// A device placement of job j's workers: `devices` (devices_per_worker consecutive entries per
// worker), shared as `sharing` says (slice_s: the time slice of kSlice), `own` the devices the job
// holds now (a move: they count as free to it, its workers there give their node share back
// first), between min_workers and max_workers workers.
struct DeviceAsk {
  std::span<const DeviceId> devices;
  Sharing sharing = Sharing::kExclusive;
  std::span<const DeviceId> own;
  std::uint32_t min_workers = 1;
  std::uint32_t max_workers = 1;
  double slice_s = 0;
};

// Job j's workers on `devices` within its request's worker range, and its parameter servers'
// cores on their nodes (ps_placement.h): a fresh placement at the request's cores, a move at the
// job's cores now.
std::optional<std::string> check_place(const SimState& s, JobId j,
                                       std::span<const DeviceId> devices, Sharing sharing,
                                       std::span<const DeviceId> own, double slice_s = 0);
// The workers alone: their shape, their devices, the devices' holders, their nodes' room.
std::optional<std::string> check_workers(const SimState& s, JobId j, const DeviceAsk& ask);
// More workers of a pending or binding job bound to free devices (Control::bind).
std::optional<std::string> check_bind(const SimState& s, JobId j,
                                      std::span<const DeviceId> devices);
// A host task's workers on `nodes`, one entry per worker (Control::start_on_nodes).
std::optional<std::string> check_hosts(const SimState& s, JobId j, std::span<const NodeId> nodes);

} // namespace dlsim
