// `ascend-sim sweep` through the binary: bad input exits 2 before any point runs and leaves
// nothing behind; a real sweep writes every point and a results.csv that agrees with them; a
// sweep killed after its first point and resumed writes the same results.csv as an
// uninterrupted one.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;
std::string scratch(const std::string& name) { return asim::test::scratch_path("sweep", name); }
std::string read(const std::string& path) { return asim::test::read_text(path); }

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) out.push_back(line);
    return out;
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    std::string field;
    while (std::getline(in, field, ',')) out.push_back(field);
    return out;
}

const std::string kTrace = std::string(ASIM_SOURCE_DIR) + "/traces/samples/tiny_mlp.jsonl";
const std::string kSweep = "sweep --trace " + kTrace + " ";

void expect_bad_input(const std::string& args, std::initializer_list<const char*> needles) {
    const std::string out = scratch("bad");
    const CliResult r = run_cli(args + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const char* needle : needles) {
        EXPECT_NE(r.output.find(needle), std::string::npos)
            << "missing '" << needle << "' in: " << r.output;
    }
    EXPECT_FALSE(fs::exists(out)) << "bad input left " << out << " behind";
}

TEST(Sweep, BadInputExitsTwoBeforeAnyPointRuns) {
    expect_bad_input(kSweep + "--grid die.l2.sise=32MiB,64MiB",
                     {"die.l2.sise", "did you mean 'size'"});
    expect_bad_input(kSweep + "--grid die.l2.size=1GHz,2GHz", {"die.l2.size", "expected a size"});
    expect_bad_input(kSweep + "--grid die.ai_cores", {"--grid die.ai_cores", "expected KEY="});
    expect_bad_input(kSweep + "--grid die.ai_cores=8..4", {"below the start"});
    expect_bad_input(kSweep + "--grid die.ai_cores=", {"no values"});
    expect_bad_input(kSweep, {"--grid is required"});
    expect_bad_input("sweep --trace /nonexistent/t.jsonl --grid die.ai_cores=8,16",
                     {"/nonexistent/t.jsonl"});
    // Invalid for the model at one point only: 80 MiB of weights do not fit the 64 MiB L2.
    expect_bad_input(kSweep + "--grid die.l2.partitions.weight=20MiB,80MiB",
                     {"grid point 001-weight=80MiB", "more than the L2"});
    expect_bad_input(kSweep + "--grid die.ai_cores=8 --set die.ai_cores=16", {"also swept"});
    expect_bad_input(kSweep + "--grid die.ai_cores=8 -j 0", {"-j must be at least 1"});
}

TEST(Sweep, RealSweepWritesEveryPointAndResults) {
    const std::string out = scratch("real");
    const std::string args =
        kSweep + "--grid die.ai_cores=8,16 --grid die.l2.hit_latency_cycles=40,400 -j 2 --out " +
        out;
    const CliResult r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("4 finished (4 run now, 0 already done), 0 failed"), std::string::npos)
        << r.output;

    const auto rows = lines(read(out + "/results.csv"));
    ASSERT_EQ(rows.size(), 5u);
    const auto header = split(rows[0]);
    ASSERT_GE(header.size(), 4u);
    EXPECT_EQ(header[0], "die.ai_cores");
    EXPECT_EQ(header[1], "die.l2.hit_latency_cycles");
    EXPECT_EQ(header[2], "sim_time_ns");
    EXPECT_EQ(header.back(), "point");
    for (const char* c : {"cube_utilization", "l2_partitions.weight.hit_rate", "prefetch.useful"}) {
        EXPECT_NE(std::find(header.begin(), header.end(), c), header.end()) << c;
    }
    EXPECT_EQ(std::find(header.begin(), header.end(), "wall_s"), header.end());

    const std::vector<std::pair<std::string, std::string>> order = {
        {"8", "40"}, {"8", "400"}, {"16", "40"}, {"16", "400"}};
    std::vector<double> sim_time;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto f = split(rows[i + 1]);
        ASSERT_EQ(f.size(), header.size()) << rows[i + 1];
        EXPECT_EQ(f[0], order[i].first);
        EXPECT_EQ(f[1], order[i].second);
        // Each row is its point's summary, and the point ran with the swept values.
        const std::string dir = out + "/points/" + f.back();
        const auto stats = nlohmann::json::parse(read(dir + "/stats.json"));
        EXPECT_DOUBLE_EQ(std::stod(f[2]), stats["summary"]["sim_time_ns"].get<double>());
        const std::string config = read(dir + "/config.yaml");
        EXPECT_NE(config.find("ai_cores: " + order[i].first), std::string::npos) << dir;
        EXPECT_NE(config.find("hit_latency_cycles: " + order[i].second), std::string::npos) << dir;
        sim_time.push_back(std::stod(f[2]));
    }
    // Ten times the L2 hit latency cannot make the MLP faster; with the same latency, twice the
    // cores cannot make it slower.
    EXPECT_GT(sim_time[1], sim_time[0]);
    EXPECT_GT(sim_time[3], sim_time[2]);
    EXPECT_LE(sim_time[2], sim_time[0]);
    EXPECT_EQ(lines(read(out + "/timing.csv")).size(), 5u);

    // Rerunning finds everything done; another definition in the same directory is refused
    // until --restart.
    const CliResult again = run_cli(args);
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("0 run now, 4 already done"), std::string::npos) << again.output;
    const std::string other = kSweep + "--grid die.ai_cores=8,24 --out " + out;
    const CliResult refused = run_cli(other);
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("another definition (grid differ)"), std::string::npos)
        << refused.output;
    EXPECT_TRUE(fs::exists(out + "/points/" + split(rows[1]).back()));
    const CliResult restarted = run_cli(other + " --restart");
    ASSERT_EQ(restarted.exit_code, 0) << restarted.output;
    EXPECT_EQ(lines(read(out + "/results.csv")).size(), 3u);
    EXPECT_FALSE(fs::exists(out + "/points/" + split(rows[1]).back()));
}

