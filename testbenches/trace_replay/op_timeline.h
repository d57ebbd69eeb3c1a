// The op-level part of `ascend-sim run --timeline`, drawn from the dies' OpLedgers after the run,
// and the writing of the file.
//
// Per die, in its group (a Perfetto process: `die` on a single die, `die0`, `die1`, ... in a trace
// set): every op a slice from dispatch to end, named "NAME #ID", with arguments op, kind, flops,
// hbm_read_bytes, hbm_write_bytes, l2_hit_rate (when the op made demand accesses) and bound (the
// ops.csv rule, op_table.h). Up to 16 ops run at once, and a track shows slices that do not
// overlap, so ops are laid on lanes "ops 1", "ops 2", ... (each op on the lowest lane free at its
// start, in order of start) and collectives on "collectives 1", ... An arrow ("dependency") runs
// from each op to every op that waits for it (the trace's `deps`), when both have a duration.
#pragma once

#include <string>

#include "models/common/atomic_output.h"
#include "models/common/op_ledger.h"
#include "models/common/timeline.h"

namespace asim {

struct DieParams;
class Die;

// Adds `ledger`'s ops to `timeline` in `group`; `params` gives the peaks of the bound rule. The
// arrows need the ledger to have kept its ops' dependencies (OpLedger::keep_deps).
void record_op_tracks(Timeline& timeline, const std::string& group, const OpLedger& ledger,
                      const DieParams& params);

// Adds the die's Cube utilisation per window of its utilisation curve (--util-window; the curve
// the summary's utilisation over windows describes: whole windows only) to `timeline` as a
// counter "Cube utilisation" in % of `group`, back to 0 after the last window.
void record_cube_utilisation(Timeline& timeline, const std::string& group, const Die& die);

// Writes timeline.json, or timeline.json.gz with `gzip`, into `out`; warns on stderr when slices
// were dropped. Returns the file's name.
std::string write_timeline(AtomicOutputDir& out, const Timeline& timeline, bool gzip);

}  // namespace asim
