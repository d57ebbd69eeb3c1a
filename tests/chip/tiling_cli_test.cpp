// Tiling choices compared on the whole die, one `ascend-sim run` per variant (a SystemC
// simulation elaborates once per process): split_k against blocked on a matmul whose last wave
// is partial, and fused attention against a narrower Cube-to-Vector path.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"

namespace asim::test {
namespace {

// Runs a one-op trace with `sets` (--set overrides); returns the summary.
nlohmann::json run_op(const std::string& name, const std::string& op,
                      const std::string& sets = "") {
    const std::string dir = scratch_path("tiling", name);
    std::filesystem::create_directories(dir);
    write_text(dir + "/t.jsonl",
               R"({"format":"ascend-sim-trace","version":1,"name":"t","dies":1,"die":0})"
               "\n" +
                   op + "\n");
    const auto r = run_cli("run --trace " + dir + "/t.jsonl --out " + dir + "/out " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return nlohmann::json::object();
    return nlohmann::json::parse(read_text(dir + "/out/stats.json"))["summary"];
}

// Llama-3-70B's TP-8 qkv_proj: 80 output blocks of 256 x 256 on 72 cores. Whole blocks need two
// waves, the second only 8 blocks long; split_k cuts those 8 along K over all the cores.
TEST(TilingCli, SplitKFillsTheLastPartialWave) {
    const std::string op =
        R"({"id":0,"op":"matmul","m":4096,"n":1280,"k":8192,"dtype":"bf16",)"
        R"("inputs":[{"name":"a","addr":0,"bytes":67108864,"stream":"activation"},)"
        R"({"name":"b","addr":4294967296,"bytes":20971520,"stream":"weight"}],)"
        R"("outputs":[{"name":"c","addr":8589934592,"bytes":10485760,"stream":"activation"}]})";
    const auto blocked = run_op("blocked", op, "--set die.aicore.tiling.matmul=blocked");
    const auto split = run_op("split", op);
    ASSERT_TRUE(blocked.contains("sim_time_ns") && split.contains("sim_time_ns"));
    const double t_blocked = blocked["sim_time_ns"].get<double>(),
                 t_split = split["sim_time_ns"].get<double>();
    RecordProperty("speedup", std::to_string(t_blocked / t_split));
    EXPECT_LT(t_split, 0.7 * t_blocked);
    EXPECT_LE(split["achieved_tflops"].get<double>(), split["peak_tflops"].get<double>());
    EXPECT_GT(split["cube_utilization"].get<double>(), 0.85);
    EXPECT_LT(blocked["cube_utilization"].get<double>(), 0.6);
}

// Fused attention's scores (fp32, L0C -> UB) and probabilities (UB -> L1) travel the direct
// Cube-to-Vector path; at 16 instead of 128 B/cycle it, not the Cube, sets the pace.
TEST(TilingCli, NarrowCubeToVectorPathSlowsAttention) {
    const std::string op =
        R"({"id":0,"op":"fused_attention","batch":1,"heads":64,"kv_heads":8,"q_len":2048,"kv_len":2048,)"
        R"("head_dim":128,"dtype":"bf16","causal":false,)"
        R"("inputs":[{"name":"q","addr":0,"bytes":33554432},{"name":"k","addr":1073741824,"bytes":4194304},)"
        R"({"name":"v","addr":2147483648,"bytes":4194304}],)"
        R"("outputs":[{"name":"o","addr":3221225472,"bytes":33554432}]})";
    const auto wide = run_op("wide", op);
    const auto narrow = run_op("narrow", op, "--set die.aicore.paths_bytes_per_cycle.l0c_to_ub=16");
    ASSERT_TRUE(wide.contains("sim_time_ns") && narrow.contains("sim_time_ns"));
    EXPECT_GT(narrow["sim_time_ns"].get<double>(), 1.5 * wide["sim_time_ns"].get<double>());
}

}  // namespace
}  // namespace asim::test
