// Selecting part of a trace, the same way for every format, between reading it and building the
// workload: the time origin, failed jobs, one virtual cluster, a time window and a seeded
// sample (docs/traces.md#selecting-part-of-a-trace).
#pragma once

#include "workloads/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dlsim {

// The experiment's trace.time_origin, .drop_failed, .vc, .window and .sample.
struct TraceSelection {
  std::string time_origin = "first-submit"; // or seconds in the trace's clock, or a date-time
  bool drop_failed = false;                 // drop jobs the trace marks failed or killed
  std::string vc;                           // keep this queue / virtual cluster only ("" = all)
  std::string window;                       // "START:END", seconds after the origin ("" = all)
  std::uint64_t sample = 0;                 // keep this many jobs, drawn without replacement
};

// What the selection did, for the user.
struct SelectionReport {
  std::size_t read = 0;
  std::size_t dropped_failed = 0;
  std::size_t dropped_killed = 0;
  std::size_t other_vc = 0;
  std::size_t before_origin = 0;
  std::size_t outside_window = 0;
  std::size_t not_sampled = 0;
  std::size_t kept = 0;
  double origin_s = 0;     // time zero, in the trace's own clock
  double shift_s = 0;      // subtracted from every submit time (origin + window start)
  std::string origin_text; // how the origin was chosen
  // One line per step that changed something (nothing when the selection kept the trace as is).
  [[nodiscard]] std::vector<std::string> lines() const;
};

// The first problem with the options alone, as (key under trace:, what is wrong); nullopt if
// none. check_selection throws it as an InputError "trace.KEY: what".
std::optional<std::pair<std::string, std::string>>
selection_problem(const TraceSelection& selection);
void check_selection(const TraceSelection& selection);

// Applies the selection in this order: origin (computed from the whole trace as read), drop
// failed, VC, jobs before the origin, window, sample. Kept jobs keep their file order, and their
// submit times become seconds after the origin (after the window's start when there is one).
// An InputError if nothing is left, or if the VC names no job.
SelectionReport select_trace(Trace& trace, const TraceSelection& selection, std::uint64_t seed);

} // namespace dlsim
