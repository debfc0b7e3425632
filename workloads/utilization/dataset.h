// The utilization dataset (configs/utilization/, README there): architectures with their graph
// features, and measured or estimated solo GPU utilization per (architecture, device, batch).
#pragma once

#include "sim/cluster/device_catalog.h"
#include "workloads/utilization/features.h"

#include <Eigen/Dense>

#include <map>
#include <string>
#include <vector>

namespace dlsim {

struct UtilArchitecture {
  std::string name;
  std::string family;
  GraphFeatures graph;
};

struct UtilSample {
  std::string arch;
  std::string device;
  double batch = 0;
  double util_pct = 0;
  double gpu_mem_gb = 0;
  std::string source;
  int arch_id = 0; // index into UtilDataset::archs (sorted by name): the cross-validation group
};

struct UtilDataset {
  std::vector<UtilArchitecture> archs; // sorted by name
  std::vector<UtilSample> rows;        // file order
  Eigen::MatrixXd x;                   // util_feature_row of each row
  Eigen::VectorXd util_pct;
};

// Reads both files. Errors name file:line: column (an unknown architecture or device type, a
// utilization outside (0, 100], a duplicate row). Device types come from `types` (the catalog),
// whose FP32 peak is the device feature.
std::map<std::string, UtilArchitecture> load_util_architectures(const std::string& file);
UtilDataset load_util_dataset(const std::string& arch_file, const std::string& data_file,
                              const std::vector<DeviceType>& types);

} // namespace dlsim
