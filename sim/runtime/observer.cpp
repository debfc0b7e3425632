#include "sim/runtime/observer.h"

namespace dlsim {

std::string_view to_string(JobAction a) {
  switch (a) {
  case JobAction::kSubmit:
    return "submit";
  case JobAction::kBind:
    return "bind";
  case JobAction::kUnbind:
    return "unbind";
  case JobAction::kStart:
    return "start";
  case JobAction::kPack:
    return "pack";
  case JobAction::kSlice:
    return "slice";
  case JobAction::kResume:
    return "resume";
  case JobAction::kRunning:
    return "running";
  case JobAction::kSuspend:
    return "suspend";
  case JobAction::kSuspended:
    return "suspended";
  case JobAction::kMigrate:
    return "migrate";
  case JobAction::kResize:
    return "resize";
  case JobAction::kFinish:
    return "finish";
  case JobAction::kCancel:
    return "cancel";
  case JobAction::kSetShare:
    return "set_share";
  case JobAction::kFail:
    return "fail";
  case JobAction::kCheckpoint:
    return "checkpoint";
  }
  return "?";
}

} // namespace dlsim
