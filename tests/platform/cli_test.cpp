// End-to-end through the ascend-sim binary: outputs, determinism, exit codes and messages on bad
// input, and that bad input leaves nothing behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;
std::string scratch(const std::string& name) { return asim::test::scratch_path("cli", name); }
std::string read(const std::string& path) { return asim::test::read_text(path); }
void write(const std::string& path, const std::string& text) { asim::test::write_text(path, text); }

// Runs `args` expecting exit 2, a message containing every one of `needles`, and no output dir.
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

const char* kHeader = R"({"format":"ascend-sim-trace","version":1,"name":"t","dies":1,"die":0})";

TEST(Cli, DefaultRunWritesEveryOutput) {
    const std::string out = scratch("default");
    const CliResult r = run_cli("run --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* f : {"stats.json", "stats.csv", "summary.txt", "config.yaml"}) {
        EXPECT_TRUE(fs::exists(fs::path(out) / f)) << f;
    }
    EXPECT_NE(r.output.find("Cube utilisation"), std::string::npos);
    EXPECT_NE(r.output.find("time by op class"), std::string::npos);
    const auto doc = nlohmann::json::parse(read(out + "/stats.json"));
    EXPECT_EQ(doc["schema"], "ascend-sim/stats/1");
    for (const char* k : {"platform", "trace", "seed", "version", "sim_events", "wall_s", "commit",
                          "command_line", "config_fnv1a"}) {
        EXPECT_TRUE(doc["meta"].contains(k)) << k;
    }
    const auto& s = doc["summary"];
    for (const char* k : {"sim_time_ns", "wall_s", "ops", "flops", "achieved_tflops", "peak_tflops",
                          "cube_utilization", "hbm_read_bytes", "hbm_write_bytes", "hbm_bw_gbps",
                          "l2_hit_rate", "l2_partitions", "prefetch"}) {
        EXPECT_TRUE(s.contains(k)) << k;
    }
    EXPECT_EQ(s["ops"], 11u);
    EXPECT_LE(s["achieved_tflops"].get<double>(), s["peak_tflops"].get<double>());
    EXPECT_GT(s["achieved_tflops"].get<double>(), 0.3 * s["peak_tflops"].get<double>());
    EXPECT_LE(s["hbm_bw_gbps"].get<double>(), 9600.0);
    for (const char* k : {"issued", "useful", "late", "unused"})
        EXPECT_TRUE(s["prefetch"].contains(k));
    // The effective config can be fed back in and reproduces the run's platform.
    const CliResult again = run_cli("info --platform " + out + "/config.yaml");
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(read(out + "/stats.csv").rfind("path,kind,field,value,unit,description\n", 0), 0u);
}

TEST(Cli, TwoRunsGiveIdenticalStatsApartFromWallTime) {
    const std::string a = scratch("det-a"), b = scratch("det-b");
    ASSERT_EQ(run_cli("run --out " + a).exit_code, 0);
    ASSERT_EQ(run_cli("run --out " + b).exit_code, 0);
    auto ja = nlohmann::json::parse(read(a + "/stats.json"));
    auto jb = nlohmann::json::parse(read(b + "/stats.json"));
    // The command lines differ in --out; the configurations are the same.
    EXPECT_EQ(ja["meta"]["config_fnv1a"], jb["meta"]["config_fnv1a"]);
    for (auto* j : {&ja, &jb}) {
        (*j)["meta"].erase("wall_s");
        (*j)["meta"].erase("command_line");
        (*j)["summary"].erase("wall_s");
    }
    EXPECT_EQ(ja.dump(), jb.dump());
    EXPECT_EQ(read(a + "/stats.csv"), read(b + "/stats.csv"));
    EXPECT_EQ(read(a + "/config.yaml"), read(b + "/config.yaml"));
}

