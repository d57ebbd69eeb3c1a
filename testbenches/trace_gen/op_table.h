// `ascend-sim trace export --to op-table`: the measured time of every distinct op of a finished
// run, keyed by op signature, for analytical cost models (docs/outputs.md, "op table";
// schemas/op_table.schema.json).
//
// A run's ops.csv has each op's id, die, kind and times but not its shape; the trace that was run
// has the shapes. The export joins the two by (die, op id), checks that they describe the same
// ops (the same ids, each of the same kind), and groups the ops by signature: kind, function,
// dtype and extents, e.g. "matmul bf16 m=4096 n=1280 k=8192 trans_b". One row per signature, in
// order of first appearance in the run; the ops of every die of a trace set are pooled (the
// `dies` column says on how many dies the signature ran).
#pragma once

#include <cstdint>
#include <string>

#include "models/common/trace.h"

namespace asim::tracegen {

// The op's signature (the key of the op table): identical for ops whose work is identical.
std::string op_signature(const trace::Op& op);

struct OpTable {
    std::string csv;    // the table, header line first
    std::string trace;  // the trace it was joined with
    uint64_t ops = 0;   // ops of the run
    uint64_t rows = 0;  // distinct signatures
    uint32_t dies = 0;  // dies of the run
};

// The op table of the run in `run_dir` (its ops.csv). `trace` is the trace that was run: a file,
// a trace-set directory or its index.json; empty for the one the run's stats.json names
// (meta.trace). Throws InputError (TraceError for a bad trace) naming the file and line of any
// problem: no ops.csv, a trace that cannot be found, or one whose ops are not the run's.
OpTable build_op_table(const std::string& run_dir, const std::string& trace);

// The table's columns, in order.
const char* op_table_header();

}  // namespace asim::tracegen
