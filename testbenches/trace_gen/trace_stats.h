// Totals of a trace or of a generated trace set (`ascend-sim trace stats`): FLOPs by class,
// distinct parameters, bytes per stream class and collective bytes per kind. The figures the
// "work adds up" checks compare against the model's analytical counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace asim::tracegen {

struct TraceTotals {
    uint64_t files = 0;
    uint64_t dies = 0;
    uint64_t ops = 0;
    uint64_t tokens =
        0;  // from the index file (tokens x steps); 0 when unknown (a lone trace file)
    std::string model;
    // Distinct weight tensors by name over every file (replicas count once), in elements of
    // the dtype of the first op that reads them.
    uint64_t parameters = 0;
    uint64_t weight_bytes = 0;
    double flops_gemm = 0;       // matmul and batch_matmul
    double flops_attention = 0;  // fused_attention
    double flops_other = 0;      // vector ops
    std::map<std::string, uint64_t> ops_by_kind;
    std::map<std::string, uint64_t> bytes_read;        // per stream class, over every op's inputs
    std::map<std::string, uint64_t> bytes_written;     // per stream class, over every op's outputs
    std::map<std::string, uint64_t> collective_bytes;  // per kind: sum over dies of bytes per die
    std::map<std::string, uint64_t> collective_count;
    double flops_total() const { return flops_gemm + flops_attention + flops_other; }
};

// PATH is a trace file (.jsonl / .jsonl.gz) or a directory written by `trace gen` (its
// index.json names the files). Streams every file. Throws TraceError / InputError.
TraceTotals trace_stats(const std::string& path);

nlohmann::ordered_json to_json(const TraceTotals& t);
std::string to_text(const TraceTotals& t);

}  // namespace asim::tracegen
