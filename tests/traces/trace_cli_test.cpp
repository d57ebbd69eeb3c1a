// `ascend-sim trace ...` through the binary: outputs, the built-in trace being generator output,
// and bad input (exit 2, one message with the reason and location, nothing left behind).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "testbenches/trace_gen/generator.h"

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::CliResult;
using asim::test::run_cli;
std::string scratch(const std::string& name) { return asim::test::scratch_path("tc", name); }
std::string read(const std::string& path) { return asim::test::read_text(path); }

void expect_bad(const std::string& args, const std::string& out, std::initializer_list<const char*> needles) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    for (const char* n : needles) EXPECT_NE(r.output.find(n), std::string::npos) << "missing '" << n << "' in: " << r.output;
    if (!out.empty()) {
        EXPECT_FALSE(fs::exists(out)) << "bad input left " << out << " behind";
    }
}

}  // namespace

TEST(TraceCli, GenWritesOneFilePerDieAndAnIndexThatStatsReads) {
    const std::string out = scratch("gen");
    const CliResult r = run_cli("trace gen --model llama3-8b --phase train --batch 2 --seq 256 --tp 2 --dp 2 --layers 2 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (int d = 0; d < 4; ++d) EXPECT_TRUE(fs::exists(out + "/die" + std::to_string(d) + ".jsonl")) << d;
    const auto index = nlohmann::json::parse(read(out + "/index.json"));
    EXPECT_EQ(index["format"], "ascend-sim-trace-index");
    EXPECT_EQ(index["dies"], 4);
    EXPECT_EQ(index["groups"]["tp"], nlohmann::json::parse("[[0,1],[2,3]]"));
    EXPECT_EQ(index["groups"]["dp"], nlohmann::json::parse("[[0,2],[1,3]]"));
    const CliResult s = run_cli("trace stats --json " + out);
    ASSERT_EQ(s.exit_code, 0) << s.output;
    const auto j = nlohmann::json::parse(s.output);
    for (const char* k : {"parameters", "tokens", "flops_total", "flops_gemm", "flops_attention", "flops_other",
                          "bytes_read", "bytes_written", "collective_bytes"}) {
        EXPECT_TRUE(j.contains(k)) << k;
    }
    EXPECT_EQ(j["tokens"], 512);
    EXPECT_GT(j["collective_bytes"]["all_reduce"].get<double>(), 0);
    // A single die file works too.
    EXPECT_EQ(run_cli("trace stats " + out + "/die1.jsonl").exit_code, 0);
    // Help texts exist for every subcommand.
    for (const char* sub : {"trace --help", "trace gen --help", "trace stats --help", "trace import --help"}) {
        EXPECT_EQ(run_cli(sub).exit_code, 0) << sub;
    }
}

TEST(TraceCli, BuiltinDefaultTraceIsTheGeneratorsOutput) {
    // `trace gen` with the built-in's options writes, for die 0, the text `run` replays by default.
    const std::string out = scratch("builtin");
    const CliResult r = run_cli("trace gen --model llama3-70b --phase prefill --batch 1 --seq 4096 --tp 8 --layers 1 "
                                "--no-embedding --no-collectives --die 0 --out " + out);
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
    const CliResult r = run_cli("trace import --from pytorch-et " + std::string(ASIM_SOURCE_DIR) +
                                "/traces/fixtures/pytorch_et_small_transformer.json --out " + out + "/t.jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("aten::linear x5"), std::string::npos) << r.output;
    const CliResult s = run_cli("trace stats --json " + out + "/t.jsonl");
    ASSERT_EQ(s.exit_code, 0) << s.output;
    EXPECT_EQ(nlohmann::json::parse(s.output)["flops_gemm"].get<double>(), 3686400.0);
}

TEST(TraceCli, UnknownModelSuggestsTheClosest) {
    const std::string out = scratch("bad-model");
    expect_bad("trace gen --model llama3-70 --seq 16 --out " + out, out, {"unknown model 'llama3-70'", "did you mean"});
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
    expect_bad("trace gen --model llama3-70b --seq 16 --tp 3 --out " + out, out, {"heads (64)", "TP 3"});
    expect_bad("trace gen --model llama3-70b --seq 16 --pp 3 --out " + out, out, {"layers (80)", "PP 3"});
    expect_bad("trace gen --model deepseek-v3 --seq 16 --dp 3 --batch 3 --ep 3 --out " + out, out,
               {"experts (256)", "EP 3"});
    expect_bad("trace gen --model mixtral-8x7b --seq 16 --ep 4 --dp 2 --batch 2 --out " + out, out,
               {"TP x DP = 2", "EP 4"});
    expect_bad("trace gen --model llama3-70b --seq 16 --batch 3 --dp 2 --out " + out, out, {"batch (3)", "DP 2"});
}

TEST(TraceCli, BadExecutionTraces) {
    const std::string dir = scratch("bad-et");
    fs::create_directories(dir);
    std::ofstream(dir + "/x.json") << "not json at all";
    expect_bad("trace import --from pytorch-et " + dir + "/x.json --out " + dir + "/o.jsonl", dir + "/o.jsonl",
               {"x.json", "not a PyTorch execution trace"});
    std::ofstream(dir + "/y.json")
        << R"({"nodes":[{"id":1,"name":"t","parent":1},{"id":2,"name":"aten::bmm","parent":1,"inputs":[],"input_types":[]}]})";
    expect_bad("trace import --from pytorch-et " + dir + "/y.json --out " + dir + "/o.jsonl", dir + "/o.jsonl",
               {"y.json: node 2 (aten::bmm)", "input_shapes"});
    expect_bad("trace import --from chakra " + dir + "/y.json --out " + dir + "/o.jsonl", dir + "/o.jsonl", {"chakra"});
    expect_bad("trace stats " + dir + "/missing.jsonl", "", {"missing.jsonl"});
}
