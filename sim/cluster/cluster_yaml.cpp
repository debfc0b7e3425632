#include "sim/cluster/cluster_yaml.h"
#include "sim/cluster/limits.h"

#include "sim/config/nearest_name.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <limits>

namespace dlsim {

double pcie_gb_s(int gen, int lanes) {
  // PCI-SIG base specifications: 2.5/5/8/16/32 GT/s per lane; 8b/10b encoding for gen1-2,
  // 128b/130b from gen3.
  static constexpr double kPerLane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938};
  return kPerLane[gen] * lanes;
}

namespace {

constexpr double kMaxRelThroughput = 1000;

void read_device_types(YamlMap& root, Cluster& c) {
  YAML::Node node = root.child("device_types");
  if (!node.IsDefined() || node.IsNull()) return;
  YamlWhere where = root.where_of("device_types");
  if (!node.IsMap()) yaml_fail(where, node, "expected a mapping of type name to its specs");
  for (const auto& kv : node) {
    auto name = kv.first.as<std::string>();
    // A name is written into traces' device-type sets ("V100|P100"), CSV and text reports: it
    // must be one printable token of them.
    const bool control = std::any_of(name.begin(), name.end(), [](char ch) {
      return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f;
    });
    if (name.empty() || control || name.find('|') != std::string::npos) {
      yaml_fail(where, kv.first,
                fmt::format("{}: not a device type name (it must be non-empty, without '|' and "
                            "without control characters such as a line break)",
                            quote_input(name, 60)));
    }
    YamlMap spec(kv.second, YamlWhere{where.file, where.path + "." + name});
    DeviceType t;
    t.name = name;
    auto existing = find_device_type(c.types, name);
    if (existing) t = c.types[*existing];
    auto kind_text = spec.get<std::string>("kind", std::string(to_string(t.kind)));
    auto kind = parse_device_kind(kind_text);
    if (!kind) {
      yaml_fail(
          spec.where_of("kind"), spec.child("kind"),
          fmt::format("unknown device kind '{}' (valid: gpu, cpu, xeonphi, fpga)", kind_text));
    }
    t.kind = *kind;
    t.memory_gb = spec.get<double>("memory_gb", t.memory_gb);
    t.peak_fp32_tflops = spec.get<double>("peak_fp32_tflops", t.peak_fp32_tflops);
    t.rel_throughput = spec.get<double>("rel_throughput", existing ? t.rel_throughput : 0.0);
    if (t.rel_throughput <= 0) {
      yaml_fail(spec.where_of("rel_throughput"), spec.node(),
                "must be set to a positive number (training throughput relative to a V100)");
    }
    // No device trains 1000 times as fast as a V100 (the H100, the fastest in the catalog, is
    // about 3 times: docs/cluster.md); a larger value is a typo, and 1e300 made every run time
    // round to 0 s.
    if (t.rel_throughput > kMaxRelThroughput) {
      yaml_fail(spec.where_of("rel_throughput"), spec.child("rel_throughput"),
                fmt::format("must be at most {} (training throughput relative to a V100), got {}",
                            kMaxRelThroughput, t.rel_throughput));
    }
    for (auto [key, value] :
         {std::pair{"memory_gb", t.memory_gb}, std::pair{"peak_fp32_tflops", t.peak_fp32_tflops}}) {
      if (value < 0) {
        yaml_fail(spec.where_of(key), spec.child(key),
                  fmt::format("must be 0 (not given) or more, got {}", value));
      }
    }
    t.source = spec.get<std::string>("source", existing ? t.source : "cluster file");
    spec.done();
    if (existing) {
      c.types[*existing] = t;
    } else {
      // Device types are numbered by a 16-bit DeviceTypeId: one more would wrap.
      if (c.types.size() > std::numeric_limits<DeviceTypeId>::max()) {
        yaml_fail(spec.where(), spec.node(),
                  fmt::format("too many device types (at most {})",
                              std::size_t{std::numeric_limits<DeviceTypeId>::max()} + 1));
      }
      c.types.push_back(t);
    }
  }
}

void positive(const YamlMap& m, const std::string& key, double v) {
  if (!(v > 0)) yaml_fail(m.where_of(key), m.node(), fmt::format("must be positive, got {}", v));
}

void not_negative(const YamlMap& m, const std::string& key, double v) {
  if (!(v >= 0) || !std::isfinite(v))
    yaml_fail(m.where_of(key), m.node(), fmt::format("must be finite and not negative, got {}", v));
}

NodeLinks read_links(YamlMap& g) {
  NodeLinks l;
  YAML::Node pcie_node = g.child("pcie");
  YamlMap pcie(pcie_node, g.where_of("pcie"));
  l.pcie_gen = pcie.get<int>("gen", l.pcie_gen);
  if (l.pcie_gen < 1 || l.pcie_gen > 5) {
    yaml_fail(pcie.where_of("gen"), pcie.child("gen"), "PCIe generation must be 1 to 5");
  }
  l.pcie_lanes = pcie.get<int>("lanes", l.pcie_lanes);
  if (l.pcie_lanes != 1 && l.pcie_lanes != 2 && l.pcie_lanes != 4 && l.pcie_lanes != 8 &&
      l.pcie_lanes != 16) {
    yaml_fail(pcie.where_of("lanes"), pcie.child("lanes"), "lanes must be 1, 2, 4, 8 or 16");
  }
  l.pcie_gb_s = pcie.get<double>("gb_s", pcie_gb_s(l.pcie_gen, l.pcie_lanes));
  positive(pcie, "gb_s", l.pcie_gb_s);
  l.devices_per_pcie_switch = pcie.get<int>("devices_per_switch", l.devices_per_pcie_switch);
  if (l.devices_per_pcie_switch < 1) {
    yaml_fail(pcie.where_of("devices_per_switch"), pcie.node(), "must be at least 1");
  }
  pcie.done();
  l.sockets = g.get<int>("sockets", l.sockets);
  if (l.sockets < 1 || l.sockets > kMaxSockets)
    yaml_fail(
        g.where_of("sockets"), g.node(),
        fmt::format("must be 1 to {} (docs/cluster.md#limits), got {}", kMaxSockets, l.sockets));
  l.socket_link_gb_s = g.get<double>("socket_link_gb_s", l.socket_link_gb_s);
  positive(g, "socket_link_gb_s", l.socket_link_gb_s);
  l.nvlink = g.get<bool>("nvlink", l.nvlink);
  l.nvlink_gb_s = g.get<double>("nvlink_gb_s", l.nvlink_gb_s);
  positive(g, "nvlink_gb_s", l.nvlink_gb_s);
  l.nic_gb_s = g.get<double>("nic_gbit_s", l.nic_gb_s * 8) / 8;
  positive(g, "nic_gbit_s", l.nic_gb_s);
  l.ring_step_us = g.get<double>("ring_step_us", l.ring_step_us);
  not_negative(g, "ring_step_us", l.ring_step_us);
  l.nic_ring_step_us = g.get<double>("nic_ring_step_us", l.nic_ring_step_us);
  not_negative(g, "nic_ring_step_us", l.nic_ring_step_us);
  return l;
}

} // namespace

