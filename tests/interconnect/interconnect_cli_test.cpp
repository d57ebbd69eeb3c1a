// `figures links` and `figures collectives` through the binary: CloudMatrix384 Table 1, the
// seed's ring latency and its star fallback, the nccl-tests table, faults, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "tests/harness/cli_runner.h"

namespace {

using asim::test::CliResult;
using asim::test::run_cli;

// CSV rows after the header line equal to `header`.
std::vector<std::vector<std::string>> csv_rows(const std::string& output,
                                               const std::string& header) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(output);
    std::string line;
    bool in_table = false;
    while (std::getline(in, line)) {
        if (line == header) {
            in_table = true;
            continue;
        }
        if (!in_table || line.empty() || line[0] == '#') {
            if (in_table && line.empty()) break;
            continue;
        }
        std::vector<std::string> cells;
        std::stringstream s(line);
        std::string cell;
        while (std::getline(s, cell, ',')) cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

// (path, op, size) -> (latency_us, bandwidth_GBps)
std::map<std::string, std::pair<double, double>> links_table(const std::string& args) {
    const CliResult r = run_cli("figures links " + args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::map<std::string, std::pair<double, double>> t;
    for (const auto& row : csv_rows(r.output, "path,op,size_bytes,latency_us,bandwidth_GBps"))
        t[row[0] + "," + row[1] + "," + row[2]] = {std::stod(row[3]), std::stod(row[4])};
    return t;
}

TEST(FiguresLinks, CloudMatrix384MatchesTable1WithinTenPercent) {
    auto t = links_table("--platform cloudmatrix384 --sizes 512B,256MiB");
    // C1 Table 1: 512 B latency (us) and bandwidth (GB/s), per die, unidirectional.
    const std::map<std::string, double> latency{{"intra_node,read", 1.2},
                                                {"intra_node,write", 1.3},
                                                {"inter_node,read", 1.9},
                                                {"inter_node,write", 2.1}};
    const std::map<std::string, double> bandwidth{{"intra_node,read", 167},
                                                  {"intra_node,write", 137},
                                                  {"inter_node,read", 164},
                                                  {"inter_node,write", 135}};
    for (const auto& [key, want] : latency) {
        ASSERT_TRUE(t.count(key + ",512")) << key;
        EXPECT_NEAR(t[key + ",512"].first / want, 1.0, 0.10) << key;
    }
    for (const auto& [key, want] : bandwidth)
        EXPECT_NEAR(t[key + ",268435456"].second / want, 1.0, 0.10) << key;
    // Inter-node costs more latency than intra-node (two more switch hops each way).
    EXPECT_GT(t["inter_node,read,512"].first, t["intra_node,read,512"].first + 0.3);
}

TEST(FiguresLinks, SeedRingLatencyAndItsStarFallback) {
    auto healthy = links_table("--platform supernode8_ring --sizes 512B");
    ASSERT_TRUE(healthy.count("intra_node,write,512"));
    EXPECT_LE(healthy["intra_node,write,512"].first, 2.1);
    EXPECT_LE(healthy["intra_node,read,512"].first, 2.1);
    auto broken = links_table(
        "--platform supernode8_ring --sizes 512B --set 'network.faults=[{link: die3->die4, at: "
        "0us}]'");
    const double star = broken["intra_node,write,512"].first;
    EXPECT_GT(star, 15.0);
    EXPECT_LT(star, 21.0);
}

TEST(FiguresCollectives, NcclTestsTableAndOutputs) {
    const std::string out = asim::test::scratch_path("net", "coll");
    const CliResult r = run_cli(
        "figures collectives --platform supernode8_ring --op allreduce --sizes 1MiB..4MiB --out " +
        out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = csv_rows(r.output, "size_bytes,time_us,algbw_GBps,busbw_GBps");
    ASSERT_EQ(rows.size(), 3u);
    for (const auto& row : rows) {
        const double size = std::stod(row[0]), us = std::stod(row[1]), algbw = std::stod(row[2]),
                     busbw = std::stod(row[3]);
        EXPECT_NEAR(algbw, size / us * 1e-3, algbw * 1e-3);
        EXPECT_NEAR(busbw, algbw * 2 * 7 / 8.0, busbw * 1e-3);
        EXPECT_LT(busbw, 25.0);  // a 200 Gbps ring cannot beat its links
    }
    EXPECT_TRUE(std::filesystem::exists(out + "/collectives_allreduce.csv"));
    EXPECT_TRUE(std::filesystem::exists(out + "/collectives_allreduce.json"));
    EXPECT_NE(asim::test::read_text(out + "/collectives_allreduce.csv")
                  .find("size_bytes,time_us,algbw_GBps,busbw_GBps"),
              std::string::npos);
}

TEST(FiguresCollectives, BrokenRingReroutesOverTheStarAndReportsTheSlowdown) {
    const CliResult r = run_cli(
        "figures collectives --platform supernode8_ring --sizes 64KiB "
        "--set 'network.faults=[{link: die3->die4, at: 0us}]'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("slowdown"), std::string::npos) << r.output;
}

TEST(FiguresCollectives, ABrokenRingTakesTheStarForSmallAndTheForwardedRingForLargeMessages) {
    // --fault is the same as a network.faults entry at 0 us.
    const CliResult r = run_cli(
        "figures collectives --platform supernode8_ring --fault 'die3->die4' --sizes 64B,1GiB");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto small = r.output.find("ran the star through the host");
    const auto large = r.output.find("ran the ring, forwarded over the host");
    ASSERT_NE(small, std::string::npos) << r.output;
    ASSERT_NE(large, std::string::npos) << r.output;
    EXPECT_LT(small, large) << r.output;  // sizes run in order: 64 B first
    // The host's copy (16 GB/s on this preset) now bounds the forwarded ring: 1 GiB is slower
    // broken than intact (it was not before the host had a copy rate).
    const auto rows = csv_rows(r.output, "size_bytes,time_us,algbw_GBps,busbw_GBps");
    ASSERT_EQ(rows.size(), 2u) << r.output;
    EXPECT_LT(std::stod(rows[1][3]), 16.0) << r.output;
    // And a link that does not exist is bad input, naming the option.
    const CliResult bad = run_cli("figures links --platform supernode8_ring --fault 'die9->die4'");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("--fault die9->die4"), std::string::npos) << bad.output;
}

TEST(FiguresCollectives, APlaneGoingDownMidwayReroutesOverTheOtherPlanes) {
    // Die 0 loses its port on plane 0 10 us into a 64 MiB all-reduce over two CloudMatrix nodes:
    // its flows move to the other six planes, and the run is slower but completes.
    const CliResult r = run_cli(
        "figures collectives --platform cloudmatrix384 --dies 16 --sizes 64MiB "
        "--set 'network.faults=[{link: die0->l1.n0.p0, at: 10us}]'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto at = r.output.find("slowdown ");
    ASSERT_NE(at, std::string::npos) << r.output;
    const double slowdown = std::stod(r.output.substr(at + 9));
    EXPECT_GT(slowdown, 1.01) << r.output;
    EXPECT_LT(slowdown, 2.0) << r.output;
}

TEST(FiguresCollectives, NoAlternativeMeansWatchdogExitOne) {
    const std::string yaml = asim::test::scratch_path("net", "noalt.yaml");
    asim::test::write_text(yaml, R"(base: supernode8_ring
name: ring_without_star
network:
  node:
    fallback:
      lane_rate: 1Gbps
  faults:
    - {link: die3->die4, at: 0us}
    - {link: die3->host.n0, at: 0us}
)");
    const CliResult r = run_cli("figures collectives --platform " + yaml + " --sizes 64KiB");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("watchdog"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("die3 -> die4"), std::string::npos) << r.output;
}

TEST(FiguresCollectives, BadInputExitsTwoNamingTheKey) {
    struct Case {
        std::string args, needle;
    };
    // The ring without its own key (bidirectional: a key of another topology than custom).
    const std::string custom = asim::test::scratch_path("net", "custom.yaml");
    asim::test::write_text(custom, R"(base: ascend960
name: custom_split
network:
  dies: 4
  node:
    dies: 4
    topology: custom
    edges: [0, 1, 2, 3]
    link: {lane_rate: 200Gbps}
)");
    const std::vector<Case> cases{
        {"--platform supernode8_ring --set 'network.faults=[{link: die3->die9, at: 0us}]'",
         "network.faults[0].link"},
        {"--platform supernode8_ring --dies 9", "--dies 9"},
        {"--platform supernode8_ring --set network.dies=12", "network.dies"},
        {"--platform " + custom, "network.node.edges: the topology does not connect"},
        {"--platform supernode8_ring --set network.node.topology=custom --set "
         "'network.node.edges=[0,1,2,3]'",
         "network.node.bidirectional (platforms/supernode8_ring.yaml:20:20): is a parameter of "
         "the node topology 'ring', not of the chosen 'custom'"},
        {"--platform supernode8_ring --set network.node.topology=toruss",
         "unknown node topology 'toruss' (registered: custom, full_mesh, mesh, ring, switch, "
         "torus; did you mean torus?)"},
        {"--platform supernode8_ring --set network.node.link.lane_rat=1Gbps", "lane_rate"},
        {"--platform supernode8_ring --op allsum", "allreduce"},
        {"--platform supernode8_ring --algo ring_pipelnied", "ring_pipelined"},
        {"--platform ascend960", "no network"},
    };
    for (const auto& c : cases) {
        const std::string out = asim::test::scratch_path("net", "bad");
        const CliResult r = run_cli("figures collectives --sizes 1MiB " + c.args + " --out " + out);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
        EXPECT_FALSE(std::filesystem::exists(out)) << c.args;
    }
}

// time_us per size of a figures collectives table.
std::map<uint64_t, double> collective_times(const CliResult& r) {
    std::map<uint64_t, double> t;
    for (const auto& row : csv_rows(r.output, "size_bytes,time_us,algbw_GBps,busbw_GBps"))
        t[std::stoull(row[0])] = std::stod(row[1]);
    return t;
}

TEST(FiguresCollectives, AllToAllVSkewZeroIsAllToAllAndAZipfSkewMakesAHotReceiver) {
    const CliResult uniform =
        run_cli("figures collectives --platform supernode8_ring --op alltoall --sizes 64KiB,1MiB");
    const CliResult v0 =
        run_cli("figures collectives --platform supernode8_ring --op alltoallv --sizes 64KiB,1MiB");
    const CliResult v1 = run_cli(
        "figures collectives --platform supernode8_ring --op alltoallv --skew 1 --sizes "
        "64KiB,1MiB");
    ASSERT_EQ(uniform.exit_code, 0) << uniform.output;
    ASSERT_EQ(v0.exit_code, 0) << v0.output;
    ASSERT_EQ(v1.exit_code, 0) << v1.output;
    EXPECT_NE(v0.output.find("# collectives_alltoallv"), std::string::npos) << v0.output;
    const auto a = collective_times(uniform), b = collective_times(v0), c = collective_times(v1);
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a, b);  // 8 divides both sizes: the same blocks, the same schedule
    // Zipf 1 over 8 receivers: rank 0 gets 1 / H_8 of every row, 8 / 2.7179 = 2.94x the mean.
    EXPECT_NE(v1.output.find("rank 0 receives the most, 3086480 B (2.94x the mean 1048576 B)"),
              std::string::npos)
        << v1.output;
    EXPECT_GT(c.at(1048576), 1.2 * a.at(1048576));
}

TEST(FiguresCollectives, AllToAllVCountsFileWithOnePairIsThatTransfer) {
    // Only rank 0 sends, 64 MiB to rank 1: the time of that one transfer (sendrecv), plus the
    // empty steps of the pairwise schedule around it (a few us).
    const std::string csv = asim::test::scratch_path("net", "one_pair.csv");
    std::string text;
    for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 8; ++j)
            text += std::string(j ? "," : "") + (i == 0 && j == 1 ? "67108864" : "0");
        text += "\n";
    }
    asim::test::write_text(csv, text);
    const CliResult v =
        run_cli("figures collectives --platform supernode8_ring --op alltoallv --counts " + csv);
    const CliResult one = run_cli(
        "figures collectives --platform supernode8_ring --op sendrecv --dies 2 --sizes 64MiB");
    ASSERT_EQ(v.exit_code, 0) << v.output;
    ASSERT_EQ(one.exit_code, 0) << one.output;
    const auto tv = collective_times(v), t1 = collective_times(one);
    ASSERT_EQ(tv.size(), 1u);
    EXPECT_EQ(tv.begin()->first, 67108864u / 8);  // the mean a rank sends
    EXPECT_GT(tv.begin()->second, t1.at(67108864));
    EXPECT_LT(tv.begin()->second, t1.at(67108864) + 20.0);
    EXPECT_NE(v.output.find("rank 1 receives the most, 67108864 B (8.00x"), std::string::npos)
        << v.output;
}

TEST(FiguresCollectives, AllToAllVBadInputExitsTwoNamingTheOption) {
    const std::string dir = asim::test::scratch_path("net", "counts");
    std::filesystem::create_directories(dir);
    const std::string ok = dir + "/ok.csv", ragged = dir + "/ragged.csv",
                      negative = dir + "/neg.csv", short_file = dir + "/short.csv";
    std::string row = "1,2,3,4,5,6,7,8\n", rows;
    for (int i = 0; i < 8; ++i) rows += row;
    asim::test::write_text(ok, rows);
    asim::test::write_text(ragged, row + row + "1,2,3\n" + row + row + row + row + row);
    asim::test::write_text(negative,
                           row + row + row + "1,2,-3,4,5,6,7,8\n" + row + row + row + row);
    asim::test::write_text(short_file, row + row);
    struct Case {
        std::string args, needle;
    };
    const std::vector<Case> cases{
        {"--op alltoallv --skew -1 --sizes 1MiB", "--skew -1"},
        {"--op alltoallv --skew 1x --sizes 1MiB", "--skew 1x"},
        {"--op alltoall --skew 1 --sizes 1MiB", "--skew: only --op alltoallv"},
        {"--op allreduce --counts " + ok, "--counts: only --op alltoallv"},
        {"--op alltoallv --skew 1 --counts " + ok, "--skew and --counts"},
        {"--op alltoallv --sizes 1MiB --counts " + ok, "--sizes and --counts"},
        {"--op alltoallv --counts " + dir + "_missing.csv", "cannot read"},
        {"--op alltoallv --counts " + ragged, ragged + ":3: 3 columns"},
        {"--op alltoallv --counts " + negative, negative + ":4: column 3 is '-3'"},
        {"--op alltoallv --counts " + short_file, "2 rows, the group has 8 ranks"},
        {"--op alltoallv --dies 4 --counts " + ok, "8 columns, the group has 4 ranks"},
    };
    for (const auto& c : cases) {
        const std::string out = asim::test::scratch_path("net", "bad_v");
        const CliResult r =
            run_cli("figures collectives --platform supernode8_ring " + c.args + " --out " + out);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
        EXPECT_FALSE(std::filesystem::exists(out)) << c.args;
    }
}

TEST(Platforms, SupernodePresetsLoadForInfo) {
    for (const char* p : {"supernode8_ring", "seed_cluster_8192", "cloudmatrix384", "atlas950_8192",
                          "atlas960_15488"}) {
        const CliResult r = run_cli(std::string("info --platform ") + p);
        EXPECT_EQ(r.exit_code, 0) << p << "\n" << r.output;
    }
}

}  // namespace