// A run on the config.yaml another run wrote (defaults written in) gives the same statistics.
TEST(Cli, RunOnItsOwnConfigYamlGivesTheSameStats) {
    const std::string a = scratch("again-a"), b = scratch("again-b");
    const std::string trace = std::string(ASIM_SOURCE_DIR) + "/traces/samples/tiny_mlp.jsonl";
    ASSERT_EQ(run_cli("run --trace " + trace + " --out " + a).exit_code, 0);
    const CliResult r =
        run_cli("run --trace " + trace + " --platform " + a + "/config.yaml --out " + b);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(read(a + "/config.yaml").find("write_back_entries: 512"), std::string::npos);
    auto ja = nlohmann::json::parse(read(a + "/stats.json"));
    auto jb = nlohmann::json::parse(read(b + "/stats.json"));
    EXPECT_EQ(ja["meta"]["config_fnv1a"], jb["meta"]["config_fnv1a"]);
    for (auto* j : {&ja, &jb}) {
        j->erase("meta");
        (*j)["summary"].erase("wall_s");
    }
    EXPECT_EQ(ja.dump(), jb.dump());
}

// stats.json says which build made it, how it was asked for, and from which configuration.
TEST(Cli, StatsMetaRecordsCommitCommandLineAndConfiguration) {
    const std::string a = scratch("meta-a"), b = scratch("meta-b"), m = scratch("meta-mem");
    const std::string trace = std::string(ASIM_SOURCE_DIR) + "/traces/samples/tiny_mlp.jsonl";
    ASSERT_EQ(run_cli("run --trace " + trace + " --set die.l2.hit_latency_cycles=90 --out " + a)
                  .exit_code,
              0);
    ASSERT_EQ(run_cli("run --trace " + trace + " --out " + b).exit_code, 0);
    const auto ma = nlohmann::json::parse(read(a + "/stats.json"))["meta"];
    const auto mb = nlohmann::json::parse(read(b + "/stats.json"))["meta"];
    EXPECT_EQ(ma["command_line"].get<std::string>(),
              std::string(ASIM_BINARY) + " run --trace " + trace +
                  " --set die.l2.hit_latency_cycles=90 --out " + a);
    EXPECT_NE(ma["config_fnv1a"], mb["config_fnv1a"]);  // the --set changed the configuration
    // The commit the tree is at (this test runs in the checkout it was built from).
    FILE* git = popen(
        ("git -C '" + std::string(ASIM_SOURCE_DIR) + "' rev-parse --short=12 HEAD 2>/dev/null")
            .c_str(),
        "r");
    char head[64] = {0};
    const bool have_git = git && fgets(head, sizeof head, git) != nullptr;
    if (git) pclose(git);
    const std::string commit = ma["commit"];
    if (have_git) {
        EXPECT_EQ(commit.substr(0, 12), std::string(head).substr(0, 12));
    } else {
        EXPECT_EQ(commit, "unknown");
    }
    // mem-replay records the same.
    const std::string mem_trace = scratch("meta-mem.trace");
    std::ofstream(mem_trace) << "0x40 READ 0\n0x80 WRITE 1\n";
    ASSERT_EQ(
        run_cli("mem-replay --platform hbm2_8gb_x128 --mem-trace " + mem_trace + " --out " + m)
            .exit_code,
        0);
    const auto mm = nlohmann::json::parse(read(m + "/stats.json"))["meta"];
    EXPECT_EQ(mm["commit"], ma["commit"]);
    EXPECT_NE(mm["command_line"].get<std::string>().find("mem-replay"), std::string::npos);
}

TEST(Cli, InfoPrintsDerivedPeaks) {
    const CliResult r = run_cli("info");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("973.2"), std::string::npos) << r.output;   // bf16 TFLOPS
    EXPECT_NE(r.output.find("1946.4"), std::string::npos) << r.output;  // fp8
    // Derived from die.hbm: 256 pseudo-channels x 32 B / (2 x 0.427 ns); the press figure is 9.6
    // TB/s.
    EXPECT_NE(r.output.find("9.59 TB/s"), std::string::npos) << r.output;
}

