// Bounds on the values every trace reader accepts: far beyond
// any real trace, and small enough that every time stays exact and representable in SimTime
// (int64 microseconds) after the reader's arithmetic.
#pragma once

namespace dlsim {

constexpr double kMaxTraceSeconds = 1e9; // about 31.7 years: a run time or a relative submit time
constexpr long kMaxTraceGpus = 100000;   // GPUs of one job
// Iterations of a native job: 1e10 x the slowest zoo iteration on the slowest catalog device stays
// far below SimTime's range (about 2.9e5 years).
constexpr double kMaxTraceIterations = 1e10;

} // namespace dlsim
