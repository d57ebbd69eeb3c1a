// The memory pool through the binary: trace gen places tensors in tiers and records it, run
// reports the tiers and the utilisation curve, staging moves large experts into local HBM, and
// bad pool input is exit 2 naming the key, the option or the trace line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"

namespace asim {
namespace {

namespace fs = std::filesystem;
using test::run_cli;

std::string scratch(const std::string& name) { return test::scratch_path("dsm", name); }

nlohmann::json run_summary(const std::string& args, const std::string& out) {
    const test::CliResult r = run_cli("run " + args + " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(test::read_text(out + "/stats.json"));
}

void expect_exit2(const std::string& args, std::initializer_list<const char*> needles) {
    const test::CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const char* n : needles)
        EXPECT_NE(r.output.find(n), std::string::npos) << "missing '" << n << "' in: " << r.output;
}

const std::string kGen =
    "trace gen --model llama3-8b --phase decode --batch 4 --seq 256 --layers 1 --no-collectives "
    "--no-embedding";

TEST(DsmCli, WeightsInHostDdrAreReadFromThePool) {
    const std::string dir = scratch("ddr"), out = scratch("ddr-out");
    ASSERT_EQ(run_cli(kGen + " --weights host_ddr --out " + dir).exit_code, 0);
    const auto index = nlohmann::json::parse(test::read_text(dir + "/index.json"));
    EXPECT_EQ(index["placement"]["weights"], "host_ddr");
    EXPECT_EQ(index["placement"]["kv"], "hbm");
    const auto s = run_summary("--trace " + dir + "/die0.jsonl", out)["summary"];
    const uint64_t pool = s["tiers"]["host_ddr"]["read_bytes"].get<uint64_t>();
    EXPECT_GT(pool, 200u << 20);  // one layer's weights, about 436 MiB in BF16
    EXPECT_EQ(s["tiers"]["remote_hbm"]["read_bytes"].get<uint64_t>(), 0u);
    EXPECT_LT(s["hbm_read_bytes"].get<uint64_t>(),
              pool);  // HBM holds only activations and the KV cache

    // The same step with the weights in HBM is faster: the pool port (164 GB/s) is the bound.
    const std::string local = scratch("hbm"), local_out = scratch("hbm-out");
    ASSERT_EQ(run_cli(kGen + " --out " + local).exit_code, 0);
    const auto l = run_summary("--trace " + local + "/die0.jsonl", local_out)["summary"];
    EXPECT_LT(l["sim_time_ns"].get<double>() * 3, s["sim_time_ns"].get<double>());
    EXPECT_FALSE(l["tiers"]["host_ddr"]["read_bytes"].get<uint64_t>() > 0);
}

// A trace set on the 8-die ring: die 0 copies 64 MiB out of die 1's HBM (remote_hbm) and/or all
// eight dies all-reduce 256 MiB, with nothing ordering the two.
std::string ring_set(const std::string& name, bool pool, bool collective) {
    const std::string dir = scratch(name);
    fs::create_directories(dir);
    const uint64_t remote_owner1 = (uint64_t{64} << 40) + (uint64_t{1} << 40) + (uint64_t{1} << 30);
    std::string files;
    for (int d = 0; d < 8; ++d) {
        std::ofstream f(dir + "/die" + std::to_string(d) + ".jsonl");
        f << R"({"format":"ascend-sim-trace","version":1,"name":"pool and ring","dies":8,"die":)"
          << d << "}\n";
        int id = 0;
        if (pool && d == 0) {
            f << R"({"id":)" << id++
              << R"J(,"op":"memcpy","name":"pool_read","bytes":67108864,"inputs":[{"name":"w","addr":)J"
              << remote_owner1
              << R"J(,"bytes":67108864,"stream":"weight"}],"outputs":[{"name":"o","addr":1073741824,"bytes":67108864,"stream":"general"}]})J"
              << "\n";
        }
        if (collective) {
            f << R"({"id":)" << id++
              << R"(,"op":"collective","name":"ar","kind":"all_reduce","group":[0,1,2,3,4,5,6,7],"bytes":268435456})"
              << "\n";
        }
        if (id == 0) {
            f << R"J({"id":0,"op":"memcpy","name":"idle","bytes":4096,"inputs":[{"name":"a","addr":2147483648,"bytes":4096,"stream":"general"}],"outputs":[{"name":"b","addr":3221225472,"bytes":4096,"stream":"general"}]})J"
              << "\n";
        }
        files += std::string(d ? "," : "") + R"({"die":)" + std::to_string(d) + R"(,"file":"die)" +
                 std::to_string(d) + R"(.jsonl"})";
    }
    std::ofstream(dir + "/index.json")
        << R"({"format":"ascend-sim-trace-index","version":1,"name":"pool and ring","dies":8,"files":[)"
        << files << "]}\n";
    return dir;
}