// A supernode preset's info shows its network: topology, links with their payload bandwidth,
// the standby star, the collectives. A single die has none.
TEST(Cli, InfoShowsTheNetworkOfSupernodePresets) {
    const CliResult ring = run_cli("info --platform supernode8_ring");
    ASSERT_EQ(ring.exit_code, 0) << ring.output;
    EXPECT_NE(ring.output.find("8 (1 node of 8), ring (unidirectional) in a node"),
              std::string::npos)
        << ring.output;
    // 200 Gbps x 0.85 write efficiency x 4096 / 4128 payload per packet.
    EXPECT_NE(ring.output.find("1 x 200 Gbps: 21.09 GB/s write"), std::string::npos) << ring.output;
    EXPECT_NE(ring.output.find("fallback (host star)"), std::string::npos) << ring.output;
    EXPECT_NE(ring.output.find("all-reduce ring, 4 MiB pieces"), std::string::npos) << ring.output;
    const CliResult cm = run_cli("info --platform cloudmatrix384");
    EXPECT_NE(cm.output.find("384 (48 nodes of 8), switch, 7 planes in a node"), std::string::npos)
        << cm.output;
    EXPECT_NE(cm.output.find("clos, 16 L2 switches per plane"), std::string::npos) << cm.output;
    EXPECT_EQ(run_cli("info").output.find("\nnetwork\n"), std::string::npos);
}

// `info --json`: the figures `info` prints, in base units, with the network and the registered
// implementations (issue 14).
TEST(Cli, InfoJsonHasTheFiguresTheNetworkAndTheImplementations) {
    const CliResult r = run_cli("info --json --platform cloudmatrix384");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_NEAR(j["compute"]["matrix_peak_flops"]["bf16"].get<double>(), 973.2e12, 0.1e12);
    EXPECT_NEAR(j["bandwidth_bytes_per_s"]["hbm"].get<double>(), 9.59e12, 0.01e12);
    EXPECT_EQ(j["network"]["dies"], 384);
    EXPECT_EQ(j["network"]["nodes"], 48);
    EXPECT_EQ(j["network"]["node_topology"], "switch");
    EXPECT_EQ(j["network"]["scale_out"], "clos");
    EXPECT_EQ(j["implementations"]["HBM scheduler"],
              nlohmann::json({"fcfs", "frfcfs", "frfcfs_oldest"}));
    EXPECT_EQ(j["implementations"]["H-JSD engine"], nlohmann::json({"rtl", "tlm"}));
    const auto single = nlohmann::json::parse(run_cli("info --json").output);
    EXPECT_FALSE(single.contains("network"));
}

// `cmake --install` puts the binary and the plotting scripts under one prefix, and the
// installed binary draws with its own copy of plot_figures.py (not the source tree's).
TEST(Cli, InstalledBinaryUsesItsInstalledPlotScript) {
    const fs::path build = fs::path(ASIM_BINARY).parent_path().parent_path();
    const std::string prefix = scratch("install");
    ASSERT_EQ(std::system(
                  ("cmake --install '" + build.string() + "' --prefix '" + prefix + "' >/dev/null")
                      .c_str()),
              0);
    const fs::path script = fs::path(prefix) / "share/ascend-sim/scripts/plot_figures.py";
    ASSERT_TRUE(fs::exists(script));
    EXPECT_TRUE(fs::exists(fs::path(prefix) / "share/ascend-sim/scripts/plot_sweep.py"));
    // Mark the installed copy: it touches $ASIM_TEST_MARK when it runs.
    std::ifstream in(script);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string marker = "def main():";
    ASSERT_NE(text.find(marker), std::string::npos);
    text.replace(text.find(marker), marker.size(),
                 "def main():\n    open(os.environ['ASIM_TEST_MARK'], 'w').close()");
    std::ofstream(script) << text;
    const std::string out = scratch("install-fig");
    fs::create_directories(out);
    const std::string mark = out + "/installed-script-ran";
    const std::string cmd = "ASIM_TEST_MARK='" + mark + "' " + prefix +
                            "/bin/ascend-sim figures l2 --out " + out + "/fig >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_TRUE(fs::exists(out + "/fig/l2_latency.png"));
    EXPECT_TRUE(fs::exists(mark))
        << "the installed binary did not run its installed plot_figures.py";
}

TEST(Cli, HelpAndVersionExitZero) {
    EXPECT_EQ(run_cli("--help").exit_code, 0);
    EXPECT_EQ(run_cli("run --help").exit_code, 0);
    EXPECT_EQ(run_cli("--version").exit_code, 0);
}

TEST(Cli, BadUsageExitsTwo) {
    EXPECT_EQ(run_cli("").exit_code, 2);
    EXPECT_EQ(run_cli("run --no-such-flag").exit_code, 2);
    EXPECT_EQ(run_cli("frobnicate").exit_code, 2);
}

