// Invariants under random traffic (issue 18, deliverable 5): several engines' threads send random
// reads, writes, atomic adds and prefetches through the L2 to the memory behind it, for every
// memory a die can have: the flat HBM, the JEDEC HBM, and the supernode's pool tiers (another
// die's HBM, host DDR, persistent memory) behind a TierRouter. Each run checks
//   - every request an engine issues completes exactly once, OK, no earlier than the L2's hit
//     latency after its issue;
//   - every request the L2 sends to memory completes exactly once, OK, and nothing is left in
//     flight at the end;
//   - bytes are conserved: what the L2 asked of memory is what the memory models served;
//   - no statistic is negative, non-finite or wrapped (every number in stats.json).
// Seeds: kSeeds per memory, fixed so CI is reproducible; ASIM_PROPERTY_SEED_BASE=N shifts them
// (tests/reliability/README.md: how to explore more seeds).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/memory/hbm/hbm.h"
#include "models/memory/hbm_flat/hbm_flat.h"
#include "models/memory/l2/l2_cache.h"
#include "models/memory/tiers/dsm_pool.h"
#include "models/memory/tiers/tier_router.h"
#include "tests/harness/sc_harness.h"
#include "tests/harness/test_engine.h"
#include "tests/reliability/stats_invariants.h"

namespace asim {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

constexpr uint64_t kLine = 512;
constexpr uint64_t kSector = 128;
constexpr uint64_t kHbmBytes = 8ULL << 30;  // the JEDEC default device's capacity
constexpr int kSeeds = 6;
constexpr Picoseconds kHitLatency = 10'000;  // 10 cycles at 1 GHz

uint64_t seed_base() {
    const char* s = std::getenv("ASIM_PROPERTY_SEED_BASE");
    return s ? std::strtoull(s, nullptr, 10) : 0;
}

// Between the L2 and its memory: forwards every call and checks that each returns once, OK,
// with a non-negative delay; counts bytes per direction and the calls still in flight.
struct Monitor : sc_core::sc_module {
    tlm_utils::simple_target_socket<Monitor> in{"in"};
    tlm_utils::simple_initiator_socket<Monitor> out{"out"};
    uint64_t calls = 0, returns = 0, read_bytes = 0, write_bytes = 0;
    std::map<const tlm::tlm_generic_payload*, int> in_flight;  // payload -> calls inside

    explicit Monitor(sc_core::sc_module_name n) : sc_module(n) {
        in.register_b_transport(this, &Monitor::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_time& delay) {
        ++calls;
        EXPECT_EQ(in_flight[&p]++, 0) << "a payload sent to memory twice while in flight";
        const bool write = p.is_write();
        const uint64_t bytes = p.get_data_length();
        out->b_transport(p, delay);
        EXPECT_EQ(p.get_response_status(), tlm::TLM_OK_RESPONSE);
        EXPECT_GE(delay, sc_core::SC_ZERO_TIME);
        if (--in_flight[&p] == 0) in_flight.erase(&p);
        ++returns;
        (write ? write_bytes : read_bytes) += bytes;
    }
};

struct IdleInitiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<IdleInitiator> out{"out"};
    explicit IdleInitiator(sc_core::sc_module_name n) : sc_module(n) {}
};

using Access = test::EngineAccess;
using Engine = test::TestEngine;

enum class Memory { kFlat, kJedec, kPool };
const char* name_of(Memory m) {
    return m == Memory::kFlat ? "flat" : m == Memory::kJedec ? "jedec" : "pool";
}

DsmParams pool_params() {
    DsmParams p;
    p.owners = 2;
    p.dies_per_node = 2;
    p.port = {100e9, 50e9};
    TierParams pmem = make_tier("pmem", 2ULL << 40, 1'300'000, 1'200'000, 40e9, 10e9);
    pmem.kind.endurance_block = 2ULL << 20;
    p.tiers = {make_tier("remote_hbm", kHbmBytes, 1'000'000, 1'100'000, 1e12, 1e12),
               make_tier("host_ddr", 1ULL << 40, 800'000, 900'000, 400e9, 400e9), pmem};
    return p;
}

// A die's memory hierarchy with a monitor between the L2 and what lies behind it.
struct System {
    bool resolution_set = (test::set_time_resolution(), true);
    StatsRegistry stats;
    DsmParams dsm = pool_params();
    std::unique_ptr<DsmPool> pool;
    std::unique_ptr<HbmFlat> flat, other_die_hbm;
    std::unique_ptr<Hbm> jedec;
    std::unique_ptr<TierRouter> router;
    L2Cache l2;
    Monitor monitor{"monitor"};
    std::unique_ptr<IdleInitiator> other_die_l2;  // die 1's L2, which sends nothing
    std::vector<std::unique_ptr<Engine>> engines;

