// `run --functional`: the die moves real bytes and the Cube computes; every matmul result is
// compared with a reference matmul (exact for int8, within the stated tolerance for floats),
// on square and ragged shapes, and a chain whose second matmul reads the first one's output.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"

namespace fs = std::filesystem;

namespace {

using asim::test::run_cli;

std::string tensor(const char* name, uint64_t addr, uint64_t bytes) {
    return std::string(R"({"name":")") + name + R"(","addr":)" + std::to_string(addr) +
           R"(,"bytes":)" + std::to_string(bytes) + "}";
}

std::string matmul_op(int id, uint64_t m, uint64_t n, uint64_t k, const char* dtype,
                      uint64_t in_bytes, uint64_t out_bytes, uint64_t a, uint64_t b, uint64_t c,
                      const std::string& deps = "") {
    return R"({"id":)" + std::to_string(id) + R"(,"op":"matmul","name":"mm)" + std::to_string(id) +
           R"(","m":)" + std::to_string(m) + R"(,"n":)" + std::to_string(n) + R"(,"k":)" +
           std::to_string(k) + R"(,"dtype":")" + dtype + R"(","inputs":[)" +
           tensor("a", a, m * k * in_bytes) + "," + tensor("b", b, k * n * in_bytes) +
           R"(],"outputs":[)" + tensor("c", c, m * n * out_bytes) + "]" +
           (deps.empty() ? "" : R"(,"deps":[)" + deps + "]") + "}";
}

// Runs `ops` functionally; returns the summary's `functional` block (null on failure).
nlohmann::json run_functional(const std::string& name, const std::vector<std::string>& ops,
                              int want_exit = 0, std::string* output = nullptr,
                              nlohmann::json* stats = nullptr) {
    const std::string dir = asim::test::scratch_path("functional", name);
    fs::create_directories(dir);
    std::string text = R"({"format":"ascend-sim-trace","version":1,"name":"f","dies":1,"die":0})"
                       "\n";
    for (const auto& op : ops) text += op + "\n";
    asim::test::write_text(dir + "/t.jsonl", text);
    const auto r = run_cli("run --functional --trace " + dir + "/t.jsonl --out " + dir + "/out");
    if (output) *output = r.output;
    EXPECT_EQ(r.exit_code, want_exit) << r.output;
    if (r.exit_code != 0) return nullptr;
    const auto doc = nlohmann::json::parse(asim::test::read_text(dir + "/out/stats.json"));
    if (stats) *stats = doc["stats"];
    return doc["summary"]["functional"];
}

constexpr uint64_t kB = 1ULL << 28, kC = 1ULL << 29, kD = 3ULL << 28;

TEST(Functional, Int8Gemm512IsExact) {
    const auto f = run_functional("i8", {matmul_op(0, 512, 512, 512, "int8", 1, 4, 0, kB, kC)});
    ASSERT_FALSE(f.is_null());
    EXPECT_EQ(f["matmuls_checked"], 1);
    EXPECT_EQ(f["elements"], 512 * 512);
    EXPECT_EQ(f["mismatches"], 0);
}

TEST(Functional, RaggedInt8GemmIsExact) {
    const auto f = run_functional("ri8", {matmul_op(0, 333, 129, 77, "int8", 1, 4, 0, kB, kC)});
    ASSERT_FALSE(f.is_null());
    EXPECT_EQ(f["elements"], 333 * 129);
    EXPECT_EQ(f["mismatches"], 0);
}

TEST(Functional, Bf16AndFp32WithinTheStatedTolerance) {
    const auto bf = run_functional("bf16", {matmul_op(0, 300, 200, 100, "bf16", 2, 2, 0, kB, kC)});
    ASSERT_FALSE(bf.is_null());
    EXPECT_EQ(bf["mismatches"], 0);
    EXPECT_GT(bf["max_error_relative_to_sum_abs_products"].get<double>(),
              0.0);  // bf16 output does round
    EXPECT_LE(bf["max_error_relative_to_sum_abs_products"].get<double>(),
              bf["tolerance"].get<double>());
    const auto fp = run_functional("fp32", {matmul_op(0, 256, 384, 320, "fp32", 4, 4, 0, kB, kC)});
    ASSERT_FALSE(fp.is_null());
    EXPECT_EQ(fp["mismatches"], 0);
    EXPECT_LT(fp["max_error_relative_to_sum_abs_products"].get<double>(), 1e-5);
}

TEST(Functional, ChainedMatmulReadsThePreviousResult) {
    // C = A x B (fp32 out), then E = C x D: the second op's A is the first op's output bytes.
    const auto f = run_functional(
        "chain", {matmul_op(0, 128, 256, 64, "fp32", 4, 4, 0, kB, kC),
                  matmul_op(1, 128, 96, 256, "fp32", 4, 4, kC, kD, 1ULL << 30, "0")});
    ASSERT_FALSE(f.is_null());
    EXPECT_EQ(f["matmuls_checked"], 2);
    EXPECT_EQ(f["mismatches"], 0);
}

// Few output blocks and a deep K: the split_k scheduler cuts every block along K over the cores;
// the partial sums meet by atomic add, in C itself for 32-bit outputs, or in the fp32 workspace
// that the vector cores convert into C's format afterwards (ragged in every dimension).
TEST(Functional, SplitKPartialSumsAddUpExactly) {
    nlohmann::json stats;
    const auto i8 = run_functional(
        "splitk_i8", {matmul_op(0, 64, 64, 4096, "int8", 1, 4, 0, kB, kC)}, 0, nullptr, &stats);
    ASSERT_FALSE(i8.is_null());
    EXPECT_EQ(i8["elements"], 64 * 64);
    EXPECT_EQ(i8["mismatches"], 0);
    EXPECT_EQ(stats["die"]["l2"]["atomic_add_bytes"].get<double>(), 16.0 * 64 * 64 * 4)
        << "16 pieces into C";
    const auto bf = run_functional(
        "splitk_bf16", {matmul_op(0, 100, 70, 2000, "bf16", 2, 2, 0, kB, kC)}, 0, nullptr, &stats);
    ASSERT_FALSE(bf.is_null());
    EXPECT_EQ(bf["elements"], 100 * 70);
    EXPECT_EQ(bf["mismatches"], 0);
    EXPECT_LE(bf["max_error_relative_to_sum_abs_products"].get<double>(),
              bf["tolerance"].get<double>());
    EXPECT_GT(stats["die"]["l2"]["atomic_add_bytes"].get<double>(), 0.0)
        << "the K split did not happen";
}

TEST(Functional, UnsupportedDtypeAndTooLargeOpsAreRefused) {
    std::string out;
    run_functional("fp8", {matmul_op(0, 64, 64, 64, "fp8", 1, 2, 0, kB, kC)}, 2, &out);
    EXPECT_NE(out.find("t.jsonl:2"), std::string::npos) << out;
    EXPECT_NE(out.find("--functional computes int8, bf16, fp16 and fp32, not fp8"),
              std::string::npos)
        << out;
    run_functional("big", {matmul_op(0, 2048, 2048, 2048, "bf16", 2, 2, 0, 1ULL << 33, 1ULL << 34)},
                   2, &out);
    EXPECT_NE(out.find("up to 2^30 multiply-adds"), std::string::npos) << out;
}

}  // namespace
