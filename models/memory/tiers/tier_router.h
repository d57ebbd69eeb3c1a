// The die's way to its memory tiers (DESIGN §5b): a TLM module between the L2 and the HBM that
// decodes each access's address with the platform's address map and times it at its tier.
//
//  - hbm: forwarded to the die's HBM unchanged (a die reading its own remote_hbm window too).
//  - remote_hbm / host_ddr / pmem: the die's pool port (UB; one demand-first server per
//    direction), then the tier's device (another die's HBM model in a supernode, the shared DDR or
//    persistent-memory device otherwise), plus the tier's unloaded latency. Demand goes before
//    prefetch and (by default) migration traffic on the port and on the device.
//  - A block of the pool with a copy in local HBM (staged by the H-JSD or promoted by tiering)
//    is read from that copy, at local HBM timing: a staged block's read waits for its copy, a
//    promoted block is read from its tier until its copy is complete.
//
// The H-JSD's second prefetch level arrives through StagingPort: a read of pool blocks that the
// router copies into the staging region (pool read, then a local HBM write); the staging credit
// goes back to the H-JSD when a demand read first uses a staged block or when it is evicted unused.
//
// Hardware tiering: per-block counters of demand reads; a block read `promote_after` times is
// queued for the migration engine (a thread) unless its backlog is too long; the least recently
// used promoted block is demoted (written back when dirty). The engine copies a block in 64 KiB
// pool reads, at most at the migration budget, each into an idle port (priority background) or
// in turn with demand (share), then writes it to local HBM.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <systemc>
#include <tlm>
#include "models/common/tlm_target.h"

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/common/payload.h"
#include "models/common/priority_bandwidth_server.h"
#include "models/common/stats.h"
#include "models/memory/l2/l2_cache.h"
#include "models/memory/tiers/dsm_params.h"
#include "models/memory/tiers/dsm_pool.h"
#include "models/memory/tiers/local_copies.h"

namespace asim {

// Where the H-JSD sends its second-level prefetches (a b_transport without a socket: the port
// exists only on dies whose platform turns staging on).
class StagingPort {
public:
    virtual ~StagingPort() = default;
    virtual void stage_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) = 0;
};

class TierRouter : public sc_core::sc_module, public StagingPort, public TlmTarget<TierRouter> {
public:
    tlm_utils::simple_target_socket<TierRouter> l2_in;  // from the L2 (its misses, write-backs)
    tlm_utils::simple_initiator_socket<TierRouter> hbm_out;

    // `die`: this die's index among the owners of remote_hbm. `local_hbm_bytes`: its HBM;
    // `region_top`: the staging and tiering regions are carved below it.
    TierRouter(sc_core::sc_module_name name, const DsmParams& params, DsmPool& pool, uint32_t die,
               uint64_t local_hbm_bytes, uint64_t region_top, StatsRegistry& stats);

    // Where staging credit goes (the H-JSD) and as which of its credit pools.
    void set_staging_listener(L2PrefetchListener* listener, std::size_t pool) {
        m_listener = listener;
        m_staging_pool = pool;
    }
    // Whether a pool address is valid; the tier of `addr` (kHbm for the die's own memory).
    struct Decoded {
        Tier tier = Tier::kHbm;
        uint32_t owner = 0;
        uint64_t offset = 0;  // within the owner's HBM for remote_hbm
        bool valid = false;
    };
    Decoded decode(uint64_t addr, uint64_t bytes) const;
    // Why decode() refuses an access starting at `addr`: the window it starts in and what it
    // passes ("" when it starts in none).
    std::string refusal(uint64_t addr) const;
    uint64_t staging_region_base() const { return m_staging_base; }

    struct TierTotals {
        uint64_t read_bytes = 0, write_bytes = 0, reads = 0, writes = 0;
        uint64_t copy_hits = 0;  // accesses served from a local copy (staged or promoted)
        uint64_t warm_hits = 0;  // accesses served by the node's warm copy (dsm.warm)
        uint64_t migrations_in = 0, migrations_out = 0;
        uint64_t max_block_writes = 0;  // pmem endurance: most writes to one counted block
    };
    const TierTotals& totals(Tier t) const { return m_totals[static_cast<std::size_t>(t)]; }
    void finalize_stats();