// Op end times (ns) of die 0 by op name, from ops.csv.
std::map<std::string, double> die0_op_ends(const std::string& out) {
    std::map<std::string, double> ends;
    std::istringstream csv(test::read_text(out + "/ops.csv"));
    std::string line;
    std::getline(csv, line);  // id,name,kind,die,start_ns,end_ns,...
    while (std::getline(csv, line)) {
        std::vector<std::string> cells;
        std::istringstream row(line);
        for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
        if (cells.size() > 5 && cells[3] == "0") ends[cells[1]] = std::stod(cells[5]);
    }
    return ends;
}

// Remote HBM reads cross the ring's links (DESIGN §5b): on supernode8_ring (a unidirectional ring
// of 21.25 GB/s links, the pool port's rate too) die 1's data goes 7 hops to die 0 and shares
// every link it crosses with the all-reduce. Alone each takes its own time; together the read
// gets half of each link and the ring all-reduce, bound by its slowest link, is longer by the
// read's 64 MiB at the link rate. With dsm.port.network=false the port alone stands for the
// links and neither sees the other.
TEST(DsmCli, RemoteReadsShareTheRingsLinksWithACollective) {
    const std::string pool = ring_set("ring-pool", true, false);
    const std::string ring = ring_set("ring-ar", false, true);
    const std::string both = ring_set("ring-both", true, true);
    // (scratch() empties its directory: each output path is taken once.)
    const std::string pool_out = scratch("ring-pool-out"), ring_out = scratch("ring-ar-out"),
                      both_out = scratch("ring-both-out"), port_out = scratch("ring-port-out");
    const std::string args = "--platform supernode8_ring --trace ";
    const auto ar_only = run_summary(args + ring, ring_out)["summary"];
    run_summary(args + pool, pool_out);
    const auto together = run_summary(args + both, both_out)["summary"];
    run_summary(args + both + " --set dsm.port.network=false", port_out);
    const double read_alone = die0_op_ends(pool_out).at("pool_read");
    const double ar_alone = die0_op_ends(ring_out).at("ar");
    const auto ends = die0_op_ends(both_out);
    const auto port_only = die0_op_ends(port_out);
    const double read_link_ns = 67108864.0 / 21.25e9 * 1e9;  // 3.158 ms
    EXPECT_NEAR(read_alone, read_link_ns, 0.03 * read_link_ns);
    EXPECT_NEAR(ends.at("pool_read"), 2 * read_alone, 0.1 * read_alone);
    EXPECT_NEAR(ends.at("ar") - ar_alone, read_link_ns, 0.1 * read_link_ns);
    EXPECT_NEAR(port_only.at("pool_read"), read_alone, 0.02 * read_alone);
    EXPECT_NEAR(port_only.at("ar"), ar_alone, 1.0);
    // The read's bytes are on the links: 7 hops of 64 MiB beside the all-reduce's.
    EXPECT_NEAR(
        together["network_link_bytes"].get<double>() - ar_only["network_link_bytes"].get<double>(),
        7 * 67108864.0, 7 * 4096.0);
}

// Mixtral's expert matrices (235 MB) exceed the 20 MiB weight partition: with a staging region
// the H-JSD copies them into local HBM ahead of use, and the expert ops read the copies. The
// step is bound by the pool port either way (2.8 GB at 164 GB/s): staging moves the same pool
// bytes, it cannot make them faster.
TEST(DsmCli, LargeExpertsAreStagedIntoLocalHbm) {
    const std::string dir = scratch("moe"), off = scratch("moe-off"), on = scratch("moe-on");
    ASSERT_EQ(run_cli("trace gen --model mixtral-8x7b --phase decode --batch 8 --seq 256 --layers "
                      "1 --no-collectives "
                      "--no-embedding --expert-weights remote_hbm --out " +
                      dir)
                  .exit_code,
              0);
    const auto a = run_summary("--trace " + dir + "/die0.jsonl", off);
    const auto b =
        run_summary("--trace " + dir + "/die0.jsonl --set dsm.staging.capacity=2GiB", on);
    EXPECT_EQ(a["stats"]["die"]["dsm"]["staged_blocks"].get<uint64_t>(), 0u);
    // 47 staged blocks of 64 KiB. The port grants a prefetch only when demand has left it idle
    // (TierRouter::await_idle_port), and this step's demand keeps it busy from the first expert
    // on, so only what is fetched before that is staged (740 blocks when prefetches were granted
    // at once and ran over later demand; 2901 before the flat HBM served demand first).
    EXPECT_GT(b["stats"]["die"]["dsm"]["staged_blocks"].get<uint64_t>(), 20u);
    EXPECT_GT(b["stats"]["die"]["dsm"]["staging_hits"].get<uint64_t>(), 1000u);
    const double pool_a = a["summary"]["tiers"]["remote_hbm"]["read_bytes"].get<double>();
    const double pool_b = b["summary"]["tiers"]["remote_hbm"]["read_bytes"].get<double>();
    EXPECT_NEAR(pool_b / pool_a, 1.0, 0.01);  // fetched once, not twice
    EXPECT_GT(pool_a / 164e9 * 1e9,
              0.95 * a["summary"]["sim_time_ns"].get<double>());  // port-bound
    EXPECT_NEAR(
        b["summary"]["sim_time_ns"].get<double>() / a["summary"]["sim_time_ns"].get<double>(), 1.0,
        0.05);
}

