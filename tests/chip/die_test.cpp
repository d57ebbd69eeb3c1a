// Whole-die behaviour against first principles: a compute-bound GEMM approaches the Cube peak
// and never exceeds it; a memory-bound op is held to the HBM bandwidth and never exceeds it.
#include <gtest/gtest.h>

#include "tests/chip/die_harness.h"

namespace asim::test {
namespace {

constexpr uint64_t kGiB = 1ULL << 30;

nlohmann::json gemm(uint64_t m, uint64_t n, uint64_t k, const std::string& dtype, uint32_t bytes) {
    return {{"op", "matmul"},
            {"m", m},
            {"n", n},
            {"k", k},
            {"dtype", dtype},
            {"inputs",
             {tensor("a", 0, m * k * bytes, "activation"),
              tensor("b", 4 * kGiB, k * n * bytes, "weight")}},
            {"outputs", {tensor("c", 8 * kGiB, m * n * 2, "activation")}}};
}

TEST(Die, ComputeBoundGemmReachesButNeverExceedsPeak) {
    const auto s = run_die(single_op_trace(gemm(8192, 8192, 8192, "bf16", 2)));
    const double fraction = s["achieved_tflops"].get<double>() / s["peak_tflops"].get<double>();
    RecordProperty("fraction_of_peak", std::to_string(fraction));
    EXPECT_NEAR(s["peak_tflops"].get<double>(), 973.2, 0.1);  // 72 x 4096 x 2 x 1.65 GHz
    EXPECT_GE(fraction, 0.80);
    EXPECT_LE(fraction, 1.0);
    EXPECT_LE(s["cube_utilization"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(s["flops"].get<double>(), 2.0 * 8192.0 * 8192.0 * 8192.0);
}

TEST(Die, Fp8GemmUsesTheFp8Peak) {
    const auto s = run_die(single_op_trace(gemm(8192, 8192, 8192, "fp8", 1)));
    EXPECT_EQ(s["peak_dtype"], "fp8");
    EXPECT_NEAR(s["peak_tflops"].get<double>(), 2 * 973.2, 0.2);
    const double fraction = s["achieved_tflops"].get<double>() / s["peak_tflops"].get<double>();
    EXPECT_LE(fraction, 1.0);
    EXPECT_GE(fraction, 0.5);
}

// Cube utilisation counts busy cycles, whatever the fractals per cycle: with two fractals per
// cycle a compute-bound GEMM keeps the Cube at least as busy as its share of the (doubled) peak.
TEST(Die, CubeUtilizationDoesNotDependOnFractalsPerCycle) {
    const auto s = run_die(single_op_trace(gemm(4096, 4096, 4096, "bf16", 2)),
                           {"die.aicore.cube.fractals_per_cycle=2"});
    const double fraction = s["achieved_tflops"].get<double>() / s["peak_tflops"].get<double>();
    EXPECT_NEAR(s["peak_tflops"].get<double>(), 2 * 973.2, 0.2);
    EXPECT_GE(s["cube_utilization"].get<double>(), fraction * (1 - 1e-4));  // was half of it
    EXPECT_LE(s["cube_utilization"].get<double>(), 1.0);
}

TEST(Die, MemoryBoundAddIsHeldToHbmBandwidth) {
    // c = a + b over 1 GiB operands: 3 GiB of traffic, far beyond the 64 MiB L2.
    const uint64_t elements = kGiB / 2;
    const auto s = run_die(single_op_trace(
        {{"op", "elementwise"},
         {"func", "add"},
         {"elements", elements},
         {"inputs",
          {tensor("a", 0, kGiB, "activation"), tensor("b", 2 * kGiB, kGiB, "activation")}},
         {"outputs", {tensor("c", 4 * kGiB, kGiB, "activation")}}}));
    const double bw = s["hbm_bw_gbps"].get<double>();
    const double peak = s["hbm_peak_gbps"].get<double>();
    RecordProperty("fraction_of_hbm_peak", std::to_string(bw / peak));
    EXPECT_LE(bw, peak);
    EXPECT_GE(bw, 0.6 * peak);
    // Both inputs were read from HBM once, plus the lines that straddle two vector cores' shares
    // (fetched by both, far apart in time); at most the L2's capacity of the output is still dirty.
    EXPECT_GE(s["hbm_read_bytes"].get<uint64_t>(), 2 * kGiB);
    EXPECT_LE(s["hbm_read_bytes"].get<uint64_t>(), 2 * kGiB + (1ULL << 20));
    EXPECT_GE(s["hbm_write_bytes"].get<uint64_t>(), kGiB - (64ULL << 20));
    // Time is at least the traffic over the peak.
    const double min_ns = static_cast<double>(s["hbm_read_bytes"].get<uint64_t>() +
                                              s["hbm_write_bytes"].get<uint64_t>()) /
                          peak;
    EXPECT_GE(s["sim_time_ns"].get<double>(), min_ns);
}

TEST(Die, HalvingHbmBandwidthSlowsAMemoryBoundOp) {
    const auto op = single_op_trace(
        {{"op", "elementwise"},
         {"func", "add"},
         {"elements", kGiB / 4},
         {"inputs",
          {tensor("a", 0, kGiB / 2, "activation"), tensor("b", kGiB, kGiB / 2, "activation")}},
         {"outputs", {tensor("c", 2 * kGiB, kGiB / 2, "activation")}}});
    const auto s = run_die(op, {"die.hbm.organisation.stacks=4"});  // 4.8 TB/s
    EXPECT_LE(s["hbm_bw_gbps"].get<double>(), 4800.0);
    EXPECT_GE(s["hbm_bw_gbps"].get<double>(), 0.6 * 4800.0);
}

// Two vector ops, each big enough to occupy every vector core for a while.
std::string two_ops(bool dependent) {
    auto vec = [&](uint64_t id, uint64_t base) {
        nlohmann::json j = {{"id", id},
                            {"op", "activation"},
                            {"func", "gelu"},
                            {"elements", 1ULL << 24},
                            {"inputs", {tensor("x", base, 32ULL << 20, "activation")}},
                            {"outputs", {tensor("y", base + kGiB, 32ULL << 20, "activation")}}};
        if (dependent && id > 0) j["deps"] = {id - 1};
        return j.dump() + "\n";
    };
    return std::string(R"({"format":"ascend-sim-trace","version":1,"name":"t","dies":1,"die":0})") +
           "\n" + vec(0, 0) + vec(1, 8 * kGiB);
}

TEST(Die, DependentOpsDoNotOverlap) {
    const auto s = run_die(two_ops(true));
    ASSERT_EQ(s["ops"], 2u);
    const double busy = s["time_by_op_class"]["activation"]["time_ns"].get<double>();
    // Op durations add up to the run: the second started when the first ended.
    EXPECT_NEAR(busy, s["sim_time_ns"].get<double>(), 1.0);
}

TEST(Die, IndependentOpsOverlap) {
    const auto s = run_die(two_ops(false));
    ASSERT_EQ(s["ops"], 2u);
    const double busy = s["time_by_op_class"]["activation"]["time_ns"].get<double>();
    // Both were dispatched at once and queued on the same engines: the second op's span covers
    // the first's, so the summed durations exceed the run time.
    EXPECT_GT(busy, 1.3 * s["sim_time_ns"].get<double>());
}

}  // namespace
}  // namespace asim::test
