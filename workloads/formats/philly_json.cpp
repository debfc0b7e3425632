// Reads Philly's `cluster_job_log` with nlohmann-json, one job at a time: the parser's callback
// converts each job object when it closes and discards it, so the 1 GB file never sits in
// memory as a JSON tree. A counting iterator tracks the line, for messages.
//
// Run time and GPU count follow the trace authors' own analysis notebook (philly-traces,
// analysis/Philly Trace Analysis.ipynb, class Job): GPUs = the GPUs of the first attempt's
// machines; run time = the last attempt's end_time minus the first attempt's start_time.
#include "workloads/formats/philly_json.h"
#include "workloads/formats/registry.h"

#include "workloads/formats/zlib_source.h"

#include "sim/engine/error.h"
#include "workloads/formats/datetime_field.h"
#include "workloads/formats/field_parse.h"
#include "workloads/formats/gpu_shape.h"
#include "workloads/formats/trace_limits.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <optional>
#include <unordered_set>

namespace dlsim {

namespace {

using nlohmann::json;

// An input iterator over a stream that counts the newlines it has passed.
class LineCountingIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  LineCountingIterator() = default;
  LineCountingIterator(std::istreambuf_iterator<char> it, std::uint64_t* line)
      : it_(it), line_(line) {}
  char operator*() const { return *it_; }
  LineCountingIterator& operator++() {
    if (*it_ == '\n') ++*line_;
    ++it_;
    return *this;
  }
  LineCountingIterator operator++(int) {
    auto old = *this;
    ++*this;
    return old;
  }
  bool operator==(const LineCountingIterator& o) const { return it_ == o.it_; }
  bool operator!=(const LineCountingIterator& o) const { return !(it_ == o.it_); }

private:
  std::istreambuf_iterator<char> it_;
  std::uint64_t* line_ = nullptr;
};

// A field error with the JSON path below the job ("attempts[0].end_time").
struct JobError {
  std::string path;
  std::string what;
};

// A JSON value for an error message without dump() on a container: dump() recurses, so a value
// nested 100,000 deep overflowed the stack while the message was being written.
std::string json_excerpt(const json& v) {
  if (v.is_array()) return fmt::format("an array of {} items", v.size());
  if (v.is_object()) return fmt::format("an object of {} keys", v.size());
  return quote_input(v.dump());
}

const json& member(const json& job, const char* key) {
  auto it = job.find(key);
  if (it == job.end()) throw JobError{key, "missing key"};
  return *it;
}

const std::string& string_member(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) throw JobError{path, "missing key"};
  if (!it->is_string())
    throw JobError{path, fmt::format("expected a string, got {}", json_excerpt(*it))};
  return it->get_ref<const std::string&>();
}