TEST(Sweep, FailedPointsExitOneWithTheirStderr) {
    const std::string out = scratch("fail");
    const CliResult r =
        run_cli(kSweep + "--grid die.ai_cores=8,16 --max-sim-time 10ns --out " + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("2 of 2 points failed"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("watchdog"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(out + "/points/000-ai_cores=8.failed/stderr.txt"));
    EXPECT_FALSE(fs::exists(out + "/points/000-ai_cores=8"));
    EXPECT_EQ(lines(read(out + "/results.csv")).size(), 1u);  // the header only
}

// Starts the sweep in a process group of its own and SIGKILLs the whole group once the first
// point is in place; returns whether the kill came before the sweep finished.
bool run_and_kill_after_first_point(const std::string& args, const std::string& out) {
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        const std::string cmd =
            std::string("exec ") + ASIM_BINARY + " " + args + " >/dev/null 2>&1";
        execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid);
    bool killed = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(50);
    while (std::chrono::steady_clock::now() < deadline) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) return false;
        // The first point is complete once results.csv holds it (the point directory appears a
        // moment before results.csv is rewritten; killing in between is legal but would leave
        // nothing to check here).
        std::error_code ec;
        const bool first_done =
            fs::exists(out + "/results.csv", ec) && lines(read(out + "/results.csv")).size() >= 2;
        if (first_done) {
            kill(-pid, SIGKILL);
            killed = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    int status;
    waitpid(pid, &status, 0);
    return killed && WIFSIGNALED(status);
}

TEST(Sweep, ResumedAfterKillWritesTheSameResultsAsUninterrupted) {
    const std::string grid =
        "--grid die.ai_cores=8..48:8 --grid die.l2.hit_latency_cycles=40,400 -j 1 ";
    const std::string whole = scratch("whole"), resumed = scratch("resumed");
    const CliResult w = run_cli(kSweep + grid + "--out " + whole);
    ASSERT_EQ(w.exit_code, 0) << w.output;

    ASSERT_TRUE(run_and_kill_after_first_point(kSweep + grid + "--out " + resumed, resumed))
        << "the sweep finished before it could be killed";
    const auto partial_rows = lines(read(resumed + "/results.csv"));
    EXPECT_GE(partial_rows.size(), 2u);   // header and at least the first point
    EXPECT_LT(partial_rows.size(), 13u);  // not all 12 points

    const CliResult r = run_cli(kSweep + grid + "--out " + resumed);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find(" 0 already done"), std::string::npos) << r.output;
    EXPECT_EQ(read(resumed + "/results.csv"), read(whole + "/results.csv"));
    EXPECT_EQ(lines(read(whole + "/results.csv")).size(), 13u);
    // Nothing of the killed run is left behind: no temporary point directories.
    for (const auto& e : fs::directory_iterator(resumed + "/points")) {
        EXPECT_NE(e.path().filename().string()[0], '.') << e.path();
    }
}

}  // namespace

namespace {

// A trace set (directory or index.json) sweeps like one trace, network keys included; a swept
// quantity also gets a numeric column in its base unit.
TEST(Sweep, TraceSetsAndNetworkKeysAreSwept) {
    const std::string set = scratch("set");
    ASSERT_EQ(
        run_cli("trace gen --model llama3-70b --phase decode --batch 8 --seq 512 --tp 8 --layers 1 "
                "--no-embedding --out " +
                set)
            .exit_code,
        0);
    const std::string out = scratch("set-sweep");
    const CliResult r =
        run_cli("sweep --platform supernode8_ring --trace " + set +
                " --grid network.node.link.lane_rate=100Gbps,200Gbps -j 2 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = lines(read(out + "/results.csv"));
    ASSERT_EQ(rows.size(), 3u);
    const auto header = split(rows[0]);
    ASSERT_GE(header.size(), 3u);
    EXPECT_EQ(header[0], "network.node.link.lane_rate");
    EXPECT_EQ(header[1], "network.node.link.lane_rate_bps");
    EXPECT_EQ(header[2], "sim_time_ns");
    EXPECT_EQ(split(rows[1])[1], "100000000000");
    // Half the link rate, a slower step (the step's all-reduces cross the ring).
    EXPECT_GT(std::stod(split(rows[1])[2]), std::stod(split(rows[2])[2]) * 1.1)
        << read(out + "/results.csv");

    // The set is hashed whole: a changed die file is a changed definition.
    std::ofstream(set + "/die3.jsonl", std::ios::app) << "\n";
    const CliResult changed =
        run_cli("sweep --platform supernode8_ring --trace " + set +
                " --grid network.node.link.lane_rate=100Gbps,200Gbps --out " + out);
    EXPECT_EQ(changed.exit_code, 2) << changed.output;
    EXPECT_NE(changed.output.find("trace_fnv1a differ"), std::string::npos) << changed.output;
    // A directory without an index is no trace set.
    const CliResult no_index = run_cli("sweep --trace " + scratch("empty-dir-that-is-missing") +
                                       " --grid die.ai_cores=8 --out " + scratch("never"));
    EXPECT_EQ(no_index.exit_code, 2) << no_index.output;
}

}  // namespace
