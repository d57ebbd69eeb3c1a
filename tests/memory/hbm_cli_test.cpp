// `ascend-sim mem-replay` end to end: summary keys, calibration-shaped figures on a small trace,
// and bad input (exit 2, one message naming the problem, nothing written).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;
std::string scratch(const std::string& name) { return asim::test::scratch_path("hbm", name); }

std::string trace_file(const std::string& name, const std::string& text) {
    const std::string path = scratch(name + ".trc");
    std::ofstream(path) << text;
    return path;
}

void expect_bad(const std::string& args, const char* needle) {
    const std::string out = scratch("bad");
    const CliResult r = run_cli("mem-replay " + args + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos)
        << "missing '" << needle << "' in: " << r.output;
    EXPECT_FALSE(fs::exists(out)) << "bad input left " << out << " behind";
}

TEST(MemReplay, WritesEverySummaryKeyAndOneLine) {
    std::string text;
    for (int i = 0; i < 2000; ++i)
        text += "0x" + ([&] {
                    std::ostringstream s;
                    s << std::hex << 64 * i;
                    return s.str();
                })() +
                " READ " + std::to_string(i / 2) + "\n";
    const std::string out = scratch("ok");
    const CliResult r = run_cli("mem-replay --platform hbm2_8gb_x128 --mem-trace " +
                                trace_file("seq", text) + " --issue-cap 0 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    std::ifstream in(out + "/stats.json");
    const auto doc = nlohmann::json::parse(in);
    const auto& s = doc["summary"];
    for (const char* k :
         {"total_cycles", "bandwidth_gbps", "steady_bandwidth_gbps", "read_latency_mean_cycles",
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
    expect_bad("--mem-trace " + trace_file("far", "0x40 READ 0\n0x200000000 READ 1\n"),
               "beyond the device capacity");
}

TEST(MemReplay, UnsupportedRequestSize) {
    expect_bad("--mem-trace " + trace_file("size", "0x40 READ 0\n") + " --request-size 128B",
               "unsupported request size");
}

TEST(MemReplay, ImpossibleTiming) {
    expect_bad(
        "--mem-trace " + trace_file("tras", "0x40 READ 0\n") + " --set die.hbm.timing.tRAS=5",
        "tRAS");
    expect_bad(
        "--mem-trace " + trace_file("tck", "0x40 READ 0\n") + " --set die.hbm.timing.tCK=0ns",
        "tCK");
}

// JEDEC relations (hbm_device.cpp): the message names the key and both sides.
TEST(MemReplay, TimingThatBreaksAJedecRelation) {
    const std::string t =
        "--mem-trace " + trace_file("jedec", "0x40 READ 0\n") + " --platform ascend960";
    expect_bad(t + " --set die.hbm.timing.tRC=113",
               "die.hbm.timing.tRC: tRC (113) < tRAS + tRP (81 + 34)");
    expect_bad(t + " --set die.hbm.timing.burst_cycles=3", "die.hbm.timing.burst_cycles");
    expect_bad(t + " --set die.hbm.controller.refresh=all_bank --set die.hbm.timing.tREFI=1429",
               "die.hbm.timing.tREFI: tREFI (1429) must exceed tRFC (1429)");
}

// Line transactions (models/memory/hbm/line_transactions.h): a request is a 512 B line, counted
// back in bursts, ACTs and row hits; a block the mapping does not lay over every bank group at the
// same columns, or a request of another size, is refused naming the key.
TEST(MemReplay, LineTransactionsTakeWholeLines) {
    std::string text;
    for (int i = 0; i < 64; ++i) {
        std::ostringstream s;
        s << "0x" << std::hex << 512 * i << " READ " << std::dec << 4 * i << "\n";
        text += s.str();
    }
    const std::string out = scratch("lines");
    const CliResult r =
        run_cli("mem-replay --platform ascend960 --mem-trace " + trace_file("lines", text) +
                " --request-size 512B --set " + "die.hbm.controller.transaction=512B --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(out + "/stats.json");
    const auto s = nlohmann::json::parse(in)["summary"];
    EXPECT_EQ(s["request_bytes"], 512);
    // 64 lines over 32 pseudo-channels (1 KiB each): 32 bank sets opened, 4 ACTs each; of each
    // set's 32 bursts the first to each of its 4 banks misses.
    EXPECT_EQ(s["activates"], 128);
    EXPECT_DOUBLE_EQ(s["read_row_hit_rate"].get<double>(), 28.0 / 32.0);

    const std::string t = "--mem-trace " + trace_file("line1", "0x0 READ 0\n");
    expect_bad(t + " --platform ascend960 --set die.hbm.controller.transaction=64B",
               "die.hbm.controller.transaction: a block of 64 B must be whole columns of every "
               "bank group");
    expect_bad(t + " --platform hbm2_8gb_x128 --set die.hbm.controller.transaction=512B",
               "line transactions need the bank group in the lowest bits");
    expect_bad(t + " --platform ascend960 --request-size 32B --set " +
                   "die.hbm.controller.transaction=512B",
               "serves 512 B per request");
}

TEST(MemReplay, UnknownFidelityListsTheAcceptedNames) {
    expect_bad(
        "--mem-trace " + trace_file("fid", "0x40 READ 0\n") + " --set die.hbm.fidelity=jedek",
        "expected one of 'flat', 'jedec', got 'jedek'");
}

// Every preset parses and validates, its HBM description included (inherited or its own).
TEST(MemReplay, EveryPresetValidates) {
    int presets = 0;
    for (const auto& e : fs::directory_iterator(fs::path(ASIM_SOURCE_DIR) / "platforms")) {
        if (e.path().extension() != ".yaml") continue;
        ++presets;
        const CliResult r = run_cli("info --platform " + e.path().stem().string());
        EXPECT_EQ(r.exit_code, 0) << e.path() << ": " << r.output;
    }
    EXPECT_GE(presets, 3);
}

// `figures hbm` on the die preset: achieved never above offered, monotone (saturated points agree
// within 0.5 %: the device's rate over runs of different start-up), and saturating near the
// sustained bandwidth; sequential reads sustain at least 85 % of the pin peak.
TEST(FiguresHbm, LoadCurveOfTheDiePresetIsMonotoneAndSaturates) {
    const CliResult r = run_cli("figures hbm --platform ascend960");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::istringstream in(r.output);
    std::string line;
    std::map<std::string, std::vector<std::pair<double, double>>> curve;  // offered, achieved
    std::map<std::string, double> sustained, pin;
    bool peaks = false;
    while (std::getline(in, line)) {
        if (line.rfind("# hbm_peak", 0) == 0) peaks = true;
        std::vector<std::string> f;
        std::stringstream ls(line);
        for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
        if (f.size() < 5 || (f[0] != "sequential" && f[0] != "random")) continue;
        if (peaks) {
            sustained[f[0]] = std::stod(f[1]);
            pin[f[0]] = std::stod(f[2]);
        } else {
            curve[f[0]].emplace_back(std::stod(f[2]), std::stod(f[3]));
        }
    }
    ASSERT_EQ(curve.size(), 2u) << r.output;
    ASSERT_EQ(sustained.size(), 2u) << r.output;
    for (const auto& [pattern, points] : curve) {
        ASSERT_GE(points.size(), 10u);
        double best = 0;
        for (const auto& [offered, achieved] : points) {
            EXPECT_LE(achieved, offered) << pattern << " at " << offered;
            EXPECT_GE(achieved, best * 0.995) << pattern << " at " << offered;
            best = std::max(best, achieved);
        }
        EXPECT_GE(points.front().second, 0.99 * points.front().first)
            << pattern;  // light load: all served
        EXPECT_NEAR(points.back().second, sustained[pattern], 0.06 * sustained[pattern]) << pattern;
    }
    EXPECT_GE(sustained["sequential"], 0.85 * pin["sequential"]);
    EXPECT_GT(sustained["sequential"], 2.5 * sustained["random"]);
}

TEST(MemReplay, BadMappingString) {
    expect_bad("--mem-trace " + trace_file("map", "0x40 READ 0\n") +
                   " --set die.hbm.controller.mapping=rorabgbaxxco",
               "unknown field 'xx'");
}

TEST(MemReplay, UnknownTargetIsRefused) {
    expect_bad("--mem-trace " + trace_file("l3", "0x40 READ 0\n") + " --target l3", "--target");
}

TEST(MemReplay, MissingTrace) { expect_bad("--mem-trace /nonexistent/trace.trc", "cannot open"); }

}  // namespace

namespace {

// validate-fidelity --memory runs one die's trace with the JEDEC and the flat HBM and reports
// both: the same bytes move, the JEDEC run (banks, refresh) is the slower one; a trace set or a
// bad key is bad input.
TEST(MemoryFidelity, ComparesTheJedecAndFlatHbmOnOneDiesTrace) {
    const std::string out = asim::test::scratch_path("memfid", "out");
    const CliResult r =
        run_cli("validate-fidelity --memory --trace " + std::string(ASIM_SOURCE_DIR) +
                "/traces/samples/tiny_mlp.jsonl --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string csv = asim::test::read_text(out + "/memory_fidelity.csv");
    EXPECT_EQ(csv.rfind("metric,jedec,flat,flat_error_pct\n", 0), 0u) << csv;
    std::map<std::string, std::pair<double, double>> rows;
    std::stringstream lines(csv);
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
        std::stringstream cells(line);
        std::string name, jedec, flat;
        std::getline(cells, name, ',');
        std::getline(cells, jedec, ',');
        std::getline(cells, flat, ',');
        rows[name] = {std::stod(jedec), std::stod(flat)};
    }
    ASSERT_EQ(rows.count("step_us"), 1u) << csv;
    ASSERT_EQ(rows.count("hbm_read_GiB"), 1u) << csv;
    EXPECT_GT(rows["step_us"].second, 0.0);
    EXPECT_GT(rows["step_us"].first, rows["step_us"].second);
    EXPECT_NEAR(rows["hbm_read_GiB"].first, rows["hbm_read_GiB"].second,
                0.01 * rows["hbm_read_GiB"].second);
    fs::remove_all(out);

    const std::string set = asim::test::scratch_path("memfid", "set");
    ASSERT_EQ(run_cli("trace gen --model llama3-8b --phase decode --batch 1 --seq 128 --tp 2 "
                      "--layers 1 --out " +
                      set)
                  .exit_code,
              0);
    const CliResult on_set = run_cli("validate-fidelity --memory --trace " + set);
    EXPECT_EQ(on_set.exit_code, 2) << on_set.output;
    EXPECT_NE(on_set.output.find("trace set"), std::string::npos) << on_set.output;
    const CliResult bad = run_cli("validate-fidelity --memory --set die.hbm.nope=1");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("die.hbm.nope"), std::string::npos) << bad.output;
    fs::remove_all(set);
}

}  // namespace