    static L2Params l2_params(Memory m) {
        L2Params p;
        p.size_bytes = 512 * 1024;  // 1024 lines: 64 sets of 16 ways, two partitions
        p.line_bytes = kLine;
        p.sector_bytes = kSector;
        p.ways = 16;
        p.slices = 4;
        p.slice_bandwidth_bytes_per_s = 512e9;
        p.clock_hz = 1'000'000'000;
        p.hit_latency_cycles = 10;
        p.mshrs = 8;
        p.demand_mshrs = 2;
        p.partition_bytes = {256 * 1024, 0, 0};
        p.partition_rest = {false, true, true};
        p.address_space_bytes =
            m == Memory::kPool ? pool_params().address_top(kHbmBytes) : kHbmBytes;
        return p;
    }
    HbmFlatParams flat_params() const {
        HbmFlatParams h;
        h.capacity_bytes = kHbmBytes;
        h.stacks = 1;
        h.channels_per_stack = 8;
        h.bandwidth_bytes_per_s = 256e9;
        h.latency_ps = 100'000;
        return h;
    }

    System(Memory memory, std::size_t engine_count) : l2("l2", l2_params(memory), stats) {
        l2.hbm_out.bind(monitor.in);
        if (memory == Memory::kJedec) {
            HbmParams h;  // the default device: 1 stack x 8 channels, 64 B accesses, 8 GiB
            h.fidelity = HbmFidelity::kJedec;
            // Drain buffered writes whenever no command is queued (the die presets' policy and the
            // declared default). With DRAMSim3's threshold (8, hbm2_8gb_x128's) up to 8 posted
            // writes per channel stay buffered once traffic stops, and refresh keeps the
            // channel's clock running.
            h.device.ctrl.write_drain_idle = 0;
            jedec = std::make_unique<Hbm>("hbm", h, stats);
            monitor.out.bind(jedec->l2_in);
        } else {
            flat = std::make_unique<HbmFlat>("hbm", flat_params(), stats);
            if (memory == Memory::kFlat) {
                monitor.out.bind(flat->l2_in);
            } else {
                pool = std::make_unique<DsmPool>(dsm, stats);
                router = std::make_unique<TierRouter>("dsm", dsm, *pool, 0, kHbmBytes,
                                                      kHbmBytes - (1ULL << 30), stats);
                monitor.out.bind(router->l2_in);
                router->hbm_out.bind(flat->l2_in);
                other_die_hbm = std::make_unique<HbmFlat>("die1_hbm", flat_params(), stats);
                pool->attach_hbm(0, flat->l2_in, flat_params().latency_ps);
                pool->attach_hbm(1, other_die_hbm->l2_in, flat_params().latency_ps);
                other_die_l2 = std::make_unique<IdleInitiator>("die1_l2");
                other_die_l2->out.bind(other_die_hbm->l2_in);
            }
        }
        l2.set_target_waits(memory == Memory::kJedec);
        for (std::size_t i = 0; i < engine_count; ++i) {
            engines.push_back(std::make_unique<Engine>(("engine" + std::to_string(i)).c_str()));
            engines.back()->out.bind(l2.core_in);
        }
    }

