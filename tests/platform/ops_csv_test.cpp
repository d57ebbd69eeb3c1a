// ops.csv (testbenches/trace_replay/op_table.h): columns, and the invariants that tie the per-op
// rows to the die's totals: each op's interval, the FLOPs, and the HBM bytes and L2 accesses,
// which are attributed by the transactions the op's engines (and the H-JSD for its weights)
// issue, so on a die without a memory pool they add up exactly to the die's counters.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/trace.h"
#include "testbenches/trace_replay/op_table.h"
#include "tests/harness/cli_runner.h"
#include "tests/harness/weight_streaming_trace.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;

std::string scratch(const std::string& name) { return asim::test::scratch_path("ops", name); }

const std::vector<std::string> kColumns = {"id",
                                           "name",
                                           "kind",
                                           "die",
                                           "start_ns",
                                           "end_ns",
                                           "duration_ns",
                                           "flops",
                                           "hbm_read_bytes",
                                           "hbm_write_bytes",
                                           "l2_hit_rate",
                                           "achieved_tflops",
                                           "bound"};

struct OpsCsv {
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
};

// The test traces name no op with a comma or a quote, so a plain split reads the file.
OpsCsv read_ops(const std::string& path) {
    OpsCsv csv;
    std::istringstream in(asim::test::read_text(path));
    std::string line;
    auto split = [](const std::string& l) {
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream s(l);
        while (std::getline(s, cell, ',')) cells.push_back(cell);
        if (!l.empty() && l.back() == ',') cells.emplace_back();
        return cells;
    };
    if (!std::getline(in, line)) return csv;
    csv.header = split(line);
    while (std::getline(in, line)) {
        const auto cells = split(line);
        EXPECT_EQ(cells.size(), csv.header.size()) << line;
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < cells.size() && i < csv.header.size(); ++i)
            row[csv.header[i]] = cells[i];
        csv.rows.push_back(std::move(row));
    }
    return csv;
}

double num(const std::map<std::string, std::string>& row, const std::string& key) {
    return std::stod(row.at(key));
}

// Checks the invariants of one die's rows against its summary (single-die shaped).
void expect_rows_add_up(const std::vector<std::map<std::string, std::string>>& rows,
                        const nlohmann::json& s) {
    ASSERT_EQ(rows.size(), s["ops"].get<uint64_t>());
    double read = 0, written = 0, flops = 0, end = 0;
    for (const auto& r : rows) {
        const double start_ns = num(r, "start_ns"), end_ns = num(r, "end_ns"),
                     duration = num(r, "duration_ns");
        EXPECT_LE(start_ns, end_ns) << r.at("id");
        EXPECT_NEAR(end_ns - start_ns, duration, 1e-6) << r.at("id");
        const double tflops = num(r, "achieved_tflops");
        if (duration > 0) {
            EXPECT_NEAR(tflops, num(r, "flops") / (duration * 1e-9) * 1e-12, 1e-9 * (1 + tflops));
        }
        if (!r.at("l2_hit_rate").empty()) {
            EXPECT_GE(num(r, "l2_hit_rate"), 0.0);
            EXPECT_LE(num(r, "l2_hit_rate"), 1.0);
        }
        read += num(r, "hbm_read_bytes");
        written += num(r, "hbm_write_bytes");
        flops += num(r, "flops");
        end = std::max(end, end_ns);
        EXPECT_TRUE(r.at("bound") == "compute" || r.at("bound") == "memory" ||
                    r.at("bound") == "latency" ||
                    (r.at("bound") == "communication" && r.at("kind") == "collective"))
            << r.at("bound");
    }
    EXPECT_EQ(read, s["hbm_read_bytes"].get<double>());
    EXPECT_EQ(written, s["hbm_write_bytes"].get<double>());
    EXPECT_NEAR(flops, s["flops"].get<double>(), 1e-9 * s["flops"].get<double>());
    EXPECT_NEAR(end, s["sim_time_ns"].get<double>(), 1e-3);
}

