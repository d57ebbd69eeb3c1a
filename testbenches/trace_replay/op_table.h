// ops.csv: one row per op of a run (single die or every die of a trace set), from the dies'
// OpLedgers (models/common/op_ledger.h). Columns, in order (schemas/ops.schema.json):
//
//   id, name, kind, die, start_ns, end_ns, duration_ns, flops, hbm_read_bytes, hbm_write_bytes,
//   l2_hit_rate, achieved_tflops, bound
//
// start is when the op was dispatched (its dependencies done and a slot free), end when its last
// engine finished: the interval the per-class `time_ps` statistics add up. What bound the op
// (kBoundShare = 0.5):
//   - communication: a collective;
//   - otherwise compute_ns = flops / the die's peak for the op (the Cube's at the op's dtype for
//     matmul and attention, the vector units' element rate at its element size for vector ops,
//     none for memcpy) and memory_ns = (hbm_read_bytes + hbm_write_bytes) / the HBM's peak
//     bandwidth: each is the least time the op could take if only that resource limited it;
//   - compute when compute_ns >= memory_ns and compute_ns >= kBoundShare x duration_ns;
//     memory when memory_ns > compute_ns and memory_ns >= kBoundShare x duration_ns;
//   - latency otherwise: neither peak explains half the op's time (pipeline fill, fixed
//     latencies, on-die bandwidth, waiting for engines other ops hold).
// A die at the fast fidelity gives each compute op the HBM bytes and L2 accesses of the one-op
// run its duration was measured on (testbenches/supernode/op_time_table.h): the op alone on a cold
// die. l2_hit_rate is empty for an op that made no demand access to the L2.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "models/common/op_ledger.h"

namespace asim {

struct DieParams;

constexpr double kBoundShare = 0.5;

enum class OpBound { kCompute, kMemory, kLatency, kCommunication };
std::string_view to_string(OpBound b);

// The rule above; times in any one unit.
OpBound classify_op(trace::OpKind kind, double duration, double compute_time, double memory_time);

// The bound of a finished op by the rule above, with `params`' peaks.
OpBound bound_of(const OpRecord& r, const DieParams& params);

// The op's demand L2 hit rate; negative when it made no demand access.
double l2_hit_rate(const OpRecord& r);

// The header line of ops.csv.
std::string ops_csv_header();

// Appends a die's rows to `csv`, in trace order; `params` gives the peaks of the bound rule.
void append_ops_csv(std::string& csv, const OpLedger& ledger, uint32_t die,
                    const DieParams& params);

}  // namespace asim
