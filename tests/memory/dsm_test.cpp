// The memory pool's router (models/memory/tiers): address decoding across tiers and owners, the
// timing of a pool access (latency, the die's port, the tier's device), demand before prefetch,
// the H-JSD's staging copies, hardware tiering and a supernode's remote read landing on the
// owner die's HBM. A driver thread issues accesses through the router's L2 socket.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "models/common/calendar_server.h"
#include "models/common/config.h"
#include "models/common/params.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/memory/hbm_flat/hbm_flat.h"
#include "models/memory/interfaces/hbm_load_monitor.h"
#include "models/memory/tiers/dsm_pool.h"
#include "models/memory/tiers/tier_router.h"
#include "tests/harness/sc_harness.h"

namespace asim {
namespace {

constexpr uint64_t kHbm = 64ULL << 30;
// Tiers by name, asked at run time (the registry is complete only after start-up).
Tier tier(const char* name) { return tier_from_string(name).value(); }
uint64_t base_of(const char* name) { return default_kind(tier(name)).default_base; }

DsmParams pool_params() {
    DsmParams p;
    p.owners = 4;
    p.port = {100e9, 50e9};  // 100 GB/s in, 50 GB/s out
    TierParams pmem = make_tier("pmem", 2ULL << 40, 1'300'000, 1'200'000, 40e9, 10e9);
    pmem.kind.endurance_block = 2ULL << 20;
    p.tiers = {make_tier("remote_hbm", kHbm, 1'000'000, 1'100'000, 1e12, 1e12),
               make_tier("host_ddr", 1ULL << 40, 800'000, 900'000, 400e9, 400e9), pmem};
    return p;
}

struct Listener : L2PrefetchListener {
    uint64_t released = 0;
    void prefetch_released(std::size_t, uint64_t bytes) override { released += bytes; }
};

// One die: the router "dsm" in front of a flat HBM; `other` is a second die's HBM (owner 1).
struct Bench : sc_core::sc_module {
    SC_HAS_PROCESS(Bench);
    tlm_utils::simple_initiator_socket<Bench> out{"out"};
    std::unique_ptr<tlm_utils::simple_initiator_socket<Bench>>
        other_l2;  // the second die's L2 (unused)
    StatsRegistry stats;
    DsmParams params;
    std::unique_ptr<DsmPool> pool;
    std::unique_ptr<HbmFlat> hbm, other;
    std::unique_ptr<TierRouter> router;
    PayloadPool payloads;
    std::function<void(Bench&)> body;
    Listener listener;

    Bench(sc_core::sc_module_name name, const DsmParams& p, bool second_die = false)
        : sc_module(name), params(p) {
        test::set_time_resolution();
        pool = std::make_unique<DsmPool>(params, stats);
        HbmFlatParams h;
        h.capacity_bytes = kHbm;
        hbm = std::make_unique<HbmFlat>("hbm", h, stats);
        router =
            std::make_unique<TierRouter>("dsm", params, *pool, 0, kHbm, kHbm - (1ULL << 30), stats);
        router->hbm_out.bind(hbm->l2_in);
        out.bind(router->l2_in);
        pool->attach_hbm(0, hbm->l2_in, h.latency_ps);
        if (second_die) {
            other = std::make_unique<HbmFlat>("other_hbm", h, stats);
            pool->attach_hbm(1, other->l2_in, h.latency_ps);
            other_l2 = std::make_unique<tlm_utils::simple_initiator_socket<Bench>>("other_l2");
            other_l2->bind(other->l2_in);
        }
        router->set_staging_listener(&listener, 3);
        SC_THREAD(run);
    }
    void run() { body(*this); }