namespace {

// fabric: racks, their uplinks, the links' latency.
void read_fabric(YamlMap& root, Cluster& c) {
  YAML::Node fabric_node = root.child("fabric");
  YamlMap fabric(fabric_node, root.where_of("fabric"));
  c.fabric.nodes_per_rack = fabric.get<std::uint32_t>("nodes_per_rack", c.fabric.nodes_per_rack);
  if (c.fabric.nodes_per_rack == 0) {
    yaml_fail(fabric.where_of("nodes_per_rack"), fabric_node, "must be at least 1");
  }
  c.fabric.tor_uplink_gb_s = fabric.get<double>("tor_uplink_gbit_s", 0.0) / 8;
  if (c.fabric.tor_uplink_gb_s < 0) {
    yaml_fail(fabric.where_of("tor_uplink_gbit_s"), fabric_node, "must not be negative");
  }
  c.fabric.link_latency_us = fabric.get<double>("link_latency_us", c.fabric.link_latency_us);
  if (c.fabric.link_latency_us < 0) {
    yaml_fail(fabric.where_of("link_latency_us"), fabric_node, "must not be negative");
  }
  fabric.done();
}

// A node group's devices: known types, a count of at least 1 each, at most kMaxDevicesPerNode
// per node. Returns the devices per node.
std::uint32_t read_group_devices(const YAML::Node& devs, const YamlWhere& dw,
                                 const std::string& file, const Cluster& c, NodeGroup& group) {
  std::uint32_t per_node = 0;
  for (const auto& kv : devs) {
    auto name = kv.first.as<std::string>();
    auto type = find_device_type(c.types, name);
    YamlWhere tw{file, dw.path + "." + name};
    if (!type) {
      std::vector<std::string> names;
      for (const auto& t : c.types)
        names.push_back(t.name);
      std::vector<std::string> near = nearest_names(name, names);
      yaml_fail(tw, kv.first,
                near.empty()
                    ? fmt::format("unknown device type (known: {}; add one under "
                                  "device_types)",
                                  fmt::join(names, ", "))
                    : fmt::format("unknown device type (did you mean {}?)", fmt::join(near, ", ")));
    }
    auto n = yaml_as<std::uint32_t>(kv.second, tw);
    if (n == 0) yaml_fail(tw, kv.second, "must be at least 1");
    if (n > kMaxDevicesPerNode - per_node)
      yaml_fail(tw, kv.second,
                fmt::format("more than {} devices per node (docs/cluster.md#limits)",
                            kMaxDevicesPerNode));
    group.devices.emplace_back(*type, n);
    per_node += n;
  }
  return per_node;
}

} // namespace

