// The HBM load monitor the H-JSD's throttle reads: bytes delivered per window, not requested.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace asim