    // Issues one access at `at` (ps from now); returns its completion time.
    Picoseconds access(uint64_t addr, uint64_t bytes, bool write, bool prefetch, Picoseconds at = 0,
                       bool stage = false) {
        tlm::tlm_generic_payload* p = payloads.acquire();
        p->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p->set_address(addr);
        p->set_data_length(static_cast<unsigned>(bytes));
        p->set_streaming_width(static_cast<unsigned>(bytes));
        info_of(*p)->stream = prefetch ? StreamClass::kPrefetch : StreamClass::kWeight;
        const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
        sc_core::sc_time delay = ClockDomain::from_ps(at);
        if (stage) {
            router->stage_transport(*p, delay);
        } else {
            out->b_transport(*p, delay);
        }
        EXPECT_TRUE(p->is_response_ok()) << "access to 0x" << std::hex << addr;
        p->release();
        return ClockDomain::to_ps(sc_core::sc_time_stamp() + delay) - now;
    }
    void run_body(std::function<void(Bench&)> f) {
        body = std::move(f);
        test::run_simulation(sc_core::sc_time(1, sc_core::SC_SEC));
    }
};

TEST(TierRouter, DecodesTiersAndOwners) {
    Bench b("bench", pool_params());
    const TierRouter& r = *b.router;
    EXPECT_EQ(r.decode(0x1000, 64).tier, Tier::kHbm);
    EXPECT_FALSE(r.decode(kHbm - 32, 64).valid);  // passes the HBM's end
    // Owner 0 is this die: its own window is its HBM at the window's offset.
    const auto own = r.decode(base_of("remote_hbm") + 0x2000, 64);
    EXPECT_TRUE(own.valid);
    EXPECT_EQ(own.tier, Tier::kHbm);
    EXPECT_EQ(own.offset, 0x2000u);
    const auto other = r.decode(base_of("remote_hbm") + 2 * kRemoteHbmOwnerStride + 0x3000, 64);
    EXPECT_EQ(other.tier, tier("remote_hbm"));
    EXPECT_EQ(other.owner, 2u);
    EXPECT_EQ(other.offset, 0x3000u);
    EXPECT_FALSE(
        r.decode(base_of("remote_hbm") + 4 * kRemoteHbmOwnerStride, 64).valid);  // owner 4 of 4
    EXPECT_FALSE(r.decode(base_of("remote_hbm") + kRemoteHbmOwnerStride + kHbm, 64)
                     .valid);  // beyond the owner's HBM
    EXPECT_EQ(r.decode(base_of("host_ddr") + 5, 64).tier, tier("host_ddr"));
    EXPECT_EQ(r.decode(base_of("pmem"), 64).tier, tier("pmem"));
    EXPECT_FALSE(r.decode(base_of("host_ddr") - 64, 64).valid);  // in no window
    b.run_body([](Bench&) {});
}

// A pool read takes the tier's latency plus the transfer at the slower of the port and the
// device: 1 MiB from host DDR at 100 GB/s into the die is 10.49 us + 0.8 us.
TEST(TierRouter, PoolReadTakesLatencyAndThePortsBandwidth) {
    Bench b("bench", pool_params());
    b.run_body([](Bench& x) {
        const Picoseconds small = x.access(base_of("host_ddr"), 512, false, false);
        EXPECT_NEAR(static_cast<double>(small), 800'000 + 5'120, 2.0);
        const Picoseconds big =
            x.access(base_of("host_ddr") + (1 << 20), 1 << 20, false, false, 20'000'000);
        EXPECT_NEAR(static_cast<double>(big), 20'000'000 + 10'485'760 + 800'000, 10.0);
        // pmem writes: its device writes at 10 GB/s, slower than the port's 50.
        const Picoseconds w = x.access(base_of("pmem"), 1 << 20, true, false, 40'000'000);
        EXPECT_NEAR(static_cast<double>(w), 40'000'000 + 104'857'600 + 1'200'000, 10.0);
    });
    EXPECT_EQ(b.router->totals(tier("host_ddr")).read_bytes, 512u + (1u << 20));
    EXPECT_EQ(b.router->totals(tier("pmem")).write_bytes, 1u << 20);
    EXPECT_EQ(b.router->totals(tier("pmem")).max_block_writes, 1u);
    EXPECT_EQ(b.hbm->read_bytes(), 0u);
}

// The H-JSD's HBM load monitor hears what an HBM serves, whoever sent it: a read of host DDR
// loads no HBM, a read of the die's own HBM loads its monitor, and a read of another die's HBM
// loads that die's monitor and not the reader's.
TEST(TierRouter, OnlyWhatAnHbmServesCountsAsItsLoad) {
    Bench b("bench", pool_params(), true);
    constexpr Picoseconds kWindow = 100'000'000;  // 100 us
    HbmLoadMonitor own(1e12, kWindow), other(1e12, kWindow);
    b.hbm->set_load_monitor(&own);
    b.other->set_load_monitor(&other);
    double after_ddr = -1, own_after_local = -1, own_after_remote = -1, other_after_remote = -1;
    b.run_body([&](Bench& x) {
        auto settle = [](Picoseconds d) { sc_core::wait(ClockDomain::from_ps(d)); };
        settle(x.access(base_of("host_ddr"), 1 << 20, false, false));
        after_ddr = own.utilisation(ClockDomain::to_ps(sc_core::sc_time_stamp())) +
                    other.utilisation(ClockDomain::to_ps(sc_core::sc_time_stamp()));
        settle(x.access(0x10000, 1 << 20, false, false));
        own_after_local = own.utilisation(ClockDomain::to_ps(sc_core::sc_time_stamp()));
        settle(x.access(base_of("remote_hbm") + kRemoteHbmOwnerStride, 1 << 20, false, false));
        const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
        own_after_remote = own.utilisation(now);
        other_after_remote = other.utilisation(now);
    });
    EXPECT_EQ(after_ddr, 0.0);
    // 1 MiB in a 100 us window of a 1 TB/s peak: 1.05 %.
    EXPECT_NEAR(own_after_local, 0.0105, 0.0001);
    EXPECT_NEAR(own_after_remote, 0.0105, 0.0001);  // the remote read did not add to it
    EXPECT_NEAR(other_after_remote, 0.0105, 0.0001);
}

// Demand first at the port: a prefetch is granted only once the demand booked before it has
// drained (so later demand never runs over it), and a demand read that arrives while a granted
// prefetch is in service waits for that one transfer only.
TEST(TierRouter, DemandGoesBeforePrefetch) {
    Bench b("bench", pool_params());
    b.run_body([](Bench& x) {
        // Eight demand reads of 64 KiB book the port for 8 x 655 ns.
        for (int i = 0; i < 8; ++i)
            x.access(base_of("host_ddr") + (uint64_t(i) << 16), 1 << 16, false, false);
        // A prefetch is granted only when that work has drained: it waits (in this thread) and
        // completes after all eight.
        const Picoseconds start = ClockDomain::to_ps(sc_core::sc_time_stamp());
        const Picoseconds prefetch =
            x.access(base_of("host_ddr") + (1 << 24), 1 << 16, false, true);
        const Picoseconds granted = ClockDomain::to_ps(sc_core::sc_time_stamp());
        EXPECT_GE(granted - start, 8 * 655'000 - 1'000);
        EXPECT_GT(prefetch, 9 * 655'000);
        // Granted, it is in service: a demand read 100 ns later waits for that one transfer (655
        // ns), then its own 5 ns, plus the latency, not for prefetches queued after it.
        const Picoseconds demand =
            x.access(base_of("host_ddr") + (1 << 25), 512, false, false, 100'000);
        EXPECT_LT(demand, 100'000 + 800'000 + 700'000);
        EXPECT_GT(demand, 655'000);
    });
}

// A staged block is read from local HBM once its copy is complete, and the staging credit comes
// back at the first demand read of it.
TEST(TierRouter, StagedBlockIsReadFromLocalHbm) {
    DsmParams p = pool_params();
    p.staging.capacity = 1 << 20;
    p.staging.block = 1 << 16;
    Bench b("bench", p);
    b.run_body([](Bench& x) {
        const uint64_t addr = base_of("remote_hbm") + kRemoteHbmOwnerStride + (1 << 20);  // owner 1
        const Picoseconds staged = x.access(addr, 1 << 16, false, true, 0, true);
        EXPECT_GT(staged, 1'000'000);  // a pool read, then a local write
        EXPECT_EQ(x.listener.released, 0u);
        sc_core::wait(ClockDomain::from_ps(staged));
        const Picoseconds hit = x.access(addr + 4096, 512, false, false);
        EXPECT_LT(hit, 300'000);  // local HBM, not the pool's 1 us
        EXPECT_EQ(x.listener.released, uint64_t{1} << 16);
        // A block nobody staged still goes to the pool.
        EXPECT_GT(x.access(addr + (1 << 16), 512, false, false), 1'000'000);
    });
    EXPECT_EQ(b.router->totals(tier("remote_hbm")).copy_hits, 1u);
    EXPECT_EQ(b.hbm->write_bytes(), 1u << 16);
}

// Staging more blocks than the region holds evicts the oldest; an evicted block that no demand
// read used returns its credit and counts as unused.
TEST(TierRouter, StagingEvictsOldestAndReturnsItsCredit) {
    DsmParams p = pool_params();
    p.staging.capacity = 2 << 16;
    p.staging.block = 1 << 16;
    Bench b("bench", p);
    b.run_body([](Bench& x) {
        for (int i = 0; i < 3; ++i)
            x.access(base_of("host_ddr") + (uint64_t(i) << 16), 1 << 16, false, true, 0, true);
        EXPECT_EQ(x.listener.released, uint64_t{1} << 16);  // block 0, evicted unused
    });
    const auto* unused = static_cast<const Counter*>(b.stats.find("bench.dsm.staging_unused"));
    ASSERT_NE(unused, nullptr);
    EXPECT_EQ(unused->value(), 1u);
}

// Tiering of 1 MiB blocks promoted at their second demand read into an 8 MiB region, at most
// 100 GB/s of migration.
DsmParams tiering_params(bool share = false) {
    DsmParams p = pool_params();
    p.tiering = {true, 1 << 20, 2, 8 << 20, 100e9, share};
    return p;
}

// A block read `promote_after` times is migrated into local HBM (pool read + local write, at
// background priority) and later reads are served from the copy.
TEST(TierRouter, TieringPromotesAHotBlock) {
    Bench b("bench", tiering_params());
    b.run_body([](Bench& x) {
        x.access(base_of("host_ddr"), 512, false, false);
        x.access(base_of("host_ddr") + 1024, 512, false, false);  // the second read: promoted
        sc_core::wait(sc_core::sc_time(100, sc_core::SC_US));
        EXPECT_LT(x.access(base_of("host_ddr") + 2048, 512, false, false), 300'000);
    });
    const auto& t = b.router->totals(tier("host_ddr"));
    EXPECT_EQ(t.migrations_in, 1u);
    EXPECT_EQ(t.copy_hits, 1u);
    EXPECT_EQ(t.read_bytes, 1024u + (1u << 20));  // two demand reads and the migrated block
    EXPECT_EQ(b.hbm->write_bytes(), 1u << 20);
}

// Reads of a block whose migration is still copying go to the block's tier: the copy serves
// reads from the moment it is complete, not before.
TEST(TierRouter, APromotedBlockIsReadWhereItIsUntilItsCopyIsComplete) {
    Bench b("bench", tiering_params());
    b.run_body([](Bench& x) {
        x.access(base_of("host_ddr"), 512, false, false);
        x.access(base_of("host_ddr") + 1024, 512, false, false);  // promoted: 1 MiB to copy
        // 1 MiB through the 100 GB/s port takes 10.5 us; a read now does not wait for it.
        EXPECT_LT(x.access(base_of("host_ddr") + 2048, 512, false, false), 2'000'000);
        EXPECT_EQ(x.router->totals(tier("host_ddr")).copy_hits, 0u);
        sc_core::wait(sc_core::sc_time(20, sc_core::SC_US));
        x.access(base_of("host_ddr") + 4096, 512, false, false);
        EXPECT_EQ(x.router->totals(tier("host_ddr")).copy_hits, 1u);
    });
}

// Whether a migration progresses while demand keeps the port booked: a stream of 64 KiB demand
// reads (655 ns of the 100 GB/s port each) every 600 ns for 100 us, each of a block of its own
// (read once: never promoted), after a 1 MiB block was promoted. Returns whether a read of the
// promoted block at 105 us is served by its copy.
bool promoted_copy_complete_under_demand(bool share) {
    Bench b("bench", tiering_params(share));
    bool complete = false;
    b.run_body([&](Bench& x) {
        x.access(base_of("host_ddr"), 512, false, false);
        x.access(base_of("host_ddr") + 1024, 512, false, false);  // promoted
        for (uint64_t k = 1; k <= 166; ++k) {
            x.access(base_of("host_ddr") + (k << 20), 64 << 10, false, false);
            sc_core::wait(sc_core::sc_time(600, sc_core::SC_NS));
        }
        sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
        const uint64_t before = x.router->totals(tier("host_ddr")).copy_hits;
        x.access(base_of("host_ddr") + 2048, 512, false, false);
        complete = x.router->totals(tier("host_ddr")).copy_hits == before + 1;
    });
    return complete;
}

// In the background (the default) a migration takes only a port with nothing booked: a port
// kept busy by demand stops it.
TEST(TierRouter, ABackgroundMigrationWaitsWhileDemandKeepsThePortBusy) {
    EXPECT_FALSE(promoted_copy_complete_under_demand(false));
}

// As a share, the migration takes its budget in turn with demand and completes meanwhile.
TEST(TierRouter, AMigrationAsAShareCompletesWhileDemandKeepsThePortBusy) {
    EXPECT_TRUE(promoted_copy_complete_under_demand(true));
}

// In a supernode a read of owner 1's window is served by owner 1's HBM model.
TEST(TierRouter, RemoteReadLandsOnTheOwnersHbm) {
    Bench b("bench", pool_params(), true);
    b.run_body([](Bench& x) {
        x.access(base_of("remote_hbm") + kRemoteHbmOwnerStride + 4096, 4096, false, false);
    });
    EXPECT_EQ(b.other->read_bytes(), 4096u);
    EXPECT_EQ(b.hbm->read_bytes(), 0u);
    EXPECT_EQ(b.router->totals(tier("remote_hbm")).read_bytes, 4096u);
}

// Node tiering of pmem's 1 MiB blocks into an 8 MiB region of host_ddr, moved at their second
// read, at most 100 GB/s of copying (pmem's device reads at 40 GB/s in pool_params).
DsmParams warm_params() {
    DsmParams p = pool_params();
    p.warm = {true, tier("pmem"), tier("host_ddr"), 8 << 20, 1 << 20, 2, 100e9};
    return p;
}

// A pmem block read warm_after times is copied into host_ddr by the node (pmem read, DDR write,
// not through the die's port); once the copy is complete a read is served at host_ddr's latency
// and counted in host_ddr's bytes and pmem's warm hits.
TEST(NodeTiering, AWarmPmemBlockIsServedFromDdrOnceCopied) {
    Bench b("bench", warm_params());
    Picoseconds before = 0, during = 0, after = 0;
    b.run_body([&](Bench& x) {
        before = x.access(base_of("pmem"), 512, false, false);
        x.access(base_of("pmem") + 1024, 512, false, false);  // the second read: the block moves
        during = x.access(base_of("pmem") + 2048, 512, false, false);  // copy not complete
        sc_core::wait(sc_core::sc_time(100, sc_core::SC_US));          // 1 MiB at 40 GB/s: 26 us
        after = x.access(base_of("pmem") + 4096, 512, false, false);
    });
    EXPECT_GE(before, 1'300'000);  // pmem's latency
    EXPECT_GE(during, 1'300'000);
    EXPECT_GE(after, 800'000);  // host_ddr's
    EXPECT_LT(after, 900'000);
    const auto& pmem = b.router->totals(tier("pmem"));
    EXPECT_EQ(pmem.read_bytes, 3u * 512);
    EXPECT_EQ(pmem.warm_hits, 1u);
    EXPECT_EQ(b.router->totals(tier("host_ddr")).read_bytes, 512u);
    const NodeTiering::Counters& c = b.pool->node_tiering(tier("pmem"), 0)->counters();
    EXPECT_EQ(c.warmed, 1u);
    EXPECT_EQ(c.hits, 1u);
    // The copy moved through the node's devices: 1 MiB read from pmem, written to DDR.
    EXPECT_EQ(b.pool->device(tier("pmem"), 0)->read.bytes(), 3u * 512 + (1u << 20));
    EXPECT_EQ(b.pool->device(tier("host_ddr"), 0)->write.bytes(), 1u << 20);
}

// The dies of one node share its counters and copies (dies_per_node = 8); another node has its
// own. Without the tier named in dsm.warm.from there is no node tiering.
TEST(NodeTiering, TheDiesOfANodeShareItsTiering) {
    StatsRegistry stats;
    DsmPool pool(warm_params(), stats);
    NodeTiering* n0 = pool.node_tiering(tier("pmem"), 0);
    ASSERT_NE(n0, nullptr);
    EXPECT_EQ(pool.node_tiering(tier("pmem"), 7), n0);
    EXPECT_NE(pool.node_tiering(tier("pmem"), 8), n0);
    EXPECT_EQ(pool.node_tiering(tier("host_ddr"), 0), nullptr);
    n0->count_read(0, 0, 0);                                    // die 0
    pool.node_tiering(tier("pmem"), 3)->count_read(512, 0, 0);  // die 3: the second read
    EXPECT_EQ(n0->counters().warmed, 1u);
    EXPECT_FALSE(n0->serves(0, 0, false, true));             // copying
    EXPECT_TRUE(n0->serves(0, 1'000'000'000, false, true));  // complete by 1 ms
}

// The region holds capacity / block copies: the least recently used is cooled, written back to
// pmem when dirty. A move is skipped while the copy engine's backlog reaches beyond 10 us.
TEST(NodeTiering, CoolsTheLeastRecentlyUsedAndSkipsWhenTheEngineIsBehind) {
    DsmParams p = warm_params();
    p.warm.capacity = 2 << 20;  // two blocks
    StatsRegistry stats;
    DsmPool pool(p, stats);
    NodeTiering& n = *pool.node_tiering(tier("pmem"), 0);
    const Picoseconds ms = 1'000'000'000;
    const auto warm = [&](uint64_t block, Picoseconds at) {
        n.count_read(block << 20, at, at);
        n.count_read((block << 20) + 512, at, at);
    };
    warm(0, 0);
    warm(1, ms);
    EXPECT_TRUE(n.serves(0, 2 * ms, true, true));  // block 0 written: dirty, and now the newest
    warm(2, 3 * ms);                               // block 1 cooled, clean
    EXPECT_EQ(n.counters().cooled, 1u);
    EXPECT_EQ(n.counters().written_back_bytes, 0u);
    EXPECT_FALSE(n.serves(1 << 20, 4 * ms, false, true));
    warm(3, 5 * ms);  // block 0 cooled: written back
    EXPECT_EQ(n.counters().written_back_bytes, 1u << 20);
    EXPECT_EQ(pool.device(tier("pmem"), 0)->write.bytes(), 1u << 20);
    // 1 MiB at 100 GB/s books the engine 10.5 us ahead: a move at once after it is skipped.
    warm(4, 6 * ms);
    warm(5, 6 * ms);
    EXPECT_EQ(n.counters().warmed, 5u);
    EXPECT_EQ(n.counters().skipped, 1u);
}

// The copies take their share of the devices' time, in turn with demand: demand booked after a
// copy does not overlap it (a device never delivers more than its bandwidth). A 1 MiB block's
// copy keeps pmem's 40 GB/s read side busy for 26.2 us from 0; a 1 MiB demand read arriving at 0
// afterwards ends no earlier than 52.4 us.
TEST(NodeTiering, TheCopiesTakeTheirShareOfTheDevices) {
    StatsRegistry stats;
    DsmPool pool(warm_params(), stats);
    NodeTiering& n = *pool.node_tiering(tier("pmem"), 0);
    n.count_read(0, 0, 0);
    n.count_read(512, 0, 0);  // the block moves: its copy is booked
    ASSERT_EQ(n.counters().warmed, 1u);
    const Picoseconds copy_ps = (1ULL << 20) * 1'000'000'000'000ULL / 40'000'000'000ULL;
    const Picoseconds demand_end = pool.device(tier("pmem"), 0)->read.reserve(0, 1 << 20).end;
    EXPECT_GE(demand_end, 2 * copy_ps);
}

TEST(DsmParams, NodeTieringNeedsTwoNodeTiersAndARegionThatFits) {
    auto keys = [](const DsmParams& p) {
        std::vector<std::string> k;
        for (const auto& [key, m] : p.validate(kHbm)) k.push_back(key);
        return k;
    };
    DsmParams p = warm_params();
    EXPECT_TRUE(keys(p).empty());
    p.warm.into = tier("remote_hbm");  // not a node tier
    EXPECT_EQ(keys(p), std::vector<std::string>{"warm"});
    p = warm_params();
    p.warm.capacity = 2ULL << 40;  // more than host_ddr's 1 TiB
    EXPECT_EQ(keys(p), std::vector<std::string>{"warm.capacity"});
    p = warm_params();
    p.warm.block = 3000;
    EXPECT_EQ(keys(p), std::vector<std::string>{"warm.block"});
}

TEST(DsmParams, OverlappingWindowsAndBadBlocksAreProblems) {
    DsmParams p = pool_params();
    p.tiers[1].base = base_of("remote_hbm");  // host_ddr on top of remote_hbm
    p.staging.block = 3000;
    const auto problems = p.validate(kHbm);
    auto has = [&](const std::string& key) {
        for (const auto& [k, m] : problems) {
            if (k == key) return true;
        }
        return false;
    };
    EXPECT_TRUE(has("tiers.host_ddr.base"));
    EXPECT_TRUE(has("staging.block"));
}

// DsmParams' defaults are the declared ones (dsm_config.cpp): code that builds the pool without
// YAML gets what a single-die platform that leaves the keys out gets. The sections are present
// (the port with its required bandwidths) so that their keys' declared defaults are read. Not
// compared, by design not constants: a supernode's owners (its network's dies), dies_per_node (the
// caller's), and a tier's keys (its kind's window, read_latency, the die's HBM: make_tier).
TEST(DsmParams, StructDefaultsAreTheDeclaredDefaults) {
    const DsmParams d;
    const Config c = Config::from_string(
        "port: {read_bandwidth: 100GB/s, write_bandwidth: 50GB/s}\nstaging: {}\ntiering: {}\n"
        "warm: {}\n",
        "dsm.yaml");
    const DsmParams p = parse_dsm_params(c.root(), kHbm, 1e12, std::nullopt, d.dies_per_node);
    EXPECT_EQ(p.owners, d.owners);  // declared for a single die: 8
    EXPECT_EQ(p.port.network, d.port.network);
    EXPECT_EQ(p.staging.capacity, d.staging.capacity);
    EXPECT_EQ(p.staging.block, d.staging.block);
    EXPECT_EQ(p.staging.all, d.staging.all);
    EXPECT_EQ(p.tiering.enable, d.tiering.enable);
    EXPECT_EQ(p.tiering.block, d.tiering.block);
    EXPECT_EQ(p.tiering.promote_after, d.tiering.promote_after);
    EXPECT_EQ(p.tiering.capacity, d.tiering.capacity);
    EXPECT_EQ(p.tiering.migration_bytes_per_s, d.tiering.migration_bytes_per_s);
    EXPECT_EQ(p.warm.enable, d.warm.enable);
    EXPECT_EQ(p.warm.capacity, d.warm.capacity);
    EXPECT_EQ(p.warm.block, d.warm.block);
    EXPECT_EQ(p.warm.warm_after, d.warm.warm_after);
    EXPECT_EQ(p.warm.migration_bytes_per_s, d.warm.migration_bytes_per_s);
}

}  // namespace
}  // namespace asim

namespace asim {
namespace {

// Two dies book a shared device at their own times: the one booked for later does not hold up
// an earlier arrival (a FCFS BandwidthServer would start it at 100 us + 1 us).
TEST(CalendarServer, AnEarlierArrivalIsNotHeldBehindALaterBooking) {
    const ClockDomain ps("ps", 1'000'000'000'000ULL);
    CalendarServer device(&ps, 1.0);  // 1 B/ps = 1 TB/s
    const auto later = device.reserve(100'000'000, 1'000'000);
    const auto earlier = device.reserve(0, 1'000'000);
    EXPECT_EQ(later.start, 100'000'000u);
    EXPECT_EQ(earlier.start, 0u);
    // A third transfer that does not fit the gap before `later` goes after it.
    const auto big = device.reserve(1'000'000, 100'000'000);
    EXPECT_EQ(big.start, 101'000'000u);
    device.forget_before(200'000'000);
    EXPECT_EQ(device.intervals(),
              2u);  // `big` (to 201 us) stays, in the demand calendar and in all
}

// Demand takes the first gap among demand transfers, after the background transfer in service
// there (non-preemptive), but not after background work booked behind that one; background work
// booked after it goes around it.
TEST(CalendarServer, DemandWaitsForTheBackgroundInServiceOnly) {
    const ClockDomain ps("ps", 1'000'000'000'000ULL);
    CalendarServer device(&ps, 1.0);
    const auto bg = device.reserve(0, 10'000, true);
    const auto demand = device.reserve(1'000, 1'000);
    EXPECT_EQ(bg.start, 0u);
    EXPECT_EQ(demand.start, 10'000u);  // bg was in service at 1 ns
    EXPECT_EQ(device.overlap_cycles(), 0u);
    const auto bg2 = device.reserve(0, 1'000, true);
    EXPECT_EQ(bg2.start, 11'000u);  // after bg and the demand booked into the background calendar
    // Two background transfers back to back (not merged into one): a demand arriving during the
    // first waits for it alone and runs over the second, already granted (the approximation,
    // counted).
    CalendarServer other(&ps, 1.0);
    other.reserve(0, 1'000, true);
    other.reserve(1'000, 1'000, true);
    const auto d = other.reserve(500, 300);
    EXPECT_EQ(d.start, 1'000u);
    EXPECT_EQ(other.overlap_cycles(), 300u);
    // The demand also took a gap of the calendar of all transfers: background goes after it.
    EXPECT_EQ(other.reserve(0, 100, true).start, 2'300u);
    // A demand whose first gap among demand transfers starts where no background is in service
    // starts there.
    CalendarServer third(&ps, 1.0);
    third.reserve(5'000, 1'000, true);
    EXPECT_EQ(third.reserve(0, 1'000).start, 0u);
    EXPECT_EQ(third.reserve(6'000, 1'000).start, 6'000u);
    EXPECT_EQ(third.overlap_cycles(), 0u);
}

// The calendar against first fit over every transfer kept apart (no merging, no flat array):
// random arrivals from the kernel's time on, a third of them background, with the past forgotten
// as time goes on; every transfer must start and end where first fit puts it.
TEST(CalendarServer, BooksTheFirstFitLikeAPlainListOfTransfers) {
    const ClockDomain ps("ps", 1'000'000'000'000ULL);
    CalendarServer device(&ps, 1.0);
    struct Booked {
        Cycles start, end;
    };
    // The reference: every transfer, the demand ones, the background ones, each in start order.
    std::vector<Booked> all, demand, background;
    auto first_fit = [](const std::vector<Booked>& booked, Cycles at, Cycles busy) {
        for (const Booked& b : booked) {
            if (at < b.end && b.start < at + busy) at = b.end;
        }
        return at;
    };
    auto in_service_end = [&](Cycles at) -> Cycles {
        for (const Booked& b : background) {
            if (b.start <= at && at < b.end) return b.end;
        }
        return 0;
    };
    Cycles overlap = 0;
    auto keep = [](std::vector<Booked>& booked, Cycles start, Cycles busy) {
        const Booked b{start, start + busy};
        booked.insert(
            std::upper_bound(booked.begin(), booked.end(), b,
                             [](const Booked& x, const Booked& y) { return x.start < y.start; }),
            b);
    };
    std::mt19937_64 rng(7);
    Cycles now = 0;
    for (int i = 0; i < 20000; ++i) {
        if (rng() % 8 == 0) {
            now += rng() % 400;
            device.forget_before(now);
        }
        const Cycles at = now + rng() % 2000;
        const Cycles busy = 1 + rng() % 60;
        const bool bg = rng() % 3 == 0;
        const auto grant = device.reserve(at, busy, bg);
        Cycles start = first_fit(bg ? all : demand, at, busy);
        if (!bg) {
            if (const Cycles end = in_service_end(start)) start = first_fit(demand, end, busy);
            for (const Booked& b : background) {
                const Cycles lo = std::max(start, b.start), hi = std::min(start + busy, b.end);
                if (lo < hi) overlap += hi - lo;
            }
        }
        ASSERT_EQ(grant.start, start) << "transfer " << i;
        ASSERT_EQ(grant.end, start + busy) << "transfer " << i;
        ASSERT_EQ(device.overlap_cycles(), overlap) << "transfer " << i;
        keep(bg ? background : demand, start, busy);
        keep(all, bg ? start : first_fit(all, start, busy), busy);
    }
    EXPECT_LT(device.intervals(), 3000u);  // the past is forgotten
}

}  // namespace
}  // namespace asim

// A kind of pool tier registered here, in a test file: one device for the whole pool, its window
// from 8 TiB, and a key of its own.
int g_cxl_probe = 0;

ASIM_REGISTER(asim::pool_tier_registry(), test_cxl,
              "test only: a pooled memory device shared by the whole pool",
              {asim::Param::integer("test_probe", "", "a value the test reads back").dflt("7")},
              [](const asim::ParamValues& v) {
                  g_cxl_probe = static_cast<int>(v.integer("test_probe"));
                  return std::make_unique<asim::PoolTierKind>(
                      asim::PoolTierKind{asim::PoolTierKind::Device::kPerPool, 8 * asim::kTiB, 0});
              });

namespace asim {
namespace {

const char* const kCxlDsm =
    "port: {read_bandwidth: 100GB/s, write_bandwidth: 50GB/s}\n"
    "tiers:\n"
    "  test_cxl: {capacity: 1TiB, read_latency: 500ns, read_bandwidth: 64GB/s, "
    "write_bandwidth: 32GB/s, test_probe: 9}\n";

TEST(PoolTierRegistry, ATestOnlyKindRegisteredInATestFileIsSelectableFromYaml) {
    const Config c = Config::from_string(kCxlDsm, "dsm.yaml");
    const DsmParams p = parse_dsm_params(c.root(), kHbm, 1e12, std::nullopt, 8);
    c.check_unused();
    EXPECT_EQ(g_cxl_probe, 9);
    ASSERT_EQ(p.tiers.size(), 1u);
    const TierParams& t = p.tiers[0];
    EXPECT_EQ(to_string(t.tier), "test_cxl");
    EXPECT_EQ(t.base, 8 * kTiB);  // the kind's default
    EXPECT_EQ(t.kind.device, PoolTierKind::Device::kPerPool);
    // The names come from the registry: trace gen's --weights test_cxl places tensors there.
    EXPECT_NE(tier_name_list().find("test_cxl"), std::string::npos);
    // An access in its window is served by its device: 1 MiB at 64 GB/s + 500 ns.
    Bench b("bench", p);
    Picoseconds read = 0;
    b.run_body([&](Bench& x) { read = x.access(8 * kTiB, 1 << 20, false, false); });
    EXPECT_EQ(b.router->totals(t.tier).read_bytes, 1u << 20);
    EXPECT_NEAR(static_cast<double>(read), (1 << 20) / 64e9 * 1e12 + 500'000, 1'000);
}

TEST(PoolTierRegistry, AKeyOfAnotherKindIsAnErrorNamingBoth) {
    const Config c = Config::from_string(
        "port: {read_bandwidth: 1GB/s, write_bandwidth: 1GB/s}\n"
        "tiers:\n  host_ddr: {capacity: 1TiB, read_latency: 1us, read_bandwidth: 1GB/s, "
        "write_bandwidth: 1GB/s, endurance_block: 2MiB}\n",
        "dsm.yaml");
    try {
        parse_dsm_params(c.root(), kHbm, 1e12, std::nullopt, 8);
        FAIL() << "accepted pmem's endurance_block on host_ddr";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("endurance_block"), std::string::npos) << what;
        EXPECT_NE(what.find("'pmem'"), std::string::npos) << what;
        EXPECT_NE(what.find("'host_ddr'"), std::string::npos) << what;
    }
}

TEST(PoolTierRegistry, AnUnknownKindListsTheRegisteredOnes) {
    const Config c = Config::from_string(
        "tiers:\n  nvme: {capacity: 1TiB, read_latency: 1us, read_bandwidth: 1GB/s}\n", "dsm.yaml");
    try {
        parse_dsm_params(c.root(), kHbm, 1e12, std::nullopt, 8);
        FAIL() << "accepted tier nvme";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("host_ddr, pmem, remote_hbm, test_cxl"), std::string::npos) << what;
    }
}

TEST(PoolTierRegistry, AKindsOwnKeysAreListedUnderItsName) {
    bool probe = false, endurance = false;
    for (const ParamRow& row : param_rows()) {
        if (row.key == "dsm.tiers.<tier>.test_probe") probe = row.implementation == "test_cxl";
        if (row.key == "dsm.tiers.<tier>.endurance_block") endurance = row.implementation == "pmem";
    }
    EXPECT_TRUE(probe);
    EXPECT_TRUE(endurance);
}

}  // namespace
}  // namespace asim
