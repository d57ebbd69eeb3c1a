// L2: hits after misses, LRU eviction with write-back, slice bandwidth, payload validation.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/common/params.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/memory/hbm_flat/hbm_flat.h"
#include "models/memory/l2/l2_cache.h"
#include "tests/harness/sc_harness.h"

namespace asim {
namespace {

struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> l2_out{"l2_out"};
    PayloadPool pool;
    explicit Initiator(sc_core::sc_module_name n) : sc_module(n) {}

    // Returns the access latency in ps and the response status.
    // `at`: arrival time (annotated delay; the kernel stays at 0). The returned latency is
    // measured from `at`.
    std::pair<Picoseconds, tlm::tlm_response_status> access(
        uint64_t addr, uint64_t bytes, bool write, StreamClass cls = StreamClass::kWeight,
        Picoseconds at = 0, bool no_allocate = false, bool atomic_add = false) {
        tlm::tlm_generic_payload* p = pool.acquire();
        p->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p->set_address(addr);
        p->set_data_length(static_cast<unsigned>(bytes));
        p->set_streaming_width(static_cast<unsigned>(bytes));
        info_of(*p)->stream = cls;
        info_of(*p)->no_allocate = no_allocate;
        info_of(*p)->atomic_add = atomic_add;
        sc_core::sc_time delay = sc_core::sc_time::from_value(at);
        l2_out->b_transport(*p, delay);
        const auto status = p->get_response_status();
        p->release();
        return {delay.value() - at, status};
    }
};

struct Fixture {
    bool resolution_set = (test::set_time_resolution(), true);  // before any sc_time exists
    StatsRegistry stats;
    HbmFlat hbm;
    L2Cache l2;
    Initiator cpu{"cpu"};

