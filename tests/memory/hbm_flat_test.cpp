// HBM channel model: occupancy, bandwidth bound and unloaded latency.
#include <gtest/gtest.h>

#include "models/common/stats.h"
#include "models/memory/hbm_flat/hbm_flat.h"
#include "tests/harness/sc_harness.h"

namespace asim {
namespace {

HbmFlatParams small_hbm() {
    HbmFlatParams p;
    p.capacity_bytes = 1ULL << 30;
    p.stacks = 1;
    p.channels_per_stack = 4;
    p.bandwidth_bytes_per_s = 4 * 64e9;  // 64 GB/s per channel
    p.clock_hz = 1'000'000'000;          // 64 B per cycle per channel
    p.interleave_bytes = 256;
    p.latency_ps = 50'000;
    return p;
}

// One 64 GB/s channel: 640 B take 10 ns.
HbmFlatParams one_channel_hbm() {
    HbmFlatParams p = small_hbm();
    p.channels_per_stack = 1;
    p.bandwidth_bytes_per_s = 64e9;
    return p;
}

TEST(HbmFlat, UnloadedReadTakesTransferPlusLatency) {
    test::set_time_resolution();
    StatsRegistry stats;
    HbmFlat hbm("hbm", small_hbm(), stats);
    // 256 B on one channel at 64 B/cycle = 4 cycles = 4 ns, plus 50 ns.
    EXPECT_EQ(hbm.access(0, 0, 256, false), 54'000u);
}

TEST(HbmFlat, BandwidthNeverExceedsPeak) {
    test::set_time_resolution();
    StatsRegistry stats;
    const HbmFlatParams p = small_hbm();
    HbmFlat hbm("hbm", p, stats);
    // 64 MiB requested all at time 0 in 4 KiB pieces: completion is bounded by the peak rate.
    const uint64_t total = 64ULL << 20;
    Picoseconds last = 0;
    for (uint64_t a = 0; a < total; a += 4096) last = std::max(last, hbm.access(0, a, 4096, false));
    const double seconds = static_cast<double>(last - p.latency_ps) * 1e-12;
    const double achieved = static_cast<double>(total) / seconds;
    EXPECT_LE(achieved, p.bandwidth_bytes_per_s * 1.0000001);
    // Hashed interleave spreads a sequential stream: within 10 % of peak.
    EXPECT_GE(achieved, 0.9 * p.bandwidth_bytes_per_s);
}

TEST(HbmFlat, OneChannelQueues) {
    test::set_time_resolution();
    StatsRegistry stats;
    HbmFlat hbm("hbm", one_channel_hbm(), stats);
    // Two requests arriving together: the second waits for the first (FCFS).
    EXPECT_EQ(hbm.access(0, 0, 640, false), 10'000u + 50'000u);
    EXPECT_EQ(hbm.access(0, 4096, 640, false), 20'000u + 50'000u);
    EXPECT_EQ(hbm.read_bytes(), 1280u);
}

TEST(HbmFlat, DemandGoesBeforeQueuedPrefetches) {
    test::set_time_resolution();
    StatsRegistry stats;
    HbmFlat hbm("hbm", one_channel_hbm(), stats);
    // Three 640 B prefetches (10 ns each, in 256 B interleave pieces of 4, 4 and 2 ns) queued
    // at t = 0, then a demand read at 5 ns: it waits for the piece in service (to 8 ns), not for
    // the prefetches queued behind it, which move back by its 10 ns.
    EXPECT_EQ(hbm.access(0, 0, 640, false, true), 10'000u + 50'000u);
    EXPECT_EQ(hbm.access(0, 1024, 640, false, true), 20'000u + 50'000u);
    EXPECT_EQ(hbm.access(0, 2048, 640, false, true), 30'000u + 50'000u);
    EXPECT_EQ(hbm.access(5'000, 4096, 640, false), 18'000u + 50'000u);
    // A later prefetch queues behind everything.
    EXPECT_EQ(hbm.access(5'000, 8192, 640, false, true), 50'000u + 50'000u);
}

TEST(HbmFlat, WritesAmongReadsPayTheBusTurnaround) {
    test::set_time_resolution();
    StatsRegistry stats;
    HbmFlatParams p = one_channel_hbm();  // 64 B per ns
    p.write_batch_bytes = 1024;           // one turn per 1 KiB of writes...
    p.write_turnaround_ps = 8'000;        // ...of 8 ns: 4 ns per 512 B write
    p.turnaround_window_ps = 100'000;
    HbmFlat hbm("hbm", p, stats);
    // Writes alone never turn the bus: 512 B take 8 ns.
    EXPECT_EQ(hbm.access(0, 0, 512, true), 8'000u + 50'000u);
    EXPECT_EQ(hbm.access(0, 512, 512, true), 16'000u + 50'000u);
    // A read, then a write within the window: the write pays its share of the turn.
    EXPECT_EQ(hbm.access(100'000, 4096, 512, false), 108'000u + 50'000u);
    EXPECT_EQ(hbm.access(110'000, 8192, 512, true), 122'000u + 50'000u);
    // A write long after the last read does not.
    EXPECT_EQ(hbm.access(310'000, 8192, 512, true), 318'000u + 50'000u);
    hbm.finalize_stats();
    const auto* turns = static_cast<const Counter*>(stats.find("hbm.turnaround_cycles"));
    ASSERT_NE(turns, nullptr);
    EXPECT_EQ(turns->value(), 4u);  // cycles of the 1 GHz clock
}

TEST(HbmFlat, ReadsWaitTheirShareOfRefresh) {
    test::set_time_resolution();
    StatsRegistry stats;
    HbmFlatParams p = one_channel_hbm();
    p.refresh_wait_ps = {1'000, 2'000, 3'000};  // pieces of 1, 2 and 4 B or more
    HbmFlat hbm("hbm", p, stats);
    // 640 B: 10 ns, 50 ns latency, the largest entry's 3 ns; a write waits for no refresh.
    EXPECT_EQ(hbm.access(0, 0, 640, false), 10'000u + 50'000u + 3'000u);
    EXPECT_EQ(hbm.access(100'000, 0, 640, true), 110'000u + 50'000u);
    EXPECT_EQ(hbm.access(200'000, 0, 2, false), 201'000u + 50'000u + 2'000u);  // 2 B: 1 cycle
}

TEST(HbmFlat, RejectsInvalidParams) {
    HbmFlatParams p = small_hbm();
    p.interleave_bytes = 100;
    p.stacks = 0;
    const auto problems = p.validate();
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0].first, "stacks");
    EXPECT_EQ(problems[1].first, "interleave");
}

}  // namespace
}  // namespace asim