Cluster load_cluster(const YAML::Node& root_node, const std::string& file,
                     const std::string& key_prefix) {
  Cluster c;
  c.types = builtin_device_types();
  YamlMap root(root_node, YamlWhere{file, key_prefix});
  if (!root_node.IsMap())
    yaml_fail(root.where(), root_node, "a cluster must be a mapping with a 'nodes' list");
  read_device_types(root, c);
  // A cluster's failure model (docs/failures.md#in-the-cluster-file) is the experiment reader's:
  // it moves the section under the experiment's `failures`, so it is only allowed here.
  root.child("failures");

  read_fabric(root, c);

  YAML::Node nodes = root.child("nodes");
  YamlWhere nodes_where = root.where_of("nodes");
  if (!nodes.IsDefined() || nodes.IsNull())
    yaml_fail(root.where(), root_node, "missing required key 'nodes'");
  if (!nodes.IsSequence() || nodes.size() == 0) {
    yaml_fail(nodes_where, nodes, "expected a non-empty list of node groups");
  }
  std::uint64_t total_nodes = 0;
  std::uint64_t total_devices = 0;
  std::uint64_t total_links = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    YamlMap g(nodes[i], YamlWhere{file, fmt::format("{}.{}", nodes_where.path, i)});
    if (!nodes[i].IsMap()) yaml_fail(g.where(), nodes[i], "a node group must be a mapping");
    NodeGroup group;
    group.name = g.get<std::string>("name", fmt::format("group{}", i));
    group.count = g.require<std::uint32_t>("count");
    group.rack = g.get<int>("rack", -1);
    if (group.rack < -1) yaml_fail(g.where_of("rack"), nodes[i], "must not be negative");
    if (group.rack >= static_cast<std::int64_t>(kMaxNodes))
      yaml_fail(
          g.where_of("rack"), nodes[i],
          fmt::format("must be below {} (docs/cluster.md#limits), got {}", kMaxNodes, group.rack));
    total_nodes += group.count;
    if (total_nodes > kMaxNodes)
      yaml_fail(g.where_of("count"), nodes[i],
                fmt::format("the cluster would have {} nodes, more than the limit of {} "
                            "(docs/cluster.md#limits)",
                            total_nodes, kMaxNodes));
    YAML::Node devs = g.child("devices");
    YamlWhere dw = g.where_of("devices");
    if (!devs.IsDefined() || devs.IsNull())
      yaml_fail(g.where(), nodes[i], "missing required key 'devices'");
    if (!devs.IsMap() || devs.size() == 0) {
      yaml_fail(dw, devs, "expected a mapping of device type to count per node, e.g. {V100: 4}");
    }
    const std::uint32_t per_node = read_group_devices(devs, dw, file, c, group);
    total_devices += std::uint64_t{per_node} * group.count;
    if (total_devices > kMaxDevices)
      yaml_fail(dw, devs,
                fmt::format("the cluster would have {} devices, more than the limit of {} "
                            "(docs/cluster.md#limits)",
                            total_devices, kMaxDevices));
    group.cpu_cores = g.get<double>("cpu_cores", 8.0 * per_node);
    positive(g, "cpu_cores", group.cpu_cores);
    group.memory_gb = g.get<double>("memory_gb", 64.0 * per_node);
    positive(g, "memory_gb", group.memory_gb);
    group.links = read_links(g);
    total_links += links_per_node(group, c.types) * group.count;
    if (total_links > kMaxLinks)
      yaml_fail(g.where(), nodes[i],
                fmt::format("the cluster would have {} links inside its nodes (PCIe, NVLink pairs, "
                            "NICs), more than the limit of {} (docs/cluster.md#limits)",
                            total_links, kMaxLinks));
    g.done();
    c.groups.push_back(std::move(group));
  }
  root.done();
  build_cluster(c);
  if (c.devices.empty())
    yaml_fail(nodes_where, nodes, "the cluster has no devices (every count is 0)");
  return c;
}

