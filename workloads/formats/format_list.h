// Every trace format, in the order `dlsim list formats` prints them: a new format is its reader
// files in this folder, one of them defining `TraceFormat NAME_format()`, and one line here
// (docs/architecture.md#a-trace-format).
#pragma once

// clang-format off
#define DLSIM_TRACE_FORMATS(X) \
  X(native)                    \
  X(pai2020)                   \
  X(openb)                     \
  X(swf)                       \
  X(philly)                    \
  X(philly_csv)                \
  X(helios)                    \
  X(tiresias)                  \
  X(muri)                      \
  X(pollux)                    \
  X(gavel)
// clang-format on
