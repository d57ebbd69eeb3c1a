// Import of PyTorch execution traces (the JSON torch.profiler.ExecutionGraphObserver /
// ExecutionTraceObserver writes, schema 1.0.x) into op trace format v1.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace asim::tracegen {

struct ImportReport {
    uint64_t nodes = 0;                          // nodes in the execution trace
    uint64_t ops = 0;                            // v1 ops written
    std::map<std::string, uint64_t> mapped;      // aten op -> v1 ops made from it
    std::map<std::string, uint64_t> folded;      // view / bookkeeping ops folded away
    std::map<std::string, uint64_t> generic;     // ops with no v1 kind, kept as generic copies
    std::string text() const;
};

// Reads `et_path` and writes the v1 trace to `out`. Throws TraceError naming the file (and the
// node id) when the file is not an execution trace or a mapped op lacks shapes or types.
ImportReport import_pytorch_et(const std::string& et_path, std::ostream& out, const std::string& name);

}  // namespace asim::tracegen