TEST(Cli, UnknownKeySuggestsTheRightOne) {
    expect_bad_input("run --set die.l2.sise=32MiB",
                     {"die.l2.sise", "unknown key", "did you mean 'size'"});
}

TEST(Cli, WrongUnitKind) {
    expect_bad_input("run --set die.l2.size=2GHz", {"die.l2.size", "expected a size", "frequency"});
}

TEST(Cli, ZeroAndNegativeSizes) {
    expect_bad_input("run --set die.l2.size=0B", {"die.l2.size", "greater than zero"});
    expect_bad_input("run --set die.ai_cores=-4", {"die.ai_cores"});
}

TEST(Cli, L2PartitionsMustFitAndBeWholeWays) {
    // The default 20 + 16 + 28 MiB no longer fit a 32 MiB L2.
    expect_bad_input("run --set die.l2.size=32MiB", {"die.l2.partitions", "more than the L2"});
    // 4 MiB ways (64 MiB / 16): 3 MiB is not a whole number of ways.
    expect_bad_input("run --set die.l2.partitions.weight=3MiB",
                     {"die.l2.partitions.weight", "whole number of ways"});
    expect_bad_input(
        "run --set die.l2.replacement=lur",
        {"die.l2.replacement", "unknown L2 replacement policy", "registered: fifo, lru"});
}

TEST(Cli, UnknownPlatform) {
    expect_bad_input("run --platform ascend690", {"unknown platform", "did you mean 'ascend960'"});
}

TEST(Cli, MissingRequiredKeyInPlatformFile) {
    const std::string dir = scratch("plat");
    fs::create_directories(dir);
    write(dir + "/p.yaml",
          "base: ascend960\nname: p\ndie:\n  l2:\n    size: 128MiB\n    ways: 32\n");
    // Overriding works through base: ...
    const CliResult ok = run_cli("info --platform " + dir + "/p.yaml");
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_NE(ok.output.find("128 MiB"), std::string::npos) << ok.output;
    // ... and a platform without a required key names the file and the key.
    write(dir + "/q.yaml", "name: q\ndie:\n  clock: 1GHz\n");
    expect_bad_input("run --platform " + dir + "/q.yaml",
                     {"q.yaml:", "ai_cores", "missing required key"});
}

TEST(Cli, MalformedYamlNamesFileAndLine) {
    const std::string dir = scratch("yaml");
    fs::create_directories(dir);
    write(dir + "/broken.yaml", "name: x\ndie:\n  clock: [1GHz\n");
    expect_bad_input("run --platform " + dir + "/broken.yaml", {"broken.yaml:", "malformed YAML"});
}

TEST(Cli, MissingTraceFile) {
    expect_bad_input("run --trace /nonexistent/trace.jsonl", {"/nonexistent/trace.jsonl"});
}

TEST(Cli, MalformedTraceLineNamesTheLine) {
    const std::string dir = scratch("trace");
    fs::create_directories(dir);
    write(dir + "/t.jsonl", std::string(kHeader) + "\n" +
                                R"({"id":0,"op":"softmax","rows":64,"cols":64})" + "\n" +
                                R"({"id":1,"op":"matmul","m":-3,"n":64,"k":64})" + "\n");
    expect_bad_input("run --trace " + dir + "/t.jsonl", {"t.jsonl:3"});
    write(dir + "/u.jsonl", std::string(kHeader) + "\n{not json\n");
    expect_bad_input("run --trace " + dir + "/u.jsonl", {"u.jsonl:2", "JSON"});
}

TEST(Cli, TraceErrorFoundMidRunStillLeavesNothing) {
    // The first op is fine and runs; line 3 is bad. Exit 2, and no partial outputs.
    const std::string dir = scratch("mid");
    fs::create_directories(dir);
    const std::string op0 =
        R"({"id":0,"op":"elementwise","func":"add","elements":1024,"inputs":[{"name":"a","addr":0,"bytes":2048,"stream":"activation"}],"outputs":[{"name":"b","addr":4096,"bytes":2048,"stream":"activation"}]})";
    write(dir + "/t.jsonl",
          std::string(kHeader) + "\n" + op0 + "\n" + R"({"id":1,"op":"bogus"})" + "\n");
    expect_bad_input("run --trace " + dir + "/t.jsonl", {"t.jsonl:3"});
}

