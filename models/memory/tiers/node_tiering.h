// Node tiering (DSM, dsm.warm): the documents' three temperatures below the dies' own HBM. Blocks
// of a node's slow tier (`from`, pmem) that the node's dies read often are copied by the node's
// copy engine into a region of a faster node tier (`into`, host_ddr); reads and writes of a
// block whose copy is complete are then served by `into`'s device at `into`'s latency. One per
// node, shared by its dies' routers (the pool's devices are per node too).
//
//  - Counting: every read of a `from` block by a die of the node (demand and H-JSD prefetch; not
//    migration traffic) counts; the read that reaches `warm_after` moves the block, unless the
//    copy engine's backlog at its budget reaches more than 10 us ahead (skipped; a later read
//    tries again).
//  - The copy: the block in 64 KiB pieces, each at most at the budget's rate, read from `from`'s
//    device and written to `into`'s, in turn with the dies' demand there (the budget is a share
//    of the devices' time; H-JSD prefetches, background traffic, go after both). Booked at once
//    when the block moves (computed latencies, as the ports'); the copy serves accesses from when
//    its last piece is written.
//  - The region holds capacity / block copies; when full the least recently used is cooled
//    (written back to `from` when dirty, booked as the copies are).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/memory/tiers/dsm_params.h"
#include "models/memory/tiers/local_copies.h"
#include "models/memory/tiers/pool_device.h"

namespace asim {

class NodeTiering {
public:
    // `clock`: the pool's 1 ps clock; the budget server counts in it.
    NodeTiering(const DsmWarmParams& params, PoolDevice& from, PoolDevice& into,
                const ClockDomain* clock);

    // Whether the access of `from`'s block at `offset` (within the tier) arriving at `arrival`
    // is served by its copy in `into` (complete by then); a write marks the copy dirty. A
    // demand access refreshes the copy's place in the LRU order.
    bool serves(uint64_t offset, Picoseconds arrival, bool write, bool demand);
    // Counts a read of the block at `offset` (not served by a copy) arriving at `when`; the read
    // that reaches warm_after moves the block. `now`: the kernel's time (the devices forget what
    // ended before it).
    void count_read(uint64_t offset, Picoseconds when, Picoseconds now);

    struct Counters {
        uint64_t warmed = 0;              // blocks copied into `into`
        uint64_t cooled = 0;              // copies evicted from the region
        uint64_t hits = 0;                // accesses served by a copy
        uint64_t skipped = 0;             // moves skipped: the copy engine's backlog too long
        uint64_t written_back_bytes = 0;  // dirty copies written back to `from`
    };
    const Counters& counters() const { return m_counters; }

private:
    DsmWarmParams m_params;
    PoolDevice& m_from;
    PoolDevice& m_into;
    BandwidthServer m_budget;
    LocalCopies m_copies;                            // LRU; slots are offsets in `into`
    std::unordered_map<uint64_t, uint32_t> m_reads;  // per block not copied
    Counters m_counters;
};

}  // namespace asim
