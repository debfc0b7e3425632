// `dlsim net-solve`'s flows, solved and printed (net_solve.h).
#include "sim/cli/net_solve.h"

#include "sim/cli/sweep_csv.h"
#include "sim/engine/error.h"
#include "sim/network/network_model.h"
#include "workloads/formats/csv_rows.h"
#include "workloads/formats/trace_fields.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace dlsim {

namespace {

struct FlowRow {
  std::string label;
  Router::Vertex src = 0;
  Router::Vertex dst = 0;
  double cap = MaxMinSolver::kUnlimited;
};

std::optional<std::uint64_t> parse_uint(std::string_view text) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

// A device id, or "n<node>.socket<s>".
std::optional<Router::Vertex> parse_endpoint(const Router& router, const Cluster& c,
                                             std::string_view text) {
  if (auto d = parse_uint(text)) {
    if (*d >= c.devices.size()) return std::nullopt;
    return router.device_vertex(static_cast<DeviceId>(*d));
  }
  auto dot = text.find(".socket");
  if (text.size() < 2 || text[0] != 'n' || dot == std::string_view::npos) return std::nullopt;
  auto node = parse_uint(text.substr(1, dot - 1));
  auto socket = parse_uint(text.substr(dot + 7));
  if (!node || !socket || *node >= c.nodes.size()) return std::nullopt;
  if (*socket >=
      static_cast<std::uint64_t>(std::max(1, c.groups[c.nodes[*node].group].links.sockets))) {
    return std::nullopt;
  }
  return router.socket_vertex(static_cast<NodeId>(*node), static_cast<std::uint32_t>(*socket));
}

// A positive number of GB/s, or kUnlimited when empty.
double flow_cap(const char* text) {
  if (empty_field(text)) return MaxMinSolver::kUnlimited;
  double cap = 0;
  std::string_view s(text);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), cap);
  if (ec != std::errc() || end != s.data() + s.size() || !(cap > 0))
    throw FieldError{fmt::format("expected a positive number of GB/s, got '{}'", s)};
  return cap;
}

std::vector<FlowRow> read_flows(const std::string& file, const Router& router, const Cluster& c) {
  constexpr std::array<const char*, 4> kColumns = {"flow", "src", "dst", "cap_gbps"};
  auto header = read_csv_header(file);
  for (const char* required : {"src", "dst"}) {
    if (!has_column(header, required)) {
      throw InputError(fmt::format("{}:1: {}: required column missing from the header (columns: "
                                   "src, dst, and optionally flow, cap_gbps)",
                                   file, required));
    }
  }
  std::vector<FlowRow> rows;
  auto on_row = [&](const std::array<char*, 4>& cells, CsvRow& csv) {
    FlowRow row;
    row.label = !empty_field(cells[0]) ? cells[0] : std::to_string(rows.size());
    const char* names[2] = {"src", "dst"};
    Router::Vertex* ends[2] = {&row.src, &row.dst};
    for (int k = 0; k < 2; ++k) {
      csv.column = names[k];
      std::string_view text = cells[k + 1] != nullptr ? cells[k + 1] : "";
      auto v = parse_endpoint(router, c, text);
      if (!v) {
        throw FieldError{fmt::format("'{}' is not a device id (0 to {}) or a host socket "
                                     "n<node>.socket<s> of this cluster",
                                     text, c.devices.size() - 1)};
      }
      *ends[k] = *v;
    }
    if (row.src == row.dst) throw FieldError{"a flow needs two different endpoints"};
    csv.column = "cap_gbps";
    row.cap = flow_cap(cells[3]);
    rows.push_back(std::move(row));
  };
  csv_row_loop(CsvSource{file, CsvHeader::kNamed, header.size()}, kColumns, on_row, throw_bad_row);
  return rows;
}

const char* kind_name(LinkKind k) {
  switch (k) {
  case LinkKind::kPcie:
    return "pcie";
  case LinkKind::kHostBridge:
    return "host-bridge";
  case LinkKind::kSocketLink:
    return "socket-link";
  case LinkKind::kNvlink:
    return "nvlink";
  case LinkKind::kNic:
    return "nic";
  case LinkKind::kRackUplink:
    return "rack-uplink";
  }
  return "?";
}

} // namespace

std::string net_solve_text(const Cluster& cluster, const std::string& flows_file, bool with_links) {
  NetworkModel net(cluster);
  const Router& router = net.router();
  std::vector<FlowRow> rows = read_flows(flows_file, router, cluster);
  std::vector<NetworkModel::FlowId> ids;
  ids.reserve(rows.size());
  for (const FlowRow& r : rows)
    ids.push_back(net.add_flow(r.src, r.dst, r.cap));
  std::vector<std::uint32_t> ignored;
  net.update(ignored);

  const std::size_t links = cluster.topology.link_count();
  std::vector<std::uint32_t> flows_on(2 * links, 0);
  std::vector<double> load(2 * links, 0.0);
  std::string out = "flow,src,dst,rate_gbps,route\n";
  std::vector<Hop> hops;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    hops.clear();
    router.route(rows[i].src, rows[i].dst, hops);
    names.clear();
    double rate = net.rate_gb_s(ids[i]);
    for (const Hop& h : hops) {
      names.push_back(router.hop_name(h));
      ++flows_on[h.resource()];
      load[h.resource()] += rate;
    }
    out += fmt::format("{},{},{},{},{}\n", csv_field(rows[i].label),
                       router.endpoint_label(rows[i].src), router.endpoint_label(rows[i].dst), rate,
                       fmt::join(names, "|"));
  }
  if (with_links) {
    out += "\nlink,kind,gb_s,latency_us,flows,load_gbps\n";
    for (std::uint32_t l = 0; l < links; ++l) {
      const TopoLink& link = cluster.topology.link(l);
      for (bool reverse : {false, true}) {
        Hop h{l, reverse};
        out += fmt::format("{},{},{},{},{},{}\n", router.hop_name(h), kind_name(link.kind),
                           link.gb_s, link.latency_us, flows_on[h.resource()], load[h.resource()]);
      }
    }
  }
  return out;
}

} // namespace dlsim
