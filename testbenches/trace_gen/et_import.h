// Import of PyTorch execution traces into op trace format v1: the JSON that
// torch.profiler.ExecutionGraphObserver writes (schema 1.0.1, PyTorch 1.13) and that
// ExecutionTraceObserver writes (schema "1.0.2-chakra.0.0.4" and later, PyTorch >= 2.1, the host
// trace MLCommons Chakra converts). et_import.cpp describes both layouts.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace asim::tracegen {

struct ImportReport {
    uint64_t nodes = 0;                       // nodes in the execution trace
    uint64_t ops = 0;                         // v1 ops written
    std::map<std::string, uint64_t> mapped;   // aten op -> v1 ops made from it
    std::map<std::string, uint64_t> folded;   // view / bookkeeping ops folded away
    std::map<std::string, uint64_t> generic;  // ops with no v1 kind, kept as generic copies
    uint64_t storages = 0;                    // PyTorch storages the written ops name
    uint64_t footprint_bytes = 0;             // HBM they occupy, packed from address 0
    std::string text() const;
};

// Reads `et_path` and writes the v1 trace to `out`. Throws TraceError naming the file (and the
// node id) when the file is not an execution trace or a mapped op lacks shapes or types; nothing
// is written to `out` then.
ImportReport import_pytorch_et(const std::string& et_path, std::ostream& out,
                               const std::string& name);

}  // namespace asim::tracegen