    // Staging prefetches from the H-JSD (StagingPort).
    void stage_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;

private:
    friend class TlmTarget<TierRouter>;
    // The socket's callback: local HBM goes straight on, pool addresses to serve().
    void route(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    // Any address a tier may hold: decode() finds the tier or refuses.
    uint64_t address_limit() const { return ~uint64_t{0}; }
    Picoseconds serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int port);
    // DESIGN §5 demand first at the port: an H-JSD prefetch read is granted the port only once
    // the work booked on it has drained, waiting in its SDMA lane (a thread).
    // PriorityBandwidthServer cannot move a transfer it has granted, so a prefetch granted ahead
    // would run over demand booked after it (2.4 % of the port's time on DeepSeek-V3 decode before
    // this). Returns the arrival to book from.
    Picoseconds await_idle_port(Picoseconds arrival);
    // Times one access of a pool tier (no local copy); returns its completion.
    // `background`: behind demand at the port and the devices; `migration`: the tiering's own
    // traffic (not counted by the node tiering).
    Picoseconds pool_access(const Decoded& d, Picoseconds arrival, uint64_t bytes, bool write,
                            bool background, bool migration);
    // One access of an HBM model (this die's through hbm_out, or an owner's); returns its
    // completion.
    Picoseconds hbm_access(tlm::tlm_fw_transport_if<>& hbm, uint64_t addr, Picoseconds arrival,
                           uint64_t bytes, bool write, const TransactionInfo& info);
    // A local HBM access through hbm_out; returns its completion.
    Picoseconds local_access(uint64_t addr, Picoseconds arrival, uint64_t bytes, bool write,
                             const TransactionInfo* info);
    Picoseconds remote_piece(uint64_t addr, const Decoded& d, Picoseconds arrival, uint64_t bytes,
                             bool write, bool background, const TransactionInfo* info);
    void count_for_tiering(uint64_t addr, const Decoded& d, Picoseconds when);
    // The tiering's migration engine (a thread, spawned with tiering on): copies each promoted
    // block into its slot piece by piece, each piece granted the port only once the port's
    // booked work has drained (demand first, as the H-JSD's prefetches), and marks the copy
    // complete after its local write.
    void migration_engine();
    void evict_staged(const LocalCopies::Copy& c);
    static Picoseconds kernel_now() { return ClockDomain::to_ps(sc_core::sc_time_stamp()); }

    DsmParams m_params;
    DsmPool& m_pool;
    uint32_t m_die;
    uint64_t m_local_bytes;
    uint64_t m_staging_base = 0;
    PriorityBandwidthServer m_port_read;
    PriorityBandwidthServer m_port_write;
    // Out of the die, the data of other dies' reads of this die's HBM, at the read rate (the
    // port's measured read bandwidth is what the serving side sustains too). Kept apart from
    // m_port_write: this die's own writes and the reads it serves do not share a server.
    CalendarServer m_port_serve;  // booked by the reading dies, each at its own times
    LocalCopies m_staged;
    LocalCopies m_promoted;
    NodeTiering* m_warm = nullptr;  // this die's node's tiering (dsm.warm), null when off
    std::unordered_map<uint64_t, uint32_t> m_block_reads;  // tiering counters, per pool block
    // Endurance counters of the tiers that count writes: per tier, writes per block.
    std::vector<std::unordered_map<uint64_t, uint32_t>> m_counted_writes =
        std::vector<std::unordered_map<uint64_t, uint32_t>>(tier_count());
    BandwidthServer m_migration_budget;
    struct Migration {
        uint64_t block;  // the promoted block (its copy's slot is reserved)
        Decoded source;  // where its data is read from
    };
    std::deque<Migration> m_migrations;   // promoted, not yet copied, in order
    uint64_t m_migration_bytes_left = 0;  // of the queued migrations and the one in progress
    sc_core::sc_event m_migration_queued;
    L2PrefetchListener* m_listener = nullptr;
    std::size_t m_staging_pool = 0;
    PayloadPool m_payloads;
    std::vector<TierTotals> m_totals = std::vector<TierTotals>(tier_count());  // by tier
    struct StatRefs {
        Counter& staged_blocks;
        Counter& staging_hits;
        Counter& staging_unused;
        Counter& promoted_hits;
        Counter& migrations_skipped;
        Counter& port_read_bytes;
        Counter& port_write_bytes;
        Histogram& pool_read_latency_ns;
    } m_stats;
    StatsRegistry& m_registry;
};

}  // namespace asim
