#include "workloads/trace_select.h"

#include "sim/engine/error.h"
#include "sim/engine/rng.h"
#include "workloads/formats/datetime_field.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <variant>

namespace dlsim {

namespace {

std::optional<double> number(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

struct Window {
  double start = 0;
  double end = std::numeric_limits<double>::infinity();
};

// "START:END" with either side possibly empty (0 and the end of the trace); an error text for
// a bad one.
std::variant<Window, std::string> parse_window(const std::string& text) {
  Window w;
  auto colon = text.find(':');
  auto bad = [&](const char* why) {
    return fmt::format(
        "expected START:END in seconds after the time origin, e.g. 0:86400, got '{}': {}", text,
        why);
  };
  if (colon == std::string::npos) return bad("no ':'");
  std::string_view a = std::string_view(text).substr(0, colon);
  std::string_view b = std::string_view(text).substr(colon + 1);
  if (a.find_first_not_of(' ') != std::string_view::npos) {
    auto v = number(a);
    if (!v) return bad("START is not a number");
    w.start = *v;
  }
  if (b.find_first_not_of(' ') != std::string_view::npos) {
    auto v = number(b);
    if (!v) return bad("END is not a number");
    w.end = *v;
  }
  if (w.start < 0) return bad("START must not be negative");
  if (!(w.end > w.start)) return bad("END must be after START");
  return w;
}

struct Origin {
  double s = 0;
  std::string text;
  // The origin is the least submit and no submit is infinite: then no job is before it, and
  // without a window none is outside one.
  bool least_finite = false;
  // Every submit is a number no smaller than the one before (found by the same pass).
  bool in_order = false;
};

// The origin in the trace's clock, with a description.
Origin resolve_origin(const Trace& trace, const std::string& text) {
  if (text == "first-submit" || text.empty()) {
    double first = std::numeric_limits<double>::infinity();
    double last = -std::numeric_limits<double>::infinity();
    bool in_order = true;
    double previous = -std::numeric_limits<double>::infinity();
    for (const auto& j : trace.jobs) {
      first = std::min(first, j.submit_s);
      last = std::max(last, j.submit_s);
      in_order = in_order && previous <= j.submit_s; // false from a NaN on
      previous = j.submit_s;
    }
    if (trace.jobs.empty()) return {0, "the first submit", true, true};
    return {first, "the first submit", std::isfinite(first) && std::isfinite(last), in_order};
  }
  if (auto v = number(text)) return {*v, "trace.time_origin"};
  if (auto t = parse_datetime(text)) return {static_cast<double>(*t), text};
  throw InputError(
      fmt::format("trace.time_origin: expected first-submit, a number of seconds or a time "
                  "YYYY-MM-DD HH:MM:SS, got '{}'",
                  text));
}

std::string describe_time(double s) {
  // Calendar traces count seconds from 1970: show those as dates too.
  if (s >= 1e8 && s < 1e10 && s == std::floor(s)) {
    return fmt::format("{} ({} s)", format_datetime(static_cast<std::int64_t>(s)), s);
  }
  return fmt::format("{} s", s);
}

} // namespace

std::optional<std::pair<std::string, std::string>> selection_problem(const TraceSelection& s) {
  if (!s.window.empty()) {
    auto w = parse_window(s.window);
    if (auto* why = std::get_if<std::string>(&w)) return std::pair{std::string("window"), *why};
  }
  if (!(s.time_origin == "first-submit" || number(s.time_origin) ||
        parse_datetime(s.time_origin))) {
    return std::pair{
        std::string("time_origin"),
        fmt::format(
            "expected first-submit, a number of seconds or a time YYYY-MM-DD HH:MM:SS, got '{}'",
            s.time_origin)};
  }
  return std::nullopt;
}

void check_selection(const TraceSelection& s) {
  if (auto problem = selection_problem(s)) {
    throw InputError(fmt::format("trace.{}: {}", problem->first, problem->second));
  }
}

std::vector<std::string> SelectionReport::lines() const {
  std::vector<std::string> out;
  if (shift_s != 0) {
    std::string text = origin_text == "the first submit" ? origin_text : "trace.time_origin";
    out.push_back(fmt::format("time zero: {} = {}{}", text, describe_time(origin_s),
                              shift_s != origin_s
                                  ? fmt::format("; submit times count from the window's start, {}",
                                                describe_time(shift_s))
                                  : ""));
  }
  if (dropped_failed + dropped_killed > 0) {
    out.push_back(fmt::format("drop_failed: dropped {} failed and {} killed jobs", dropped_failed,
                              dropped_killed));
  }
  if (other_vc > 0) out.push_back(fmt::format("vc: dropped {} jobs of other VCs", other_vc));
  if (before_origin > 0)
    out.push_back(
        fmt::format("time_origin: dropped {} jobs submitted before time zero", before_origin));
  if (outside_window > 0)
    out.push_back(fmt::format("window: dropped {} jobs submitted outside it", outside_window));
  if (not_sampled > 0)
    out.push_back(fmt::format("sample: kept {} of {} jobs", kept, kept + not_sampled));
  if (kept != read) out.push_back(fmt::format("selected {} of {} jobs", kept, read));
  return out;
}

namespace {

// The name id of VC `vc` in the trace's queues; an InputError listing the trace's VCs when no job
// is in it.
std::uint32_t vc_id(const Trace& trace, const std::string& vc) {
  const auto& names = trace.queues.names();
  auto it = std::find(names.begin(), names.end(), vc);
  if (it != names.end()) return static_cast<std::uint32_t>(it - names.begin());
  std::vector<std::string> known;
  for (const auto& n : names) {
    if (!n.empty()) known.push_back(n);
  }
  std::string listed =
      known.empty()
          ? "the trace names no VC"
          : fmt::format("its VCs: {}{}",
                        fmt::join(known.begin(),
                                  known.begin() + static_cast<std::ptrdiff_t>(
                                                      std::min<std::size_t>(known.size(), 20)),
                                  ", "),
                        known.size() > 20 ? fmt::format(" and {} more", known.size() - 20) : "");
  throw InputError(
      fmt::format("trace.vc: no job of {} is in VC '{}' ({})", trace.file, vc, listed));
}

// Which jobs a selection keeps, besides its sample.
struct Filter {
  bool drop_failed = false;
  std::uint32_t vc = kNoString; // kNoString: every VC
  double origin = 0;
  Window window;
};

// Drops the jobs the filter does not keep, counting each reason into r; the others keep their
// file order. Filtered in place: a second vector of every job was the read's peak memory on a
// multi-million-job trace.
void filter_jobs(std::vector<TraceJob>& jobs, const Filter& f, SelectionReport& r) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    TraceJob& j = jobs[i];
    if (f.drop_failed && j.trace_status != 0) {
      ++(j.trace_status == 1 ? r.dropped_failed : r.dropped_killed);
      continue;
    }
    if (f.vc != kNoString && j.queue != f.vc) {
      ++r.other_vc;
      continue;
    }
    double t = j.submit_s - f.origin;
    if (t < 0) {
      ++r.before_origin;
      continue;
    }
    if (t < f.window.start || t >= f.window.end) {
      ++r.outside_window;
      continue;
    }
    if (kept != i) jobs[kept] = j;
    ++kept;
  }
  jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(kept), jobs.end());
}

