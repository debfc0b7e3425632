// Gandiva's migration (Xiao et al., OSDI'18, sec. 4.3 and 5.2): jobs move, at a cost of
// costs.migrate_s each, to spread over-subscribed groups onto devices that became free, to
// defragment (free whole nodes, or enough of one node, for a waiting job) and to improve
// locality (bring a job that spans nodes onto one).
#pragma once

#include "policies/gandiva/state.h"
#include "sim/runtime/control.h"

namespace dlsim::gandiva {

// Moves members of over-subscribed groups to new groups on free devices (largest groups
// first), keeping enough free devices of each type for the jobs still waiting.
void spread(Control& control, State& st);
// Makes room for waiting job j and places it: evacuates groups from the nodes that need the
// fewest moves, to free devices elsewhere or, while j's class holds less than its share of
// the cluster, into time-sliced groups of their own class. False (nothing moved) when no plan.
bool defragment(Control& control, State& st, JobId j);
// Migrates jobs that span more nodes than needed onto one node with free devices.
void improve_locality(Control& control, State& st);

// A group spreading may take a member out of: over-subscribed, settled and, in fluid mode, with
// every member running.
bool may_spread(const View& view, const Group& g, bool exact);
// Brings st.spread_index up to date from the groups marked since the last call.
void refresh_spread_index(const View& view, State& st, bool exact);

} // namespace dlsim::gandiva
