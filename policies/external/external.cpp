// The external policy: each decision instant becomes one `decide` message to a scheduler process
// and its one `actions` reply is applied through Control, validated as any policy's actions
// (docs/protocol.md). A scheduler that cannot be started, exits, does not answer within
// timeout_s, or answers with a malformed message or a refused action ends the run with an
// ActionError naming the decision, the simulated instant and the reply; the run directory is
// staged, so no summary.json is left (sim/report/result_dir.h).
#include "policies/external/external.h"

#include "policies/child_process.h"
#include "policies/external/messages.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

namespace dlsim {

namespace {

using nlohmann::json;

// policy.params.options as JSON for the hello message: YAML scalars that read as numbers or
// booleans become those, the rest strings.
json yaml_to_json(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return nullptr;
  if (n.IsSequence()) {
    json out = json::array();
    for (const auto& v : n)
      out.push_back(yaml_to_json(v));
    return out;
  }
  if (n.IsMap()) {
    json out = json::object();
    for (const auto& kv : n)
      out[kv.first.as<std::string>()] = yaml_to_json(kv.second);
    return out;
  }
  const std::string& s = n.Scalar();
  if (n.Tag() != "!") { // not quoted
    if (s == "true") return true;
    if (s == "false") return false;
    json parsed = json::parse(s, nullptr, false);
    if (parsed.is_number()) return parsed;
  }
  return s;
}

class External final : public Policy {
public:
  External(std::string command, double timeout_s, HelloInputs hello)
      : command_(std::move(command)), timeout_(static_cast<long long>(std::ceil(timeout_s * 1000))),
        hello_(std::move(hello)) {}

  void on_arrival(JobId j, const View&) override { events_.emplace_back(EventKind::kArrival, j); }
  void on_finish(JobId j, const View&) override { events_.emplace_back(EventKind::kFinish, j); }
  void on_action_done(JobId j, const View&) override { events_.emplace_back(EventKind::kDone, j); }

  void schedule(Control& control) override {
    const bool first = !child_;
    if (first) start(control);
    ++seq_;
    DecisionInputs in{seq_, &events_, first, nodes_stamp_, jobs_stamp_};
    std::string message = decision_message(control, in).dump();
    nodes_stamp_ = control.changes().nodes.stamp();
    jobs_stamp_ = control.changes().jobs.stamp();
    events_.clear();
    std::string line = exchange(control, message, fmt::format("decision {}", seq_));
    json reply = json::parse(line, nullptr, false);
    if (reply.is_discarded())
      fail(control, fmt::format("reply is not JSON: {}", quote_input(line)));
    std::size_t index = 0;
    try {
      apply_reply(control, reply, seq_, index);
    } catch (const ProtocolError& e) {
      fail(control, fmt::format("bad reply {}: {}", quote_input(line), e.what()));
    } catch (const ActionError& e) {
      fail(control, fmt::format("action {} refused: {}",
                                quote_input(reply["actions"][index].dump()), e.what()));
    }
  }

private:
  void start(Control& control) {
    try {
      child_ = std::make_unique<ChildProcess>(command_);
    } catch (const ActionError& e) {
      throw ActionError(fmt::format("external scheduler: {}", e.what()));
    }
    std::string line = exchange(control, hello_message(control, hello_).dump(), "hello");
    const json reply = json::parse(line, nullptr, false);
    const bool ready = reply.is_object() && reply.value("type", "") == "ready" &&
                       reply.contains("protocol") && reply["protocol"].is_number_integer();
    if (!ready) {
      fail(control, fmt::format("expected {{\"type\": \"ready\", \"protocol\": {}}} after hello, "
                                "got {}",
                                kProtocolVersion, quote_input(line)));
    }
    if (reply["protocol"].get<std::int64_t>() != kProtocolVersion) {
      fail(control, fmt::format("speaks protocol {}, dlsim speaks {} (docs/protocol.md)",
                                reply["protocol"].dump(), kProtocolVersion));
    }
  }

  // Sends one message and returns the one-line reply, or fails naming what happened.
  std::string exchange(const View& view, const std::string& message, const std::string& what) {
    if (!child_->write_line(message)) {
      fail(view, fmt::format("could not send the {}: the scheduler {}", what,
                             child_->exit_description(std::chrono::milliseconds(1000))));
    }
    std::string line;
    switch (child_->read_line(line, timeout_)) {
    case ChildProcess::ReadStatus::kLine:
      return line;
    case ChildProcess::ReadStatus::kClosed: {
      std::string how = child_->exit_description(std::chrono::milliseconds(1000));
      if (how == "still running") how = "closed its stdout";
      fail(view, fmt::format("the scheduler {} without answering the {}", how, what));
    }
    case ChildProcess::ReadStatus::kTooLong:
      fail(view, fmt::format("the answer to the {} is over {} MiB without a newline", what,
                             ChildProcess::kMaxLine >> 20U));
    case ChildProcess::ReadStatus::kTimeout:
      fail(view, fmt::format("no answer to the {} within {} s (policy.params.timeout_s)", what,
                             static_cast<double>(timeout_.count()) / 1000));
    }
    return line;
  }

  [[noreturn]] void fail(const View& view, const std::string& what) {
    child_->kill_now();
    throw ActionError(fmt::format(
        "external scheduler {}: at t={} s ({}): {}", quote_input(command_), to_seconds(view.now()),
        seq_ == 0 ? std::string("hello") : fmt::format("decision {}", seq_), what));
  }

  std::string command_;
  std::chrono::milliseconds timeout_;
  HelloInputs hello_;
  std::unique_ptr<ChildProcess> child_;
  std::uint64_t seq_ = 0;
  std::uint64_t nodes_stamp_ = 0;
  std::uint64_t jobs_stamp_ = 0;
  std::vector<std::pair<EventKind, JobId>> events_;
};

} // namespace

PolicyEntry external_policy() {
  return {"external",
          "a scheduler in another process, in any language, over dlsim's protocol "
          "(docs/protocol.md); `policy: {external: CMD}` or --policy external:CMD",
          false,
          {{"command", ParamType::kText, "\"\"",
            "the scheduler's command line, run with /bin/sh -c in the current directory"},
           {"timeout_s",
            ParamType::kSeconds,
            "10",
            "longest wait for one reply (the hello's included) before the run fails",
            {.min = 0, .max = 86400, .above_min = true}},
           {"options", ParamType::kYaml, "{}",
            "any YAML, passed to the scheduler as JSON in the hello message"}},
          [](const PolicySetup& s) -> std::unique_ptr<Policy> {
            std::string command = s.params.text("command");
            if (command.empty()) {
              throw InputError("policy.params.command: the external policy needs a command "
                               "(policy: {external: CMD}, or --policy external:CMD)");
            }
            double timeout = s.params.seconds("timeout_s");
            HelloInputs hello{s.placement, yaml_to_json(s.params.node("options")), s.seed};
            return std::make_unique<External>(std::move(command), timeout, std::move(hello));
          }};
}

} // namespace dlsim
