#include "sim/cli/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

double progress_eta_s(double fraction, double elapsed_s) {
  if (!(fraction > 0)) return -1;
  return elapsed_s * (1 - std::min(fraction, 1.0)) / fraction;
}

std::string wall_duration(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

ProgressLine::ProgressLine(SimTime last_submit, SimTime until, std::FILE* out, bool terminal,
                           Clock clock)
    : last_submit_(last_submit), until_(until), out_(out), terminal_(terminal),
      clock_(std::move(clock)), started_(clock_()), last_print_(started_) {}

std::string ProgressLine::line(const View& view, double elapsed_s) const {
  const SimState& s = view.raw();
  const std::size_t jobs = s.jobs.size();
  const std::size_t done = std::size_t{s.finished} + s.cancelled;
  // The share of the run behind us: jobs over, or the simulated time against a --until limit,
  // whichever is further. The ETA assumes the rest goes at the pace so far: jobs that wait
  // long at the end (a long tail) make it too short.
  double fraction = jobs > 0 ? static_cast<double>(done) / static_cast<double>(jobs) : 1.0;
  if (until_ != kNever && until_ > 0)
    fraction = std::max(fraction, std::min(1.0, static_cast<double>(s.now) / until_));
  const double eta = progress_eta_s(fraction, elapsed_s);
  return fmt::format("simulated {:.1f} h (last submit at {:.1f} h), jobs done {}/{} ({:.1f}%), "
                     "{} elapsed, ETA {}",
                     to_seconds(s.now) / 3600, to_seconds(last_submit_) / 3600, done, jobs,
                     100 * fraction, wall_duration(elapsed_s),
                     eta < 0 ? std::string("unknown") : wall_duration(eta));
}

void ProgressLine::on_decided(const View& view) {
  // Reading the clock costs some 20 ns: look every 64 decisions, which even the fastest
  // policies take far less than a second to make.
  if ((++calls_ & 63U) != 0) return;
  const auto now = clock_();
  if (now - last_print_ < std::chrono::seconds(1)) return;
  last_print_ = now;
  printed_ = true;
  const std::string text = line(view, std::chrono::duration<double>(now - started_).count());
  if (terminal_)
    fmt::print(out_, "\r  {}   ", text); // spaces: wipe the end of a longer line before
  else
    fmt::print(out_, "progress: {}\n", text);
  std::fflush(out_);
}

void ProgressLine::on_run_end(const View& view) {
  if (terminal_) {
    if (printed_) fmt::print(out_, "\n");
  } else {
    const auto elapsed = std::chrono::duration<double>(clock_() - started_).count();
    fmt::print(out_, "progress: {} (end)\n", line(view, elapsed));
  }
  std::fflush(out_);
}

} // namespace dlsim
