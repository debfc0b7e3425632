#include "sim/runtime/failure_model.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace dlsim {

std::uint32_t component_count(const Cluster& c) {
  return static_cast<std::uint32_t>(c.devices.size() + 2 * c.nodes.size());
}

Component component_of(const Cluster& c, std::uint32_t id) {
  const auto d = static_cast<std::uint32_t>(c.devices.size());
  const auto n = static_cast<std::uint32_t>(c.nodes.size());
  if (id < d) return {ComponentKind::kDevice, id};
  if (id < d + n) return {ComponentKind::kNode, id - d};
  return {ComponentKind::kLink, id - d - n};
}

std::uint32_t component_id(const Cluster& c, Component comp) {
  const auto d = static_cast<std::uint32_t>(c.devices.size());
  const auto n = static_cast<std::uint32_t>(c.nodes.size());
  switch (comp.kind) {
  case ComponentKind::kDevice:
    return comp.index;
  case ComponentKind::kNode:
    return d + comp.index;
  case ComponentKind::kLink:
    return d + n + comp.index;
  }
  return comp.index;
}

std::string component_name(const Cluster& c, std::uint32_t id) {
  Component comp = component_of(c, id);
  const char* kind = comp.kind == ComponentKind::kDevice ? "device"
                     : comp.kind == ComponentKind::kNode ? "node"
                                                         : "link";
  return fmt::format("{}:{}", kind, comp.index);
}

std::optional<std::uint32_t> parse_component(const Cluster& c, std::string_view name) {
  auto colon = name.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view kind = name.substr(0, colon);
  std::string_view number = name.substr(colon + 1);
  std::uint32_t index = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), index);
  if (ec != std::errc() || end != number.data() + number.size() || number.empty())
    return std::nullopt;
  if (kind == "device" && index < c.devices.size())
    return component_id(c, {ComponentKind::kDevice, index});
  if (kind == "node" && index < c.nodes.size())
    return component_id(c, {ComponentKind::kNode, index});
  if (kind == "link" && index < c.nodes.size())
    return component_id(c, {ComponentKind::kLink, index});
  return std::nullopt;
}

DeviceRange devices_of(const Cluster& c, std::uint32_t id) {
  Component comp = component_of(c, id);
  if (comp.kind == ComponentKind::kDevice) return {comp.index, 1};
  const Node& n = c.nodes[comp.index];
  return {n.first_device, n.device_count};
}

const FailureProcess* process_of(const Cluster& c, const FailureConfig& f, std::uint32_t id) {
  Component comp = component_of(c, id);
  switch (comp.kind) {
  case ComponentKind::kDevice:
    if (c.type_of(comp.index).kind != DeviceKind::kGpu) return nullptr;
    return f.device_by_type.empty() ? &f.device : &f.device_by_type[c.devices[comp.index].type];
  case ComponentKind::kNode:
    return &f.node;
  case ComponentKind::kLink:
    return &f.link;
  }
  return nullptr;
}

double draw_uptime_s(const FailureProcess& p, Rng& rng) {
  const double mean_s = p.mtbf_h * 3600.0;
  if (p.distribution == "weibull" && p.shape != 1.0) {
    // Inverse transform: F(t) = 1 - exp(-(t / scale)^k).
    const double scale = mean_s / std::tgamma(1.0 + 1.0 / p.shape);
    return scale * std::pow(-std::log1p(-rng.uniform01()), 1.0 / p.shape);
  }
  return rng.exponential(1.0 / mean_s);
}

double draw_repair_s(const FailureProcess& p, Rng& rng) {
  const double mean_s = p.repair_h * 3600.0;
  if (p.repair == "fixed" || mean_s <= 0) return mean_s;
  return rng.exponential(1.0 / mean_s);
}

double young_interval_s(double checkpoint_s, double mtbf_s) {
  return std::sqrt(2.0 * checkpoint_s * mtbf_s);
}

double daly_interval_s(double checkpoint_s, double mtbf_s) {
  if (checkpoint_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = checkpoint_s / (2.0 * mtbf_s);
  return young_interval_s(checkpoint_s, mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) -
         checkpoint_s;
}

double job_mtbf_s(const FailureConfig& f, double gpus, double nodes) {
  const double per_h = gpus / f.device.mtbf_h + nodes / f.node.mtbf_h + nodes / f.link.mtbf_h;
  return 3600.0 / per_h;
}

} // namespace dlsim
