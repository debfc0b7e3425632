// The native trace's loss_curve column (docs/aiturbo.md#the-loss_curve-column): a family and
// its parameters, e.g. "optimus;a=0.001;b=0.5;c=0.1;target=0.2;noise=0.02".
#pragma once

#include "sim/workload/loss_curve.h"

#include <string_view>

namespace dlsim {

// The curve a field gives, checked: throws FieldError saying which key is wrong, and for a curve
// that never reaches its target (target <= c) or needs more than kMaxTraceIterations.
LossCurve parse_loss_curve_field(std::string_view text);

} // namespace dlsim
