// A scheduler in another process, in any language, driven over dlsim's protocol
// (docs/protocol.md): `policy: {external: "python3 my_sched.py"}` or --policy external:CMD.
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry external_policy();

} // namespace dlsim
