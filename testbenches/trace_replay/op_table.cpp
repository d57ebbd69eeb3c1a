#include "testbenches/trace_replay/op_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/chip/die/die.h"
#include "models/common/csv.h"

namespace asim {

namespace {

std::string ns(Picoseconds ps) { return fmt::format("{}.{:03}", ps / 1000, ps % 1000); }

// The least time the op's arithmetic takes at the die's peak, in seconds; 0 when nothing bounds it.
double compute_seconds(const OpRecord& r, const DieParams& p) {
    double peak = 0;
    switch (r.kind) {
        case trace::OpKind::kMatmul:
        case trace::OpKind::kFusedAttention:
            peak = p.peak_flops(r.dtype);
            break;
        case trace::OpKind::kElementwise:
        case trace::OpKind::kActivation:
        case trace::OpKind::kNorm:
        case trace::OpKind::kSoftmax:
        case trace::OpKind::kReduce:
            peak = p.vector_peak_ops(std::max<uint32_t>(1, dtype_bits(r.dtype) / 8));
            break;
        case trace::OpKind::kMemcpy:
        case trace::OpKind::kCollective:
            break;
    }
    return peak > 0 ? r.flops / peak : 0.0;
}

}  // namespace

std::string_view to_string(OpBound b) {
    switch (b) {
        case OpBound::kCompute:
            return "compute";
        case OpBound::kMemory:
            return "memory";
        case OpBound::kLatency:
            return "latency";
        case OpBound::kCommunication:
            return "communication";
    }
    return "latency";
}

OpBound classify_op(trace::OpKind kind, double duration, double compute_time, double memory_time) {
    if (kind == trace::OpKind::kCollective) return OpBound::kCommunication;
    const double needed = kBoundShare * duration;
    if (compute_time >= memory_time && compute_time > 0 && compute_time >= needed) {
        return OpBound::kCompute;
    }
    if (memory_time > compute_time && memory_time >= needed) return OpBound::kMemory;
    return OpBound::kLatency;
}

OpBound bound_of(const OpRecord& r, const DieParams& params) {
    const double seconds = static_cast<double>(r.end - r.start) * 1e-12;
    const double memory_s = static_cast<double>(r.hbm_read_bytes + r.hbm_write_bytes) /
                            params.hbm.bandwidth_bytes_per_s();
    return classify_op(r.kind, seconds, compute_seconds(r, params), memory_s);
}

double l2_hit_rate(const OpRecord& r) {
    const uint64_t accesses = r.l2_hits + r.l2_misses;
    return accesses == 0 ? -1.0 : static_cast<double>(r.l2_hits) / static_cast<double>(accesses);
}

std::string ops_csv_header() {
    return "id,name,kind,die,start_ns,end_ns,duration_ns,flops,hbm_read_bytes,hbm_write_bytes,"
           "l2_hit_rate,achieved_tflops,bound\n";
}

void append_ops_csv(std::string& csv, const OpLedger& ledger, uint32_t die,
                    const DieParams& params) {
    for (const OpRecord& r : ledger.records()) {
        // Only a run that stopped early leaves unfinished ops, and it writes nothing.
        if (!r.finished) continue;
        const Picoseconds duration = r.end - r.start;
        const double seconds = static_cast<double>(duration) * 1e-12;
        const double tflops = seconds > 0 ? r.flops / seconds * 1e-12 : 0.0;
        const double rate = l2_hit_rate(r);
        const std::string hit_rate = rate < 0 ? std::string() : fmt::format("{}", rate);
        const OpBound bound = bound_of(r, params);
        csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.id, csv_field(r.name),
                           trace::to_string(r.kind), die, ns(r.start), ns(r.end), ns(duration),
                           r.flops, r.hbm_read_bytes, r.hbm_write_bytes, hit_rate, tflops,
                           to_string(bound));
    }
}

}  // namespace asim
