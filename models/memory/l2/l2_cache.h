// The on-die L2: a set-associative, sliced, write-back write-allocate cache in front of HBM.
//
// Timing: a transaction is split into lines; each line goes to the slice chosen by a hash of its
// address (hashed interleave) and occupies that slice's port for line_bytes / slice rate
// cycles (FCFS, so slices queue under contention). A hit returns after the slice transfer plus
// the hit latency. Read misses are fetched from HBM through hbm_out (one HBM transaction per run
// of contiguous missing lines) and return when the fill arrives. Writes allocate without a fetch
// (DMA writes whole lines) and mark the line dirty; a dirty victim is written back to HBM
// (posted: it takes HBM bandwidth but the requester does not wait for it).
//
// Approximations (the Memory issue refines them): no MSHR limit or miss merging across
// transactions, 128 B sectors not tracked (whole 512 B lines), one shared partition (the
// per-stream-class counters are kept so that partition studies have their baseline), LRU only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/common/payload.h"
#include "models/common/stats.h"

namespace asim {

class ConfigNode;

struct L2Params {
    uint64_t size_bytes = 64ULL << 20;
    uint64_t line_bytes = 512;
    uint32_t ways = 16;
    uint32_t slices = 32;
    double slice_bandwidth_bytes_per_s = 1.5e12;
    uint64_t clock_hz = 1'650'000'000;
    uint32_t hit_latency_cycles = 100;
    uint64_t address_space_bytes = 288ULL << 30;  // what targets accept (the HBM capacity)

    uint64_t sets() const { return size_bytes / line_bytes / ways; }
    std::vector<std::pair<std::string, std::string>> validate() const;
};

L2Params parse_l2_params(const ConfigNode& node, uint64_t address_space_bytes);

class L2Cache : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<L2Cache> core_in;  // from every engine
    tlm_utils::simple_initiator_socket<L2Cache> hbm_out;

    L2Cache(sc_core::sc_module_name name, const L2Params& params, StatsRegistry& stats);

    const L2Params& params() const { return m_params; }
    uint64_t hits() const;
    uint64_t misses() const;
    void finalize_stats();

private:
    struct ClassStats {
        Counter& hits;
        Counter& misses;
    };

    void b_transport(int port, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    // Looks the line up, updating LRU and dirty state; on a miss installs it and returns the
    // victim's address in `writeback` when a dirty line was evicted.
    bool lookup_and_install(uint64_t line_addr, bool is_write, bool& evicted_dirty,
                            uint64_t& victim_addr);
    Picoseconds hbm_access(Picoseconds now, Picoseconds arrival, uint64_t addr, uint64_t bytes,
                           bool is_write, const TransactionInfo* info);

    L2Params m_params;
    ClockDomain m_clock;
    std::vector<BandwidthServer> m_slices;
    uint64_t m_sets;
    int m_set_shift;
    std::vector<uint64_t> m_tags;   // sets x ways, kInvalid when empty
    std::vector<uint64_t> m_stamp;  // LRU: last-use stamp per way
    std::vector<uint8_t> m_dirty;
    uint64_t m_use_counter = 0;
    PayloadPool m_pool;

    std::vector<ClassStats> m_class_stats;  // indexed by StreamClass
    Counter& m_evictions;
    Counter& m_writebacks;
    Counter& m_read_bytes;
    Counter& m_write_bytes;
    Counter& m_slice_busy_cycles;
};

}  // namespace asim
