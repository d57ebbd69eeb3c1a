// Checks, before a trace set runs, that the members of every collective agree on its size. The
// collectives are matched as the network bridge matches them (network_bridge.h): the k-th
// collective a die issues on a (kind, group) pairs with the k-th of every other member, and a
// `send` on [s, r] with the `recv` on [s, r]. A member that gives another size is an InputError
// naming both files and lines (the run would otherwise stop at that collective, mid-run), and a
// group naming a die the set has no trace for (it would never arrive: a deadlock) is one too.
// Reads every die's trace once; memory grows with the number of collectives, not of ops.
#pragma once

#include "models/common/trace_set_index.h"

namespace asim {

void check_collectives_agree(const TraceSet& set);

}  // namespace asim
