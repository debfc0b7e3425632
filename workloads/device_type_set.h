// The device types a trace job accepts: one type (`V100`), a set (`V100|K80|XeonPhi`) or a
// kind (`any-gpu`, `any-cpu`, `any-xeonphi`, `any-fpga`, `any`), as docs/traces.md describes.
#pragma once

#include "sim/cluster/cluster.h"

#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

struct DeviceTypeChoice {
  bool any_gpu = false;            // exactly `any-gpu`: the default of a job that names none
  std::vector<DeviceTypeId> types; // otherwise: the accepted types, sorted, catalog ids
  std::string error;               // non-empty when the text is not a valid choice
};

// Parses `text` against the cluster's catalog (not its nodes: whether the cluster has any of the
// types is the caller's check).
DeviceTypeChoice parse_device_type_choice(std::string_view text, const Cluster& cluster);

} // namespace dlsim
