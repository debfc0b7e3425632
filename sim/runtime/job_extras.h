// What few jobs have beyond their JobState, in one table by job, so that every JobState need not
// carry it (docs/performance.md#what-the-loop-holds-per-job). A job has an entry only while one
// of its parts is in use; read through SimState's accessors (and View's).
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/engine/time.h"
#include "sim/runtime/job.h"
#include "sim/workload/workload.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dlsim {

struct JobExtras {
  // A host task's workers' nodes while it holds them, one per worker (a node listed k times
  // holds k).
  std::vector<NodeId> hosts;
  // A job whose parameter servers hold CPU cores (holds_ps_cores in ps_placement.h): the node of
  // each shard while it holds them, shard s with worker s mod workers (docs/scaling.md#
  // parameter-servers-that-hold-cores).
  std::vector<NodeId> ps_hosts;
  // Cores per shard and per worker that Control::set_cpus gave a placed job; valid while
  // JobState::own_cores (every placement takes the request's ps_cpus and cpus_per_worker again).
  struct Cores {
    double ps = 0;
    double worker = 0;
  } cores;
  // Shares of each device guaranteed and allowed that Control::set_share gave; valid while
  // JobState::own_share (docs/runtime.md#fractional-shares): the request's until then.
  struct Shares {
    double min = 1;
    double max = 1;
  } shares;
  // The time slice of a job placed by `timeslice` (JobState::sliced), kept once set until the
  // job is over; 0 never.
  double slice_s = 0;
  // Parameter-server shards that Control::set_ps gave; valid while JobState::own_ps.
  std::uint32_t ps_shards = 0;
  // Valid while JobState::crowded, set once the job has run while another job was running on
  // one of its devices: the time it spent so, in spells that ended, and the start of the current
  // one (-1 when it is not crowded now). The rest of its run time it ran alone (alone_time). Of
  // its crowded time, a profiler still measured it during its own turns on time-sliced devices:
  // `profiled` of the spells that ended, and `weight` (its share of the current spell, 0 when
  // packed) for the current one (profiled_time).
  struct Crowded {
    SimTime time = 0;
    SimTime since = -1;
    SimTime profiled = 0;
    double weight = 0;
  } crowded;

  // Whether any part is in use for a job in state `job` (an entry with none is dropped). The
  // slice is read again only when the job resumes, which a finished or cancelled one never does:
  // without this, a policy that time-slices every job (gandiva) keeps an entry per job ever run.
  [[nodiscard]] bool in_use(const JobState& job) const {
    return job.own_cores || job.own_share || job.own_ps || job.crowded || !hosts.empty() ||
           !ps_hosts.empty() || (slice_s != 0 && !is_over(job.status));
  }
};

using JobExtrasTable = std::unordered_map<JobId, JobExtras>;

} // namespace dlsim