    static L2Params l2_params() {
        L2Params p;
        p.size_bytes = 64 * 1024;  // 128 lines
        p.line_bytes = 512;
        p.ways = 2;
        p.slices = 1;
        p.slice_bandwidth_bytes_per_s = 512e9;  // 512 B per cycle at 1 GHz
        p.clock_hz = 1'000'000'000;
        p.hit_latency_cycles = 10;
        p.address_space_bytes = 1ULL << 30;
        return p;
    }
    static HbmFlatParams hbm_params() {
        HbmFlatParams p;
        p.capacity_bytes = 1ULL << 30;
        p.stacks = 1;
        p.channels_per_stack = 1;
        p.bandwidth_bytes_per_s = 64e9;
        p.clock_hz = 1'000'000'000;
        p.latency_ps = 100'000;
        return p;
    }
    explicit Fixture(const L2Params& l2p = l2_params())
        : hbm("hbm", hbm_params(), stats), l2("l2", l2p, stats) {
        l2.hbm_out.bind(hbm.l2_in);
        cpu.l2_out.bind(l2.core_in);
        // Multi-sockets finish their binding at the end of elaboration.
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
    }
};

TEST(L2Cache, MissThenHit) {
    Fixture f;
    const auto miss = f.cpu.access(0, 512, false);
    ASSERT_EQ(miss.second, tlm::TLM_OK_RESPONSE);
    EXPECT_GE(miss.first, 100'000u);  // at least the HBM latency
    // Asked again while the fill is in flight: merged into the outstanding miss, no new fetch.
    const auto merged = f.cpu.access(0, 512, false);
    EXPECT_EQ(merged.first, miss.first);
    EXPECT_EQ(f.l2.partition_stats(0).merged.value(), 1u);
    // Asked after the fill: a hit, one slice transfer (1 cycle) plus the hit latency (10).
    const auto hit = f.cpu.access(0, 512, false, StreamClass::kWeight, 1'000'000);
    EXPECT_EQ(hit.first, 11'000u);
    EXPECT_EQ(f.l2.hits(), 2u);
    EXPECT_EQ(f.l2.misses(), 1u);
    EXPECT_EQ(f.hbm.read_bytes(), 512u);
}

TEST(L2Cache, DirtyVictimIsWrittenBack) {
    Fixture f;
    // Write three times the capacity.
    const uint64_t lines = 128 * 3;
    for (uint64_t i = 0; i < lines; ++i) f.cpu.access(i * 512, 512, true);
    // Writes allocate without a fetch; everything beyond capacity was evicted dirty.
    EXPECT_EQ(f.hbm.read_bytes(), 0u);
    EXPECT_GE(f.hbm.write_bytes(), (lines - 128) * 512);
    EXPECT_EQ(f.hbm.write_bytes() % 512, 0u);
}

// An atomic add reads the line before it writes it: a miss fetches it (a plain write would not),
// the slice works twice, and the line is left dirty; on a hit nothing goes to HBM.
TEST(L2Cache, AtomicAddFetchesTheLineAndLeavesItDirty) {
    Fixture f;
    const auto miss =
        f.cpu.access(0, 512, true, StreamClass::kActivation, 0, false, /*atomic_add=*/true);
    EXPECT_GE(miss.first, 100'000u);  // waited for the fetch
    EXPECT_EQ(f.hbm.read_bytes(), 512u);
    const auto hit = f.cpu.access(0, 512, true, StreamClass::kActivation, 1'000'000, false, true);
    EXPECT_EQ(hit.first, 12'000u);  // two slice passes (read and write) plus the hit latency
    EXPECT_EQ(f.hbm.read_bytes(), 512u);
    for (uint64_t i = 1; i <= 128 * 2; ++i)
        f.cpu.access(i * 512, 512, false, StreamClass::kActivation, 2'000'000);
    EXPECT_GE(f.hbm.write_bytes(), 512u);  // the summed line was evicted dirty
}

TEST(L2Cache, CleanVictimIsNotWrittenBack) {
    Fixture f;
    for (uint64_t i = 0; i < 128 * 3; ++i) f.cpu.access(i * 512, 512, false);
    EXPECT_EQ(f.hbm.write_bytes(), 0u);
    EXPECT_EQ(f.hbm.read_bytes(), 128u * 3 * 512);
}

TEST(L2Cache, SliceBandwidthLimitsHits) {
    Fixture f;
    f.cpu.access(0, 16 * 1024, false);  // warm 32 lines
    // Once filled: 32 hit lines through the one 512 B/cycle slice = 32 cycles + 10 hit latency.
    const auto hit = f.cpu.access(0, 16 * 1024, false, StreamClass::kWeight, 2'000'000);
    EXPECT_EQ(hit.first, (32u + 10u) * 1000u);
    // Two such requests at the same time queue on the slice: the second takes 32 cycles more.
    const auto second = f.cpu.access(0, 16 * 1024, false, StreamClass::kWeight, 2'000'000);
    EXPECT_EQ(second.first, (32u + 32u + 10u) * 1000u);
}

TEST(L2Cache, RejectsOutOfRangeAndNullData) {
    Fixture f;
    EXPECT_EQ(f.cpu.access((1ULL << 30) - 256, 512, false).second, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    tlm::tlm_generic_payload* p = f.cpu.pool.acquire();
    p->set_command(tlm::TLM_READ_COMMAND);
    p->set_address(0);
    p->set_data_length(64);
    p->set_streaming_width(64);
    info_of(*p)->timing_only = false;  // claims real data but has no buffer
    sc_core::sc_time delay;
    f.cpu.l2_out->b_transport(*p, delay);
    EXPECT_EQ(p->get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);
    p->release();
}

// 64 KiB, 16 ways of 4 KiB: weight 8 ways, activation 4 ways, general the other 4.
L2Params partitioned() {
    L2Params p = Fixture::l2_params();
    p.ways = 16;
    p.partition_bytes = {32 * 1024, 16 * 1024, 0};
    return p;
}

TEST(L2Cache, ActivationFloodNeverEvictsWeights) {
    Fixture f(partitioned());
    ASSERT_EQ(f.l2.partition_count(), 3u);
    // 4 KiB of weights: 8 lines, which fit the 8-way weight partition even if all hash to one set.
    for (uint64_t a = 0; a < 4 * 1024; a += 512) f.cpu.access(a, 512, false, StreamClass::kWeight);
    // A flood of activation misses, 64x the whole L2.
    for (uint64_t a = 0; a < 4ULL << 20; a += 512) {
        f.cpu.access((1ULL << 28) + a, 512, false, StreamClass::kActivation, 1'000'000);
    }
    const uint64_t weight_misses = f.l2.partition_stats(0).misses.value();
    for (uint64_t a = 0; a < 4 * 1024; a += 512) {
        f.cpu.access(a, 512, false, StreamClass::kWeight, 10'000'000'000ULL);
    }
    EXPECT_EQ(f.l2.partition_stats(0).misses.value(),
              weight_misses);  // every weight line still there
    EXPECT_EQ(f.l2.partition_stats(0).evictions.value(), 0u);
    EXPECT_GT(f.l2.partition_stats(1).evictions.value(), 1000u);
}

TEST(L2Cache, PrefetchFillsAreCountedAndLaterHits) {
    L2Params params = partitioned();
    params.protect_prefetched = false;  // so that demand can evict the unused ones below
    Fixture f(params);
    // A CMO prefetch of 4 KiB into the weight partition: fills without returning data.
    f.cpu.access(0x10000, 4096, false, StreamClass::kPrefetch);
    EXPECT_EQ(f.l2.partition_stats(0).prefetch_fills.value(), 8u);
    EXPECT_EQ(f.hbm.read_bytes(), 4096u);
    // Demand while the fill is in flight: late; after it: useful; both are hits.
    f.cpu.access(0x10000, 512, false, StreamClass::kWeight, 1'000);
    f.cpu.access(0x10200, 512, false, StreamClass::kWeight, 5'000'000);
    EXPECT_EQ(f.l2.partition_stats(0).prefetch_late.value(), 1u);
    EXPECT_EQ(f.l2.partition_stats(0).prefetch_useful.value(), 1u);
    EXPECT_EQ(f.l2.partition_stats(0).hits.value(), 2u);
    EXPECT_EQ(f.l2.partition_stats(0).misses.value(), 0u);
    EXPECT_EQ(f.hbm.read_bytes(), 4096u);  // no second fetch
    // Evict the 6 prefetched lines nobody used: counted unused.
    for (uint64_t a = 0; a < 256 * 1024; a += 512) {
        f.cpu.access(a + (1ULL << 26), 512, false, StreamClass::kWeight, 6'000'000);
    }
    EXPECT_EQ(f.l2.partition_stats(0).prefetch_unused.value(), 6u);
}

TEST(L2Cache, ProtectedPrefetchedLinesSurviveDemand) {
    Fixture f(partitioned());  // protect_prefetched is on by default
    f.cpu.access(0x10000, 4096, false, StreamClass::kPrefetch);  // 8 lines, not yet used
    // A demand weight stream of 4x the weight partition through the same sets.
    for (uint64_t a = 0; a < 128 * 1024; a += 512) {
        f.cpu.access(a + (1ULL << 26), 512, false, StreamClass::kWeight, 6'000'000);
    }
    EXPECT_EQ(f.l2.partition_stats(0).prefetch_unused.value(), 0u);
    EXPECT_GT(f.l2.partition_stats(0).evictions.value(), 100u);
    // The prefetched lines are all still there: every one is a useful hit now.
    for (uint64_t a = 0; a < 4096; a += 512)
        f.cpu.access(0x10000 + a, 512, false, StreamClass::kWeight, 9'000'000);
    EXPECT_EQ(f.l2.partition_stats(0).prefetch_useful.value(), 8u);
    EXPECT_EQ(f.hbm.read_bytes(), 4096u + 128u * 1024u);
}

TEST(L2Cache, NoAllocateStreamsThrough) {
    Fixture f;
    f.cpu.access(0, 512, false, StreamClass::kActivation, 0, /*no_allocate=*/true);
    f.cpu.access(0, 512, false, StreamClass::kActivation, 1'000'000, /*no_allocate=*/true);
    EXPECT_EQ(f.l2.misses(), 2u);  // never allocated, so never hit
    EXPECT_EQ(f.hbm.read_bytes(), 1024u);
}

TEST(L2Cache, SectorsAreFetchedOnlyWhenMissing) {
    L2Params p = Fixture::l2_params();
    p.sector_bytes = 128;
    Fixture f(p);
    f.cpu.access(0, 128, false);  // one sector
    EXPECT_EQ(f.hbm.read_bytes(), 128u);
    f.cpu.access(0, 512, false, StreamClass::kWeight, 1'000'000);  // the other three
    EXPECT_EQ(f.hbm.read_bytes(), 512u);
    f.cpu.access(0, 512, false, StreamClass::kWeight, 2'000'000);  // all present
    EXPECT_EQ(f.hbm.read_bytes(), 512u);
    EXPECT_EQ(f.l2.misses(), 2u);
    EXPECT_EQ(f.l2.hits(), 1u);
}

TEST(L2Cache, MshrLimitDelaysMisses) {
    L2Params p = Fixture::l2_params();
    p.mshrs = 2;
    Fixture f(p);
    // Three misses at once to lines far apart: the third waits for a free MSHR.
    const auto a = f.cpu.access(0, 512, false);
    f.cpu.access(1 << 20, 512, false);
    const auto c = f.cpu.access(2 << 20, 512, false);
    EXPECT_EQ(f.stats.find("l2.mshr_stalls")
                  ? static_cast<const Counter*>(f.stats.find("l2.mshr_stalls"))->value()
                  : 0u,
              1u);
    EXPECT_GE(c.first, a.first + 100'000u);  // issued only when the first fill returned
}

TEST(L2Cache, ConservationOverRandomTraffic) {
    // Random reads and writes: every demand access is counted once as a hit or a miss, and
    // every written sector reaches HBM at most once per write (it is written back on eviction).
    // 128 B sectors, the size of the writes.
    L2Params p = partitioned();
    p.sector_bytes = 128;
    Fixture f(p);
    uint64_t state = 1, accesses = 0;
    auto next = [&] {
        state += 0x9E3779B97F4A7C15ULL;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    };
    uint64_t written = 0;
    for (int i = 0; i < 20000; ++i) {
        const uint64_t r = next();
        const uint64_t addr = (r % (1 << 20)) & ~uint64_t{127};
        const bool write = (r >> 40) & 1;
        const auto cls = static_cast<StreamClass>((r >> 41) % 3);
        const auto res = f.cpu.access(addr, 128, write, cls, static_cast<Picoseconds>(i) * 1000);
        ASSERT_EQ(res.second, tlm::TLM_OK_RESPONSE);
        ++accesses;
        if (write) written += 128;
    }
    EXPECT_EQ(f.l2.hits() + f.l2.misses(), accesses);
    EXPECT_LE(f.hbm.write_bytes(), written);
    uint64_t evictions = 0, writebacks = 0;
    for (std::size_t i = 0; i < f.l2.partition_count(); ++i) {
        evictions += f.l2.partition_stats(i).evictions.value();
        writebacks += f.l2.partition_stats(i).writebacks.value();
    }
    EXPECT_LE(writebacks, evictions);
    EXPECT_EQ(f.hbm.write_bytes() % 128, 0u);
}

TEST(L2Cache, RestClassesShareTheWaysLeftOver) {
    L2Params p = partitioned();  // weight 8 ways, activation 4, general the rest
    p.partition_rest = {false, true, true};
    const auto layout = p.partition_layout();
    ASSERT_EQ(layout.size(), 2u);
    EXPECT_EQ(layout[0].name, "weight");
    EXPECT_EQ(layout[0].ways, 8u);
    EXPECT_EQ(layout[1].name, "activation+general");
    EXPECT_EQ(layout[1].ways, 8u);
    Fixture f(p);
    EXPECT_EQ(f.l2.partition_of(StreamClass::kActivation),
              f.l2.partition_of(StreamClass::kGeneral));
    EXPECT_NE(f.l2.partition_of(StreamClass::kActivation), f.l2.partition_of(StreamClass::kWeight));
    EXPECT_EQ(f.l2.partition_of(StreamClass::kPrefetch), f.l2.partition_of(StreamClass::kWeight));
}

TEST(L2Cache, ZeroWayPartitionBypasses) {
    L2Params p = partitioned();
    p.partition_bytes = {0, 16 * 1024, 0};
    p.partition_rest = {false, false, false};
    Fixture f(p);
    f.cpu.access(0, 512, false, StreamClass::kWeight);
    f.cpu.access(0, 512, false, StreamClass::kWeight, 1'000'000);
    EXPECT_EQ(f.l2.partition_stats(0).hits.value(), 0u);  // never allocated
    EXPECT_EQ(f.hbm.read_bytes(), 1024u);
}

TEST(L2Cache, ParamsValidation) {
    L2Params p = Fixture::l2_params();
    p.line_bytes = 500;
    p.size_bytes = 1000;
    const auto problems = p.validate();
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].first, "line");
    // Tags hold 48-bit line numbers (32 in the tag, 16 in the line): 2^57 B in 512 B lines is too
    // many; 2^56 B fits (a memory pool far above the HBM, DESIGN §5b).
    L2Params fits = Fixture::l2_params();
    fits.address_space_bytes = uint64_t{1} << 56;
    EXPECT_TRUE(fits.validate().empty());
    L2Params big = Fixture::l2_params();
    big.address_space_bytes = uint64_t{1} << 57;
    const auto too_big = big.validate();
    ASSERT_EQ(too_big.size(), 1u);
    EXPECT_EQ(too_big[0].first, "line");
}

// LRU ages are 32-bit stamps; when the counter wraps every stamp becomes its rank, so the victim
// is still the least recently used line.
TEST(L2Cache, LruOrderSurvivesTheStampCounterWrapping) {
    for (uint32_t start : {0u, ~uint32_t{0} - 5}) {
        auto lru = replacement_policy_registry().make("lru", {}, 4, start);
        for (std::size_t line = 0; line < 4; ++line) lru->on_fill(line);  // ages 0 < 1 < 2 < 3
        lru->on_hit(0);                                                   // 1 < 2 < 3 < 0
        lru->on_hit(2);                                                   // 1 < 3 < 0 < 2
        EXPECT_EQ(lru->victim(0, 4, 0), 1u) << "start " << start;
        lru->on_hit(1);  // 3 < 0 < 2 < 1
        EXPECT_EQ(lru->victim(0, 4, 0), 3u) << "start " << start;
        EXPECT_EQ(lru->victim(0, 3, 0), 0u) << "start " << start;
    }
}

}  // namespace
}  // namespace asim

// ---- A test-only implementation, registered from this file (issue 14) --------------------

namespace asim {
namespace {

int g_mru_built = 0;
int64_t g_mru_probe = 0;
int g_mru_victims = 0;

// Most recently used line is the victim: the opposite of LRU, so nobody could mistake it.
class MostRecentlyUsed final : public ReplacementPolicy {
public:
    explicit MostRecentlyUsed(std::size_t lines) : m_stamp(lines, 0) {}
    void on_hit(std::size_t line) override { m_stamp[line] = ++m_clock; }
    void on_fill(std::size_t line) override { m_stamp[line] = ++m_clock; }
    std::size_t victim(std::size_t first, std::size_t count, uint64_t keep) const override {
        ++g_mru_victims;
        std::size_t v = first + count;
        for (std::size_t i = first; i < first + count; ++i) {
            if ((keep >> (i - first)) & 1) continue;
            if (v == first + count || m_stamp[i] > m_stamp[v]) v = i;
        }
        return v;
    }

private:
    std::vector<uint64_t> m_stamp;
    uint64_t m_clock = 0;
};

}  // namespace
}  // namespace asim

ASIM_REGISTER(asim::replacement_policy_registry(), test_mru,
              "test only: the most recently used line is the victim",
              {asim::Param::integer("test_probe", "", "a value the test reads back").dflt("7")},
              [](const asim::ParamValues& v, std::size_t lines, uint32_t) {
                  ++asim::g_mru_built;
                  asim::g_mru_probe = v.integer("test_probe");
                  return std::make_unique<asim::MostRecentlyUsed>(lines);
              });

namespace asim {
namespace {

const char* const kL2Yaml =
    "size: 64KiB\nline: 512B\nways: 2\nslices: 1\nslice_bandwidth: 512GB/s\nclock: 1GHz\n"
    "hit_latency_cycles: 10\n";

// The struct's defaults are the declared ones (l2_config.cpp): code that builds L2Params without
// YAML (tests, benches) gets what a platform that leaves the keys out gets. The required keys are
// given the struct's own values.
TEST(L2Params, StructDefaultsAreTheDeclaredDefaults) {
    const L2Params d;
    const Config c = Config::from_string(
        "size: 64MiB\nline: 512B\nways: 16\nslices: 32\nslice_bandwidth: 1.5TB/s\n"
        "clock: 1.65GHz\nhit_latency_cycles: 100\n",
        "t.yaml");
    const L2Params p = parse_l2_params(c.root(), d.address_space_bytes);
    EXPECT_EQ(p.size_bytes, d.size_bytes);
    EXPECT_EQ(p.line_bytes, d.line_bytes);
    EXPECT_EQ(p.ways, d.ways);
    EXPECT_EQ(p.slices, d.slices);
    EXPECT_EQ(p.slice_bandwidth_bytes_per_s, d.slice_bandwidth_bytes_per_s);
    EXPECT_EQ(p.clock_hz, d.clock_hz);
    EXPECT_EQ(p.hit_latency_cycles, d.hit_latency_cycles);
    EXPECT_EQ(p.sector_bytes, d.sector_bytes);  // declared: the line
    EXPECT_EQ(p.mshrs, d.mshrs);
    EXPECT_EQ(p.demand_mshrs, d.demand_mshrs);
    EXPECT_EQ(p.write_back_entries, d.write_back_entries);
    EXPECT_EQ(p.replacement, d.replacement);
    EXPECT_EQ(p.protect_prefetched, d.protect_prefetched);
    EXPECT_EQ(p.partitioned(), d.partitioned());
}

TEST(L2Registry, ATestOnlyPolicyRegisteredInATestFileIsSelectableFromYaml) {
    const Config c = Config::from_string(
        std::string(kL2Yaml) + "replacement: test_mru\ntest_probe: 9\n", "t.yaml");
    L2Params p = parse_l2_params(c.root(), 1ULL << 30);
    c.check_unused();
    EXPECT_EQ(p.replacement, "test_mru");
    Fixture f(p);
    EXPECT_EQ(g_mru_built, 1);
    EXPECT_EQ(g_mru_probe, 9);
    // Twice the capacity in distinct lines: every miss past the first 128 lines evicts, through
    // the test's policy.
    for (uint64_t line = 0; line < 256; ++line) f.cpu.access(line * 512, 512, false);
    EXPECT_GE(g_mru_victims, 128);
}

TEST(L2Registry, AKeyOfAnotherImplementationIsAnErrorNamingBoth) {
    const Config c =
        Config::from_string(std::string(kL2Yaml) + "replacement: lru\ntest_probe: 3\n", "t.yaml");
    try {
        parse_l2_params(c.root(), 1ULL << 30);
        FAIL() << "accepted test_probe with lru";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("t.yaml:9"), std::string::npos) << what;
        EXPECT_NE(what.find("test_probe"), std::string::npos) << what;
        EXPECT_NE(what.find("'test_mru'"), std::string::npos) << what;
        EXPECT_NE(what.find("'lru'"), std::string::npos) << what;
    }
}

TEST(L2Registry, AnUnknownNameListsTheRegisteredOnes) {
    const Config c = Config::from_string(std::string(kL2Yaml) + "replacement: lrv\n", "t.yaml");
    try {
        parse_l2_params(c.root(), 1ULL << 30);
        FAIL() << "accepted replacement: lrv";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("registered: fifo, lru, test_mru"), std::string::npos) << what;
        EXPECT_NE(what.find("did you mean lru"), std::string::npos) << what;
    }
}

TEST(L2Registry, TheTestPolicysParameterIsListedUnderItsName) {
    bool found = false;
    for (const ParamRow& row : param_rows()) {
        if (row.key == "die.l2.test_probe") {
            found = true;
            EXPECT_EQ(row.implementation, "test_mru");
            EXPECT_EQ(row.param->default_text().value_or(""), "7");
        }
    }
    EXPECT_TRUE(found);
}

}  // namespace
}  // namespace asim
