// Multi-die replay (`run --trace SET` on a supernode platform): every die runs its own trace on a
// full die model, collectives synchronise their groups over the network, a slow die slows its
// group, communication overlaps independent compute, and bad input or a collective some members
// never reach ends cleanly (exit 2 / exit 1), never hangs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;

std::string scratch(const std::string& name) { return asim::test::scratch_path("supernode", name); }

// A generated trace set (cached per process).
std::string trace_set(const std::string& name, const std::string& gen_args) {
    const std::string dir = scratch("set-" + name);
    const CliResult r = run_cli("trace gen " + gen_args + " --out " + dir);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return dir;
}

nlohmann::json run_set(const std::string& set, const std::string& extra,
                       const std::string& out_name, std::string out = "") {
    if (out.empty()) out = scratch(out_name);
    const CliResult r =
        run_cli("run --platform supernode8_ring --trace " + set + " " + extra + " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return nullptr;
    return nlohmann::json::parse(asim::test::read_text(out + "/stats.json"))["summary"];
}

const char* kTp8 =
    "--model llama3-70b --phase prefill --batch 1 --seq 256 --tp 8 --layers 1 --no-embedding";

TEST(Supernode, TensorParallelLayerRunsOnEightDiesWithItsAllReducesOnTheRing) {
    const auto s = run_set(trace_set("tp8", kTp8), "", "tp8");
    ASSERT_FALSE(s.is_null());
    EXPECT_EQ(s["dies"], 8);
    EXPECT_EQ(s["collectives"], 2);  // one all-reduce after attention, one after the MLP
    ASSERT_EQ(s["per_die"].size(), 8u);
    // Each all-reduce moves 256 x 8192 bf16 = 4 MiB per die; a ring of 8 sends 2 x 7/8 of it over
    // one 200 Gbps link at 85 % efficiency: at least 2 x 7/8 x 4 MiB / 21.25 GB/s = 345 us for two.
    const double lower_bound_ns = 2 * 2 * 7.0 / 8 * 4 * 1048576 / 21.25;
    for (const auto& d : s["per_die"]) {
        EXPECT_GT(d["comm_time_ns"].get<double>(), lower_bound_ns) << d.dump();
        EXPECT_LT(d["comm_time_ns"].get<double>(), d["sim_time_ns"].get<double>());
        EXPECT_GT(d["flops"].get<double>(), 0);
    }
}

TEST(Supernode, ASlowDieSlowsItsWholeGroup) {
    const std::string set = trace_set("tp8slow", kTp8);
    const auto fast = run_set(set, "", "fast");
    const auto slow = run_set(set, "--die-set 3:die.clock=0.8GHz", "slow");
    ASSERT_FALSE(fast.is_null());
    ASSERT_FALSE(slow.is_null());
    EXPECT_GT(slow["sim_time_ns"].get<double>(), 1.05 * fast["sim_time_ns"].get<double>());
    // The others wait for die 3 inside the collectives: their exposed communication grows, die 3's
    // (it arrives last) is the smallest.
    double least = 1e300;
    uint32_t least_die = 99;
    for (const auto& d : slow["per_die"]) {
        if (d["comm_exposed_ns"].get<double>() < least) {
            least = d["comm_exposed_ns"].get<double>();
            least_die = d["die"].get<uint32_t>();
        }
        EXPECT_GT(d["sim_time_ns"].get<double>(), fast["per_die"][0]["sim_time_ns"].get<double>());
    }
    EXPECT_EQ(least_die, 3u);
}

// A ring link that goes down mid-run (--fault): the all-reduce that needs it reroutes the other
// way round the bidirectional ring, and the step is slower than without the fault.
TEST(Supernode, ALinkFaultGivenOnTheCommandLineSlowsTheStep) {
    const std::string set = trace_set("tp8fault", kTp8);
    const auto healthy = run_set(set, "", "healthy");
    const auto faulty = run_set(set, "--fault 'die3->die4@100us'", "faulty");
    ASSERT_FALSE(healthy.is_null());
    ASSERT_FALSE(faulty.is_null());
    EXPECT_GT(faulty["sim_time_ns"].get<double>(), 1.02 * healthy["sim_time_ns"].get<double>());
}

// Two dies: a gradient-style all-reduce with no dependency on the matmuls around it runs while
// they compute; the second matmul does not wait for it.
TEST(Supernode, ACollectiveOverlapsIndependentCompute) {
    const std::string dir = scratch("overlap");
    fs::create_directories(dir);
    asim::test::write_text(
        dir + "/index.json",
        R"({"format":"ascend-sim-trace-index","version":1,"name":"ov","dies":2,"files":[{"die":0,"file":"die0.jsonl"},{"die":1,"file":"die1.jsonl"}],"groups":{}})");
    const std::string mm =
        R"("op":"matmul","m":2048,"n":2048,"k":2048,"dtype":"bf16","inputs":[{"name":"a","addr":0,"bytes":8388608},{"name":"b","addr":16777216,"bytes":8388608}],"outputs":[{"name":"c","addr":33554432,"bytes":8388608}])";
    for (int die : {0, 1}) {
        asim::test::write_text(
            dir + "/die" + std::to_string(die) + ".jsonl",
            std::string(R"({"format":"ascend-sim-trace","version":1,"name":"ov","dies":2,"die":)") +
                std::to_string(die) + "}\n" + R"({"id":0,)" + mm + "}\n" +
                R"({"id":1,"op":"collective","name":"grad_ar","kind":"all_reduce","group":[0,1],"bytes":4194304})" +
                "\n" + R"({"id":2,"deps":[0],)" + mm + "}\n");
    }
    const auto s = run_set(dir, "", "overlap-out");
    ASSERT_FALSE(s.is_null());
    for (const auto& d : s["per_die"]) {
        EXPECT_GT(d["comm_overlap_ns"].get<double>(), 0.0) << d.dump();
        EXPECT_NEAR(d["comm_time_ns"].get<double>(),
                    d["comm_exposed_ns"].get<double>() + d["comm_overlap_ns"].get<double>(), 1.0);
        // The step is the all-reduce, not all-reduce + matmuls: compute hid under it.
        EXPECT_LT(d["sim_time_ns"].get<double>(),
                  d["comm_time_ns"].get<double>() + 1.5 * d["comm_overlap_ns"].get<double>());
    }
}

// Two dies: a 64 MiB all-reduce starts while a 1 GiB add occupies every vector core. With the
// collectives' die work (network.collectives.die_work, the default) each die moves and reduces
// its share in its own memory on its vector cores: the bytes are the ring's (p = 2: sends and
// receives 64 MiB, reduces 32 MiB; copy 2 x 64 MiB + add 3 x 32 MiB = 224 MiB), they reach the
// HBM, and the collective ends only after the add that holds the vector cores. Without it the
// collective is the network's alone and ends long before the add. The ring's links are made
// fast (64 lanes) so that the network is not what bounds the collective.
TEST(Supernode, ACollectiveTakesItsShareOfTheDiesMemoryAndVectorCores) {
    const std::string dir = scratch("diework");
    fs::create_directories(dir);
    asim::test::write_text(
        dir + "/index.json",
        R"({"format":"ascend-sim-trace-index","version":1,"name":"dw","dies":2,"files":[{"die":0,"file":"die0.jsonl"},{"die":1,"file":"die1.jsonl"}],"groups":{}})");
    for (int die : {0, 1}) {
        asim::test::write_text(
            dir + "/die" + std::to_string(die) + ".jsonl",
            std::string(R"({"format":"ascend-sim-trace","version":1,"name":"dw","dies":2,"die":)") +
                std::to_string(die) + "}\n" +
                R"({"id":0,"op":"elementwise","func":"add","elements":268435456,"dtype":"bf16","inputs":[{"name":"x","addr":0,"bytes":536870912},{"name":"y","addr":536870912,"bytes":536870912}],"outputs":[{"name":"z","addr":1073741824,"bytes":536870912}]})"
                "\n" +
                R"({"id":1,"op":"collective","name":"grad_ar","kind":"all_reduce","group":[0,1],"bytes":67108864})" +
                "\n");
    }
    // Runs the set; returns the summary and keeps ops.csv's text.
    auto run = [&](const std::string& extra, const std::string& name, std::string& ops_csv) {
        const std::string out = scratch(name);
        const auto summary = run_set(dir, extra, name, out);
        ops_csv = asim::test::read_text(out + "/ops.csv");
        return summary;
    };
    auto collective_end_ns = [](const std::string& ops_csv, int die) {
        std::istringstream in(ops_csv);
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("1,grad_ar,collective," + std::to_string(die) + ",", 0) == 0) {
                std::stringstream cells(line);
                std::string cell;
                for (int i = 0; i < 6; ++i) std::getline(cells, cell, ',');
                return std::stod(cell);
            }
        return -1.0;
    };
    const std::string fast_links = "--set network.node.link.lanes=64";
    std::string ops_on, ops_off;
    const auto with = run(fast_links, "diework-on", ops_on);
    const auto without =
        run(fast_links + " --set network.collectives.die_work=false", "diework-off", ops_off);
    ASSERT_FALSE(with.is_null());
    ASSERT_FALSE(without.is_null());
    for (int die : {0, 1}) {
        const auto& on = with["per_die"][die];
        const auto& off = without["per_die"][die];
        EXPECT_EQ(on["comm_memory_bytes"].get<double>(), 224.0 * 1048576) << on.dump();
        EXPECT_GT(on["comm_hbm_bytes"].get<double>(), 0.0) << on.dump();
        EXPECT_GT(on["comm_die_work_ns"].get<double>(), 0.0) << on.dump();
        EXPECT_EQ(off["comm_memory_bytes"].get<double>(), 0.0) << off.dump();
        EXPECT_EQ(off["comm_hbm_bytes"].get<double>(), 0.0) << off.dump();
        // The add ends at about the same time either way; the collective follows it only with
        // the die work.
        const double add_ns = off["sim_time_ns"].get<double>();
        const double end_off = collective_end_ns(ops_off, die);
        const double end_on = collective_end_ns(ops_on, die);
        EXPECT_GT(end_off, 0.0);
        EXPECT_LT(end_off, 0.5 * add_ns) << "the network alone is fast";
        EXPECT_GT(end_on, add_ns) << "the die's share waited for the vector cores";
    }
}

