// The engine's side of the external-scheduler protocol (docs/protocol.md): the messages it sends,
// built from what a View shows, and the actions it reads back, applied through Control so that
// each is validated exactly as an in-process policy's.
#pragma once

#include "policies/placement.h"
#include "sim/runtime/control.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dlsim {

// 2: a node's state carries each device's guaranteed share and GPU memory held (packing).
inline constexpr int kProtocolVersion = 2;

enum class EventKind : std::uint8_t { kArrival, kFinish, kDone };

struct HelloInputs {
  Placement placement = Placement::kConsolidate;
  nlohmann::json options; // policy.params.options, as JSON
  std::uint64_t seed = 0;
};

// The first message: the protocol version, the cluster and the run's settings.
nlohmann::json hello_message(const View& view, const HelloInputs& in);

// What happened since the last decision. `nodes_since` and `jobs_since` are the ChangeLog
// stamps of the last message (nullopt: send every node and job that has a state).
struct DecisionInputs {
  std::uint64_t seq = 0;
  // What changed, in the order the runtime applied it: arrivals, finishes and completed actions.
  const std::vector<std::pair<EventKind, JobId>>* events = nullptr;
  bool everything = false;
  std::uint64_t nodes_since = 0;
  std::uint64_t jobs_since = 0;
};
nlohmann::json decision_message(const View& view, const DecisionInputs& in);

// Applies the reply's actions in order. Throws ProtocolError for a reply that breaks the
// protocol (naming the field) and lets Control's ActionError through for a refused action;
// `index` is set to the action being applied.
class ProtocolError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};
void apply_reply(Control& control, const nlohmann::json& reply, std::uint64_t seq,
                 std::size_t& index);

} // namespace dlsim
