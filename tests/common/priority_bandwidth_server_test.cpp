// PriorityBandwidthServer: demand waits for earlier demand and for the background transfer in
// service at its arrival, not for background work queued behind that one; background waits for
// everything. Checked against a plain reading of those rules over random traffic.
#include "models/common/priority_bandwidth_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace asim {
namespace {

TEST(PriorityBandwidthServer, DemandWaitsOnlyForTheBackgroundTransferInService) {
    const ClockDomain ps("ps", 1'000'000'000'000ULL);
    PriorityBandwidthServer server(&ps, 1.0);           // 1 B per ps
    EXPECT_EQ(server.reserve(0, 100, true).end, 100u);  // background [0, 100)
    EXPECT_EQ(server.reserve(0, 100, true).end, 200u);  // background [100, 200)
    const auto demand = server.reserve(50, 10, false);  // in service: the first
    EXPECT_EQ(demand.start, 100u);
    EXPECT_EQ(server.reserve(0, 10, true).start, 210u);     // behind everything
    EXPECT_EQ(server.reserve(500, 10, false).start, 500u);  // nothing in service
}

TEST(PriorityBandwidthServer, MatchesAPlainListOfItsRules) {
    const ClockDomain ps("ps", 1'000'000'000'000ULL);
    PriorityBandwidthServer server(&ps, 1.0);
    struct Span {
        Cycles start, end;
    };
    std::vector<Span> background;  // every background transfer (the server keeps the latest 64)
    Cycles demand_free = 0, all_free = 0, overlap = 0;
    std::mt19937_64 rng(11);
    Cycles now = 0;
    for (int i = 0; i < 50000; ++i) {
        now += rng() % 40;
        const Cycles at = now + rng() % 300;
        const Cycles busy = 1 + rng() % 20;  // about half the rate: gaps between transfers
        const bool is_background = rng() % 3 == 0;
        Cycles start;
        if (is_background) {
            start = std::max(at, all_free);
            all_free = start + busy;
            background.push_back({start, all_free});
        } else {
            Cycles in_service_end = 0;
            const std::size_t kept = std::min<std::size_t>(background.size(), 64);
            for (std::size_t k = background.size() - kept; k < background.size(); ++k) {
                if (background[k].start <= at && at < background[k].end)
                    in_service_end = background[k].end;
            }
            start = std::max({at, demand_free, in_service_end});
            demand_free = start + busy;
            // Overlap: the time shared with the kept background transfers already granted.
            if (all_free > start) {
                for (std::size_t k = background.size() - kept; k < background.size(); ++k) {
                    const Cycles lo = std::max(start, background[k].start);
                    const Cycles hi = std::min(start + busy, background[k].end);
                    if (lo < hi) overlap += hi - lo;
                }
            }
            all_free = all_free > start ? all_free + busy : demand_free;
        }
        const auto grant = server.reserve(at, busy, is_background);
        ASSERT_EQ(grant.start, start) << "transfer " << i;
        ASSERT_EQ(grant.end, start + busy) << "transfer " << i;
        ASSERT_EQ(server.overlap_bytes(), overlap) << "transfer " << i;  // 1 B per cycle
    }
    EXPECT_GT(overlap, 0u);
}

// The overlap counts the demand time spent beside granted background transfers, not the
// backlog: a demand that ends before the granted transfer starts overlaps nothing.
TEST(PriorityBandwidthServer, OverlapIsTheTimeSharedWithGrantedBackground) {
    const ClockDomain ps("ps", 1'000'000'000'000ULL);
    PriorityBandwidthServer server(&ps, 1.0);
    server.reserve(0, 100, false);                         // demand [0, 100)
    EXPECT_EQ(server.reserve(0, 50, true).start, 100u);    // background [100, 150)
    EXPECT_EQ(server.reserve(10, 30, false).start, 100u);  // demand [100, 130): over it
    EXPECT_EQ(server.overlap_bytes(), 30u);
    EXPECT_EQ(server.reserve(1'000, 100, true).start, 1'000u);  // background [1000, 1100)
    EXPECT_EQ(server.reserve(200, 50, false).start, 200u);      // demand [200, 250): before it
    EXPECT_EQ(server.overlap_bytes(), 30u);
    EXPECT_EQ(server.reserve(1'090, 20, false).start, 1'100u);  // waits for the one in service
    EXPECT_EQ(server.overlap_bytes(), 30u);
}

}  // namespace
}  // namespace asim