TEST(Cli, OpTheDieCannotRunNamesFileAndLine) {
    const std::string dir = scratch("norun");
    fs::create_directories(dir);
    write(dir + "/t.jsonl",
          std::string(kHeader) + "\n" + R"({"id":0,"op":"matmul","m":64,"n":64,"k":64})" + "\n");
    expect_bad_input("run --trace " + dir + "/t.jsonl",
                     {"t.jsonl:2", "op 0 (matmul)", "two input tensors"});
}

TEST(Cli, DependencyOnAMissingOpIsAnError) {
    const std::string dir = scratch("gap");
    fs::create_directories(dir);
    write(dir + "/t.jsonl", std::string(kHeader) + "\n" +
                                R"({"id":0,"op":"softmax","rows":64,"cols":64})" + "\n" +
                                R"({"id":5,"op":"softmax","rows":64,"cols":64,"deps":[0]})" + "\n" +
                                R"({"id":6,"op":"softmax","rows":64,"cols":64,"deps":[3]})" + "\n");
    expect_bad_input("run --trace " + dir + "/t.jsonl",
                     {"t.jsonl:4", "op 6 depends on op 3", "not in the trace"});
}

TEST(Cli, TensorBeyondHbmIsAnInputError) {
    const std::string dir = scratch("beyond");
    fs::create_directories(dir);
    write(
        dir + "/t.jsonl",
        std::string(kHeader) + "\n" +
            R"({"id":0,"op":"softmax","rows":64,"cols":64,"inputs":[{"name":"x","addr":"0x8000000000","bytes":8192}]})" +
            "\n");
    expect_bad_input("run --trace " + dir + "/t.jsonl",
                     {"t.jsonl:2", "tensor 'x'", "beyond the platform's HBM"});
}

