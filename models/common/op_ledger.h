// Per-op results (ops.csv): when each op ran and the memory traffic it caused.
//
// Attribution is by the transactions an op's engines issue, not by time windows: every payload
// carries its op in TransactionInfo (op_id, and a pointer to the die's ledger), so
//  - the L2 counts an op's demand hits and misses on the requests tagged with it;
//  - the HBM counts bytes on the transactions that reach it tagged with an op: the L2's fills for
//    the op's misses, the write-backs of dirty lines its accesses evicted (they are written
//    because of its allocation, whichever op dirtied them), its write-throughs, and the H-JSD's
//    prefetch fills of its weights (the H-JSD knows ops by their sequence number in the trace and
//    tags its requests with the op id the ledger gives for it).
// Traffic without a ledger (none in a single-die run without a memory pool) is not attributed;
// the sum over ops then falls short of the die's totals by exactly that traffic.
//
// Plain data, no SystemC: it registers no statistics, so stats.json is the same with or without
// it. It keeps one record per op of the trace (about 100 bytes each plus the op's name).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/common/clock_domain.h"
#include "models/common/dtype.h"
#include "models/common/trace.h"

namespace asim {

class TransactionInfo;

struct OpRecord {
    uint64_t id = 0;
    std::string name;
    trace::OpKind kind = trace::OpKind::kMatmul;
    DType dtype = DType::kBf16;
    double flops = 0;
    Picoseconds start = 0;
    Picoseconds end = 0;
    bool started = false;
    bool finished = false;
    uint64_t hbm_read_bytes = 0;
    uint64_t hbm_write_bytes = 0;
    uint64_t l2_hits = 0;
    uint64_t l2_misses = 0;
};

class OpLedger {
public:
    // An op read from the trace, in trace order (`seq` counts from 0 with no gaps).
    void add(uint64_t seq, const trace::Op& op);
    void started(uint64_t op_id, Picoseconds when);
    void finished(uint64_t op_id, Picoseconds when);
    // The id of the op with sequence number `seq` (`seq` itself when it is unknown).
    uint64_t id_of_seq(uint64_t seq) const {
        return seq < m_records.size() ? m_records[seq].id : seq;
    }
    // Traffic tagged with `info`'s op_id. Bytes of unknown ops are counted in unattributed_bytes.
    void hbm(const TransactionInfo& info, uint64_t bytes, bool is_write);
    void l2(const TransactionInfo& info, uint64_t hits, uint64_t misses);

    const std::vector<OpRecord>& records() const { return m_records; }

    // Keeps each op's dependencies (the ids in its `deps`) for the timeline's arrows; off by
    // default, since a large trace set would hold them all to the end for nothing.
    void keep_deps(bool on) { m_keep_deps = on; }
    // The ids op `seq` waits for (empty unless keep_deps was on when it was added).
    const std::vector<uint64_t>& deps(std::size_t seq) const;
    // The sequence number of the op with id `op_id`; SIZE_MAX when there is none.
    std::size_t seq_of(uint64_t op_id) const;
    uint64_t unattributed_bytes() const { return m_unattributed_bytes; }

private:
    OpRecord* find_id(uint64_t op_id);

    std::vector<OpRecord> m_records;                  // by sequence number
    std::unordered_map<uint64_t, std::size_t> m_seq;  // op id -> sequence number
    uint64_t m_last_id = ~uint64_t{0};                // a one-entry cache of the map
    std::size_t m_last_seq = 0;
    uint64_t m_unattributed_bytes = 0;
    bool m_keep_deps = false;
    std::vector<std::vector<uint64_t>> m_deps;  // by sequence number, with keep_deps
};

}  // namespace asim
