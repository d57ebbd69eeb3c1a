// The L2 behind targets that wait: several engines' threads call it at once, and while one call
// waits for HBM the others run. Each test runs over three targets: the flat HBM (never waits),
// the JEDEC HBM (waits for its controller) and a test target that waits a random time.
// Asserted: a line is fetched once while its fill is in flight (later readers merge and wait
// for it), no reader completes before the fill that brings its data, MSHRs taken by fetches in
// flight are respected, every call completes, a request's runs of misses are fetched together,
// and posted writes hold a write-back entry until the memory takes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/memory/hbm/hbm.h"
#include "models/memory/hbm_flat/hbm_flat.h"
#include "models/memory/l2/l2_cache.h"
#include "tests/harness/sc_harness.h"
#include "tests/harness/test_engine.h"

namespace asim {
namespace {

using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

constexpr uint64_t kLine = 512;
constexpr uint64_t kCapacity = 1ULL << 30;

// A memory that waits: reads take a random 40-200 ns, posted writes 2 ns. It records every
// read it served and fails the test if two reads of one line are in flight at once (the L2
// must merge them).
struct WaitingTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<WaitingTarget> l2_in{"l2_in"};
    struct Read {
        uint64_t addr, bytes;
        Picoseconds start, end;
    };
    std::vector<Read> reads;
    std::map<uint64_t, int> in_flight;  // line -> reads in flight
    std::mt19937_64 rng{7};
    uint64_t read_bytes = 0, write_bytes = 0;
    double write_ns = 2;  // how long a write keeps its caller

