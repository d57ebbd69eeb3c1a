#include <gtest/gtest.h>

#include "models/common/clock_domain.h"

namespace asim {
namespace {

TEST(ClockDomain, NonIntegerPeriodDoesNotDrift) {
    const ClockDomain c("core", 1'650'000'000);
    EXPECT_EQ(c.cycles_to_ps(1), 606u);                            // floor(606.06)
    EXPECT_EQ(c.cycles_to_ps(1'650'000'000), 1'000'000'000'000u);  // exactly one second
    EXPECT_EQ(c.cycles_to_ps(33), 20'000u);                        // 33 cycles = 20 ns exactly
}

TEST(ClockDomain, CeilAndFloorConversions) {
    const ClockDomain c("core", 1'650'000'000);
    EXPECT_EQ(c.ps_to_cycles_ceil(0), 0u);
    EXPECT_EQ(c.ps_to_cycles_ceil(1), 1u);
    EXPECT_EQ(c.ps_to_cycles_ceil(606), 1u);  // cycle 1 starts at 606 ps
    EXPECT_EQ(c.ps_to_cycles_ceil(607), 2u);
    EXPECT_EQ(c.ps_to_cycles_floor(607), 1u);
    for (Cycles n = 0; n < 10000; n += 7) EXPECT_EQ(c.ps_to_cycles_ceil(c.cycles_to_ps(n)), n);
}

// A whole number of ps per cycle divides by 1 one way (no division is made) and a ps clock both
// ways; times whose product with the other side overflows 64 bits take the wide path.
TEST(ClockDomain, WholePicosecondPeriods) {
    const ClockDomain ghz("hbm", 1'000'000'000);
    EXPECT_EQ(ghz.cycles_to_ps(3), 3000u);
    EXPECT_EQ(ghz.ps_to_cycles_ceil(3001), 4u);
    EXPECT_EQ(ghz.ps_to_cycles_floor(3999), 3u);
    const ClockDomain ps("pool", 1'000'000'000'000ULL);
    for (const Picoseconds t : {Picoseconds{0}, Picoseconds{1}, Picoseconds{123456789},
                                ~Picoseconds{0} - 1, ~Picoseconds{0}}) {
        EXPECT_EQ(ps.cycles_to_ps(t), t);
        EXPECT_EQ(ps.ps_to_cycles_ceil(t), t);
        EXPECT_EQ(ps.ps_to_cycles_floor(t), t);
    }
    EXPECT_EQ(ghz.ps_to_cycles_floor(~Picoseconds{0}), ~Picoseconds{0} / 1000);  // the wide path
    EXPECT_EQ(ghz.ps_to_cycles_ceil(~Picoseconds{0}), ~Picoseconds{0} / 1000 + 1);
}

TEST(ClockDomain, RejectsZeroFrequency) {
    EXPECT_THROW(ClockDomain("x", 0), std::invalid_argument);
}

}  // namespace
}  // namespace asim