// Keeps `sample` of the jobs, drawn from the stream "trace.sample", counting the others into r.
// Selection sampling (Knuth, TAOCP vol. 2, 3.4.2, Algorithm S): every subset of the sample's
// size is equally likely, and the kept jobs stay in file order.
void sample_jobs(std::vector<TraceJob>& jobs, std::size_t sample, std::uint64_t seed,
                 SelectionReport& r) {
  Rng rng = Rng::stream(seed, "trace.sample");
  std::size_t sampled = 0;
  std::size_t left = jobs.size();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    std::size_t needed = sample - sampled;
    if (needed == 0) break;
    if (static_cast<double>(left) * rng.uniform01() < static_cast<double>(needed)) {
      if (sampled != i) jobs[sampled] = jobs[i];
      ++sampled;
    }
    --left;
  }
  r.not_sampled = jobs.size() - sampled;
  jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(sampled), jobs.end());
}

} // namespace

SelectionReport select_trace(Trace& trace, const TraceSelection& s, std::uint64_t seed) {
  check_selection(s);
  SelectionReport r;
  r.read = trace.jobs.size();
  const Origin resolved = resolve_origin(trace, s.time_origin);
  const double origin = resolved.s;
  r.origin_s = origin;
  r.origin_text = resolved.text;
  Filter filter{s.drop_failed, kNoString, origin,
                s.window.empty() ? Window{} : std::get<Window>(parse_window(s.window))};
  if (!s.vc.empty()) filter.vc = vc_id(trace, s.vc);
  std::vector<TraceJob>& jobs = trace.jobs;
  // Counted from the least submit, finite, without a window, a VC or drop_failed, no job can be
  // dropped (a - b for finite b <= a rounds to a value >= 0, and is below the window's infinite
  // end; a NaN submit is kept either way): the pass over every job is skipped.
  const bool keeps_all =
      !s.drop_failed && filter.vc == kNoString && s.window.empty() && resolved.least_finite;
  if (!keeps_all) filter_jobs(jobs, filter, r);
  if (s.sample > 0 && s.sample < jobs.size()) sample_jobs(jobs, s.sample, seed, r);
  r.shift_s = origin + (s.window.empty() ? 0 : filter.window.start);
  // x - (+0.0) is x, bit for bit, for every x (-0.0 included): a trace that starts at 0 (every
  // generated one) skips a pass over all its jobs.
  if (std::bit_cast<std::uint64_t>(r.shift_s) != 0) {
    for (auto& j : jobs)
      j.submit_s -= r.shift_s;
  }
  // Dropping jobs keeps the others' order, and subtracting one shift from every submit keeps
  // it too (rounding is monotone).
  trace.in_submit_order = resolved.in_order;
  r.kept = jobs.size();
  if (trace.jobs.empty()) {
    auto why = r.lines();
    throw InputError(fmt::format("{}: the trace selection leaves no job ({})", trace.file,
                                 fmt::join(why, "; ")));
  }
  return r;
}

} // namespace dlsim
