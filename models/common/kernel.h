// Runs the SystemC kernel for a job: sc_start, for `limit_ps` of simulated time (0: until no
// event is left), then tidies up after the coroutines under AddressSanitizer.
//
// Why the tidy-up: SystemC switches between thread stacks without telling ASan, so frames left on
// the main stack by those switches keep their poison; the next exception thrown on the main stack
// (an input error rethrown after the run) makes ASan unpoison the stack, read that stale poison
// and report a false stack-buffer-underflow (google/sanitizers#189). The dead frames below the
// caller are unpoisoned here instead; without ASan this is only sc_start.
#pragma once

#include "models/common/clock_domain.h"

namespace asim {

void run_kernel(Picoseconds limit_ps = 0);

// After run_kernel(limit): whether the limit stopped a model that still had events to run (the
// watchdog), as opposed to one that ran out of events with work pending (a deadlock). The kernel
// advances the clock to the limit in both cases, so the time alone cannot tell them apart.
bool stopped_by_limit(Picoseconds limit_ps);

}  // namespace asim
