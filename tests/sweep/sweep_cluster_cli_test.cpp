// `ascend-sim sweep` on clusters, through the binary: --list, --point, --shard and --collect on
// the local machine (the parts a cluster job runs), and --backend slurm against a real
// single-node Slurm (Debian's slurm-wlm and munge, started and stopped by the test itself with
// tests/sweep/local_slurm.sh). Every way of running the points gives the same results.csv as
// one local sweep.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;
std::string scratch(const std::string& name) {
    return asim::test::scratch_path("sweep-cluster", name);
}
std::string read(const std::string& path) { return asim::test::read_text(path); }

const std::string kTrace = std::string(ASIM_SOURCE_DIR) + "/traces/samples/tiny_mlp.jsonl";
const std::string kGrid = "sweep --trace " + kTrace +
                          " --grid die.ai_cores=8,16 --grid die.l2.hit_latency_cycles=60,100 ";

// results.csv of the whole grid run as one local sweep (computed once).
const std::string& reference_results() {
    static const std::string results = [] {
        const std::string out = scratch("reference");
        const CliResult r = run_cli(kGrid + "--out " + out);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        return read(out + "/results.csv");
    }();
    return results;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

TEST(SweepCluster, ListNamesEveryPointWithItsStatusAndCommand) {
    const std::string out = scratch("list");
    const CliResult r = run_cli(kGrid + "--out " + out + " --list");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = lines(r.output);
    ASSERT_EQ(rows.size(), 5u) << r.output;
    EXPECT_EQ(rows[0], "index\tid\tstatus\tcommand");
    EXPECT_EQ(rows[1].rfind("0\t000-ai_cores=8-hit_latency_cycles=60\tpending\t", 0), 0u)
        << rows[1];
    EXPECT_NE(rows[4].find("--point 003-ai_cores=16-hit_latency_cycles=100"), std::string::npos)
        << rows[4];
    EXPECT_FALSE(fs::exists(out)) << "--list wrote " << out;

    // The listed command runs its point; the list then says so.
    const std::string command = rows[2].substr(rows[2].rfind('\t') + 1);
    ASSERT_EQ(std::system((command + " >/dev/null 2>&1").c_str()), 0) << command;
    const CliResult again = run_cli(kGrid + "--out " + out + " --list");
    EXPECT_NE(lines(again.output)[2].find("\tdone\t"), std::string::npos) << again.output;
    EXPECT_NE(lines(again.output)[1].find("\tpending\t"), std::string::npos) << again.output;
}

TEST(SweepCluster, ShardsAndPointsThenCollectGiveTheLocalResults) {
    const std::string out = scratch("shards");
    const CliResult s0 = run_cli(kGrid + "--out " + out + " --shard 0/3");  // points 0 and 3
    ASSERT_EQ(s0.exit_code, 0) << s0.output;
    EXPECT_TRUE(fs::exists(out + "/points/000-ai_cores=8-hit_latency_cycles=60/stats.json"));
    EXPECT_TRUE(fs::exists(out + "/points/003-ai_cores=16-hit_latency_cycles=100/stats.json"));
    EXPECT_FALSE(fs::exists(out + "/points/001-ai_cores=8-hit_latency_cycles=100"));

    // Not finished yet: --collect writes what there is and exits 1.
    const CliResult partial = run_cli(kGrid + "--out " + out + " --collect");
    EXPECT_EQ(partial.exit_code, 1) << partial.output;
    EXPECT_NE(partial.output.find("2 finished, 0 failed, 2 not run yet"), std::string::npos)
        << partial.output;
    EXPECT_EQ(lines(read(out + "/results.csv")).size(), 3u);

    // The rest by grid index and by id, then everything is there.
    ASSERT_EQ(run_cli(kGrid + "--out " + out + " --point 1").exit_code, 0);
    ASSERT_EQ(run_cli(kGrid + "--out " + out + " --point 002-ai_cores=16-hit_latency_cycles=60")
                  .exit_code,
              0);
    const CliResult done = run_cli(kGrid + "--out " + out + " --collect");
    EXPECT_EQ(done.exit_code, 0) << done.output;
    EXPECT_EQ(read(out + "/results.csv"), reference_results());
}

TEST(SweepCluster, BadClusterOptionsExitTwo) {
    const std::string out = scratch("bad");
    auto bad = [&](const std::string& args, const std::string& needle) {
        const CliResult r = run_cli(kGrid + "--out " + out + " " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
        EXPECT_NE(r.output.find(needle), std::string::npos) << args << ": " << r.output;
        EXPECT_EQ(r.output.rfind("ascend-sim: error: ", 0), 0u) << r.output;
    };
    bad("--shard 3/3", "0 <= I < N");
    bad("--shard 1", "expected I/N");
    bad("--point 4", "no such point");
    bad("--point 1 --shard 0/2", "exclude each other");
    bad("--list --restart", "--restart applies to a whole sweep");
    bad("--backend pbs", "one of local, slurm");
    bad("--slurm-tasks 4", "need --backend slurm");
    bad("--collect", "holds no sweep");
    EXPECT_FALSE(fs::exists(out));
    // No sbatch on PATH: exit 2 before anything is written.
    const std::string empty_bin = scratch("empty-bin");
    fs::create_directories(empty_bin);
    const CliResult r =
        run_cli("--version >/dev/null; PATH=" + empty_bin + " " + std::string(ASIM_BINARY) + " " +
                kGrid + "--out " + out + " --backend slurm");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("sbatch not found on PATH"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
}

// A real Slurm: the sweep goes in as an array job and a collect job; its results.csv is the
// local sweep's. Stopped, the controller makes a submission exit 2 with nothing written.
class SlurmSweep : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = scratch("slurm");
        const std::string script = std::string(ASIM_SOURCE_DIR) + "/tests/sweep/local_slurm.sh";
        FILE* pipe = popen((script + " start " + s_dir + " 2>&1").c_str(), "r");
        std::string out;
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
        s_started = pclose(pipe) == 0;
        s_start_output = out;
        setenv("SLURM_CONF", (s_dir + "/slurm.conf").c_str(), 1);
    }
    static void TearDownTestSuite() {
        const std::string script = std::string(ASIM_SOURCE_DIR) + "/tests/sweep/local_slurm.sh";
        (void)std::system((script + " stop " + s_dir + " >/dev/null 2>&1").c_str());
    }
    static std::string s_dir, s_start_output;
    static bool s_started;
};
std::string SlurmSweep::s_dir, SlurmSweep::s_start_output;
bool SlurmSweep::s_started = false;

TEST_F(SlurmSweep, ArrayJobAndCollectJobGiveTheLocalResults) {
    ASSERT_TRUE(s_started) << s_start_output;
    const std::string out = scratch("slurm-sweep");
    const CliResult r = run_cli(kGrid + "--out " + out + " --backend slurm --slurm-tasks 3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("4 of 4 points to run as Slurm array job"), std::string::npos)
        << r.output;
    // Wait for the collect job (the last line of its log is the collect summary).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    bool collected = false;
    while (!collected && std::chrono::steady_clock::now() < deadline) {
        for (const auto& e : fs::directory_iterator(out + "/slurm"))
            if (e.path().filename().string().rfind("collect-", 0) == 0 &&
                read(e.path().string()).find("4 finished") != std::string::npos)
                collected = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ASSERT_TRUE(collected) << "the collect job did not finish in 90 s; see " << out << "/slurm/";
    EXPECT_EQ(read(out + "/results.csv"), reference_results());
    // Resubmitting a finished sweep submits nothing.
    const CliResult again = run_cli(kGrid + "--out " + out + " --backend slurm");
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("all 4 points are finished"), std::string::npos) << again.output;
}

TEST_F(SlurmSweep, NoControllerAnsweringIsExitTwoWithNothingWritten) {
    ASSERT_TRUE(s_started) << s_start_output;
    const std::string script = std::string(ASIM_SOURCE_DIR) + "/tests/sweep/local_slurm.sh";
    ASSERT_EQ(std::system((script + " stop " + s_dir + " >/dev/null 2>&1").c_str()), 0);
    const std::string out = scratch("slurm-down");
    const CliResult r = run_cli(kGrid + "--out " + out + " --backend slurm");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("no Slurm controller answers"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
}

}  // namespace
