#include "sim/cli/progress.h"

#include <fmt/format.h>

#include <cstdio>

namespace dlsim {

void ProgressLine::on_decided(const View& view) {
  // Reading the clock costs little, but not nothing: look every 4096 decisions.
  if ((++calls_ & 4095U) != 0) return;
  auto now = std::chrono::steady_clock::now();
  if (now - started_ < std::chrono::seconds(1) ||
      now - last_print_ < std::chrono::milliseconds(250))
    return;
  last_print_ = now;
  printed_ = true;
  const SimState& s = view.raw();
  fmt::print(stderr, "\r  simulated {:.1f} h (last submit at {:.1f} h), jobs done {}/{}   ",
             to_seconds(s.now) / 3600, to_seconds(last_submit_) / 3600, s.finished, s.jobs.size());
  std::fflush(stderr);
}

void ProgressLine::on_run_end(const View&) {
  if (printed_) fmt::print(stderr, "\n");
}

} // namespace dlsim
