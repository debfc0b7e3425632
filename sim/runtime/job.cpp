#include "sim/runtime/job.h"

namespace dlsim {

std::string_view to_string(JobStatus s) {
  switch (s) {
  case JobStatus::kFuture:
    return "future";
  case JobStatus::kPending:
    return "pending";
  case JobStatus::kBinding:
    return "binding";
  case JobStatus::kStarting:
    return "starting";
  case JobStatus::kRunning:
    return "running";
  case JobStatus::kSuspending:
    return "suspending";
  case JobStatus::kSuspended:
    return "suspended";
  case JobStatus::kMigrating:
    return "migrating";
  case JobStatus::kResizing:
    return "resizing";
  case JobStatus::kFinished:
    return "finished";
  case JobStatus::kCancelled:
    return "cancelled";
  }
  return "?";
}

} // namespace dlsim
