// Grid parsing (lists, ranges with units, integer ranges, errors), the order of the Cartesian
// product, point ids and the results table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/common/errors.h"
#include "testbenches/sweep/grid.h"
#include "testbenches/sweep/results_table.h"

namespace asim::sweep {
namespace {

using Values = std::vector<std::string>;

std::string error_of(const std::string& spec) {
    try {
        parse_grid_spec(spec);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Grid, ListKeepsValuesVerbatim) {
    const GridAxis a = parse_grid_spec("die.hbm.bandwidth=4.8TB/s, 9.6TB/s");
    EXPECT_EQ(a.key, "die.hbm.bandwidth");
    EXPECT_EQ(a.values, (Values{"4.8TB/s", "9.6TB/s"}));
    EXPECT_EQ(parse_grid_spec("die.l2.replacement=lru").values, (Values{"lru"}));
}

TEST(Grid, IntegerRanges) {
    EXPECT_EQ(parse_grid_spec("die.ai_cores=8..72:8").values,
              (Values{"8", "16", "24", "32", "40", "48", "56", "64", "72"}));
    EXPECT_EQ(parse_grid_spec("k=0..3").values, (Values{"0", "1", "2", "3"}));
    // The end is included only when it lies on the grid.
    EXPECT_EQ(parse_grid_spec("k=1..10:4").values, (Values{"1", "5", "9"}));
    EXPECT_EQ(parse_grid_spec("k=-2..2:2").values, (Values{"-2", "0", "2"}));
    EXPECT_EQ(parse_grid_spec("k=5..5").values, (Values{"5"}));
}

// Found by reading the parser for its fuzz harness (fuzz/corpus/sweep_grid/integer_range_overflow):
// end - start and the step past the end overflowed a long long, which is undefined behaviour.
TEST(Grid, IntegerRangesAtTheLimitsOfLongLong) {
    EXPECT_EQ(
        parse_grid_spec("k=-9223372036854775808..9223372036854775807:9223372036854775807").values,
        (Values{"-9223372036854775808", "-1", "9223372036854775806"}));
    EXPECT_EQ(parse_grid_spec("k=9223372036854775806..9223372036854775807:5").values,
              (Values{"9223372036854775806"}));
    EXPECT_EQ(parse_grid_spec("k=9223372036854775805..9223372036854775807").values,
              (Values{"9223372036854775805", "9223372036854775806", "9223372036854775807"}));
    EXPECT_NE(
        error_of("k=-9223372036854775808..9223372036854775807").find("more than 10000 values"),
        std::string::npos);
}

TEST(Grid, QuantityRangesKeepTheirUnits) {
    const Values w = parse_grid_spec("die.l2.partitions.weight=0MiB..48MiB:4MiB").values;
    ASSERT_EQ(w.size(), 13u);
    EXPECT_EQ(w.front(), "0MiB");
    EXPECT_EQ(w[1], "4MiB");
    EXPECT_EQ(w.back(), "48MiB");
    // Reaches the end despite 1.2 not being exact in binary.
    EXPECT_EQ(parse_grid_spec("b=4.8TB/s..9.6TB/s:1.2TB/s").values,
              (Values{"4.8TB/s", "6TB/s", "7.2TB/s", "8.4TB/s", "9.6TB/s"}));
    // Written in the coarsest unit given in which every value is whole.
    EXPECT_EQ(parse_grid_spec("s=0B..8MiB:4MiB").values, (Values{"0MiB", "4MiB", "8MiB"}));
    EXPECT_EQ(parse_grid_spec("s=512KiB..1.5MiB:512KiB").values,
              (Values{"512KiB", "1024KiB", "1536KiB"}));
    EXPECT_EQ(parse_grid_spec("t=1ns..2ns:500ps").values, (Values{"1000ps", "1500ps", "2000ps"}));
    EXPECT_EQ(parse_grid_spec("f=1.2GHz..1.8GHz:0.3GHz").values,
              (Values{"1.2GHz", "1.5GHz", "1.8GHz"}));
}

TEST(Grid, MalformedSpecsAreInputErrors) {
    EXPECT_NE(error_of("die.ai_cores").find("expected KEY=V1,V2,... or KEY=A..B[:STEP]"),
              std::string::npos);
    EXPECT_NE(error_of("=1,2").find("the key is empty"), std::string::npos);
    EXPECT_NE(error_of("k=").find("no values"), std::string::npos);
    EXPECT_NE(error_of("k=1,,2").find("empty value"), std::string::npos);
    EXPECT_NE(error_of("k=1,2,1").find("listed twice"), std::string::npos);
    EXPECT_NE(error_of("k=..4").find("needs a start and an end"), std::string::npos);
    EXPECT_NE(error_of("k=1..4:").find("empty step"), std::string::npos);
    EXPECT_NE(error_of("k=1..4:0").find("greater than zero"), std::string::npos);
    EXPECT_NE(error_of("k=8..4").find("below the start"), std::string::npos);
    EXPECT_NE(error_of("k=1..4:1.5").find("plain integer"), std::string::npos);
    EXPECT_NE(error_of("k=0MiB..4MiB").find("needs a step"), std::string::npos);
    EXPECT_NE(error_of("k=0MiB..4:1MiB").find("has no unit"), std::string::npos);
    EXPECT_NE(error_of("k=0MiB..4GHz:1MiB").find("is not a size"), std::string::npos);
    EXPECT_NE(error_of("k=0MiB..4MiB:1ns").find("is not a size"), std::string::npos);
    EXPECT_NE(error_of("k=0Mib..4MiB:1MiB").find("unknown unit 'Mib'"), std::string::npos);
    EXPECT_NE(error_of("k=0B..1GiB:1B").find("more than 10000 values"), std::string::npos);
    // The message names the argument.
    EXPECT_EQ(error_of("k=8..4").rfind("--grid k=8..4: ", 0), 0u);
}

TEST(Grid, CartesianProductFirstAxisSlowest) {
    const std::vector<GridAxis> axes = {parse_grid_spec("die.ai_cores=8,16"),
                                        parse_grid_spec("die.l2.hit_latency_cycles=40..80:20")};
    const auto points = cartesian_points(axes);
    ASSERT_EQ(points.size(), 6u);
    const std::vector<Values> expected = {{"8", "40"},  {"8", "60"},  {"8", "80"},
                                          {"16", "40"}, {"16", "60"}, {"16", "80"}};
    for (std::size_t i = 0; i < points.size(); ++i) {
        EXPECT_EQ(points[i].index, i);
        EXPECT_EQ(points[i].values, expected[i]) << i;
    }
    EXPECT_EQ(points[4].id, "004-ai_cores=16-hit_latency_cycles=60");
    EXPECT_EQ(point_overrides(axes, points[4]),
              (Values{"die.ai_cores=16", "die.l2.hit_latency_cycles=60"}));
}

TEST(Grid, CartesianProductErrors) {
    EXPECT_THROW(cartesian_points({}), InputError);
    EXPECT_THROW(cartesian_points({parse_grid_spec("k=1,2"), parse_grid_spec("k=3")}), InputError);
    EXPECT_THROW(cartesian_points({parse_grid_spec("a=1..200"), parse_grid_spec("b=1..200")}),
                 InputError);
}

TEST(Grid, PointIdsAreStableAndReadable) {
    const std::vector<GridAxis> axes = {parse_grid_spec("die.hbm.bandwidth=4.8TB/s"),
                                        parse_grid_spec("die.clock=1GHz"),
                                        parse_grid_spec("die.l2.clock=2GHz")};
    // Units with '/' are made safe; keys sharing their last component are written in full.
    EXPECT_EQ(point_id(7, 1, axes, {"4.8TB/s", "1GHz", "2GHz"}),
              "007-bandwidth=4.8TB_s-die.clock=1GHz-die.l2.clock=2GHz");
    EXPECT_EQ(point_id(7, 12000, axes, {"4.8TB/s", "1GHz", "2GHz"}).substr(0, 6), "00007-");
}

TEST(ResultsTable, ColumnsRowsAndFlattening) {
    const auto s1 = nlohmann::json::parse(R"({"wall_s": 1.5, "zeta": 1, "l2_hit_rate": 0.5,
        "sim_time_ns": 100.25, "peak_dtype": "bf16", "prefetch": {"useful": 3, "issued": 4},
        "l2_partitions": {"weight": {"hit_rate": 0.75, "wall_s": 9}},
        "time_by_op_class": {"matmul": {"ops": 2}}})");
    auto s2 = s1;
    s2["sim_time_ns"] = 50;
    s2["time_by_op_class"] = nlohmann::json::object();
    s2["note"] = "a,b";
    const std::string csv =
        results_csv({"die.ai_cores"}, {{"000-x", {"8"}, s1}, {"001-x", {"16"}, s2}});
    EXPECT_EQ(csv,
              "die.ai_cores,sim_time_ns,peak_dtype,l2_hit_rate,l2_partitions.weight.hit_rate,"
              "prefetch.issued,prefetch.useful,note,time_by_op_class.matmul.ops,zeta,point\n"
              "8,100.25,bf16,0.5,0.75,4,3,,2,1,000-x\n"
              "16,50,bf16,0.5,0.75,4,3,\"a,b\",,1,001-x\n");
}

}  // namespace
}  // namespace asim::sweep
