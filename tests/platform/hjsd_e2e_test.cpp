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
    const fs::path dir =
        fs::path(::testing::TempDir()) / ("asim-hjsd-" + std::to_string(::getpid()));
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

TEST(HjsdEndToEnd, BadRegistersAreInputErrors) {
    for (const char* set :
         {"die.hjsd.prefetch_depth=16", "die.hjsd.chunk=3000B", "die.hjsd.credits.weight=64MiB"}) {
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
