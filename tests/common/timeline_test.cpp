// Timeline: window and core filters, counter buckets as GB/s, the trace-event JSON Perfetto reads,
// and option parsing with clear errors.
#include "models/common/timeline.h"

#include <gtest/gtest.h>

#include <sstream>

#include <zlib.h>

#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/gzip.h"

namespace asim {
namespace {

nlohmann::json events_of(const Timeline& t) {
    std::ostringstream s;
    t.write_json(s);
    return nlohmann::json::parse(s.str())["traceEvents"];
}

TEST(Timeline, SlicesBecomeCompleteEventsInMicrosecondsOnNamedTracks) {
    Timeline t(TimelineOptions{});
    const auto cube = t.slice_track("die.core0", "AIC Cube");
    const auto mte2 = t.slice_track("die.core0", "AIC MTE2");
    t.slice(cube, 1'500'000, 2'750'001, t.label("matmul #3"));  // 1.5 us .. 2.750001 us
    t.slice(mte2, 0, 1'000, t.label("matmul #3"));
    const auto ev = events_of(t);
    int slices = 0;
    bool named_cube = false, named_group = false;
    for (const auto& e : ev) {
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "AIC Cube")
            named_cube = true;
        if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "die.core0")
            named_group = true;
        if (e["ph"] != "X") continue;
        ++slices;
        EXPECT_EQ(e["name"], "matmul #3");
        if (e["tid"] == cube + 1) {
            EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.5);
            EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 1.250001);
        }
    }
    EXPECT_EQ(slices, 2);
    EXPECT_TRUE(named_cube);
    EXPECT_TRUE(named_group);
}

TEST(Timeline, WindowKeepsOnlyWhatOverlapsIt) {
    TimelineOptions o;
    parse_timeline_window("10us:20us", o);
    Timeline t(o);
    const auto track = t.slice_track("g", "pipe");
    t.slice(track, 0, 5'000'000, 0);            // before
    t.slice(track, 9'000'000, 11'000'000, 0);   // overlaps the start
    t.slice(track, 19'000'000, 25'000'000, 0);  // overlaps the end
    t.slice(track, 20'000'000, 30'000'000, 0);  // after (end is exclusive)
    t.slice(Timeline::kNoTrack, 12'000'000, 13'000'000, 0);
    EXPECT_EQ(t.slices(), 2u);
}

