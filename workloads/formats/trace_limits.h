// Bounds on the values the philly, philly-csv, helios and tiresias readers accept: far beyond
// any real trace, and small enough that every time stays exact and representable in SimTime
// (int64 microseconds) after the reader's arithmetic.
#pragma once

namespace dlsim {

constexpr double kMaxTraceSeconds = 1e9; // about 31.7 years: a run time or a relative submit time
constexpr long kMaxTraceGpus = 100000;   // GPUs of one job

} // namespace dlsim
