// The H-JSD end to end: on a weight-streaming trace (small-M GEMMs whose weights are read once,
// between vector phases that leave HBM idle), prefetching ahead makes the step faster and its
// prefetches are used; depth 0 issues nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/harness/weight_streaming_trace.h"

#include "tests/harness/scratch.h"

namespace fs = std::filesystem;

namespace {

nlohmann::json run(const std::string& trace, const std::string& sets, const std::string& out) {
    const std::string cmd = std::string(ASIM_BINARY) + " run --trace " + trace + " " + sets +
                            " --out " + out + " > /dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
    std::ifstream in(out + "/stats.json");
    return nlohmann::json::parse(in)["summary"];
}

using asim::test::weight_streaming_trace;

TEST(HjsdEndToEnd, PrefetchSpeedsUpWeightStreaming) {
    const fs::path dir = asim::test::scratch_path("hjsd", "streaming");
    fs::create_directories(dir);
    const std::string trace = weight_streaming_trace(dir.string());
    const auto off = run(trace, "--set die.hjsd.prefetch_depth=0", (dir / "d0").string());
    const auto on = run(trace, "--set die.hjsd.prefetch_depth=5", (dir / "d5").string());
    EXPECT_EQ(off["prefetch"]["issued"], 0u);
    EXPECT_GT(on["prefetch"]["issued"].get<uint64_t>(), 0u);
    EXPECT_GT(on["prefetch"]["useful"].get<uint64_t>(), 0u);
    EXPECT_GT(on["hbm_prefetch_bytes"].get<uint64_t>(), 0u);
    EXPECT_LT(on["sim_time_ns"].get<double>(), off["sim_time_ns"].get<double>());
    EXPECT_GT(on["l2_weight_hit_rate"].get<double>(), off["l2_weight_hit_rate"].get<double>());
    RecordProperty("speedup", std::to_string(off["sim_time_ns"].get<double>() /
                                             on["sim_time_ns"].get<double>()));
    fs::remove_all(dir);
}

// The time horizon (DESIGN §5): each GEMM's weights are candidates while the vector phase before
// it runs, whose roofline estimate is about 10 us. A horizon shorter than that holds them until
// their op starts, when they are late; one of 20 us lets them go during the phase but not a
// layer earlier (fewer prefetched lines evicted unused than with the op window alone); one far
// beyond the trace changes nothing.
TEST(HjsdEndToEnd, HorizonHoldsPrefetchesUntilTheirOpIsNear) {
    const fs::path dir = asim::test::scratch_path("hjsd", "horizon");
    fs::create_directories(dir);
    const std::string trace = weight_streaming_trace(dir.string());
    const auto none = run(trace, "", (dir / "none").string());
    const auto tight = run(trace, "--set die.hjsd.horizon=1us", (dir / "tight").string());
    const auto near = run(trace, "--set die.hjsd.horizon=20us", (dir / "near").string());
    const auto far = run(trace, "--set die.hjsd.horizon=1ms", (dir / "far").string());
    EXPECT_EQ(tight["prefetch"]["issued"], 0u);
    EXPECT_EQ(tight["prefetch"]["dropped_late_candidates"], 4u);
    EXPECT_EQ(near["prefetch"]["issued"], none["prefetch"]["issued"]);
    EXPECT_LT(near["prefetch"]["unused"].get<uint64_t>(),
              none["prefetch"]["unused"].get<uint64_t>());
    EXPECT_LT(near["sim_time_ns"].get<double>(), tight["sim_time_ns"].get<double>());
    EXPECT_EQ(far["prefetch"], none["prefetch"]);
    EXPECT_EQ(far["sim_time_ns"], none["sim_time_ns"]);
    fs::remove_all(dir);
}

TEST(HjsdEndToEnd, BadRegistersAreInputErrors) {
    // 10 s is 1.65e10 cycles of the 1.65 GHz die clock: wider than the 32-bit horizon register.
    for (const char* set : {"die.hjsd.prefetch_depth=64", "die.hjsd.chunk=3000B",
                            "die.hjsd.credits.weight=64MiB", "die.hjsd.horizon=10s"}) {
        const std::string cmd =
            std::string(ASIM_BINARY) + " run --set " + set + " --out /nonexistent/x 2>&1";
        FILE* p = popen(cmd.c_str(), "r");
        std::string out;
        char buf[512];
        while (fgets(buf, sizeof buf, p)) out += buf;
        const int status = pclose(p);
        EXPECT_EQ(WEXITSTATUS(status), 2) << set << ": " << out;
        EXPECT_NE(out.find("die.hjsd"), std::string::npos) << out;
    }
}

}  // namespace