TEST(Timeline, CountersSumBytesPerBucketAsGigabytesPerSecondAndDropToZeroAfter) {
    TimelineOptions o;
    o.counter_bucket = 1'000'000;  // 1 us
    Timeline t(o);
    const auto hbm = t.counter_track("die.hbm", "HBM read");
    t.add_bytes(hbm, 100, 4000);  // bucket 0: 4000 B + 6000 B in 1 us = 10 GB/s
    t.add_bytes(hbm, 999'999, 6000);
    t.add_bytes(hbm, 3'000'000, 1000);  // bucket 3: 1 GB/s, buckets 1-2 empty
    std::vector<std::pair<double, double>> points;
    for (const auto& e : events_of(t)) {
        if (e["ph"] == "C")
            points.emplace_back(e["ts"].get<double>(), e["args"]["GB/s"].get<double>());
    }
    const std::vector<std::pair<double, double>> want = {{0, 10}, {1, 0}, {3, 1}, {4, 0}};
    EXPECT_EQ(points, want);
}

TEST(Timeline, MaxEventsDropsAndCountsTheRest) {
    TimelineOptions o;
    o.max_events = 3;
    Timeline t(o);
    const auto track = t.slice_track("g", "pipe");
    for (int i = 0; i < 5; ++i) t.slice(track, i * 10, i * 10 + 5, 0);
    EXPECT_EQ(t.slices(), 3u);
    EXPECT_EQ(t.dropped(), 2u);
}

TEST(Timeline, SliceArgumentsAndFlowsAreWrittenForPerfetto) {
    Timeline t(TimelineOptions{});
    const auto ops = t.slice_track("die0", "ops 1");
    t.slice(ops, 0, 2'000'000, t.label("mm #0"), t.args(R"({"op":0,"flops":8})"));
    t.slice(ops, 3'000'000, 4'000'000, t.label("add #1"));
    t.flow(ops, 1'999'000, ops, 3'001'000);
    t.flow(Timeline::kNoTrack, 0, ops, 1);  // ignored
    EXPECT_EQ(t.flows(), 1u);
    int with_args = 0, without = 0;
    nlohmann::json start, finish;
    for (const auto& e : events_of(t)) {
        if (e["ph"] == "X") (e.contains("args") ? with_args : without) += 1;
        if (e["ph"] == "X" && e.contains("args")) {
            EXPECT_EQ(e["args"]["op"], 0);
            EXPECT_EQ(e["args"]["flops"], 8);
        }
        if (e["ph"] == "s") start = e;
        if (e["ph"] == "f") finish = e;
    }
    EXPECT_EQ(with_args, 1);
    EXPECT_EQ(without, 1);
    ASSERT_FALSE(start.is_null());
    ASSERT_FALSE(finish.is_null());
    EXPECT_EQ(start["id"], finish["id"]);
    EXPECT_EQ(start["cat"], finish["cat"]);
    EXPECT_EQ(finish["bp"], "e");  // binds to the slice holding its time, not the next one
    EXPECT_DOUBLE_EQ(start["ts"].get<double>(), 1.999);
    EXPECT_DOUBLE_EQ(finish["ts"].get<double>(), 3.001);
}

TEST(Timeline, FlowsOutsideTheWindowAndPastMaxEventsAreDropped) {
    TimelineOptions o;
    parse_timeline_window("10us:20us", o);
    o.max_events = 2;
    Timeline t(o);
    const auto track = t.slice_track("g", "ops 1");
    t.flow(track, 5'000'000, track, 12'000'000);   // starts before the window
    t.flow(track, 12'000'000, track, 15'000'000);  // kept
    t.slice(track, 11'000'000, 12'000'000, 0);     // kept: the second event
    t.flow(track, 13'000'000, track, 14'000'000);  // past max_events
    EXPECT_EQ(t.flows(), 1u);
    EXPECT_EQ(t.slices(), 1u);
    EXPECT_EQ(t.dropped(), 1u);
}

TEST(Timeline, BytesMovedOverAnIntervalAreSplitOverItsBuckets) {
    TimelineOptions o;
    o.counter_bucket = 1'000'000;  // 1 us
    Timeline t(o);
    const auto link = t.counter_track("network", "die0->die1");
    // 4000 B evenly over [0.5 us, 2.5 us): 1000 B in bucket 0, 2000 B in 1, 1000 B in 2.
    t.add_bytes_over(link, 500'000, 2'500'000, 4000.0);
    t.add_bytes_over(link, 7'000'000, 7'000'000, 3000.0);  // an instant: one bucket
    std::vector<std::pair<double, double>> points;
    for (const auto& e : events_of(t)) {
        if (e["ph"] == "C")
            points.emplace_back(e["ts"].get<double>(), e["args"]["GB/s"].get<double>());
    }
    const std::vector<std::pair<double, double>> want = {{0, 1}, {1, 2}, {2, 1},
                                                         {3, 0}, {7, 3}, {8, 0}};
    EXPECT_EQ(points, want);
}

TEST(Timeline, ValueTracksWriteTheirPointsUnderTheirUnit) {
    TimelineOptions o;
    parse_timeline_window(":3us", o);
    Timeline t(o);
    const auto util = t.value_track("die0", "Cube utilisation", "%");
    t.set_value(util, 0, 87.5);
    t.set_value(util, 1'000'000, 12.25);
    t.set_value(util, 5'000'000, 0.0);  // past the window: dropped
    std::vector<std::pair<double, double>> points;
    for (const auto& e : events_of(t)) {
        if (e["ph"] == "C" && e["name"] == "Cube utilisation") {
            points.emplace_back(e["ts"].get<double>(), e["args"]["%"].get<double>());
        }
    }
    const std::vector<std::pair<double, double>> want = {{0, 87.5}, {1, 12.25}};
    EXPECT_EQ(points, want);
}

TEST(Timeline, GzipCompressedOutputDecompressesToTheSameText) {
    std::string text;
    for (int i = 0; i < 100000; ++i) text += "{\"ph\":\"X\",\"ts\":" + std::to_string(i) + "},\n";
    const std::string gz = gzip_compress(text);
    ASSERT_GT(gz.size(), 18u);
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip magic
    EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
    EXPECT_LT(gz.size(), text.size() / 4);
    std::string back(text.size() + 1, '\0');
    z_stream z{};
    ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    z.avail_in = static_cast<uInt>(gz.size());
    z.next_out = reinterpret_cast<Bytef*>(back.data());
    z.avail_out = static_cast<uInt>(back.size());
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
    back.resize(z.total_out);
    inflateEnd(&z);
    EXPECT_EQ(back, text);
    EXPECT_EQ(gzip_compress("").size(), 20u);  // header and trailer of an empty member
}

TEST(Timeline, CoreListsAndRanges) {
    TimelineOptions o;
    parse_timeline_cores("0-2,7", o);
    Timeline t(o);
    for (uint32_t c : {0u, 1u, 2u, 7u}) EXPECT_TRUE(t.core_selected(c)) << c;
    for (uint32_t c : {3u, 6u, 8u}) EXPECT_FALSE(t.core_selected(c)) << c;
    EXPECT_TRUE(Timeline(TimelineOptions{}).core_selected(71));
}

TEST(Timeline, BadOptionsAreInputErrorsNamingTheOption) {
    TimelineOptions o;
    EXPECT_THROW(parse_timeline_window("10us", o), InputError);
    EXPECT_THROW(parse_timeline_window("20us:10us", o), InputError);
    EXPECT_THROW(parse_timeline_window("10furlongs:", o), InputError);
    EXPECT_THROW(parse_timeline_cores("3-1", o), InputError);
    EXPECT_THROW(parse_timeline_cores("a", o), InputError);
    EXPECT_THROW(parse_timeline_cores("1,,2", o), InputError);
    try {
        parse_timeline_cores("x", o);
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--timeline-cores"), std::string::npos);
    }
}

}  // namespace
}  // namespace asim
