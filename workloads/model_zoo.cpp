#include "workloads/model_zoo.h"

#include "sim/config/yaml_reader.h"

#include <fmt/format.h>

#include <cmath>

namespace dlsim {

std::optional<std::size_t> ModelZoo::find(const std::string& name) const {
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (models[i].name == name) return i;
  }
  return std::nullopt;
}

namespace {

double read_fraction(YamlMap& m, const std::string& key) {
  auto v = m.require<double>(key);
  if (v < 0 || v > 1) yaml_fail(m.where_of(key), m.child(key), "must be between 0 and 1");
  return v;
}

double read_positive(YamlMap& m, const std::string& key) {
  auto v = m.require<double>(key);
  if (!(v > 0)) yaml_fail(m.where_of(key), m.child(key), "must be positive");
  return v;
}

double read_count(YamlMap& m, const std::string& key) {
  auto v = m.require<double>(key);
  if (!(v >= 0) || v != std::floor(v)) {
    yaml_fail(m.where_of(key), m.child(key), "must be a whole number >= 0");
  }
  return v;
}

// The computation-graph counts a utilization predictor reads (docs/models.md#graph-features).
void read_graph(YamlMap& model, ModelInfo& info) {
  YamlMap g(model.child("graph"), model.where_of("graph"));
  info.has_graph = true;
  info.conv_layers = read_count(g, "conv_layers");
  info.linear_layers = read_count(g, "linear_layers");
  info.recurrent_layers = read_count(g, "recurrent_layers");
  info.activation_mb = read_positive(g, "activation_mb");
  g.done();
}

} // namespace

ModelZoo load_model_zoo(const std::string& file) {
  ModelZoo zoo;
  zoo.file = file;
  YamlMap root(load_yaml_file(file), YamlWhere{file, ""});
  zoo.reference_device = root.get<std::string>("reference_device", zoo.reference_device);
  YAML::Node models = root.child("models");
  YamlWhere mw = root.where_of("models");
  if (!models.IsMap() || models.size() == 0)
    yaml_fail(mw, models, "expected a mapping of model name to its facts");
  for (const auto& kv : models) {
    ModelInfo info;
    info.name = kv.first.as<std::string>();
    YamlMap m(kv.second, YamlWhere{file, mw.path + "." + info.name});
    info.family = m.require<std::string>("family");
    info.params_m = read_positive(m, "params_m");
    info.gflops_per_sample = read_positive(m, "gflops_per_sample");
    info.batch_size = read_positive(m, "batch_size");
    info.gpu_util = read_fraction(m, "gpu_util");
    info.gpu_mem_gb = read_positive(m, "gpu_mem_gb");
    info.comm_overlap = read_fraction(m, "comm_overlap");
    info.input_mb_per_sample = m.get<double>("input_mb_per_sample", 0.0);
    if (m.has("graph")) read_graph(m, info);
    info.drawn = m.get<bool>("drawn", true);
    info.measured_as = m.get<std::string>("measured_as", "");
    YAML::Node times = m.child("iteration_time_s");
    YamlWhere tw = m.where_of("iteration_time_s");
    if (!times.IsMap() || times.size() == 0)
      yaml_fail(tw, times, "expected a mapping of device type to seconds");
    for (const auto& t : times) {
      auto dev = t.first.as<std::string>();
      auto v = yaml_as<double>(t.second, YamlWhere{file, tw.path + "." + dev});
      if (!(v > 0)) yaml_fail(YamlWhere{file, tw.path + "." + dev}, t.second, "must be positive");
      info.iteration_time_s[dev] = v;
    }
    if (m.has("unsupported")) {
      YAML::Node no = m.child("unsupported");
      YamlWhere uw = m.where_of("unsupported");
      if (!no.IsMap()) yaml_fail(uw, no, "expected a mapping of device type to the reason");
      for (const auto& t : no) {
        auto dev = t.first.as<std::string>();
        YamlWhere dw{file, uw.path + "." + dev};
        if (info.iteration_time_s.count(dev))
          yaml_fail(dw, t.second, "also has an iteration_time_s entry; give one or the other");
        auto why = yaml_as<std::string>(t.second, dw);
        if (why.empty()) yaml_fail(dw, t.second, "give the reason the model cannot run there");
        info.unsupported[dev] = why;
      }
    }
    if (!info.iteration_time_s.count(zoo.reference_device)) {
      yaml_fail(tw, times,
                fmt::format("needs a time for the reference device {}", zoo.reference_device));
    }
    m.done();
    zoo.models.push_back(std::move(info));
  }
  root.done();
  if (drawn_models(zoo).empty())
    yaml_fail(mw, models, "every model is `drawn: false`; draws need one");
  return zoo;
}

std::vector<std::size_t> drawn_models(const ModelZoo& zoo) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < zoo.models.size(); ++i) {
    if (zoo.models[i].drawn) out.push_back(i);
  }
  return out;
}

} // namespace dlsim
