// `ascend-sim figures dsm` on the command line: the pool bandwidth test on ascend960 reaches the
// physical bounds (one reader: the slower of its port and the tier's device; N readers of the
// shared host DDR: the slower of N ports and the device), the exact columns and files, and bad
// input refused with exit 2, one message and nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/harness/cli_runner.h"

namespace asim::test {
namespace {

const char* kColumns = "tier,readers,size_bytes,latency_us,aggregate_GBps,per_reader_GBps";
// ascend960's dsm: section.
constexpr double kPortGBps = 164;     // dsm.port.read_bandwidth
constexpr double kHostDdrGBps = 819;  // dsm.tiers.host_ddr.read_bandwidth
constexpr double kPmemGBps = 53;      // dsm.tiers.pmem.read_bandwidth

// The CSV block after the "# dsm" line: the header, then rows of fields.
std::vector<std::vector<std::string>> dsm_table(const std::string& output) {
    std::vector<std::vector<std::string>> rows;
    const auto at = output.find("# dsm\n");
    if (at == std::string::npos) return rows;
    std::istringstream in(output.substr(at + 6));
    std::string line;
    while (std::getline(in, line) && !line.empty()) {
        std::vector<std::string> fields;
        std::istringstream l(line);
        std::string f;
        while (std::getline(l, f, ',')) fields.push_back(f);
        rows.push_back(fields);
    }
    return rows;
}

std::string header(const std::vector<std::string>& fields) {
    std::string s;
    for (std::size_t i = 0; i < fields.size(); ++i) s += (i ? "," : "") + fields[i];
    return s;
}

void expect_within_3_percent(double got, double want, const std::string& what) {
    EXPECT_NEAR(got, want, 0.03 * want) << what;
}

// One reader on a single-die platform: min(port, device) for each tier (the remote HBM's device,
// the owner's HBM, is far faster than the port), and the unloaded latency of a 512 B read.
TEST(FiguresDsmCli, OneReaderGetsTheSlowerOfPortAndDevice) {
    const std::string out = scratch_path("figures", "dsm");
    const CliResult r =
        run_cli("figures dsm --platform ascend960 --readers 1 --sizes 64MiB --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = dsm_table(r.output);
    ASSERT_EQ(rows.size(), 4u) << r.output;
    EXPECT_EQ(header(rows[0]), kColumns);
    std::map<std::string, std::vector<std::string>> by_tier;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), 6u) << r.output;
        EXPECT_EQ(rows[i][1], "1");
        EXPECT_EQ(rows[i][2], std::to_string(64ULL << 20));
        // One reader: what it got is the aggregate.
        EXPECT_EQ(rows[i][4], rows[i][5]);
        by_tier[rows[i][0]] = rows[i];
    }
    ASSERT_EQ(by_tier.size(), 3u) << r.output;  // every pool tier by default
    expect_within_3_percent(std::stod(by_tier["remote_hbm"][4]), kPortGBps, "remote_hbm");
    expect_within_3_percent(std::stod(by_tier["host_ddr"][4]), std::min(kPortGBps, kHostDdrGBps),
                            "host_ddr");
    expect_within_3_percent(std::stod(by_tier["pmem"][4]), std::min(kPortGBps, kPmemGBps), "pmem");
    // Unloaded 512 B: the tier's latency plus the transfer (host DDR 1.0 us, pmem 1.3 us; the
    // remote HBM's 1.2 us and then some for the owner's HBM).
    EXPECT_NEAR(std::stod(by_tier["host_ddr"][3]), 1.0 + 512 / 164e3, 0.001);
    EXPECT_NEAR(std::stod(by_tier["pmem"][3]), 1.3 + 512 / 53e3, 0.001);
    EXPECT_GE(std::stod(by_tier["remote_hbm"][3]), 1.2);
    EXPECT_LT(std::stod(by_tier["remote_hbm"][3]), 1.5);
    // The files: the same table as CSV and JSON.
    EXPECT_EQ(read_text(out + "/dsm.csv").substr(0, std::string(kColumns).size()), kColumns);
    EXPECT_NE(read_text(out + "/dsm.json").find("\"aggregate_GBps\""), std::string::npos);
    std::filesystem::remove_all(out);
}

// N readers of the host DDR each have their own port and share the one device: min(N x port,
// device); of pmem, the device alone; of remote HBM, each reads another owner: N x port.
TEST(FiguresDsmCli, ReadersShareTheDeviceEachOnItsOwnPort) {
    const CliResult r = run_cli(
        "figures dsm --platform ascend960 --tier host_ddr,pmem,remote_hbm --readers 1,2,4,8 "
        "--sizes 64MiB");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = dsm_table(r.output);
    ASSERT_EQ(rows.size(), 13u) << r.output;
    EXPECT_EQ(header(rows[0]), kColumns);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const std::string& tier = rows[i][0];
        const double n = std::stod(rows[i][1]);
        const double aggregate = std::stod(rows[i][4]), per_reader = std::stod(rows[i][5]);
        const std::string what = tier + " x" + rows[i][1];
        if (tier == "host_ddr") {
            expect_within_3_percent(aggregate, std::min(n * kPortGBps, kHostDdrGBps), what);
        } else if (tier == "pmem") {
            expect_within_3_percent(aggregate, kPmemGBps, what);
        } else {
            expect_within_3_percent(aggregate, n * kPortGBps, what);
        }
        EXPECT_NEAR(per_reader, aggregate / n, 0.002) << what;
    }
    EXPECT_EQ(rows[1][0], "host_ddr");  // in the order asked for
    EXPECT_EQ(rows[1][1], "1");
    EXPECT_EQ(rows[4][1], "8");
}