TEST(Cli, WatchdogExitsOne) {
    const std::string out = scratch("watchdog");
    const CliResult r = run_cli("run --max-sim-time 1us --out " + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("watchdog"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
}

}  // namespace

// --timeline: the selected cores' pipes as tracks, their Cube slices adding up to the Cube busy
// cycles in stats.json, L2 / HBM counters, and nothing outside the chosen cores.
TEST(Cli, TimelineHasATrackPerPipeOfTheChosenCoresMatchingTheStats) {
    const std::string dir = scratch("timeline");
    fs::create_directories(dir);
    write(
        dir + "/t.jsonl",
        std::string(kHeader) + "\n" +
            R"({"id":0,"op":"matmul","name":"mm","m":1024,"n":1024,"k":1024,"dtype":"bf16","inputs":[{"name":"a","addr":0,"bytes":2097152,"stream":"activation"},{"name":"b","addr":4194304,"bytes":2097152,"stream":"weight"}],"outputs":[{"name":"c","addr":8388608,"bytes":2097152,"stream":"activation"}]})" +
            "\n" +
            R"({"id":1,"op":"elementwise","func":"add","elements":1048576,"deps":[0],"inputs":[{"name":"c","addr":8388608,"bytes":2097152,"stream":"activation"}],"outputs":[{"name":"d","addr":12582912,"bytes":2097152,"stream":"activation"}]})" +
            "\n");
    const std::string out = scratch("timeline-out");
    const CliResult r =
        run_cli("run --trace " + dir + "/t.jsonl --timeline --timeline-cores 0-1 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto stats = nlohmann::json::parse(read(out + "/stats.json"));
    const auto tl = nlohmann::json::parse(read(out + "/timeline.json"));
    std::map<int, std::string> track_name, group_name;
    std::map<int, int> group_of_track;
    for (const auto& e : tl["traceEvents"]) {
        if (e["ph"] != "M") continue;
        if (e["name"] == "process_name") group_name[e["pid"]] = e["args"]["name"];
        if (e["name"] == "thread_name") {
            track_name[e["tid"]] = e["args"]["name"];
            group_of_track[e["tid"]] = e["pid"];
        }
    }
    std::set<std::string> groups;
    for (const auto& [pid, name] : group_name) groups.insert(name);
    EXPECT_TRUE(groups.count("die.core0") && groups.count("die.core1")) << tl.dump().substr(0, 400);
    EXPECT_FALSE(groups.count("die.core2"));
    EXPECT_TRUE(groups.count("die.l2") && groups.count("die.hbm"));
    std::set<std::string> core0_tracks;
    for (const auto& [tid, name] : track_name) {
        if (group_name[group_of_track[tid]] == "die.core0") core0_tracks.insert(name);
    }
    for (const char* pipe : {"AIC MTE2", "AIC MTE1", "AIC Cube", "AIC FixPipe", "AIV0 MTE2",
                             "AIV0 Vector", "AIV0 MTE3", "AIV1 Vector"}) {
        EXPECT_TRUE(core0_tracks.count(pipe)) << pipe;
    }
    double cube_us = 0;
    bool vector_slice = false, hbm_counter = false;
    for (const auto& e : tl["traceEvents"]) {
        if (e["ph"] == "C" && e["name"] == "HBM read (L2 fills)" &&
            e["args"]["GB/s"].get<double>() > 0)
            hbm_counter = true;
        if (e["ph"] != "X") continue;
        const std::string& track = track_name[e["tid"]];
        if (group_name[group_of_track[e["tid"]]] == "die.core0" && track == "AIC Cube") {
            cube_us += e["dur"].get<double>();
            EXPECT_EQ(e["name"], "mm #0");
        }
        if (track == "AIV0 Vector" && e["name"] == "elementwise #1") vector_slice = true;
    }
    const double busy_cycles = stats["stats"]["die"]["core0_aic"]["cube_busy_cycles"].get<double>();
    ASSERT_GT(busy_cycles, 0);
    EXPECT_NEAR(cube_us, busy_cycles / 1650.0, busy_cycles / 1650.0 * 1e-3);  // 1.65 GHz
    EXPECT_TRUE(vector_slice);
    EXPECT_TRUE(hbm_counter);
    // The op track (group `die`, shown first): each op once, with its id, FLOPs and bound, and an
    // arrow from the matmul to the add that waits for it, bound inside both slices.
    EXPECT_EQ(group_name[1], "die");
    std::map<uint64_t, nlohmann::json> op_slices;
    for (const auto& e : tl["traceEvents"]) {
        if (e["ph"] == "X" && group_name[e["pid"]] == "die" && track_name[e["tid"]] == "ops 1") {
            op_slices[e["args"]["op"].get<uint64_t>()] = e;
        }
    }
    ASSERT_EQ(op_slices.size(), 2u);
    EXPECT_EQ(op_slices[0]["name"], "mm #0");
    EXPECT_DOUBLE_EQ(op_slices[0]["args"]["flops"].get<double>(), 2.0 * 1024 * 1024 * 1024);
    // The bound the ops.csv row gives (its last column).
    const std::string ops = read(out + "/ops.csv");
    const std::string row0 = ops.substr(ops.find("\n0,mm,") + 1);
    EXPECT_EQ(op_slices[0]["args"]["bound"],
              row0.substr(row0.rfind(',', row0.find('\n')) + 1,
                          row0.find('\n') - row0.rfind(',', row0.find('\n')) - 1));
    EXPECT_GT(op_slices[0]["args"]["hbm_read_bytes"].get<double>(), 0);
    EXPECT_EQ(op_slices[1]["args"]["kind"], "elementwise");
    int flow_starts = 0, flow_ends = 0;
    for (const auto& e : tl["traceEvents"]) {
        const auto inside = [&](const nlohmann::json& s) {
            return e["ts"].get<double>() > s["ts"].get<double>() &&
                   e["ts"].get<double>() < s["ts"].get<double>() + s["dur"].get<double>();
        };
        if (e["ph"] == "s") flow_starts += inside(op_slices[0]) ? 1 : 100;
        if (e["ph"] == "f") flow_ends += inside(op_slices[1]) && e["bp"] == "e" ? 1 : 100;
    }
    EXPECT_EQ(flow_starts, 1);
    EXPECT_EQ(flow_ends, 1);
}

TEST(Cli, TimelineOptionsAreCheckedBeforeRunning) {
    expect_bad_input("run --timeline --timeline-window 5us", {"--timeline-window", "START:END"});
    expect_bad_input("run --timeline --timeline-cores 4-2", {"--timeline-cores"});
    expect_bad_input("run --timeline-cores 0", {"need --timeline"});
    expect_bad_input("run --timeline-gzip", {"need --timeline"});
}
