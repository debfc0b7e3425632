// A progress line on stderr for long runs (`dlsim run --progress`, the default on a terminal):
// simulated time, jobs done and an estimate of the wall time left, at most once a second. On a
// terminal the line rewrites itself; into a log each report is a line of its own, and the run's
// end adds a last line.
#pragma once

#include "sim/runtime/observer.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace dlsim {

// The wall time left when `fraction` (0..1] of the work took `elapsed_s`, if the rest goes at
// the same pace; negative when nothing is done yet (no estimate).
double progress_eta_s(double fraction, double elapsed_s);

// "45 s", "12 min", "3.2 h": a wall-clock duration for a person.
std::string wall_duration(double seconds);

class ProgressLine final : public RunObserver {
public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // `terminal`: rewrite one line with \r; else a line per report. `until`: the run's time
  // limit (kNever for none), which bounds the fraction done from below.
  ProgressLine(
      SimTime last_submit, SimTime until, std::FILE* out, bool terminal,
      Clock clock = [] { return std::chrono::steady_clock::now(); });
  void on_decided(const View& view) override;
  void on_run_end(const View& view) override;

  // The report for this state, `elapsed_s` of wall time into the run (what on_decided prints).
  [[nodiscard]] std::string line(const View& view, double elapsed_s) const;

private:
  SimTime last_submit_, until_;
  std::FILE* out_;
  bool terminal_;
  Clock clock_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_print_;
  unsigned calls_ = 0;
  bool printed_ = false;
};

} // namespace dlsim
