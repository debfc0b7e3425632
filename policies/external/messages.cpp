#include "policies/external/messages.h"

#include "sim/runtime/job.h"

#include <fmt/format.h>

#include <limits>

namespace dlsim {

using nlohmann::json;

namespace {

json node_state(const View& view, NodeId n) {
  const Node& node = view.cluster().nodes[n];
  // What a GPU-sharing controller reports of each device: its holders, the share guaranteed to
  // them (summed share_min) and the GPU memory they hold, so a packing scheduler sees the room
  // the runtime checks a pack against.
  json holders = json::array();
  json guaranteed = json::array();
  json gpu_mem = json::array();
  for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d) {
    const DeviceSlot& slot = view.device(d);
    holders.push_back(slot.count);
    guaranteed.push_back(slot.guaranteed);
    gpu_mem.push_back(slot.mem_gb);
  }
  return {{"id", n},
          {"cpu_free", view.node_cpu_free(n)},
          {"mem_free", view.node_mem_free(n)},
          {"holders", std::move(holders)},
          {"guaranteed", std::move(guaranteed)},
          {"gpu_mem_gb", std::move(gpu_mem)}};
}

// What a scheduler learns of a job when it is submitted (its request).
json job_request(const View& view, JobId j) {
  const JobRequest& r = view.request(j);
  const RequestDetails& d = view.details(j);
  json types = json::array();
  for (DeviceTypeId t : view.compatible_types(j))
    types.push_back(t);
  return {{"id", j},
          {"name", view.job_name(j)},
          {"submit", r.submit},
          {"workers", r.workers},
          {"devices_per_worker", r.devices_per_worker},
          {"min_workers", r.min_workers},
          {"max_workers", r.max_workers},
          {"ps", r.ps},
          {"ps_cpus", r.ps_cpus},
          {"cpus_per_worker", d.cpus_per_worker},
          {"mem_gb_per_worker", d.mem_gb_per_worker},
          {"gpu_mem_gb", d.gpu_mem_gb},
          {"gpu_share_min", d.gpu_share_min},
          {"gpu_share_max", d.gpu_share_max},
          {"requested_time_s", d.requested_time_s},
          {"priority", r.priority},
          {"user", view.user_names()[r.user]},
          {"queue", view.queue_names()[r.queue]},
          {"model", view.model_names()[r.model]},
          {"types", std::move(types)}};
}

// A job's state: its counters as the runtime last settled them, with the time they are exact at
// (last_update), so that the scheduler adds the run since then exactly as job.h's attained_at.
json job_state(const View& view, JobId j) {
  const JobState& s = view.state(j);
  json devices = json::array();
  for (DeviceId d : s.devices)
    devices.push_back(d);
  json out = {{"id", j},
              {"status", to_string(s.status)},
              {"devices", std::move(devices)},
              {"done", s.done},
              {"attained", s.attained},
              {"run_time", s.run_time},
              {"last_update", s.last_update},
              {"iter_s", view.measured_iteration_s(j)},
              {"preemptions", static_cast<std::uint64_t>(s.preemptions)}};
  if (auto util = view.measured_gpu_util(j)) out["gpu_util"] = *util;
  return out;
}

// --- reading a reply ---

[[noreturn]] void bad(const std::string& what) {
  throw ProtocolError(what);
}

std::uint64_t whole(const json& v, const std::string& where, std::uint64_t most) {
  if (!v.is_number_integer() ||
      (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
    bad(fmt::format("{}: expected a whole number >= 0, got {}", where, v.dump()));
  auto x = v.get<std::uint64_t>();
  if (x > most) bad(fmt::format("{}: {} is out of range (at most {})", where, x, most));
  return x;
}

double number(const json& a, const char* key, const std::string& where) {
  auto it = a.find(key);
  if (it == a.end() || !it->is_number()) bad(fmt::format("{}.{}: expected a number", where, key));
  return it->get<double>();
}

std::vector<DeviceId> id_list(const json& a, const char* key, const std::string& where,
                              std::size_t count) {
  auto it = a.find(key);
  if (it == a.end()) return {};
  if (!it->is_array()) bad(fmt::format("{}.{}: expected a list of ids", where, key));
  std::vector<DeviceId> out;
  out.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    out.push_back(
        static_cast<DeviceId>(whole((*it)[i], fmt::format("{}.{}[{}]", where, key, i), count - 1)));
  }
  return out;
}

} // namespace

json hello_message(const View& view, const HelloInputs& in) {
  const Cluster& c = view.cluster();
  json types = json::array();
  for (const DeviceType& t : c.types) {
    types.push_back({{"name", t.name}, {"kind", to_string(t.kind)}, {"memory_gb", t.memory_gb}});
  }
  json nodes = json::array();
  for (const Node& n : c.nodes) {
    nodes.push_back({{"rack", n.rack},
                     {"first_device", n.first_device},
                     {"device_count", n.device_count},
                     {"cpu_cores", n.cpu_cores},
                     {"memory_gb", n.memory_gb}});
  }
  json devices = json::array();
  for (const Device& d : c.devices)
    devices.push_back({{"type", d.type}, {"node", d.node}});
  const Costs& k = view.config().costs;
  return {{"type", "hello"},
          {"protocol", kProtocolVersion},
          {"placement", to_string(in.placement)},
          {"options", in.options},
          {"seed", in.seed},
          {"oracle", false},
          {"jobs", view.job_count()},
          {"config",
           {{"profile_s", view.config().profile_s},
            {"costs",
             {{"start_s", k.start_s},
              {"suspend_s", k.suspend_s},
              {"resume_s", k.resume_s},
              {"migrate_s", k.migrate_s},
              {"resize_s", k.resize_s},
              {"switch_s", k.switch_s},
              {"set_share_s", k.set_share_s}}}}},
          {"cluster", {{"types", types}, {"nodes", nodes}, {"devices", devices}}}};
}

json decision_message(const View& view, const DecisionInputs& in) {
  json arrived = json::array();
  json events = json::array();
  for (auto [kind, j] : *in.events) {
    if (kind == EventKind::kArrival) arrived.push_back(job_request(view, j));
    events.push_back(json::array({kind == EventKind::kArrival  ? "arrival"
                                  : kind == EventKind::kFinish ? "finish"
                                                               : "done",
                                  j}));
  }
  json jobs = json::array();
  auto add_job = [&](std::uint32_t j) {
    if (view.state(j).status != JobStatus::kFuture) jobs.push_back(job_state(view, j));
  };
  if (in.everything || !view.changes().jobs.for_each_since(in.jobs_since, add_job)) {
    jobs = json::array();
    for (JobId j = 0; j < view.job_count(); ++j)
      add_job(j);
  }
  json nodes = json::array();
  auto add_node = [&](std::uint32_t n) { nodes.push_back(node_state(view, n)); };
  if (in.everything || !view.changes().nodes.for_each_since(in.nodes_since, add_node)) {
    nodes = json::array();
    for (NodeId n = 0; n < view.cluster().nodes.size(); ++n)
      add_node(n);
  }
  return {{"type", "decide"},         {"seq", in.seq},    {"t", view.now()},
          {"arrived", arrived},       {"events", events}, {"jobs", std::move(jobs)},
          {"nodes", std::move(nodes)}};
}

namespace {

// The reply's envelope: an object of type "actions" answering decision `seq`.
void check_envelope(const json& reply, std::uint64_t seq) {
  if (!reply.is_object()) bad("expected a JSON object");
  auto type = reply.find("type");
  if (type == reply.end() || *type != "actions") bad("type: expected \"actions\"");
  auto s = reply.find("seq");
  if (s == reply.end() || !s->is_number_unsigned() || s->get<std::uint64_t>() != seq)
    bad(fmt::format("seq: expected {}, the decision's", seq));
}

// An action's optional reason ("" when none).
std::string action_reason(const json& a, const std::string& where) {
  auto r = a.find("reason");
  if (r == a.end()) return "";
  if (!r->is_string()) bad(where + ".reason: expected a string");
  return r->get<std::string>();
}

// Gives action `a` (at `where` in the reply) to Control. The ids are checked against the cluster
// here; everything else is Control's to refuse.
void apply_action(Control& control, const json& a, const std::string& where) {
  if (!a.is_object()) bad(where + ": expected an object");
  auto op_it = a.find("op");
  if (op_it == a.end() || !op_it->is_string()) bad(where + ".op: expected a string");
  const std::string op = op_it->get<std::string>();
  auto job_it = a.find("job");
  if (job_it == a.end()) bad(where + ".job: missing");
  const auto j = static_cast<JobId>(whole(*job_it, where + ".job", control.job_count() - 1));
  const std::string reason = action_reason(a, where);
  auto devs = [&] { return id_list(a, "devices", where, control.cluster().devices.size()); };
  if (op == "start") {
    control.start(j, devs(), reason);
  } else if (op == "pack") {
    control.pack(j, devs(), reason);
  } else if (op == "timeslice") {
    control.timeslice(j, devs(), number(a, "slice_s", where), reason);
  } else if (op == "suspend") {
    control.suspend(j, reason);
  } else if (op == "resume") {
    control.resume(j, devs(), reason);
  } else if (op == "migrate") {
    control.migrate(j, devs(), reason);
  } else if (op == "resize") {
    control.resize(j, devs(), reason);
  } else if (op == "set_share") {
    control.set_share(j, number(a, "min", where), number(a, "max", where), reason);
  } else if (op == "set_ps") {
    auto ps = a.find("ps");
    if (ps == a.end()) bad(where + ".ps: missing");
    control.set_ps(j, static_cast<std::uint32_t>(whole(*ps, where + ".ps", 1U << 20U)), reason);
  } else if (op == "set_cpus") {
    control.set_cpus(j, number(a, "ps_cores", where), number(a, "worker_cores", where), reason);
  } else if (op == "cancel") {
    control.cancel(j, reason);
  } else if (op == "start_on_nodes") {
    std::vector<DeviceId> ids = id_list(a, "nodes", where, control.cluster().nodes.size());
    std::vector<NodeId> ns(ids.begin(), ids.end());
    control.start_on_nodes(j, ns, reason);
  } else if (op == "bind") {
    control.bind(j, devs(), reason);
  } else if (op == "unbind") {
    control.unbind(j, reason);
  } else {
    bad(fmt::format("{}.op: unknown action '{}' (known: start, pack, timeslice, suspend, "
                    "resume, migrate, resize, set_share, set_ps, set_cpus, cancel, "
                    "start_on_nodes, bind, unbind)",
                    where, op));
  }
}

// The reply's wake_at: one time or a list, each after now.
void apply_wakes(Control& control, const json& reply) {
  auto wake = reply.find("wake_at");
  if (wake == reply.end() || wake->is_null()) return;
  const auto now = static_cast<std::uint64_t>(control.now());
  const auto check = [&](const json& t, const std::string& where) {
    auto at = whole(t, where, static_cast<std::uint64_t>(kMaxTime));
    if (at <= now) bad(fmt::format("{}: {} is not after now ({})", where, at, now));
    control.wake_at(static_cast<SimTime>(at));
  };
  if (wake->is_array()) {
    for (std::size_t i = 0; i < wake->size(); ++i)
      check((*wake)[i], fmt::format("wake_at[{}]", i));
  } else {
    check(*wake, "wake_at");
  }
}

} // namespace

void apply_reply(Control& control, const json& reply, std::uint64_t seq, std::size_t& index) {
  check_envelope(reply, seq);
  auto actions = reply.find("actions");
  if (actions != reply.end() && !actions->is_array()) bad("actions: expected a list");
  if (actions != reply.end()) {
    for (index = 0; index < actions->size(); ++index)
      apply_action(control, (*actions)[index], fmt::format("actions[{}]", index));
  }
  index = 0;
  apply_wakes(control, reply);
}

} // namespace dlsim