    // What the memory models behind the monitor served.
    uint64_t served(bool write) const {
        auto bytes = [write](const HbmModel* m) {
            return m ? (write ? m->write_bytes() : m->read_bytes()) : 0;
        };
        uint64_t total = bytes(flat.get()) + bytes(jedec.get()) + bytes(other_die_hbm.get());
        if (router) {
            for (const char* name : {"host_ddr", "pmem"}) {
                const Tier t = *tier_from_string(name);
                const auto& tot = router->totals(t);
                total += write ? tot.write_bytes : tot.read_bytes;
            }
        }
        return total;
    }
};

// Random accesses over a few regions: a hot region of 96 lines (hits, merges, MSHR stalls), a
// wide HBM region (misses, evictions, write-backs) and, with a pool, the other die's HBM, host
// DDR and persistent memory. Sizes and offsets are whole sectors; some cross lines.
std::vector<Access> random_accesses(std::mt19937_64& rng, Memory memory, int count) {
    std::vector<uint64_t> bases = {0, 64ULL << 20};
    if (memory == Memory::kPool) {
        const DsmParams p = pool_params();
        for (const TierParams& t : p.tiers)
            bases.push_back(t.base + (t.kind.per_owner() ? kRemoteHbmOwnerStride : 0));
    }
    std::vector<Access> out;
    Picoseconds t = 0;
    for (int i = 0; i < count; ++i) {
        Access a;
        // Bursts (several accesses at once) and gaps up to 2 us.
        t += rng() % 4 == 0 ? 0 : rng() % 2'000'000;
        a.at = t;
        const std::size_t region = rng() % bases.size();
        const uint64_t span_lines = region == 0 ? 96 : 1 << 16;
        a.addr = bases[region] + (rng() % span_lines) * kLine + (rng() % 4) * kSector;
        a.bytes = kSector * (1 + rng() % 16);  // 128 B to 2 KiB
        const unsigned kind = rng() % 10;
        a.write = kind < 3;
        a.atomic = kind == 3;
        if (a.atomic) a.write = true;
        a.stream = kind == 4
                       ? StreamClass::kPrefetch
                       : std::array<StreamClass, 3>{StreamClass::kWeight, StreamClass::kActivation,
                                                    StreamClass::kGeneral}[rng() % 3];
        if (a.stream == StreamClass::kPrefetch) a.write = a.atomic = false;
        a.no_allocate = rng() % 16 == 0 && a.stream != StreamClass::kPrefetch;
        out.push_back(a);
    }
    return out;
}

struct Case {
    Memory memory;
    int seed;
};

class RandomTraffic : public ::testing::TestWithParam<Case> {};

TEST_P(RandomTraffic, EveryRequestCompletesOnceAndBytesAreConserved) {
    const Case c = GetParam();
    const uint64_t seed = seed_base() + static_cast<uint64_t>(c.seed);
    SCOPED_TRACE("memory " + std::string(name_of(c.memory)) + ", seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const std::size_t engine_count = 2 + rng() % 5;
    System s(c.memory, engine_count);
    for (auto& e : s.engines) e->accesses = random_accesses(rng, c.memory, 400);

    test::run_simulation(sc_time(1, sc_core::SC_SEC));
    s.l2.finalize_stats();
    if (s.jedec) s.jedec->finalize_stats();
    if (s.router) s.router->finalize_stats();
    if (s.pool) s.pool->finalize_stats();

    uint64_t engine_reads = 0;
    for (const auto& e : s.engines) {
        ASSERT_TRUE(e->finished) << e->name() << " never finished";
        for (const Access& a : e->accesses) {
            EXPECT_EQ(a.completions, 1) << e->name() << " 0x" << std::hex << a.addr;
            EXPECT_GE(a.done, a.issued + kHitLatency) << e->name() << " 0x" << std::hex << a.addr;
            if (!a.write) engine_reads += a.bytes;
        }
    }
    EXPECT_EQ(s.monitor.calls, s.monitor.returns);
    EXPECT_TRUE(s.monitor.in_flight.empty());
    EXPECT_GT(s.monitor.calls, 0u);
    // Conservation: the memory served exactly what the L2 asked of it.
    EXPECT_EQ(s.monitor.read_bytes, s.served(false));
    EXPECT_EQ(s.monitor.write_bytes, s.served(true));
    // The L2's own account of its fetches: demand and prefetch fills are the reads it sent.
    EXPECT_EQ(s.l2.hbm_fetch_bytes_demand() + s.l2.hbm_fetch_bytes_prefetch(),
              s.monitor.read_bytes);
    // Demand accesses counted by the L2: one hit or miss per engine request that is not a
    // prefetch (a request may span lines but counts once per partition access).
    EXPECT_GT(s.l2.hits() + s.l2.misses(), 0u);
    EXPECT_GT(engine_reads, 0u);

    const std::vector<std::string> bad = test::stats_violations(s.stats.to_json());
    EXPECT_TRUE(bad.empty()) << bad.size() << " bad statistics, first: " << bad.front();
}

std::vector<Case> cases() {
    std::vector<Case> out;
    for (Memory m : {Memory::kFlat, Memory::kJedec, Memory::kPool})
        for (int s = 1; s <= kSeeds; ++s) out.push_back({m, s});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Memories, RandomTraffic, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                             return std::string(name_of(param_info.param.memory)) + "_seed" +
                                    std::to_string(param_info.param.seed);
                         });

}  // namespace
}  // namespace asim
