#include "sim/report/failure_metrics.h"

#include "sim/report/seconds_text.h"

namespace dlsim {

char* write_failure_columns(char* p, const JobFailures& f) {
  *p++ = ',';
  p = write_uint(p, f.failures);
  *p++ = ',';
  p = write_seconds(p, f.lost);
  *p++ = ',';
  p = write_uint(p, f.checkpoints);
  *p++ = ',';
  p = write_seconds(p, f.ckpt_time);
  *p++ = ',';
  p = write_seconds(p, f.restart_time);
  return p;
}

} // namespace dlsim
