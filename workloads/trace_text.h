// The text of a trace read: every name a job carries must be UTF-8.
#pragma once

#include "workloads/trace.h"

namespace dlsim {

// An InputError "file:line: column: 'text': not valid UTF-8 (...)" for the first job whose id,
// user, queue, model or device type is not UTF-8: they are written into JSON result files, which
// must be. Every format's trace goes through it once read (sim/cli/prepare.cpp).
void check_trace_text(const Trace& trace);

} // namespace dlsim
