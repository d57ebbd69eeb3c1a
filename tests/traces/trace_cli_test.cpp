// `ascend-sim trace ...` through the binary: outputs, the built-in trace being generator output,
// and bad input (exit 2, one message with the reason and location, nothing left behind).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "testbenches/trace_gen/generator.h"

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;
std::string scratch(const std::string& name) { return asim::test::scratch_path("tc", name); }
std::string read(const std::string& path) { return asim::test::read_text(path); }

void expect_bad(const std::string& args, const std::string& out,
                std::initializer_list<const char*> needles) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    for (const char* n : needles)
        EXPECT_NE(r.output.find(n), std::string::npos) << "missing '" << n << "' in: " << r.output;
    if (!out.empty()) {
        EXPECT_FALSE(fs::exists(out)) << "bad input left " << out << " behind";
    }
}

}  // namespace

TEST(TraceCli, GenWritesOneFilePerDieAndAnIndexThatStatsReads) {
    const std::string out = scratch("gen");
    const CliResult r = run_cli(
        "trace gen --model llama3-8b --phase train --batch 2 --seq 256 --tp 2 --dp 2 --layers 2 "
        "--out " +
        out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (int d = 0; d < 4; ++d)
        EXPECT_TRUE(fs::exists(out + "/die" + std::to_string(d) + ".jsonl")) << d;
    const auto index = nlohmann::json::parse(read(out + "/index.json"));
    EXPECT_EQ(index["format"], "ascend-sim-trace-index");
    EXPECT_EQ(index["dies"], 4);
    EXPECT_EQ(index["groups"]["tp"], nlohmann::json::parse("[[0,1],[2,3]]"));
    EXPECT_EQ(index["groups"]["dp"], nlohmann::json::parse("[[0,2],[1,3]]"));
    const CliResult s = run_cli("trace stats --json " + out);
    ASSERT_EQ(s.exit_code, 0) << s.output;
    const auto j = nlohmann::json::parse(s.output);
    for (const char* k : {"parameters", "tokens", "flops_total", "flops_gemm", "flops_attention",
                          "flops_other", "bytes_read", "bytes_written", "collective_bytes"}) {
        EXPECT_TRUE(j.contains(k)) << k;
    }
    EXPECT_EQ(j["tokens"], 512);
    EXPECT_GT(j["collective_bytes"]["all_reduce"].get<double>(), 0);
    // A single die file works too.
    EXPECT_EQ(run_cli("trace stats " + out + "/die1.jsonl").exit_code, 0);
    // Help texts exist for every subcommand.
    for (const char* sub :
         {"trace --help", "trace gen --help", "trace stats --help", "trace import --help"}) {
        EXPECT_EQ(run_cli(sub).exit_code, 0) << sub;
    }
}

TEST(TraceCli, BuiltinDefaultTraceIsTheGeneratorsOutput) {
    // `trace gen` with the built-in's options writes, for die 0, the text `run` replays by default.
    const std::string out = scratch("builtin");
    const CliResult r = run_cli(
        "trace gen --model llama3-70b --phase prefill --batch 1 --seq 4096 --tp 8 --layers 1 "
        "--no-embedding --no-collectives --die 0 --out " +
        out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read(out + "/die0.jsonl");
    int ops = 0;
    for (char c : text) ops += c == '\n';
    EXPECT_EQ(ops - 1, 11);  // the header, then the 11 ops of one decoder layer
    const CliResult run = run_cli("run --trace " + out + "/die0.jsonl --out " + out + "/run");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto a = nlohmann::json::parse(read(out + "/run/stats.json"))["summary"];
    const CliResult def = run_cli("run --out " + out + "/def");
    ASSERT_EQ(def.exit_code, 0) << def.output;
    const auto b = nlohmann::json::parse(read(out + "/def/stats.json"))["summary"];
    EXPECT_EQ(a["flops"], b["flops"]);
    EXPECT_EQ(a["sim_time_ns"], b["sim_time_ns"]);
    EXPECT_EQ(a["hbm_read_bytes"], b["hbm_read_bytes"]);
}

TEST(TraceCli, ImportWritesATraceStatsCanRead) {
    const std::string out = scratch("import");
    fs::create_directories(out);
    const CliResult r =
        run_cli("trace import --from pytorch-et " + std::string(ASIM_SOURCE_DIR) +
                "/traces/fixtures/pytorch_et_small_transformer.json --out " + out + "/t.jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("aten::linear x5"), std::string::npos) << r.output;
    const CliResult s = run_cli("trace stats --json " + out + "/t.jsonl");
    ASSERT_EQ(s.exit_code, 0) << s.output;
    EXPECT_EQ(nlohmann::json::parse(s.output)["flops_gemm"].get<double>(), 3686400.0);
}

TEST(TraceCli, UnknownModelSuggestsTheClosest) {
    const std::string out = scratch("bad-model");
    expect_bad("trace gen --model llama3-70 --seq 16 --out " + out, out,
               {"unknown model 'llama3-70'", "did you mean"});
}

TEST(TraceCli, UnknownKeyInAModelFileNamesFileLineAndKey) {
    const std::string dir = scratch("bad-yaml");
    fs::create_directories(dir);
    const std::string good = read(std::string(ASIM_SOURCE_DIR) + "/traces/models/llama3-8b.yaml");
    std::string yaml = good;
    yaml.replace(yaml.find("description:"), 12, "descripton:");
    std::ofstream(dir + "/m.yaml") << yaml;
    expect_bad("trace gen --model " + dir + "/m.yaml --seq 16 --out " + dir + "/o", dir + "/o",
               {"m.yaml:", "descripton", "did you mean 'description'"});
    yaml = good;
    yaml.replace(yaml.find("  kv_heads: 8"), 12, "  kv_head: 8");
    std::ofstream(dir + "/n.yaml") << yaml;
    expect_bad("trace gen --model " + dir + "/n.yaml --seq 16 --out " + dir + "/o", dir + "/o",
               {"n.yaml:14:", "attention.kv_heads", "missing required key"});
}

TEST(TraceCli, ParallelismThatDoesNotDivide) {
    const std::string out = scratch("bad-par");
    expect_bad("trace gen --model llama3-70b --seq 16 --tp 3 --out " + out, out,
               {"heads (64)", "TP 3"});
    expect_bad("trace gen --model llama3-70b --seq 16 --pp 3 --out " + out, out,
               {"layers (80)", "PP 3"});
    expect_bad("trace gen --model deepseek-v3 --seq 16 --dp 3 --batch 3 --ep 3 --out " + out, out,
               {"experts (256)", "EP 3"});
    expect_bad("trace gen --model mixtral-8x7b --seq 16 --ep 4 --dp 2 --batch 2 --out " + out, out,
               {"TP x DP = 2", "EP 4"});
    expect_bad("trace gen --model llama3-70b --seq 16 --batch 3 --dp 2 --out " + out, out,
               {"batch (3)", "DP 2"});
}

TEST(TraceCli, BadExecutionTraces) {
    const std::string dir = scratch("bad-et");
    fs::create_directories(dir);
    std::ofstream(dir + "/x.json") << "not json at all";
    expect_bad("trace import --from pytorch-et " + dir + "/x.json --out " + dir + "/o.jsonl",
               dir + "/o.jsonl", {"x.json", "not a PyTorch execution trace"});
    std::ofstream(dir + "/y.json")
        << R"({"nodes":[{"id":1,"name":"t","parent":1},{"id":2,"name":"aten::bmm","parent":1,"inputs":[],"input_types":[]}]})";
    expect_bad("trace import --from pytorch-et " + dir + "/y.json --out " + dir + "/o.jsonl",
               dir + "/o.jsonl", {"y.json: node 2 (aten::bmm)", "input_shapes"});
    expect_bad("trace import --from chakra " + dir + "/y.json --out " + dir + "/o.jsonl",
               dir + "/o.jsonl", {"chakra"});
    expect_bad("trace stats " + dir + "/missing.jsonl", "", {"missing.jsonl"});
}

namespace {

const std::string kFixtures = std::string(ASIM_SOURCE_DIR) + "/traces/fixtures/";
// The profiler's GEMM FLOPs of the fixture's forward pass (pytorch_et_small_transformer.flops.json:
// aten::mm + aten::addmm + aten::bmm).
constexpr double kFixtureGemmFlops = 786432.0 + 2768896.0 + 131072.0;

// ops.csv (or an op table) as rows of cells by column name.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& path) {
    std::vector<std::map<std::string, std::string>> rows;
    std::istringstream in(read(path));
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream ls(line);
        while (std::getline(ls, cell, ',')) cells.push_back(cell);
        if (!line.empty() && line.back() == ',') cells.emplace_back();
        if (header.empty()) {
            header = cells;
            continue;
        }
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
            row[header[i]] = cells[i];
        rows.push_back(row);
    }
    return rows;
}

// Checks every row of the op table at `csv` against schemas/op_table.schema.json with Debian's
// python3-jsonschema (a dependency of the suite, scripts/install-deps.sh). Returns its output.
CliResult validate_op_table(const std::string& csv) {
    const std::string script = scratch("validate.py");
    asim::test::write_text(script, R"PY(
import csv, json, sys, jsonschema
spec = json.load(open(sys.argv[1]))
def cell(t):
    if t == "": return None
    for conv in (int, float):
        try: return conv(t)
        except ValueError: pass
    return t
rows = list(csv.reader(open(sys.argv[2], newline="")))
assert rows[0] == spec["x-columns"], rows[0]
for r in rows[1:]:
    jsonschema.validate(dict(zip(rows[0], map(cell, r))), spec)
print("valid", len(rows) - 1)
)PY");
    const std::string cmd = "/usr/bin/python3 " + script + " " + std::string(ASIM_SOURCE_DIR) +
                            "/schemas/op_table.schema.json " + csv + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    std::size_t n;
    while (pipe && (n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    const int status = pipe ? pclose(pipe) : -1;
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

// Both layouts of the fixture (schema 1.0.1 and 1.0.3-chakra.0.0.4) import to a trace that `run`
// replays on the default platform: all 18 ops, the GEMMs with the profiler's FLOPs.
TEST(TraceCli, ImportedExecutionTracesRunEndToEnd) {
    for (const char* fixture :
         {"pytorch_et_small_transformer.json", "pytorch_et_small_transformer_chakra.json"}) {
        SCOPED_TRACE(fixture);
        const std::string out = scratch(std::string("e2e-") + fixture);
        fs::create_directories(out);
        const CliResult r = run_cli("trace import --from pytorch-et " + kFixtures + fixture +
                                    " --out " + out + "/t.jsonl");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("tensor footprint       544768 B (0.5 MiB) in 34 storages"),
                  std::string::npos)
            << r.output;
        const CliResult run = run_cli("run --trace " + out + "/t.jsonl --out " + out + "/run");
        ASSERT_EQ(run.exit_code, 0) << run.output;
        const auto rows = csv_rows(out + "/run/ops.csv");
        EXPECT_EQ(rows.size(), 18u);
        double gemm = 0;
        for (const auto& row : rows)
            gemm += row.at("kind") == "matmul" ? std::stod(row.at("flops")) : 0.0;
        EXPECT_EQ(gemm, kFixtureGemmFlops);
        const auto summary = nlohmann::json::parse(read(out + "/run/stats.json"))["summary"];
        EXPECT_EQ(summary["ops"], 18);
        EXPECT_GT(summary["sim_time_ns"].get<double>(), 0);
    }
}

TEST(TraceCli, OpTableKeysTheRunsTimesBySignature) {
    const std::string out = scratch("optable");
    fs::create_directories(out);
    ASSERT_EQ(run_cli("trace import --from pytorch-et " + kFixtures +
                      "pytorch_et_small_transformer.json --out " + out + "/t.jsonl")
                  .exit_code,
              0);
    const CliResult run = run_cli("run --trace " + out + "/t.jsonl --out " + out + "/run");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    // The trace comes from the run's stats.json (meta.trace).
    const CliResult r =
        run_cli("trace export --to op-table --run " + out + "/run --out " + out + "/table.csv");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("op table of 18 ops (1 die)"), std::string::npos) << r.output;
    const auto ops = csv_rows(out + "/run/ops.csv");
    const auto table = csv_rows(out + "/table.csv");
    ASSERT_EQ(table.size(), 12u);
    uint64_t count = 0;
    double gemm = 0;
    for (const auto& row : table) {
        count += std::stoull(row.at("count"));
        if (row.at("kind") == "matmul")
            gemm += std::stod(row.at("flops_per_op")) * std::stod(row.at("count"));
    }
    EXPECT_EQ(count, ops.size());
    EXPECT_EQ(gemm, kFixtureGemmFlops);
    // The four copies of the attention's heads are one signature; its times are theirs.
    double sum = 0, lo = 1e300, hi = 0;
    for (const auto& op : ops) {
        if (op.at("kind") != "memcpy") continue;
        const double d = std::stod(op.at("duration_ns"));
        sum += d;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
    bool found = false;
    for (const auto& row : table) {
        if (row.at("signature") != "memcpy bytes=8192") continue;
        found = true;
        EXPECT_EQ(row.at("count"), "4");
        EXPECT_NEAR(std::stod(row.at("mean_duration_ns")), sum / 4, 1e-6);
        EXPECT_NEAR(std::stod(row.at("min_duration_ns")), lo, 1e-9);
        EXPECT_NEAR(std::stod(row.at("max_duration_ns")), hi, 1e-9);
        EXPECT_EQ(row.at("dtype"), "");
    }
    EXPECT_TRUE(found) << read(out + "/table.csv");
    // The in-projection: m = batch x seq, n = 3 x d_model, k = d_model, fp32, its extents in
    // columns.
    found = false;
    for (const auto& row : table) {
        if (row.at("signature") != "matmul fp32 m=32 n=192 k=64 trans_b") continue;
        found = true;
        EXPECT_EQ(row.at("m"), "32");
        EXPECT_EQ(row.at("n"), "192");
        EXPECT_EQ(row.at("k"), "64");
        EXPECT_EQ(row.at("trans_b"), "1");
        EXPECT_EQ(row.at("flops_per_op"), "786432");
        const double ns = std::stod(row.at("mean_duration_ns"));
        EXPECT_NEAR(std::stod(row.at("achieved_tflops")), 786432 / ns / 1e3, 1e-9);
    }
    EXPECT_TRUE(found) << read(out + "/table.csv");
    const CliResult v = validate_op_table(out + "/table.csv");
    EXPECT_EQ(v.exit_code, 0) << v.output;
    EXPECT_NE(v.output.find("valid 12"), std::string::npos) << v.output;
}

TEST(TraceCli, OpTableOfATraceSetPoolsTheDies) {
    const std::string out = scratch("optable-set");
    const CliResult g = run_cli(
        "trace gen --model llama3-8b --phase decode --batch 2 --seq 128 --tp 2 --layers 1 "
        "--no-embedding --out " +
        out + "/set");
    ASSERT_EQ(g.exit_code, 0) << g.output;
    const CliResult run =
        run_cli("run --platform supernode8_ring --trace " + out + "/set --out " + out + "/run");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const CliResult r = run_cli("trace export --to op-table --run " + out + "/run --trace " + out +
                                "/set/index.json --out " + out + "/table.csv");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("(2 dies)"), std::string::npos) << r.output;
    const auto ops = csv_rows(out + "/run/ops.csv");
    const auto table = csv_rows(out + "/table.csv");
    uint64_t count = 0;
    bool all_reduce = false;
    for (const auto& row : table) {
        count += std::stoull(row.at("count"));
        EXPECT_EQ(row.at("dies"), "2") << row.at("signature");
        if (row.at("kind") == "collective") {
            all_reduce = true;
            EXPECT_EQ(row.at("func"), "all_reduce");
            EXPECT_EQ(row.at("group_size"), "2");
            EXPECT_EQ(row.at("bound"), "communication");
        }
    }
    EXPECT_EQ(count, ops.size());
    EXPECT_TRUE(all_reduce);
    const CliResult v = validate_op_table(out + "/table.csv");
    EXPECT_EQ(v.exit_code, 0) << v.output;
}

TEST(TraceCli, OpTableOfTheWrongInputsWritesNothing) {
    const std::string dir = scratch("optable-bad");
    fs::create_directories(dir);
    const std::string tiny = std::string(ASIM_SOURCE_DIR) + "/traces/samples/tiny_mlp.jsonl";
    ASSERT_EQ(run_cli("run --trace " + tiny + " --out " + dir + "/run").exit_code, 0);
    const std::string out = dir + "/table.csv";
    const auto bad = [&](const std::string& args, std::initializer_list<const char*> needles) {
        expect_bad("trace export " + args + " --out " + out, out, needles);
        const CliResult r = run_cli("trace export " + args + " --out " + out);
        // One message, one line.
        EXPECT_EQ(r.output.find("ascend-sim: error:"), r.output.rfind("ascend-sim: error:"))
            << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    };
    bad("--to op-tabel --run " + dir + "/run", {"ascend-sim: error:", "op-tabel", "op-table"});
    bad("--to op-table --run " + dir, {"ascend-sim: error:", "has no ops.csv"});
    // A trace that is not the run's: the ids of tiny_mlp are 0..4, the fixture's kinds differ.
    ASSERT_EQ(run_cli("trace import --from pytorch-et " + kFixtures +
                      "pytorch_et_small_transformer.json --out " + dir + "/et.jsonl")
                  .exit_code,
              0);
    bad("--to op-table --run " + dir + "/run --trace " + dir + "/et.jsonl",
        {"ascend-sim: error:", "ops.csv:2: op 0 is a norm in the run but a matmul in the trace",
         "--trace"});
    // The same ops, but one fewer than the run replayed.
    std::string text = read(tiny);
    text.erase(text.rfind("{\"id\":4"));
    asim::test::write_text(dir + "/short.jsonl", text);
    bad("--to op-table --run " + dir + "/run --trace " + dir + "/short.jsonl",
        {"ascend-sim: error:", "ops.csv:6: op 4 is not in the trace"});
    // A run of the built-in trace has no file to read the shapes from.
    fs::copy(dir + "/run", dir + "/builtin");
    std::string stats = read(dir + "/builtin/stats.json");
    const std::string key = "\"trace\": \"";
    const auto at = stats.find(key);
    ASSERT_NE(at, std::string::npos) << stats.substr(0, 400);
    stats.replace(at + key.size(), stats.find('"', at + key.size()) - at - key.size(),
                  "builtin:llama3-70b-layer");
    fs::remove(dir + "/builtin/stats.json");
    asim::test::write_text(dir + "/builtin/stats.json", stats);
    bad("--to op-table --run " + dir + "/builtin",
        {"ascend-sim: error:", "built-in trace", "--trace"});
}