TEST(DsmCli, UtilisationCurveIsReported) {
    const std::string out = scratch("util");
    const auto s = run_summary("--util-window 10us", out)["summary"]["cube_utilization_windows"];
    EXPECT_EQ(s["window_us"].get<double>(), 10.0);
    EXPECT_GT(s["windows"].get<uint64_t>(), 50u);
    EXPECT_LE(s["min"].get<double>(), s["mean"].get<double>());
    EXPECT_GT(s["mean"].get<double>(), 0.5);
    expect_exit2("run --util-window 5ns --out " + scratch("util-bad"),
                 {"--util-window", "at least 100ns"});
}

TEST(DsmCli, BadPoolInputIsExit2) {
    expect_exit2(kGen + " --weights ddr --out " + scratch("bad-tier"),
                 {"--weights", "'ddr' is not a memory tier", "host_ddr"});
    expect_exit2("run --set dsm.tiers.host_ddr.base=64TiB --out " + scratch("bad-overlap"),
                 {"dsm", "tiers.host_ddr.base", "overlaps remote_hbm"});
    expect_exit2("run --set dsm.tiers.nvme.capacity=1TB --out " + scratch("bad-name"),
                 {"nvme", "unknown pool tier"});
    // A tensor in no tier names its trace line.
    const std::string dir = scratch("bad-addr");
    fs::create_directories(dir);
    test::write_text(
        dir + "/t.jsonl",
        R"({"format":"ascend-sim-trace","version":1,"name":"t","dies":1,"die":0})"
        "\n"
        R"({"id":0,"op":"memcpy","bytes":4096,"inputs":[{"name":"x","addr":"0x700000000000","bytes":4096,"stream":"weight"}],"outputs":[{"addr":"0x1000","bytes":4096,"stream":"activation"}]})"
        "\n");
    expect_exit2("run --trace " + dir + "/t.jsonl --out " + scratch("bad-addr-out"),
                 {"t.jsonl:2", "tensor 'x'", "outside every memory tier"});
    // A placement beyond a tier's capacity: pmem shrunk below one layer's weights.
    const std::string big = scratch("bad-cap");
    ASSERT_EQ(run_cli(kGen + " --weights pmem --out " + big).exit_code, 0);
    expect_exit2("run --trace " + big + "/die0.jsonl --set dsm.tiers.pmem.capacity=1MiB --out " +
                     scratch("bad-cap-out"),
                 {"die0.jsonl:", "outside every memory tier"});
    // pmem's capacity names its key.
    expect_exit2("run --trace " + big + "/die0.jsonl --set dsm.tiers.pmem.capacity=1MiB --out " +
                     scratch("bad-cap-out2"),
                 {"passes the end of pmem", "dsm.tiers.pmem.capacity"});
    // A supernode's owners are its dies.
    expect_exit2("run --platform supernode8_ring --set dsm.owners=32 --out " + scratch("bad-own"),
                 {"dsm.owners", "its network's dies (8)"});
    // Weights that do not fit HBM say so and ask for a placement.
    expect_exit2(
        "trace gen --model llama3-70b --phase decode --batch 1 --seq 128 --no-collectives "
        "--hbm-capacity 64GiB "
        "--out " +
            scratch("bad-fit"),
        {"does not fit the 64 GiB of HBM", "--weights"});
}

// Die 0 of a 32-die set reads remote_hbm in die 31's window (the previous die's): on the single
// die the pool's 8 owners refuse it, naming dsm.owners, and 32 owners accept it.
TEST(DsmCli, ADieTraceOfALargerSetNeedsThatManyOwners) {
    const std::string gen = scratch("owners-gen");
    ASSERT_EQ(run_cli("trace gen --model llama3-8b --phase decode --batch 32 --seq 256 --dp 32 "
                      "--layers 1 --no-collectives --no-embedding --die 0 --weights remote_hbm "
                      "--out " +
                      gen)
                  .exit_code,
              0);
    expect_exit2("run --trace " + gen + "/die0.jsonl --out " + scratch("owners-8"),
                 {"remote_hbm window of die 31", "pool has 8 owner dies", "dsm.owners"});
    const auto stats =
        run_summary("--trace " + gen + "/die0.jsonl --set dsm.owners=32", scratch("owners-32"));
    EXPECT_GT(stats["summary"]["tiers"]["remote_hbm"]["read_bytes"].get<double>(), 0);
}

}  // namespace
}  // namespace asim