// An attempt's start_time or end_time: a time, or absent ("None", null, "" or no key: the
// README says a logging error may leave them out).
std::optional<std::int64_t> attempt_time(const json& attempt, const char* key,
                                         const std::string& path) {
  auto it = attempt.find(key);
  if (it == attempt.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    throw JobError{path, fmt::format("expected a time string or None, got {}", json_excerpt(*it))};
  const auto& s = it->get_ref<const std::string&>();
  if (s.empty() || s == "None") return std::nullopt;
  auto t = parse_datetime(s);
  if (!t)
    throw JobError{path,
                   fmt::format("expected a time YYYY-MM-DD HH:MM:SS, got {}", quote_input(s))};
  return t;
}

// A job's status as TraceJob::trace_status: Pass 0, Failed 1, Killed 2.
std::uint8_t trace_status(const std::string& status) {
  if (status == "Pass") return 0;
  if (status == "Failed") return 1;
  if (status == "Killed") return 2;
  throw JobError{"status", fmt::format("expected Pass, Killed or Failed, got '{}'", status)};
}

// The GPUs of an attempt's machines (its `detail`), `where` the attempt's path.
std::uint64_t attempt_gpus(const json& attempt, const std::string& where) {
  auto detail = attempt.find("detail");
  if (detail == attempt.end() || !detail->is_array())
    throw JobError{where + ".detail", "expected a list of machines"};
  std::uint64_t gpus = 0;
  for (std::size_t d = 0; d < detail->size(); ++d) {
    const json& m = (*detail)[d];
    auto g = m.is_object() ? m.find("gpus") : m.end();
    if (!m.is_object() || g == m.end() || !g->is_array()) {
      throw JobError{fmt::format("{}.detail[{}].gpus", where, d), "expected a list of GPU names"};
    }
    gpus += g->size();
  }
  return gpus;
}

// What the run time and GPU count are taken from: the first attempt's GPUs and start, the last
// attempt's end.
struct AttemptSpan {
  std::uint64_t first_gpus = 0;
  std::optional<std::int64_t> first_start, last_end;
};

// Checks every attempt, even those the run time does not use, and returns the span they cover.
AttemptSpan read_attempts(const json& attempts) {
  AttemptSpan span;
  for (std::size_t a = 0; a < attempts.size(); ++a) {
    const json& at = attempts[a];
    std::string where = fmt::format("attempts[{}]", a);
    if (!at.is_object()) throw JobError{where, "expected an attempt object"};
    auto start = attempt_time(at, "start_time", where + ".start_time");
    auto end = attempt_time(at, "end_time", where + ".end_time");
    if (start && end && *end < *start) {
      throw JobError{where + ".end_time",
                     fmt::format("time goes backwards: ends {} before its start_time {}",
                                 format_datetime(*end), format_datetime(*start))};
    }
    const std::uint64_t gpus = attempt_gpus(at, where);
    if (a == 0) {
      span.first_gpus = gpus;
      span.first_start = start;
    }
    if (a + 1 == attempts.size()) span.last_end = end;
  }
  return span;
}

// Checks the span of a job's `attempts` against its submit time and the trace limits.
void check_span(const AttemptSpan& span, std::int64_t submit, const std::string& submitted,
                const json& attempts) {
  const auto& [first_gpus, first_start, last_end] = span;
  if (first_start && *first_start < submit) {
    throw JobError{"attempts[0].start_time",
                   fmt::format("time goes backwards: starts {} before its submitted_time {}",
                               format_datetime(*first_start), submitted)};
  }
  if (first_start && last_end && *last_end < *first_start) {
    throw JobError{
        fmt::format("attempts[{}].end_time", attempts.size() - 1),
        fmt::format("time goes backwards: the last attempt ends {} before the first starts {}",
                    format_datetime(*last_end), format_datetime(*first_start))};
  }
  if (first_gpus > static_cast<std::uint64_t>(kMaxTraceGpus)) {
    throw JobError{"attempts[0].detail",
                   fmt::format("expected 1 to {} GPUs, got {}", kMaxTraceGpus, first_gpus)};
  }
  if (first_start && last_end && static_cast<double>(*last_end - *first_start) > kMaxTraceSeconds) {
    throw JobError{fmt::format("attempts[{}].end_time", attempts.size() - 1),
                   fmt::format("expected a run time of at most {:g} s, got {} s", kMaxTraceSeconds,
                               *last_end - *first_start)};
  }
}

enum class Outcome { kJob, kNoAttempt, kNoRunTime, kNoGpu };

struct Reader {
  Trace& trace;
  std::unordered_set<std::string> seen_ids;

  // Converts one job object, its id into `name`; throws JobError for a malformed one.
  Outcome convert(const json& j, TraceJob& job, std::string& name) {
    if (!j.is_object())
      throw JobError{"", fmt::format("expected a job object, got {}", json_excerpt(j))};
    name = string_member(j, "jobid", "jobid");
    if (name.empty()) throw JobError{"jobid", "expected a non-empty job id"};
    if (seen_ids.count(name)) throw JobError{"jobid", fmt::format("duplicate job id '{}'", name)};
    job.trace_status = trace_status(string_member(j, "status", "status"));
    const std::string& vc = string_member(j, "vc", "vc");
    std::string user;
    if (j.contains("user")) user = string_member(j, "user", "user");
    const std::string& submitted = string_member(j, "submitted_time", "submitted_time");
    auto submit = parse_datetime(submitted);
    if (!submit)
      throw JobError{"submitted_time",
                     fmt::format("expected a time YYYY-MM-DD HH:MM:SS, got '{}'", submitted)};
    const json& attempts = member(j, "attempts");
    if (!attempts.is_array()) throw JobError{"attempts", "expected a list of attempts"};
    const AttemptSpan span = read_attempts(attempts);
    check_span(span, *submit, submitted, attempts);
    const auto& [first_gpus, first_start, last_end] = span;
    seen_ids.insert(name);
    if (attempts.empty()) return Outcome::kNoAttempt;
    if (!first_start || !last_end) return Outcome::kNoRunTime;
    if (first_gpus == 0) return Outcome::kNoGpu;
    if (*last_end == *first_start) return Outcome::kNoRunTime;
    job.submit_s = static_cast<double>(*submit);
    job.duration_s = static_cast<double>(*last_end - *first_start);
    GpuShape shape = shape_for_gpus(static_cast<std::uint32_t>(first_gpus));
    job.workers = shape.workers;
    job.devices_per_worker = shape.devices_per_worker;
    job.queue = trace.queues.intern(vc);
    job.user = trace.users.intern(user);
    return Outcome::kJob;
  }
};

// nlohmann's messages start with "[json.exception.parse_error.101] ": keep what follows.
std::string plain(const char* what) {
  std::string s(what);
  auto close = s.find("] ");
  return s.rfind("[json.exception", 0) == 0 && close != std::string::npos ? s.substr(close + 2) : s;
}

// An empty file (or only white space) gets its own message. The white space before the first
// character is consumed, its line ends counted into `line`.
void check_not_empty(std::istream& in, const std::string& file, std::uint64_t& line) {
  while (true) {
    int c = in.peek();
    if (c == std::char_traits<char>::eof())
      throw InputError(file + ": empty file: expected a JSON array of Philly jobs");
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    line += c == '\n';
    in.get();
  }
}

// Jobs read but not replayed, by reason.
struct NotReplayed {
  std::size_t no_attempt = 0, no_run_time = 0, no_gpu = 0;

  void count(Outcome outcome) {
    no_attempt += outcome == Outcome::kNoAttempt;
    no_run_time += outcome == Outcome::kNoRunTime;
    no_gpu += outcome == Outcome::kNoGpu;
  }
  void warn(Trace& trace) const {
    if (no_attempt + no_run_time + no_gpu == 0) return;
    trace.warnings.push_back(fmt::format("{}: not replayed: {} jobs with no attempt, {} with no "
                                         "recorded run time (no start_time on the first "
                                         "attempt or no end_time on the last: still running at the "
                                         "snapshot, or a logging gap), {} with no GPU",
                                         trace.file, no_attempt, no_run_time, no_gpu));
  }
};

} // namespace

