// RTL in the loop: the chip with the Verilated prefetch scheduler (die.hjsd.impl=rtl) produces the
// same statistics as with the C++ core, on the default trace and on a weight-streaming trace.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/harness/weight_streaming_trace.h"

#include "tests/harness/scratch.h"

namespace fs = std::filesystem;

namespace {

struct Timed {
    nlohmann::json stats;
    double wall_s = 0;
};

Timed run(const std::string& args, const fs::path& out) {
    const std::string cmd =
        std::string(ASIM_BINARY) + " run " + args + " --out " + out.string() + " > /dev/null 2>&1";
    const auto t0 = std::chrono::steady_clock::now();
    const int status = std::system(cmd.c_str());
    Timed t;
    t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
    std::ifstream in(out / "stats.json");
    t.stats = nlohmann::json::parse(in);
    return t;
}

// What may differ between the two runs: wall time, the kernel's delta-cycle count (the RTL
// settles its pins in delta cycles; simulated time and every statistic are the same), and how the
// run was asked for (its command line and configuration differ in die.hjsd.impl).
void strip_run_specific(nlohmann::json& j) {
    j["meta"].erase("wall_s");
    j["meta"].erase("sim_events");
    j["meta"].erase("command_line");
    j["meta"].erase("config_fnv1a");
    j["summary"].erase("wall_s");
}

void expect_same_stats(const std::string& trace_args, const std::string& name) {
    const fs::path dir = asim::test::scratch_path("ritl", name);
    fs::create_directories(dir);
    Timed tlm = run(trace_args + " --set die.hjsd.impl=tlm", dir / "tlm");
    Timed rtl = run(trace_args + " --set die.hjsd.impl=rtl", dir / "rtl");
    ASSERT_TRUE(tlm.stats.contains("stats"));
    EXPECT_GT(tlm.stats["summary"]["prefetch"]["issued"].get<uint64_t>(), 0u);
    strip_run_specific(tlm.stats);
    strip_run_specific(rtl.stats);
    EXPECT_EQ(tlm.stats["summary"], rtl.stats["summary"]);
    EXPECT_EQ(tlm.stats["stats"], rtl.stats["stats"]);
    EXPECT_EQ(tlm.stats, rtl.stats) << nlohmann::json::diff(tlm.stats, rtl.stats).dump(1);
    ::testing::Test::RecordProperty("slowdown", std::to_string(rtl.wall_s / tlm.wall_s));
    fs::remove_all(dir);
}

TEST(RtlInTheLoop, DefaultTraceStatisticsEqual) { expect_same_stats("", "default"); }

// The weight-streaming trace of tests/platform/hjsd_e2e_test.cpp: four layers of a vector phase
// then a GEMM with M = 16 and 8 MiB of weights read once.
TEST(RtlInTheLoop, WeightStreamingStatisticsEqual) {
    const fs::path dir = asim::test::scratch_path("ritl", "trace");
    fs::create_directories(dir);
    const std::string path = asim::test::weight_streaming_trace(dir.string());
    expect_same_stats("--trace " + path, "stream");
    fs::remove_all(dir);
}

// With a time horizon that holds candidates back (tests/platform/hjsd_e2e_test.cpp): the block's
// estimate comparison decides as the core's.
TEST(RtlInTheLoop, HorizonStatisticsEqual) {
    const fs::path dir = asim::test::scratch_path("ritl", "horizon-trace");
    fs::create_directories(dir);
    const std::string path = asim::test::weight_streaming_trace(dir.string());
    expect_same_stats("--trace " + path + " --set die.hjsd.horizon=20us", "horizon");
    fs::remove_all(dir);
}

TEST(RtlInTheLoop, SettingsTheRtlCannotHoldExit2) {
    const std::string cmd =
        std::string(ASIM_BINARY) +
        " run --set die.hjsd.impl=rtl --set die.hjsd.queue_depth=32 --out /nonexistent/x 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    const int status = pclose(p);
    EXPECT_EQ(WEXITSTATUS(status), 2) << out;
    EXPECT_NE(out.find("die.hjsd"), std::string::npos) << out;
    EXPECT_NE(out.find("queue_depth"), std::string::npos) << out;
}

}  // namespace
