// `ascend-sim mem-replay` end to end: summary keys, calibration-shaped figures on a small trace,
// and bad input (exit 2, one message naming the problem, nothing written).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;
std::string scratch(const std::string& name) { return asim::test::scratch_path("hbm", name); }

std::string trace_file(const std::string& name, const std::string& text) {
    const std::string path = scratch(name) + ".trc";
    std::ofstream(path) << text;
    return path;
}

void expect_bad(const std::string& args, const char* needle) {
    const std::string out = scratch("bad");
    const CliResult r = run_cli("mem-replay " + args + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << "missing '" << needle << "' in: " << r.output;
    EXPECT_FALSE(fs::exists(out)) << "bad input left " << out << " behind";
}

TEST(MemReplay, WritesEverySummaryKeyAndOneLine) {
    std::string text;
    for (int i = 0; i < 2000; ++i) text += "0x" + ([&] { std::ostringstream s; s << std::hex << 64 * i; return s.str(); })() + " READ " + std::to_string(i / 2) + "\n";
    const std::string out = scratch("ok");
    const CliResult r = run_cli("mem-replay --platform hbm2_8gb_x128 --mem-trace " + trace_file("seq", text) +
                                " --issue-cap 0 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    std::ifstream in(out + "/stats.json");
    const auto doc = nlohmann::json::parse(in);
    const auto& s = doc["summary"];
    for (const char* k : {"total_cycles", "bandwidth_gbps", "steady_bandwidth_gbps", "read_latency_mean_cycles",
                          "read_latency_p50_cycles", "read_latency_p95_cycles", "read_latency_p99_cycles",
                          "read_latency_max_cycles", "read_latency_from_accept_mean_cycles", "read_row_hit_rate",
                          "write_row_hit_rate", "activates", "precharges", "refreshes"}) {
        EXPECT_TRUE(s.contains(k)) << k;
    }
    EXPECT_EQ(s["requests"], 2000);
    // 2 requests per cycle offered, 4 per cycle peak: the data bus keeps up, so the run lasts
    // about 1000 cycles and a sequential stream mostly hits open rows.
    EXPECT_LT(s["total_cycles"].get<uint64_t>(), 1200u);
    EXPECT_GT(s["read_row_hit_rate"].get<double>(), 0.9);
    EXPECT_LE(s["bandwidth_gbps"].get<double>(), 256.0);
}

TEST(MemReplay, MalformedLineNamesTheLine) {
    expect_bad("--mem-trace " + trace_file("malformed", "0x40 READ 0\n0x80 RAED 1\n"), ":2:");
}

TEST(MemReplay, AddressBeyondCapacity) {
    expect_bad("--mem-trace " + trace_file("far", "0x40 READ 0\n0x200000000 READ 1\n"), "beyond the device capacity");
}

TEST(MemReplay, UnsupportedRequestSize) {
    expect_bad("--mem-trace " + trace_file("size", "0x40 READ 0\n") + " --request-size 128B", "unsupported request size");
}

TEST(MemReplay, ImpossibleTiming) {
    expect_bad("--mem-trace " + trace_file("tras", "0x40 READ 0\n") + " --set die.hbm.timing.tRAS=5", "tRAS");
    expect_bad("--mem-trace " + trace_file("tck", "0x40 READ 0\n") + " --set die.hbm.timing.tCK=0ns", "tCK");
}

TEST(MemReplay, BadMappingString) {
    expect_bad("--mem-trace " + trace_file("map", "0x40 READ 0\n") + " --set die.hbm.controller.mapping=rorabgbaxxco",
               "unknown field 'xx'");
}

TEST(MemReplay, UnknownTargetIsRefused) {
    expect_bad("--mem-trace " + trace_file("l3", "0x40 READ 0\n") + " --target l3", "--target");
}

TEST(MemReplay, MissingTrace) { expect_bad("--mem-trace /nonexistent/trace.trc", "cannot open"); }

}  // namespace
