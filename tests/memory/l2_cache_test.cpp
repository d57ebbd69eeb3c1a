// L2: hits after misses, LRU eviction with write-back, slice bandwidth, payload validation.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>

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
    std::pair<Picoseconds, tlm::tlm_response_status> access(uint64_t addr, uint64_t bytes, bool write,
                                                             StreamClass cls = StreamClass::kWeight) {
        tlm::tlm_generic_payload* p = pool.acquire();
        p->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p->set_address(addr);
        p->set_data_length(static_cast<unsigned>(bytes));
        p->set_streaming_width(static_cast<unsigned>(bytes));
        info_of(*p)->stream = cls;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        l2_out->b_transport(*p, delay);
        const auto status = p->get_response_status();
        p->release();
        return {delay.value(), status};
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
    Fixture() : hbm("hbm", hbm_params(), stats), l2("l2", l2_params(), stats) {
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
    const auto hit = f.cpu.access(0, 512, false);
    EXPECT_LT(hit.first, miss.first);
    EXPECT_EQ(f.l2.hits(), 1u);
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

TEST(L2Cache, CleanVictimIsNotWrittenBack) {
    Fixture f;
    for (uint64_t i = 0; i < 128 * 3; ++i) f.cpu.access(i * 512, 512, false);
    EXPECT_EQ(f.hbm.write_bytes(), 0u);
    EXPECT_EQ(f.hbm.read_bytes(), 128u * 3 * 512);
}

TEST(L2Cache, SliceBandwidthLimitsHits) {
    Fixture f;
    f.cpu.access(0, 16 * 1024, false);  // warm 32 lines: the slice is busy for cycles 0..32
    // 32 hit lines through the one 512 B/cycle slice, issued at the same time: they queue
    // behind the warm-up's 32 cycles, take 32 more, then the 10-cycle hit latency.
    const auto hit = f.cpu.access(0, 16 * 1024, false);
    EXPECT_EQ(hit.first, (32u + 32u + 10u) * 1000u);
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

TEST(L2Cache, ParamsValidation) {
    L2Params p = Fixture::l2_params();
    p.line_bytes = 500;
    p.size_bytes = 1000;
    const auto problems = p.validate();
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].first, "line");
}

}  // namespace
}  // namespace asim
