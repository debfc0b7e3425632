// Reads Gavel's and Shockwave's job traces line by line through zlib (plain or .gz). A line's
// field count says its form (gavel.h); every line of a file must have the first line's form.
// A job's model is Gavel's job type under configs/models/gavel.yaml's name, and its work is
// Gavel's total_steps, or Shockwave's recorded run time where the line gives one
// (docs/traces.md#gavel-and-shockwave---format-gavel).
#include "workloads/formats/gavel.h"
#include "workloads/formats/registry.h"

#include "sim/engine/error.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"
#include "workloads/formats/zlib_source.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <array>
#include <cctype>
#include <charconv>
#include <string_view>

namespace dlsim {

namespace {

constexpr std::size_t kMostFields = 12;

// One form: its fields' names and where the fields dlsim reads are (kAbsent: not in the form).
constexpr std::size_t kAbsent = kMostFields;
struct Form {
  std::size_t fields;
  const char* origin;
  std::array<const char*, kMostFields> names;
  std::size_t needs_data_dir, total_steps, scale_factor, priority_weight, slo, mode, duration,
      arrival_time;
};

// Field orders: Gavel's msr/ traces as written (its parse_trace of that time is not in the
// repository; the arrival times and scale factors are where the values say), Gavel's and
// Shockwave's scheduler/utils.py parse_trace.
constexpr std::array<Form, 3> kForms = {{
    {7,
     "Gavel's msr traces",
     {"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time",
      "scale_factor"},
     3,
     4,
     6,
     kAbsent,
     kAbsent,
     kAbsent,
     kAbsent,
     5},
    {10,
     "Gavel",
     {"job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir", "total_steps",
      "scale_factor", "priority_weight", "SLO", "arrival_time"},
     4,
     5,
     6,
     7,
     8,
     kAbsent,
     kAbsent,
     9},
    {12,
     "Shockwave",
     {"job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir", "total_steps",
      "scale_factor", "mode", "priority_weight", "SLO", "duration", "arrival_time"},
     4,
     5,
     6,
     8,
     9,
     7,
     10,
     11},
}};

const Form* form_of(std::size_t fields) {
  for (const Form& f : kForms) {
    if (f.fields == fields) return &f;
  }
  return nullptr;
}

// Splits on tabs (the other fields, a command among them, hold spaces), with the first
// kMostFields stored NUL-terminated in place; returns the number of fields (kMostFields + 1 for
// more). A '\r' before the line end is dropped.
std::size_t split_tabs(char* line, std::array<char*, kMostFields>& out) {
  std::size_t n = 0;
  char* p = line;
  while (true) {
    if (n == kMostFields) return n + 1;
    out[n++] = p;
    while (*p != '\0' && *p != '\t')
      ++p;
    if (*p == '\0') {
      if (p != out[n - 1] && p[-1] == '\r') p[-1] = '\0';
      return n;
    }
    *p++ = '\0';
  }
}

bool is_blank(const char* line) {
  while (*line == ' ' || *line == '\t' || *line == '\r')
    ++line;
  return *line == '\0';
}

// A field's text for a message: at most 200 bytes of it (a job type is the whole field).
std::string shown(std::string_view text) {
  constexpr std::size_t kMost = 200;
  return text.size() <= kMost ? std::string(text) : std::string(text.substr(0, kMost)) + "...";
}

std::uint8_t batch_mode(const char* text) {
  const std::string_view mode = text;
  if (mode == "static") return 0;
  if (mode == "gns") return 1;
  if (mode == "accordion") return 2;
  throw FieldError{fmt::format("expected static, gns or accordion, got '{}'", shown(mode))};
}

// An integer field >= `min` (Gavel reads these with Python's int()).
std::int64_t integer_at_least(const char* text, std::int64_t min, const char* what) {
  auto v = parse_int_field(text);
  if (!v) throw FieldError{fmt::format("missing value: expected {}", what)};
  if (*v < min) throw FieldError{fmt::format("expected {} (at least {}), got {}", what, min, *v)};
  return *v;
}

} // namespace

std::optional<std::string> gavel_job_type_model(std::string_view job_type) {
  std::string_view name = job_type;
  std::string_view batch;
  constexpr std::string_view kBatch = " (batch size ";
  if (auto open = job_type.find(kBatch); open != std::string_view::npos) {
    if (job_type.back() != ')') return std::nullopt;
    name = job_type.substr(0, open);
    batch = job_type.substr(open + kBatch.size());
    batch.remove_suffix(1);
    unsigned long size = 0;
    auto [end, ec] = std::from_chars(batch.data(), batch.data() + batch.size(), size);
    if (ec != std::errc() || end != batch.data() + batch.size() || size == 0 || batch[0] == '0')
      return std::nullopt;
  }
  std::string model = "gavel_";
  for (char c : name) {
    if (c == '(' || c == ')') return std::nullopt;
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      model += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (model.size() == 6) return std::nullopt; // no letter or digit in the name
  if (!batch.empty()) model += fmt::format("_bs{}", batch);
  return model;
}

namespace {

// What reading a trace keeps from line to line.
struct GavelRead {
  const Form* form = nullptr; // the first line's
  unsigned form_line = 0;
  std::size_t data_lines = 0;
  std::array<std::size_t, 3> modes{}; // jobs by batch_mode
  std::uint32_t v100 = kNoString;     // the trace's name id of V100, once interned
};

// The form of a line of n fields: the first line's, which it sets. A FieldError when the first
// line has no form's field count or a later line not the first line's.
const Form& line_form(GavelRead& read, std::size_t n, unsigned line_no) {
  if (read.form == nullptr) {
    read.form = form_of(n);
    read.form_line = line_no;
    if (read.form == nullptr) {
      throw FieldError{fmt::format("expected 7 (Gavel's msr traces), 10 (Gavel) or 12 "
                                   "(Shockwave) tab-separated fields, got {}",
                                   n > kMostFields ? "more" : std::to_string(n))};
    }
  } else if (n != read.form->fields) {
    throw FieldError{fmt::format("expected {} tab-separated fields as on line {} ({}), got {}",
                                 read.form->fields, read.form_line, read.form->origin,
                                 n > kMostFields ? "more" : std::to_string(n))};
  }
  return *read.form;
}

// What a line says about its job.
struct GavelJob {
  std::string model;     // Gavel's job type under its zoo name (gavel_job_type_model)
  std::int64_t gpus = 0; // the scale factor
  double iterations = 0;
  double duration = 0; // Shockwave's recorded run time, 0 when none
  std::uint8_t batch_mode = 0;
  double submit_s = 0;
};

// Reads the fields `f` of a line of form `form`, `field` naming the field being read for the
// FieldError of a bad one.
GavelJob read_fields(const Form& form, const std::array<char*, kMostFields>& f,
                     std::size_t& field) {
  GavelJob job;
  field = 0;
  auto model = gavel_job_type_model(f[0]);
  if (!model) {
    throw FieldError{fmt::format("expected a job type 'Model' or 'Model (batch size N)', got '{}'",
                                 shown(f[0]))};
  }
  job.model = std::move(*model);
  field = form.needs_data_dir;
  if (auto v = parse_int_field(f[field]); !v || (*v != 0 && *v != 1))
    throw FieldError{fmt::format("expected 0 or 1, got '{}'", shown(f[field]))};
  field = form.scale_factor;
  job.gpus = required_gpu_count(f[field], 1);
  field = form.total_steps;
  const auto steps = integer_at_least(f[field], 1, "the total steps");
  // Gavel's throughput of a job of k GPUs counts the steps of all k workers, so the job
  // is total_steps / k iterations of dlsim's k-worker request.
  job.iterations = static_cast<double>(steps) / static_cast<double>(job.gpus);
  if (job.iterations > kMaxTraceIterations) {
    throw FieldError{fmt::format("{} steps over {} GPUs are more than {:g} iterations", steps,
                                 job.gpus, kMaxTraceIterations)};
  }
  if (form.priority_weight != kAbsent) {
    field = form.priority_weight;
    auto w = parse_double_field(f[field]);
    if (!w || !(*w > 0)) throw FieldError{"expected a priority weight > 0"};
    field = form.slo;
    if (!parse_double_field(f[field]))
      throw FieldError{"missing value: expected an SLO factor (-1 for none)"};
  }
  if (form.mode != kAbsent) {
    field = form.mode;
    job.batch_mode = batch_mode(f[field]);
  }
  if (form.duration != kAbsent) {
    field = form.duration;
    job.duration = required_run_time_s(f[field]);
  }
  field = form.arrival_time;
  job.submit_s = required_time_s(f[field], "the arrival time");
  return job;
}

// Adds the job of a good line to the trace.
void add_job(Trace& trace, GavelRead& read, const GavelJob& g, unsigned line_no,
             const std::string& id) {
  TraceJob job;
  job.line = line_no;
  job.batch_mode = g.batch_mode;
  job.submit_s = g.submit_s;
  ++read.modes[job.batch_mode];
  job.workers = static_cast<std::uint32_t>(g.gpus);
  job.devices_per_worker = 1;
  job.model = trace.models.intern(g.model);
  if (g.duration > 0) {
    // Shockwave's duration is total_steps over the job's measured V100 throughput at its
    // scale factor: a run time observed on V100s, whatever the reference device.
    if (read.v100 == kNoString) read.v100 = trace.device_types.intern("V100");
    job.duration_s = g.duration;
    job.observed_type = read.v100;
    job.duration_is_work = true; // the steps run instead with a throughputs file
  }
  job.iterations = g.iterations;
  trace.add(job, id);
}

// Reads one line that is not blank: its job, or its row rejected (reject_row).
void read_line(Trace& trace, const ReadOptions& options, GavelRead& read, char* line,
               unsigned line_no) {
  // Gavel numbers its jobs 0, 1, ... in the order of the trace's lines: the same ids here.
  const std::string id = std::to_string(read.data_lines++);
  std::array<char*, kMostFields> f{};
  const std::size_t n = split_tabs(line, f);
  std::size_t field = kMostFields; // the field being read; kMostFields: the line
  try {
    const GavelJob job = read_fields(line_form(read, n, line_no), f, field);
    // The line is good: from here on nothing throws.
    add_job(trace, read, job, line_no, id);
  } catch (const FieldError& e) {
    reject_row(trace, options,
               field == kMostFields ? fmt::format("{}:{}: row: {}", trace.file, line_no, e.what)
                                    : fmt::format("{}:{}: {} (field {}): {}", trace.file, line_no,
                                                  read.form->names[field], field + 1, e.what));
  }
}

// Says how many of Shockwave's jobs change their batch size, which dlsim runs at their trace's.
void note_batch_modes(Trace& trace, const std::array<std::size_t, 3>& modes) {
  if (modes[1] + modes[2] == 0) return;
  trace.batch_size_note = static_cast<std::int64_t>(trace.warnings.size());
  trace.warnings.push_back(fmt::format(
      "{}: {} jobs change their batch size during training in Shockwave ({} gns, {} "
      "accordion); dlsim runs them at their trace batch size throughout, as Shockwave's static "
      "jobs, unless trace.batch_sizes is shockwave",
      trace.file, modes[1] + modes[2], modes[1], modes[2]));
}

} // namespace

Trace read_gavel_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  GavelRead read;
  try {
    io::LineReader in(file, open_plain_or_gzip(file));
    while (char* line = in.next_line()) {
      if (!is_blank(line)) read_line(trace, options, read, line, in.get_file_line());
    }
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  if (read.data_lines == 0) throw InputError(file + ": empty trace: no job lines");
  note_batch_modes(trace, read.modes);
  if (trace.jobs.empty() && trace.skipped == 0) throw InputError(file + ": the trace has no jobs");
  return trace;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat gavel_format() {
  return {"gavel",
          "Gavel's and Shockwave's .trace: tab-separated job type, command, ..., total steps, "
          "scale factor, arrival time (7, 10 or 12 fields)",
          &read_gavel_trace};
}

} // namespace dlsim