// Runs `args`, returns (ops.csv, summary).
std::pair<OpsCsv, nlohmann::json> run_ops(const std::string& args, const std::string& name) {
    const std::string out = scratch(name);
    const CliResult r = run_cli(args + " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return {};
    const auto doc = nlohmann::json::parse(asim::test::read_text(out + "/stats.json"));
    return {read_ops(out + "/ops.csv"), doc["summary"]};
}

TEST(OpsCsv, TinyMlpRowsAddUpToTheDie) {
    const auto [csv, s] = run_ops(
        "run --trace " + std::string(ASIM_SOURCE_DIR) + "/traces/samples/tiny_mlp.jsonl", "tiny");
    ASSERT_EQ(csv.header, kColumns);
    expect_rows_add_up(csv.rows, s);
    ASSERT_EQ(csv.rows.size(), 5u);
    EXPECT_EQ(csv.rows[1].at("name"), "mlp.up_proj");
    EXPECT_EQ(csv.rows[1].at("kind"), "matmul");
    EXPECT_EQ(csv.rows[1].at("die"), "0");
    // Its 8 MiB weight comes from HBM (demand or H-JSD prefetch): all of it counts for this op.
    EXPECT_GE(num(csv.rows[1], "hbm_read_bytes"), 8.0 * 1024 * 1024);
    // Dependencies: each op starts no earlier than the one it depends on ends.
    for (std::size_t i = 1; i < csv.rows.size(); ++i) {
        EXPECT_GE(num(csv.rows[i], "start_ns"), num(csv.rows[i - 1], "end_ns"));
    }
}

// Weight streaming with the H-JSD prefetching (its fills count for the op they fetch for), on both
// HBM models: the JEDEC one queues write-backs in the L2 and issues them later from its own thread.
TEST(OpsCsv, PrefetchAndQueuedWriteBacksAreAttributed) {
    const std::string dir = scratch("stream-dir");
    fs::create_directories(dir);
    const std::string trace = asim::test::weight_streaming_trace(dir);
    for (const char* fidelity : {"flat", "jedec"}) {
        SCOPED_TRACE(fidelity);
        const auto [csv, s] =
            run_ops("run --trace " + trace + " --set die.hbm.fidelity=" + fidelity,
                    std::string("stream-") + fidelity);
        ASSERT_EQ(csv.header, kColumns);
        expect_rows_add_up(csv.rows, s);
        EXPECT_GT(s["prefetch"]["issued"].get<uint64_t>(), 0u);
        EXPECT_GT(s["hbm_write_bytes"].get<uint64_t>(), 0u);
    }
}

// A large GEMM (at the Cube peak) followed by an element-wise op that only streams memory.
TEST(OpsCsv, LargeGemmIsComputeBound) {
    const std::string dir = scratch("gemm-dir");
    fs::create_directories(dir);
    asim::test::write_text(
        dir + "/g.jsonl",
        std::string(R"({"format":"ascend-sim-trace","version":1,"name":"g","dies":1,"die":0})") +
            "\n" +
            R"({"id":0,"op":"matmul","name":"big","m":4096,"n":4096,"k":4096,"inputs":[{"name":"a","addr":0,"bytes":33554432},{"name":"b","addr":67108864,"bytes":33554432,"stream":"weight"}],"outputs":[{"name":"c","addr":134217728,"bytes":33554432}]})" +
            "\n" +
            R"({"id":1,"op":"elementwise","name":"scale","func":"add","elements":16777216,"deps":[0],"inputs":[{"name":"c","addr":134217728,"bytes":33554432}],"outputs":[{"name":"d","addr":201326592,"bytes":33554432}]})" +
            "\n");
    const auto [csv, s] = run_ops("run --trace " + dir + "/g.jsonl", "gemm");
    ASSERT_EQ(csv.rows.size(), 2u);
    expect_rows_add_up(csv.rows, s);
    EXPECT_EQ(csv.rows[0].at("bound"), "compute");
    // The element-wise op streams 32 MiB in and 32 MiB out for 16 M adds: not compute.
    EXPECT_NE(csv.rows[1].at("bound"), "compute");
}

// A trace set: one row per op of every die, the die column, collectives bound by communication,
// each die's rows adding up to its per-die summary.
TEST(OpsCsv, TraceSetHasEveryDiesOps) {
    const std::string dir = scratch("set");
    fs::create_directories(dir);
    asim::test::write_text(
        dir + "/index.json",
        R"({"format":"ascend-sim-trace-index","version":1,"name":"ov","dies":2,"files":[{"die":0,"file":"die0.jsonl"},{"die":1,"file":"die1.jsonl"}],"groups":{}})");
    const std::string mm =
        R"("op":"matmul","name":"mm","m":1024,"n":1024,"k":1024,"dtype":"bf16","inputs":[{"name":"a","addr":0,"bytes":2097152},{"name":"b","addr":16777216,"bytes":2097152}],"outputs":[{"name":"c","addr":33554432,"bytes":2097152}])";
    for (int die : {0, 1}) {
        asim::test::write_text(
            dir + "/die" + std::to_string(die) + ".jsonl",
            std::string(R"({"format":"ascend-sim-trace","version":1,"name":"ov","dies":2,"die":)") +
                std::to_string(die) + "}\n" + R"({"id":0,)" + mm + "}\n" +
                R"({"id":1,"op":"collective","name":"ar","kind":"all_reduce","group":[0,1],"bytes":1048576,"deps":[0]})" +
                "\n" + R"({"id":2,"deps":[1],)" + mm + "}\n");
    }
    for (const char* fidelity : {"detailed", "fast"}) {
        SCOPED_TRACE(fidelity);
        const auto [csv, s] =
            run_ops("run --platform supernode8_ring --trace " + dir + " --fidelity " + fidelity,
                    std::string("set-") + fidelity);
        ASSERT_EQ(csv.header, kColumns);
        ASSERT_EQ(csv.rows.size(), 6u);
        for (int die : {0, 1}) {
            std::vector<std::map<std::string, std::string>> mine;
            for (const auto& r : csv.rows) {
                if (r.at("die") == std::to_string(die)) mine.push_back(r);
            }
            ASSERT_EQ(mine.size(), 3u);
            EXPECT_EQ(mine[1].at("kind"), "collective");
            EXPECT_EQ(mine[1].at("bound"), "communication");
            EXPECT_GE(num(mine[1], "start_ns"), num(mine[0], "end_ns"));
            EXPECT_GE(num(mine[2], "start_ns"), num(mine[1], "end_ns"));
            const nlohmann::json& d = s["per_die"][die];
            EXPECT_NEAR(num(mine[2], "end_ns"), d["sim_time_ns"].get<double>(), 1e-3);
            if (std::string(fidelity) == "detailed") {
                expect_rows_add_up(mine, d);
            } else {
                // A fast die's matmuls carry the traffic of their calibration run (the op alone,
                // cold): both operands, 2 MiB each, from HBM; the two matmuls are one signature.
                EXPECT_GE(num(mine[0], "hbm_read_bytes"), 2.0 * 2 * 1024 * 1024);
                EXPECT_EQ(mine[0].at("hbm_read_bytes"), mine[2].at("hbm_read_bytes"));
                EXPECT_EQ(mine[0].at("hbm_write_bytes"), mine[2].at("hbm_write_bytes"));
                EXPECT_NE(mine[0].at("l2_hit_rate"), "");
                EXPECT_NE(mine[0].at("bound"), "");
                EXPECT_EQ(mine[1].at("hbm_read_bytes"), "0");
                EXPECT_GT(num(mine[0], "duration_ns"), 0.0);
            }
        }
    }
}

TEST(OpBound, TheDocumentedRule) {
    using asim::classify_op;
    using asim::OpBound;
    using asim::trace::OpKind;
    EXPECT_EQ(classify_op(OpKind::kCollective, 100, 90, 90), OpBound::kCommunication);
    EXPECT_EQ(classify_op(OpKind::kMatmul, 100, 60, 10), OpBound::kCompute);
    EXPECT_EQ(classify_op(OpKind::kMatmul, 100, 50, 49),
              OpBound::kCompute);  // exactly half explained
    EXPECT_EQ(classify_op(OpKind::kMatmul, 100, 20, 70), OpBound::kMemory);
    EXPECT_EQ(classify_op(OpKind::kMatmul, 100, 49, 40),
              OpBound::kLatency);  // neither explains half
    EXPECT_EQ(classify_op(OpKind::kMemcpy, 100, 0, 80), OpBound::kMemory);
    EXPECT_EQ(classify_op(OpKind::kMemcpy, 100, 0, 0), OpBound::kLatency);
    EXPECT_EQ(classify_op(OpKind::kSoftmax, 0, 0, 0), OpBound::kLatency);
}

}  // namespace
