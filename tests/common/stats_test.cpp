#include <gtest/gtest.h>

#include "models/common/stats.h"

namespace asim {
namespace {

TEST(Stats, JsonRoundTrip) {
    StatsRegistry reg;
    reg.counter("die.l2.hits", "hits") += 42;
    auto& avg = reg.average("die.core0.latency", "latency", "ns");
    avg.sample(1.5);
    avg.sample(4.5);
    auto& h = reg.histogram("die.hbm.read_latency_ns", "lat", "ns");
    for (uint64_t v : {3u, 70u, 71u, 1000u, 123456u}) h.sample(v);

    const nlohmann::json j = reg.to_json();
    EXPECT_EQ(j["die"]["l2"]["hits"], 42u);
    EXPECT_DOUBLE_EQ(j["die"]["core0"]["latency"]["mean"].get<double>(), 3.0);

    const StatsRegistry back = StatsRegistry::from_json(nlohmann::json::parse(j.dump()));
    EXPECT_EQ(back.to_json().dump(), j.dump());
    EXPECT_EQ(back.size(), 3u);
}

TEST(Stats, CsvHasOneRowPerField) {
    StatsRegistry reg;
    reg.counter("a.b", "with, comma", "B") += 7;
    const std::string csv = reg.to_csv();
    EXPECT_EQ(csv, "path,kind,field,value,unit,description\na.b,counter,value,7,B,\"with, comma\"\n");
}

TEST(Stats, DuplicateRegistrationIsAProgrammingError) {
    StatsRegistry reg;
    reg.counter("x.y", "");
    EXPECT_THROW(reg.counter("x.y", ""), std::logic_error);
    EXPECT_THROW(reg.counter("bad..path", ""), std::logic_error);
}

TEST(Stats, HistogramPercentilesAreWithinOneBucket) {
    Histogram h("", "");
    for (uint64_t v = 1; v <= 10000; ++v) h.sample(v);
    EXPECT_EQ(h.count(), 10000u);
    EXPECT_EQ(h.min(), 1u);
    EXPECT_EQ(h.max(), 10000u);
    EXPECT_DOUBLE_EQ(h.mean(), 5000.5);
    // Buckets are 1/8 of a power of two wide: p50 within 12.5 % of 5000.
    EXPECT_NEAR(static_cast<double>(h.percentile(0.5)), 5000.0, 5000.0 * 0.125);
    EXPECT_NEAR(static_cast<double>(h.percentile(0.99)), 9900.0, 9900.0 * 0.125);
    EXPECT_EQ(h.percentile(1.0), 10000u);
}

TEST(Stats, HistogramBucketsTileTheLine) {
    for (std::size_t b = 0; b < 400; ++b) {
        EXPECT_EQ(Histogram::bucket_high(b), Histogram::bucket_low(b + 1)) << b;
        EXPECT_EQ(Histogram::bucket_of(Histogram::bucket_low(b)), b) << b;
    }
}

}  // namespace
}  // namespace asim
