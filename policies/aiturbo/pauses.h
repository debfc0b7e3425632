// What AITurbo's moves cost, as it observed them (docs/aiturbo.md#resource-adjustment): the time
// from a move it made to the end of the job's pause (Policy::on_action_done), by kind of move,
// so that a move's remaining service counts the pause it will likely cost, not the runtime's
// cost formula.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dlsim {

// A change of workers or servers (Control::resize, set_ps: runtime.resize's mechanism), or of
// cores (Control::set_cpus: a TensorFlow restart).
enum class PauseKind : std::uint8_t { kResize, kCores };

// Before any pause of a kind is observed: an estimate, a TensorFlow job's checkpoint and restart
// (tens of seconds; plausible 1 to 60 s: a live change takes about a second, a restart of a large
// model a minute).
constexpr double kPausePriorS = 30;

class PauseLog {
public:
  // Job j, of model `model`, was just asked to make a move of `kind` at `now`.
  void issued(JobId j, ModelId model, PauseKind kind, SimTime now);
  // Job j's action ended at `now`: the pause of its move, if one was issued, is observed.
  void done(JobId j, SimTime now);
  // Job j left: a move it had issued is not observed.
  void forget(JobId j) { pending_.erase(j); }
  // Seconds a move of `kind` of a job of `model` will likely pause it: the mean of the pauses of
  // that kind observed for jobs of the same model, else for any job, else kPausePriorS.
  [[nodiscard]] double estimate(ModelId model, PauseKind kind) const;

private:
  struct Mean {
    double sum = 0;
    std::uint32_t n = 0;
  };
  struct Pending {
    SimTime at = 0;
    ModelId model = 0;
    PauseKind kind = PauseKind::kResize;
  };
  std::unordered_map<JobId, Pending> pending_;
  std::vector<Mean> by_model_[2]; // [kind][model]
  Mean all_[2];                   // [kind]
};

} // namespace dlsim
