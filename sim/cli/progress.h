// A progress line on stderr for long runs in a terminal: simulated time and jobs done.
#pragma once

#include "sim/runtime/observer.h"

#include <chrono>

namespace dlsim {

class ProgressLine final : public RunObserver {
public:
  explicit ProgressLine(SimTime last_submit)
      : last_submit_(last_submit), started_(std::chrono::steady_clock::now()) {}
  void on_decided(const View& view) override;
  void on_run_end(const View& view) override;

private:
  SimTime last_submit_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_print_{};
  unsigned calls_ = 0;
  bool printed_ = false;
};

} // namespace dlsim