TEST(Supernode, ACollectiveSomeMembersNeverReachIsADeadlockNamingIt) {
    const std::string dir = scratch("deadlock");
    fs::create_directories(dir);
    asim::test::write_text(
        dir + "/index.json",
        R"({"format":"ascend-sim-trace-index","version":1,"name":"dl","dies":2,"files":[{"die":0,"file":"die0.jsonl"},{"die":1,"file":"die1.jsonl"}],"groups":{}})");
    asim::test::write_text(
        dir + "/die0.jsonl",
        std::string(R"({"format":"ascend-sim-trace","version":1,"name":"dl","dies":2,"die":0})") +
            "\n" +
            R"({"id":0,"op":"collective","name":"ar","kind":"all_reduce","group":[0,1],"bytes":1048576})" +
            "\n");
    asim::test::write_text(
        dir + "/die1.jsonl",
        std::string(R"({"format":"ascend-sim-trace","version":1,"name":"dl","dies":2,"die":1})") +
            "\n" + R"({"id":0,"op":"softmax","rows":64,"cols":64})" + "\n");
    const std::string out = scratch("deadlock-out");
    const CliResult r = run_cli("run --platform supernode8_ring --trace " + dir + " --out " + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("deadlock"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("'ar' on dies [0,1]: reached by [0] only"), std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(out));
}

// --timeline on a trace set: a group per die with its ops (args, arrows) and collectives, the
// L2 / HBM counters beside them, no pipe tracks unless asked for, and a group `network` with a
// bandwidth counter per link that carried bytes, adding up to the bytes the links carried.
TEST(Supernode, TimelineShowsEachDieAndTheLinks) {
    const std::string set = trace_set(
        "tl",
        "--model llama3-8b --phase prefill --batch 1 --seq 128 --tp 2 --layers 1 --no-embedding");
    const std::string out = scratch("tl-out");
    ASSERT_FALSE(
        run_set(set, "--timeline --timeline-gzip --timeline-bucket 2us", "tl", out).is_null());
    ASSERT_TRUE(fs::exists(out + "/timeline.json.gz"));
    ASSERT_FALSE(fs::exists(out + "/timeline.json"));
    const nlohmann::json tl =
        nlohmann::json::parse(asim::test::read_gzip_text(out + "/timeline.json.gz"));
    std::map<int, std::string> group, track;
    for (const auto& e : tl["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "process_name") group[e["pid"]] = e["args"]["name"];
        if (e["ph"] == "M" && e["name"] == "thread_name") track[e["tid"]] = e["args"]["name"];
    }
    EXPECT_EQ(group[1], "die0");
    EXPECT_EQ(group[2], "die1");
    EXPECT_EQ(group[3], "network");
    EXPECT_EQ(group.size(), 3u);  // no per-core groups without --timeline-cores
    std::map<std::string, int> ops_per_die, collectives_per_die;
    int flows = 0;
    double link_bytes = 0;
    bool hbm_counter = false;
    double cube_max = -1;
    for (const auto& e : tl["traceEvents"]) {
        if (e["ph"] == "X") {
            const std::string& t = track[e["tid"]];
            EXPECT_TRUE(e["args"].contains("op") && e["args"].contains("flops")) << e.dump();
            if (t.rfind("collectives", 0) == 0) {
                EXPECT_EQ(e["args"]["bound"], "communication");
                ++collectives_per_die[group[e["pid"]]];
            } else {
                EXPECT_EQ(t.rfind("ops ", 0), 0u) << t;
                ++ops_per_die[group[e["pid"]]];
            }
        }
        if (e["ph"] == "s") ++flows;
        if (e["ph"] == "C" && group[e["pid"]] == "network") {
            link_bytes += e["args"]["GB/s"].get<double>() * 1e9 * 2e-6;  // a 2 us bucket
        }
        if (e["ph"] == "C" && group[e["pid"]] == "die1" && e["name"] == "HBM read (L2 fills)")
            hbm_counter = true;
        if (e["ph"] == "C" && group[e["pid"]] == "die0" && e["name"] == "Cube utilisation") {
            cube_max = std::max(cube_max, e["args"]["%"].get<double>());
        }
    }
    const auto summary =
        nlohmann::json::parse(asim::test::read_text(out + "/stats.json"))["summary"];
    const int collectives = summary["collectives"].get<int>();
    for (const char* die : {"die0", "die1"}) {
        EXPECT_EQ(collectives_per_die[die], collectives) << die;
        EXPECT_GT(ops_per_die[die], 10) << die;
    }
    EXPECT_GT(flows, 10);
    EXPECT_TRUE(hbm_counter);
    EXPECT_GT(cube_max, 0);  // the die's Cube utilisation curve, in %
    EXPECT_LE(cube_max, 100);
    // The link counters add up to the bytes the links carried.
    const double carried = summary["network_link_bytes"].get<double>();
    ASSERT_GT(carried, 0);
    EXPECT_NEAR(link_bytes, carried, carried * 1e-3);
}

// A die's own overrides reach its fast-fidelity measurements: the fast dies are timed on a die
// configured like each of them (OpTimeTable keys by configuration), so a derated die is as slow
// fast as detailed. (Before, the measurements of the first die were reused for all.)
TEST(Supernode, FastFidelityMeasuresADieWithItsOwnOverrides) {
    const std::string set = trace_set("fast-dieset", kTp8);
    const auto base = run_set(set, "--fidelity fast", "fast-base");
    const auto fast = run_set(set, "--fidelity fast --die-set 1:die.clock=0.8GHz", "fast-slow");
    const auto detailed = run_set(set, "--die-set 1:die.clock=0.8GHz", "detailed-slow");
    ASSERT_FALSE(base.is_null() || fast.is_null() || detailed.is_null());
    const double b = base["sim_time_ns"].get<double>(), f = fast["sim_time_ns"].get<double>(),
                 d = detailed["sim_time_ns"].get<double>();
    EXPECT_GT(f, b * 1.05);       // the derated die slows the step
    EXPECT_NEAR(f, d, d * 0.01);  // as much as on the detailed model
    EXPECT_EQ(
        fast["fast_op_table"]["distinct_ops"].get<int>(),
        2 * base["fast_op_table"]["distinct_ops"].get<int>());  // its ops measured at 0.8 GHz too
}

TEST(Supernode, BadInputExitsTwoBeforeSimulating) {
    const std::string set = trace_set("bad", kTp8);
    const std::string out = scratch("bad-out");
    for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
             {"--platform ascend960", "no network: section"},
             {"--platform supernode8_ring --die-set 9:die.clock=1GHz", "the set has dies 0..7"},
             {"--platform supernode8_ring --die-set die.clock=1GHz", "DIE:KEY=VALUE"},
             {"--platform supernode8_ring --die-set 2:die.bogus=1", "die.bogus"},
             {"--platform supernode8_ring --functional", "single-die traces"},
             {"--platform supernode8_ring --fault 'die3->die9@1us'", "no link 'die3->die9'"},
             {"--platform supernode8_ring --fault 'die3->die4@soon'", "--fault die3->die4@soon"},
         }) {
        const CliResult r = run_cli("run --trace " + set + " " + args + " --out " + out);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
        EXPECT_NE(r.output.find(needle), std::string::npos) << args << ": " << r.output;
        EXPECT_FALSE(fs::exists(out));
    }
}

}  // namespace