Cluster load_cluster_file(const std::string& file) {
  return load_cluster(load_yaml_file(file), file);
}

YAML::Node cluster_to_yaml(const Cluster& c) {
  YAML::Node root;
  auto builtin = builtin_device_types();
  for (const auto& t : c.types) {
    auto b = find_device_type(builtin, t.name);
    if (b && builtin[*b].kind == t.kind && builtin[*b].memory_gb == t.memory_gb &&
        builtin[*b].peak_fp32_tflops == t.peak_fp32_tflops &&
        builtin[*b].rel_throughput == t.rel_throughput) {
      continue;
    }
    YAML::Node spec;
    spec["kind"] = std::string(to_string(t.kind));
    spec["memory_gb"] = t.memory_gb;
    spec["peak_fp32_tflops"] = t.peak_fp32_tflops;
    spec["rel_throughput"] = t.rel_throughput;
    spec["source"] = t.source;
    root["device_types"][t.name] = spec;
  }
  root["fabric"]["nodes_per_rack"] = c.fabric.nodes_per_rack;
  root["fabric"]["tor_uplink_gbit_s"] = c.fabric.tor_uplink_gb_s * 8;
  root["fabric"]["link_latency_us"] = c.fabric.link_latency_us;
  for (const auto& g : c.groups) {
    YAML::Node n;
    n["name"] = g.name;
    n["count"] = g.count;
    if (g.rack >= 0) n["rack"] = g.rack;
    for (auto [type, count] : g.devices)
      n["devices"][c.types[type].name] = count;
    n["cpu_cores"] = g.cpu_cores;
    n["memory_gb"] = g.memory_gb;
    n["pcie"]["gen"] = g.links.pcie_gen;
    n["pcie"]["lanes"] = g.links.pcie_lanes;
    n["pcie"]["gb_s"] = g.links.pcie_gb_s;
    n["pcie"]["devices_per_switch"] = g.links.devices_per_pcie_switch;
    n["sockets"] = g.links.sockets;
    n["socket_link_gb_s"] = g.links.socket_link_gb_s;
    n["nvlink"] = g.links.nvlink;
    n["nvlink_gb_s"] = g.links.nvlink_gb_s;
    n["nic_gbit_s"] = g.links.nic_gb_s * 8;
    n["ring_step_us"] = g.links.ring_step_us;
    n["nic_ring_step_us"] = g.links.nic_ring_step_us;
    root["nodes"].push_back(n);
  }
  return root;
}

} // namespace dlsim