    explicit WaitingTarget(sc_core::sc_module_name n) : sc_module(n) {
        l2_in.register_b_transport(this, &WaitingTarget::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_time& delay) {
        wait(delay);
        delay = sc_core::SC_ZERO_TIME;
        const uint64_t first = p.get_address() / kLine,
                       last = (p.get_address() + p.get_data_length() - 1) / kLine;
        if (p.is_write()) {
            write_bytes += p.get_data_length();
            wait(write_ns, SC_NS);
        } else {
            read_bytes += p.get_data_length();
            const Picoseconds start = ClockDomain::to_ps(sc_core::sc_time_stamp());
            for (uint64_t l = first; l <= last; ++l) {
                EXPECT_EQ(in_flight[l]++, 0) << "line " << l << " fetched twice at once";
            }
            wait(static_cast<double>(40 + rng() % 160), SC_NS);
            for (uint64_t l = first; l <= last; ++l) --in_flight[l];
            reads.push_back({p.get_address(), p.get_data_length(), start,
                             ClockDomain::to_ps(sc_core::sc_time_stamp())});
        }
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

using Engine = test::TestEngine;

enum class Memory { kFlat, kJedec, kWaiting };
const char* name_of(Memory m) {
    return m == Memory::kFlat ? "flat" : m == Memory::kJedec ? "jedec" : "waiting";
}

struct System {
    bool resolution_set = (test::set_time_resolution(), true);
    StatsRegistry stats;
    std::unique_ptr<HbmFlat> flat;
    std::unique_ptr<Hbm> jedec;
    std::unique_ptr<WaitingTarget> waiting;
    L2Cache l2;
    std::vector<std::unique_ptr<Engine>> engines;

    static L2Params l2_params(uint32_t mshrs, uint32_t write_back_entries) {
        L2Params p;
        p.size_bytes = 256 * 1024;  // 512 lines, 128 sets of 4 ways
        p.line_bytes = kLine;
        p.ways = 4;
        p.slices = 4;
        p.slice_bandwidth_bytes_per_s = 512e9;
        p.clock_hz = 1'000'000'000;
        p.hit_latency_cycles = 10;
        p.mshrs = mshrs;
        p.write_back_entries = write_back_entries;
        p.address_space_bytes = kCapacity;
        return p;
    }
    System(Memory memory, std::size_t engine_count, uint32_t mshrs,
           uint32_t write_back_entries = 512)
        : l2("l2", l2_params(mshrs, write_back_entries), stats) {
        if (memory == Memory::kFlat) {
            HbmFlatParams h;
            h.capacity_bytes = kCapacity;
            h.stacks = 1;
            h.channels_per_stack = 8;
            h.bandwidth_bytes_per_s = 256e9;
            h.latency_ps = 100'000;
            flat = std::make_unique<HbmFlat>("hbm", h, stats);
            l2.hbm_out.bind(flat->l2_in);
        } else if (memory == Memory::kJedec) {
            HbmParams h;  // the default device: 1 stack x 8 channels, 64 B accesses, 8 GiB
            h.fidelity = HbmFidelity::kJedec;
            jedec = std::make_unique<Hbm>("hbm", h, stats);
            l2.hbm_out.bind(jedec->l2_in);
        } else {
            waiting = std::make_unique<WaitingTarget>("hbm");
            l2.hbm_out.bind(waiting->l2_in);
        }
        l2.set_target_waits(memory != Memory::kFlat);  // write-backs through the L2's queue
        for (std::size_t i = 0; i < engine_count; ++i) {
            engines.push_back(std::make_unique<Engine>(("engine" + std::to_string(i)).c_str()));
            engines.back()->out.bind(l2.core_in);
        }
    }
    void run() {
        test::run_simulation(sc_time(10, sc_core::SC_MS));
        for (const auto& e : engines) EXPECT_TRUE(e->finished) << e->name() << " never finished";
    }
    uint64_t counter(const std::string& path) const {
        const auto* c = static_cast<const Counter*>(stats.find(path));
        return c ? c->value() : 0;
    }
    uint64_t hbm_read_bytes() const {
        return flat ? flat->read_bytes() : jedec ? jedec->read_bytes() : waiting->read_bytes;
    }
};

class L2BehindMemory : public ::testing::TestWithParam<Memory> {};

// Engine 0 misses on line 0; engine 1 reads it 5 ns later, while the fill is in flight. One
// fetch; the second read is a merge and completes no earlier than the fill (nor much later).
TEST_P(L2BehindMemory, SecondReaderWaitsForTheFill) {
    System s(GetParam(), 2, 64);
    s.engines[0]->accesses = {{0, 0, kLine, false}};
    s.engines[1]->accesses = {{5'000, 0, kLine, false}};
    s.run();
    const Picoseconds first = s.engines[0]->accesses[0].done,
                      second = s.engines[1]->accesses[0].done;
    EXPECT_EQ(s.hbm_read_bytes(), kLine);
    EXPECT_EQ(s.counter("l2.partition.shared.merged"), 1u);
    EXPECT_EQ(s.counter("l2.partition.shared.misses"), 1u);
    EXPECT_EQ(s.counter("l2.partition.shared.hits"), 1u);
    EXPECT_GE(first, 40'000u);  // the fill took at least the memory's latency
    EXPECT_GE(second, first);   // waited for the fill, did not return at 5 ns + hit latency
    EXPECT_LE(second, first + 12'000u);  // and not much after it: a slice transfer + hit latency
}

// Many engines read and write overlapping lines at random times with few MSHRs. Every call
// completes; no line is fetched twice at once (the waiting target checks); every read completes
// no earlier than its issue plus the hit latency; reads that missed take at least the fill.
TEST_P(L2BehindMemory, ConcurrentEnginesMergeAndComplete) {
    System s(GetParam(), 6, 4);
    std::mt19937_64 rng(11);
    for (auto& e : s.engines) {
        Picoseconds t = 0;
        for (int i = 0; i < 60; ++i) {
            t += 1'000 + rng() % 20'000;
            const uint64_t line = rng() % 96;  // 96 lines, some sets contended, fits 512 lines
            const uint64_t lines = 1 + rng() % 3;
            e->accesses.push_back({t, line * kLine, lines * kLine, rng() % 5 == 0});
        }
    }
    s.run();
    for (const auto& e : s.engines) {
        for (const auto& a : e->accesses)
            EXPECT_GE(a.done, a.at + 10'000u) << e->name() << " at " << a.at;
    }
    // The 96 lines fit the cache, so each is fetched once at most, however many engines race.
    EXPECT_LE(s.hbm_read_bytes(), 96 * kLine);
    EXPECT_EQ(s.counter("l2.partition.shared.writebacks"), 0u);  // nothing was evicted
    EXPECT_GT(s.counter("l2.partition.shared.merged"), 0u);
    EXPECT_GT(s.counter("l2.mshr_stalls"), 0u);
    if (s.waiting) {
        // A read that missed completes no earlier than the fetch of its line that served it.
        for (const auto& r : s.waiting->reads) EXPECT_GE(r.end, r.start + 40'000u);
    }
}

// MSHRs held by fetches still in flight count: with 2 MSHRs, a third engine's miss at the same
// time is fetched only after one of the first two fills has returned.
TEST_P(L2BehindMemory, MshrsInFlightAreRespected) {
    System s(GetParam(), 3, 2);
    for (std::size_t i = 0; i < 3; ++i)
        s.engines[i]->accesses = {{0, (i + 1) * (1 << 20), kLine, false}};
    s.run();
    std::vector<Picoseconds> done;
    for (const auto& e : s.engines) done.push_back(e->accesses[0].done);
    std::sort(done.begin(), done.end());
    EXPECT_EQ(s.counter("l2.mshr_stalls"), 1u);
    EXPECT_GE(done[2], done[0] + 40'000u) << name_of(GetParam());  // a second memory latency
    if (s.waiting) {
        ASSERT_EQ(s.waiting->reads.size(), 3u);
        auto reads = s.waiting->reads;
        std::sort(reads.begin(), reads.end(),
                  [](const auto& a, const auto& b) { return a.start < b.start; });
        EXPECT_GE(reads[2].start, std::min(reads[0].end, reads[1].end));
    }
}

// A request whose misses form two runs (a hit between them) has both fetches in flight at once,
// as behind a memory that computes its delay: it completes one memory latency after issue, not
// two. (Before the L2's lanes, the request fetched one run, waited, then fetched the next.)
TEST(L2BehindWaitingMemory, RunsOfOneRequestAreFetchedTogether) {
    System s(Memory::kWaiting, 1, 64);
    auto& a = s.engines[0]->accesses;
    a.push_back({0, kLine, kLine, false});          // line 1 is cached
    a.push_back({1'000'000, 0, 3 * kLine, false});  // lines 0 and 2 miss: two runs
    s.run();
    ASSERT_EQ(s.waiting->reads.size(), 3u);
    const auto& r0 = s.waiting->reads[1];
    const auto& r2 = s.waiting->reads[2];
    EXPECT_EQ(r0.start, r2.start);  // both runs left together
    EXPECT_NE(r0.addr, r2.addr);
    EXPECT_LE(a[1].done, std::max(r0.end, r2.end) + 12'000u);  // a slice transfer + hit latency
}

// Posted writes hold a write-back entry until the memory has taken them: with 2 entries and a
// memory that keeps a writer 5 us, the third read that evicts a dirty line waits for one. 1024
// lines are written first (every set full of dirty lines; their own write-backs are over by 5 ms).
TEST(L2BehindWaitingMemory, EvictionsWaitForAWriteBackEntry) {
    System s(Memory::kWaiting, 1, 64, 2);
    s.waiting->write_ns = 5'000;
    auto& a = s.engines[0]->accesses;
    for (uint64_t i = 0; i < 1024; ++i) a.push_back({i * 1'000, i * kLine, kLine, true});
    for (uint64_t i = 0; i < 3; ++i)
        a.push_back({5'000'000'000 + i * 1'000, (4096 + i) * kLine, kLine, false});
    s.run();
    const uint64_t before = s.counter("l2.partition.shared.writebacks");
    ASSERT_GE(before, 3u);
    const auto& r = *(a.end() - 3);
    EXPECT_LE(r.done, r.issued + 220'000u);  // one entry each: no wait
    EXPECT_LE((a.end() - 2)->done, (a.end() - 2)->issued + 220'000u);
    EXPECT_GE((a.end() - 1)->done, r.issued + 5'000'000u);  // waited for the first write's 5 us
    EXPECT_EQ(s.waiting->write_bytes, before * kLine);
}

// Requests that evict dirty lines do not wait for HBM to take the write-backs: the L2's lanes
// send them. The memory keeps a writer 5 us. 600 line writes into a 512-line cache, then
// reads of new lines (every line is dirty, so each evicts one): each read completes within its
// own fetch (at most 200 ns plus the L2's latency) from its issue, and every write-back reaches
// the memory. (Before the write-back queue, each read waited the 5 us.)
TEST(L2BehindWaitingMemory, WriteBacksDoNotHoldUpTheRequestThatEvicted) {
    System s(Memory::kWaiting, 1, 64);
    s.waiting->write_ns = 5'000;
    auto& a = s.engines[0]->accesses;
    for (uint64_t i = 0; i < 600; ++i) a.push_back({i * 1'000, i * kLine, kLine, true});
    for (uint64_t i = 0; i < 8; ++i)
        a.push_back({1'000'000 + i * 1'000, (1000 + i) * kLine, kLine, false});
    s.run();
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_LE(a[i].done, a[i].issued + 220'000u) << "access " << i;
    const uint64_t write_backs = s.counter("l2.partition.shared.writebacks");
    EXPECT_GE(write_backs, 600u - 512u);
    EXPECT_EQ(s.waiting->write_bytes, write_backs * kLine);
}

INSTANTIATE_TEST_SUITE_P(Memories, L2BehindMemory,
                         ::testing::Values(Memory::kFlat, Memory::kJedec, Memory::kWaiting),
                         [](const ::testing::TestParamInfo<Memory>& param_info) {
                             return std::string(name_of(param_info.param));
                         });

}  // namespace
}  // namespace asim