namespace {

// The fast fidelity measures each distinct op once on the detailed die and replays with those
// times; on a TP 8 layer it lands within 2 % of the detailed run end to end, and fidelities mix.
TEST(Supernode, FastFidelityTracksTheDetailedRunAndMixesPerDie) {
    const std::string set = trace_set("fid", kTp8);
    const CliResult v = run_cli("validate-fidelity --platform supernode8_ring --trace " + set);
    ASSERT_EQ(v.exit_code, 0) << v.output;
    const auto at = v.output.find("end_to_end,");
    ASSERT_NE(at, std::string::npos) << v.output;
    std::stringstream row(v.output.substr(at));
    std::string name, detailed, fast, error;
    std::getline(row, name, ',');
    std::getline(row, detailed, ',');
    std::getline(row, fast, ',');
    std::getline(row, error);
    EXPECT_LT(std::fabs(std::stod(error)), 2.0) << v.output;
    EXPECT_GT(std::stod(detailed), 0.0);
    EXPECT_NE(v.output.find("matmul,"), std::string::npos);
    EXPECT_NE(v.output.find("collective,"), std::string::npos);

    const auto mixed = run_set(set, "--fidelity fast --detailed-dies 0", "mixed");
    ASSERT_FALSE(mixed.is_null());
    EXPECT_EQ(mixed["per_die"][0]["fidelity"], "detailed");
    EXPECT_EQ(mixed["per_die"][1]["fidelity"], "fast");
    EXPECT_GT(mixed["fast_op_table"]["distinct_ops"].get<int>(), 0);
    const CliResult bad = run_cli("run --platform supernode8_ring --trace " + set +
                                  " --fidelity quick --out " + scratch("badfid"));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("--fidelity"), std::string::npos) << bad.output;
}

}  // namespace
