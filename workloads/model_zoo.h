// The model zoo: public facts about common DL models and their measured time per iteration
// on each device type (configs/models/zoo.yaml, documented in docs/models.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dlsim {

struct ModelInfo {
  std::string name;
  std::string family;
  double params_m = 0;
  double gflops_per_sample = 0;
  double batch_size = 0;
  double gpu_util = 0;
  double gpu_mem_gb = 0;
  double comm_overlap = 0;
  double input_mb_per_sample = 0;
  // The optional `graph` counts (docs/models.md#graph-features); has_graph false without them.
  bool has_graph = false;
  double conv_layers = 0;
  double linear_layers = 0;
  double recurrent_layers = 0;
  double activation_mb = 0;
  std::map<std::string, double> iteration_time_s; // by device type name
  // Device types the model cannot train on, with the reason (docs/models.md): placement never
  // uses them and a job pinned to one is rejected with that reason.
  std::map<std::string, std::string> unsupported;
  // False for a model kept out of every seeded draw over the zoo (`drawn: false`,
  // docs/models.md#models-kept-out-of-draws): a model added for one trace's jobs must not move
  // the draws that generated workloads already made.
  bool drawn = true;
  // The name under which a measurement set knows this same job (`measured_as`, e.g. Gavel's
  // `gavel_resnet50_bs32` for the zoo's ResNet-50 at batch 32): measured co-location pairs of
  // that name apply to this model (docs/runtime.md#measured-pairs). "" for none.
  std::string measured_as;
};

struct ModelZoo {
  std::string file;
  std::string reference_device = "V100";
  std::vector<ModelInfo> models; // file order

  [[nodiscard]] std::optional<std::size_t> find(const std::string& name) const;
};

ModelZoo load_model_zoo(const std::string& file);

// The indices into zoo.models that seeded draws choose among, in file order: every model but
// those marked `drawn: false`.
std::vector<std::size_t> drawn_models(const ModelZoo& zoo);

} // namespace dlsim