Trace read_philly_json_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  // Plain or gzip, through the layer every text reader reads with.
  PlainOrGzipStreambuf buffer(file);
  std::istream in(&buffer);
  in.exceptions(std::ios::badbit); // a corrupt .gz's InputError, not a silent end of input
  std::uint64_t line = 1;
  check_not_empty(in, file, line);

  Reader reader{trace, {}};
  std::uint64_t job_line = 1;
  std::size_t index = 0;
  NotReplayed not_replayed;
  bool top_is_array = false;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 0 && event == json::parse_event_t::array_start) top_is_array = true;
    if (depth == 0 && !top_is_array &&
        (event == json::parse_event_t::object_start || event == json::parse_event_t::value)) {
      throw InputError(
          fmt::format("{}:{}: expected a JSON array of Philly jobs ([{{...}}, ...])", file, line));
    }
    if (depth == 1 &&
        (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start ||
         event == json::parse_event_t::value)) {
      job_line = line;
    }
    bool job_done = depth == 1 && (event == json::parse_event_t::object_end ||
                                   event == json::parse_event_t::array_end ||
                                   event == json::parse_event_t::value);
    if (!job_done) return true;
    std::size_t k = index++;
    TraceJob job;
    job.line = static_cast<std::uint32_t>(job_line);
    std::string id;
    try {
      Outcome outcome = reader.convert(parsed, job, id);
      if (outcome == Outcome::kJob)
        trace.add(job, id);
      else
        not_replayed.count(outcome);
    } catch (const JobError& e) {
      std::string name = id.empty() ? "" : fmt::format(" (jobid {})", id);
      reject_row(trace, options,
                 fmt::format("{}:{}: [{}]{}{}{}: {}", file, job_line, k, name,
                             e.path.empty() ? "" : ".", e.path, e.what));
    }
    return false; // discard the job: the array stays empty
  };
  try {
    LineCountingIterator first(std::istreambuf_iterator<char>(in), &line);
    LineCountingIterator last(std::istreambuf_iterator<char>(), &line);
    json empty = json::parse(first, last, callback); // every job was discarded
    (void)empty;
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: {}", file, plain(e.what())));
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}:{}: {}", file, line, plain(e.what())));
  }
  if (!top_is_array)
    throw InputError(fmt::format("{}:1: expected a JSON array of Philly jobs", file));
  not_replayed.warn(trace);
  if (trace.jobs.empty() && trace.skipped == 0)
    throw InputError(file + ": the trace has no job to replay");
  return trace;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat philly_format() {
  return {"philly",
          "Microsoft Philly raw job log (cluster_job_log): a JSON array of jobs with attempts",
          &read_philly_json_trace};
}

} // namespace dlsim
