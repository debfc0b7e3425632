// The runtime's parts on their own: admission's checks (sim/runtime/admission.h) and the ledger
// (sim/runtime/ledger.h), on a state set up by a real Simulation.
#include "sim/runtime/admission.h"
#include "sim/runtime/ledger.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

namespace dlsim::test {

namespace {

// Two nodes of two V100s (devices 0 and 1 on node 0, 2 and 3 on node 1), 32 cores and 64 GB.
constexpr const char* kNodes =
    "nodes:\n  - {count: 2, devices: {V100: 2}, cpu_cores: 32, memory_gb: 64}\n";
// d: two workers of one GPU, 20 cores and 16 GB each; h and c: the same made host tasks below,
// c smaller (6 cores, 8 GB a worker).
constexpr const char* kJobs = "id,submit_s,workers,duration_s,cpus_per_worker,mem_gb_per_worker\n"
                              "d,0,2,100,20,16\n"
                              "h,0,2,100,20,16\n"
                              "c,0,2,100,6,8\n";

struct Parts {
  ScriptedRun run{kNodes, kJobs, {}};
  Parts() {
    run.workload.jobs[run.id("h")].request.devices_per_worker = 0;
    run.workload.jobs[run.id("c")].request.devices_per_worker = 0;
  }
};

} // namespace

TEST_CASE("admission: device workers and host workers meet one node rule, first failure named",
          "[runtime][admission]") {
  Parts p;
  const SimState& s = p.run.sim->state();
  const JobId d = p.run.id("d");
  // Both of d's workers on node 0 (devices 0 and 1), or both of h's: 2 x 20 = 40 cores of 32.
  const auto device = check_place(s, d, std::vector<DeviceId>{0, 1}, Sharing::kExclusive, {});
  const auto host = check_hosts(s, p.run.id("h"), std::vector<NodeId>{0, 0});
  REQUIRE(device);
  REQUIRE(host);
  CHECK(*device == "node 0 has 32 free CPU cores, 40 needed");
  CHECK(*host == *device);
  // One worker per node fits: 20 <= 32 cores, 16 <= 64 GB.
  CHECK_FALSE(check_place(s, d, std::vector<DeviceId>{0, 2}, Sharing::kExclusive, {}));
  CHECK_FALSE(check_hosts(s, p.run.id("h"), std::vector<NodeId>{0, 1}));
  // The checks run in order and the first that fails is the reason: the gang before the
  // devices (device 9 does not exist either), the devices before their nodes.
  CHECK(*check_place(s, d, std::vector<DeviceId>{9}, Sharing::kExclusive, {}) ==
        "gang of 2 workers broken: 1 given");
  CHECK(*check_place(s, d, std::vector<DeviceId>{0, 9}, Sharing::kExclusive, {}) ==
        "device 9 does not exist");
  CHECK(*check_place(s, d, std::vector<DeviceId>{1, 1}, Sharing::kExclusive, {}) ==
        "a device is listed twice");
  CHECK(*check_hosts(s, d, std::vector<NodeId>{0, 1}) ==
        "the job asks for 1 device(s) per worker: it is placed on devices, not nodes");
}

TEST_CASE("ledger: host workers and device workers take and give back the same node shares",
          "[runtime][ledger]") {
  Parts p;
  SimState s = p.run.sim->state(); // a copy to write to
  const JobId d = p.run.id("d");
  const JobId c = p.run.id("c");
  // d: a worker on each node, 20 cores and 16 GB off each.
  ledger::occupy(s, d, WorkerPlaces::on_devices(std::vector<DeviceId>{0, 2}));
  CHECK(s.node_cpu_free == std::vector<double>{12, 12});
  CHECK(s.node_mem_free == std::vector<double>{48, 48});
  CHECK(s.busy_gpus == 2);
  CHECK(s.jobs[d].workers == 2);
  CHECK(s.jobs[d].nodes_used == 2);
  // c: both workers on node 0, 2 x 6 cores and 2 x 8 GB; no device.
  ledger::occupy(s, c, WorkerPlaces::on_nodes(std::vector<NodeId>{0, 0}));
  CHECK(s.node_cpu_free == std::vector<double>{0, 12});
  CHECK(s.node_mem_free == std::vector<double>{32, 48});
  CHECK(s.cores_held == 52); // 2 x 20 + 2 x 6
  CHECK(s.busy_gpus == 2);
  CHECK(s.jobs[c].workers == 2);
  CHECK(s.jobs[c].nodes_used == 1);
  CHECK(std::ranges::equal(s.hosts_of(c), std::vector<NodeId>{0, 0}));
  // Released, each gives back exactly what it took.
  CHECK(ledger::release(s, c).empty());
  CHECK(s.node_cpu_free == std::vector<double>{12, 12});
  CHECK(s.hosts_of(c).empty());
  CHECK(s.extras.empty()); // the entry went with the nodes it held
  CHECK(ledger::release(s, d).to_vector() == std::vector<DeviceId>{0, 2});
  CHECK(s.node_cpu_free == std::vector<double>{32, 32});
  CHECK(s.node_mem_free == std::vector<double>{64, 64});
  CHECK(s.cores_held == 0);
  CHECK(s.busy_gpus == 0);
}

} // namespace dlsim::test
