// Cluster YAML: defaults, racks, topology routes, and errors that name the key path.
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using dlsim::test::cluster_from_yaml;

TEST_CASE("the minimal cluster file gets every default", "[cluster]") {
  Cluster c = cluster_from_yaml("nodes:\n  - count: 2\n    devices: {V100: 4}\n");
  REQUIRE(c.nodes.size() == 2);
  REQUIRE(c.devices.size() == 8);
  CHECK(c.count_of_kind(DeviceKind::kGpu) == 8);
  CHECK(c.nodes[1].first_device == 4);
  CHECK(c.devices[5].node == 1);
  // Defaults: 8 cores and 64 GB per device; PCIe gen3 x16 = 16 x 0.985 = 15.76 GB/s.
  CHECK(c.nodes[0].cpu_cores == 32);
  CHECK(c.nodes[0].memory_gb == 256);
  CHECK(c.groups[0].links.pcie_gb_s == Approx(15.76));
  CHECK(c.groups[0].links.nic_gb_s == Approx(12.5)); // 100 Gbit/s
  CHECK(c.rack_count == 1);
}

TEST_CASE("racks fill in order, and pinned groups go where they say", "[cluster]") {
  Cluster c = cluster_from_yaml(R"(
fabric: {nodes_per_rack: 2}
nodes:
  - {count: 3, devices: {V100: 1}}
  - {count: 1, rack: 7, devices: {K80: 2}}
)");
  CHECK(c.nodes[0].rack == 0);
  CHECK(c.nodes[1].rack == 0);
  CHECK(c.nodes[2].rack == 1);
  CHECK(c.nodes[3].rack == 7);
  CHECK(c.rack_count == 8);
  CHECK(c.types[c.devices[3].type].name == "K80");
}

TEST_CASE("routes follow the hardware: PCIe switch, socket, NIC, fabric, NVLink", "[cluster]") {
  Cluster c = cluster_from_yaml(R"(
fabric: {nodes_per_rack: 1}
nodes:
  - {count: 2, devices: {V100: 8}, pcie: {devices_per_switch: 4}}
  - {count: 1, devices: {V100: 2}, nvlink: true}
)");
  const Topology& t = c.topology;
  // Same switch: device > switch > device = 2 links.
  CHECK(t.hops(0, 1) == 2);
  // Switch 0 is on socket 0, switch 1 on socket 1: dev > sw0 > socket0 > socket1 > sw1 > dev.
  CHECK(t.hops(0, 4) == 5);
  // Another node in another rack: dev > sw > socket0 > nic > tor > spine > tor > nic >
  // socket0 > sw > dev = 10 links.
  CHECK(t.hops(0, 8) == 10);
  // NVLink is one hop.
  CHECK(t.hops(16, 17) == 1);
  CHECK(t.link(t.route(16, 17)[0]).kind == LinkKind::kNvlink);
  // Routes are symmetric in length, and a device's route to itself is empty.
  CHECK(t.hops(8, 0) == 10);
  CHECK(t.route(3, 3).empty());
  // Link names say what they join.
  CHECK(t.link_name(t.route(0, 8)[3]).find("tor") != std::string::npos);
}

TEST_CASE("bad cluster files name the key path and the line", "[cluster][errors]") {
  auto message = [](const std::string& yaml) {
    try {
      cluster_from_yaml(yaml);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("nodes:\n  - count: 2\n    devices: {V100: 4}\n    colour: red\n"),
             Catch::Contains("test.yaml:4: nodes.0.colour: unknown key"));
  CHECK_THAT(message("nodes:\n  - count: two\n    devices: {V100: 4}\n"),
             Catch::Contains("nodes.0.count: expected an integer, got 'two'"));
  CHECK_THAT(message("nodes:\n  - count: 2\n    devices: {V200: 4}\n"),
             Catch::Contains("nodes.0.devices.V200: unknown device type"));
  CHECK_THAT(message("fabric: {nodes_per_rack: 4}\n"),
             Catch::Contains("missing required key 'nodes'"));
  CHECK_THAT(message("nodes:\n  - count: -1\n    devices: {V100: 4}\n"),
             Catch::Contains("nodes.0.count: expected an integer"));
  CHECK_THAT(message("nodes:\n  - count: 1\n    devices: {V100: 4}\n    pcie: {gen: 9}\n"),
             Catch::Contains("nodes.0.pcie.gen: PCIe generation must be 1 to 5"));
}

TEST_CASE("custom device types extend the catalog", "[cluster]") {
  Cluster c = cluster_from_yaml(R"(
device_types:
  MI250: {kind: gpu, memory_gb: 128, peak_fp32_tflops: 47.9, rel_throughput: 2.0}
nodes:
  - {count: 1, devices: {MI250: 4}}
)");
  REQUIRE(c.devices.size() == 4);
  CHECK(c.type_of(0).name == "MI250");
  CHECK(c.type_of(0).rel_throughput == 2.0);
  // The resolved cluster writes the custom type back, so run.yaml reproduces the run.
  YAML::Node back = cluster_to_yaml(c);
  CHECK(back["device_types"]["MI250"]["rel_throughput"].as<double>() == 2.0);
  Cluster again = load_cluster(back, "again.yaml");
  CHECK(again.devices.size() == 4);
}

TEST_CASE("links_per_node counts what build_cluster builds", "[cluster]") {
  Cluster c = cluster_from_yaml(R"(
fabric: {nodes_per_rack: 2}
nodes:
  - count: 4
    devices: {V100: 3, XeonPhi: 2}
    sockets: 2
    nvlink: true
    pcie: {devices_per_switch: 2}
)");
  // Per node: 1 socket link (2 sockets) + 3 host bridges (5 devices, 2 per switch: ceil(5/2))
  // + 5 PCIe links + 3 NVLink pairs (among the 3 GPUs only: 3 x 2 / 2) + 2 for the NIC = 14.
  CHECK(links_per_node(c.groups[0], c.types) == 14);
  // 4 nodes x 14 + 2 rack uplinks (4 nodes, 2 per rack) = 58.
  CHECK(c.topology.link_count() == 58);
}

TEST_CASE("a cluster with more links than the limit is refused before it is built",
          "[cluster][errors]") {
  // 100,000 nodes and 800,000 devices are within their limits, but with NVLink each node has
  // 1 + 2 + 8 + 28 + 2 = 41 links (2 sockets, 2 switches of 4, 8 PCIe, C(8,2) pairs, NIC):
  // 4.1M links, more than kMaxLinks = 4M.
  try {
    cluster_from_yaml("nodes:\n  - count: 100000\n    devices: {V100: 8}\n    nvlink: true\n");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("nodes.0"));
    CHECK_THAT(e.what(), Catch::Contains("4100000 links"));
    CHECK_THAT(e.what(), Catch::Contains("docs/cluster.md#limits"));
  }
}

TEST_CASE("an integer with a leading 0 is an error, not octal", "[cluster][errors]") {
  // yaml-cpp reads 010 as octal: 1 x 8 + 0 = 8 nodes, not 10. The message says so.
  try {
    cluster_from_yaml("nodes:\n  - count: 010\n    devices: {V100: 1}\n");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("nodes.0.count: '010'"));
    CHECK_THAT(e.what(), Catch::Contains("octal in YAML (this is 8)"));
  }
  // 0 itself and hexadecimal stay as they were: 0x10 = 16 nodes.
  Cluster c = cluster_from_yaml("nodes:\n  - count: 0x10\n    devices: {V100: 1}\n");
  CHECK(c.nodes.size() == 16);
}
