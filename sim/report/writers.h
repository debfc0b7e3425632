// Result files. Each is written to a temporary name in the same directory and renamed, so a
// killed run never leaves a half-written file under the final name.
#pragma once

#include "sim/report/metrics.h"
#include "sim/report/summary.h"

#include <functional>
#include <ostream>
#include <string>

namespace dlsim {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& body);

// `result` gives the end of the run and the time-sliced jobs' waits for turns (queue_s).
void write_jobs_csv(std::ostream& out, const SimState& state, const RunResult& result);
void write_summary_json(std::ostream& out, const Summary& summary);
// timeseries.csv, a row at a time as the Sampler hands them over.
void write_timeseries_header(std::ostream& out);
void write_timeseries_row(std::ostream& out, const Sample& s);

} // namespace dlsim
