// The HBM load monitor the H-JSD's throttle reads: bytes delivered per window, not requested.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "models/memory/interfaces/hbm_load_monitor.h"

namespace asim {
namespace {

// 1 B/ps peak, a 1000 ps window: 1000 B fill it.
TEST(HbmLoadMonitor, CountsBytesWhenTheyAreDeliveredForOneWindow) {
    HbmLoadMonitor m(1e12, 1000);
    m.record(500, 400);  // completes at 500 ps
    m.record(800, 100);
    m.record(600, 100);  // recorded after a later completion: counted in completion order
    EXPECT_DOUBLE_EQ(m.utilisation(0), 0.0);  // nothing delivered yet
    EXPECT_DOUBLE_EQ(m.utilisation(599), 0.4);
    EXPECT_DOUBLE_EQ(m.utilisation(700), 0.5);
    EXPECT_DOUBLE_EQ(m.utilisation(1499), 0.6);
    EXPECT_DOUBLE_EQ(m.utilisation(1500), 0.2);  // the 500 ps access has left the window
    EXPECT_DOUBLE_EQ(m.utilisation(1800), 0.0);
}

// Ten 1000 B accesses asked for at once from a device that moves 1 B/ps: requested bytes would
// read 10x the peak at 0 ps; delivered, the monitor never reads above the peak.
TEST(HbmLoadMonitor, ABurstOfRequestsReadsAtMostThePeak) {
    HbmLoadMonitor m(1e12, 1000);
    for (Picoseconds k = 1; k <= 10; ++k) m.record(k * 1000, 1000);
    for (Picoseconds t = 0; t <= 12'000; t += 250) {
        const double u = m.utilisation(t);
        EXPECT_LE(u, 1.0) << t;
        if (t >= 1000 && t <= 10'000) {
            EXPECT_DOUBLE_EQ(u, 1.0) << t;
        }
    }
    EXPECT_DOUBLE_EQ(m.utilisation(11'000), 0.0);
}

// Against counting every access that completed in (now - window, now], on random traffic: the
// monitor keeps accesses in buckets of completion time, so windows that cut buckets anywhere,
// accesses recorded out of completion order, some in the logs of the segments ahead (a few
// windows ahead when a window is many buckets), some far beyond the buckets it keeps (thousands
// of windows ahead), and windows reaching back before 0.
TEST(HbmLoadMonitor, AgreesWithCountingEveryAccess) {
    for (const Picoseconds window : {Picoseconds{100000}, Picoseconds{1000}, Picoseconds{64},
                                     Picoseconds{7}, Picoseconds{1}}) {
        HbmLoadMonitor m(1e12, window);
        std::mt19937_64 rng(window);
        std::vector<std::pair<Picoseconds, uint64_t>> all;  // completion, bytes
        Picoseconds now = 0;
        for (int step = 0; step < 4000; ++step) {
            if (rng() % 3 != 0) {
                // Now and then one far ahead (a memory made very slow), beyond the buckets kept.
                const Picoseconds done = rng() % 50 == 0 ? now + rng() % (20000 * window)
                                                         : now + rng() % (3 * window + 5);
                const uint64_t bytes = 1 + rng() % 512;
                m.record(done, bytes);  // outside a simulation the kernel's time is 0
                all.emplace_back(done, bytes);
            } else {
                now += rng() % 100 == 0 ? rng() % (5000 * window) : rng() % (window / 2 + 2);
                uint64_t expected = 0;
                for (const auto& [done, bytes] : all) {
                    if (done <= now && done + window > now) expected += bytes;
                }
                ASSERT_DOUBLE_EQ(m.utilisation(now),
                                 static_cast<double>(expected) / static_cast<double>(window))
                    << "window " << window << " at " << now;
            }
        }
    }
}

}  // namespace
}  // namespace asim