// On a platform with a network remote_hbm data crosses its links: on supernode8_ring (a
// unidirectional ring of 21.25 GB/s links) reader k reading k + 1 sends each owner's data round 7
// links, so 7 of the 8 streams share every link; reading k - 1 (offset 7) is one hop each.
TEST(FiguresDsmCli, RemoteReadsOnAUnidirectionalRingShareItsLinks) {
    for (const auto& [offset, bound] : {std::pair{1, 8 * 21.25 / 7}, std::pair{7, 8 * 21.25}}) {
        const CliResult r = run_cli(
            "figures dsm --platform supernode8_ring --tier remote_hbm --sizes 64MiB "
            "--owner-offset " +
            std::to_string(offset));
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto rows = dsm_table(r.output);
        ASSERT_EQ(rows.size(), 2u) << r.output;
        expect_within_3_percent(std::stod(rows[1][4]), bound, "offset " + std::to_string(offset));
    }
}

// ascend960 without its pmem tier: the preset with that block left out.
std::string platform_without_pmem() {
    std::istringstream in(read_text(std::string(ASIM_SOURCE_DIR) + "/platforms/ascend960.yaml"));
    std::string yaml, line;
    bool in_pmem = false;
    while (std::getline(in, line)) {
        if (line.rfind("    pmem:", 0) == 0)
            in_pmem = true;
        else if (in_pmem && line.rfind("      ", 0) != 0)
            in_pmem = false;
        if (!in_pmem) yaml += line + "\n";
    }
    const std::string path = scratch_path("figures", "dsm-nopmem.yaml");
    write_text(path, yaml);
    return path;
}

TEST(FiguresDsmCli, BadInputExitsTwoWithOneMessageAndWritesNothing) {
    const std::string no_pmem = platform_without_pmem();
    struct Case {
        std::string args;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"--tier dram", "unknown tier 'dram' (the pool's tiers: host_ddr, pmem, remote_hbm)"},
        {"--tier hbm", "hbm is the die's own memory, not a pool tier"},
        {"--tier host_ddr,", "unknown tier ''"},
        {"--readers 0", "1 to 8"},
        {"--readers 9", "1 to 8"},
        {"--readers 1,2,16", "16 readers"},
        {"--readers 1,x", "'x' is not a number"},
        {"--readers -1", "not a number"},
        {"--sizes 0B", "sizes must be positive"},
        {"--sizes 12parsecs", "--sizes 12parsecs"},
        {"--sizes 64MiB,", "--sizes 64MiB,"},
        {"--tier host_ddr --sizes 2TB", "more than a reader can read of host_ddr"},
        {"--chunk 0B", "--chunk 0B"},
        {"--chunk 2GiB", "--chunk 2GiB"},
        {"--outstanding 0", "--outstanding must be at least 1"},
        {"--owner-offset 0", "--owner-offset 0: must be from 1 to 7"},
        {"--owner-offset 8", "--owner-offset 8: must be from 1 to 7"},
    };
    for (const Case& c : cases) {
        const std::string out = scratch_path("figures", "dsm-bad");
        const CliResult r = run_cli("figures dsm --platform ascend960 " + c.args + " --out " + out);
        EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << ": " << r.output;
        EXPECT_NE(r.output.find("error"), std::string::npos) << c.args << ": " << r.output;
        EXPECT_EQ(r.output.find("# dsm"), std::string::npos) << c.args << ": " << r.output;
        EXPECT_FALSE(std::filesystem::exists(out)) << c.args;
    }
    // A tier the platform lacks is refused; the others still run.
    const CliResult lacks =
        run_cli("figures dsm --platform " + no_pmem + " --tier pmem --sizes 1MiB");
    EXPECT_EQ(lacks.exit_code, 2) << lacks.output;
    EXPECT_NE(lacks.output.find("has no pmem tier in its dsm: section (it has: remote_hbm, "
                                "host_ddr)"),
              std::string::npos)
        << lacks.output;
    const CliResult rest = run_cli("figures dsm --platform " + no_pmem + " --sizes 1MiB");
    EXPECT_EQ(rest.exit_code, 0) << rest.output;
    EXPECT_EQ(dsm_table(rest.output).size(), 3u) << rest.output;
    std::filesystem::remove(no_pmem);
}

TEST(FiguresDsmCli, HelpDescribesEveryOption) {
    const CliResult r = run_cli("figures dsm --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* option : {"--platform", "--set", "--tier", "--readers", "--sizes", "--chunk",
                               "--outstanding", "--owner-offset", "--out"}) {
        EXPECT_NE(r.output.find(option), std::string::npos) << option << "\n" << r.output;
    }
}

}  // namespace
}  // namespace asim::test
