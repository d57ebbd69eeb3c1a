// The H-JSD end to end: on a weight-streaming trace (small-M GEMMs whose weights are read once,
// between vector phases that leave HBM idle), prefetching ahead makes the step faster and its
// prefetches are used; depth 0 issues nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

nlohmann::json run(const std::string& trace, const std::string& sets, const std::string& out) {
    const std::string cmd = std::string(ASIM_BINARY) + " run --trace " + trace + " " + sets + " --out " + out +
                            " > /dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
    std::ifstream in(out + "/stats.json");
    return nlohmann::json::parse(in)["summary"];
}

// Four layers of: a vector phase (much compute on a small, L2-resident tensor) then a GEMM with
// M = 16 tokens and 8 MiB of weights that nobody has read before.
std::string weight_streaming_trace(const std::string& dir) {
    const std::string path = dir + "/stream.jsonl";
    std::ofstream f(path);
    f << R"({"format":"ascend-sim-trace","version":1,"name":"weight streaming","dies":1,"die":0})" << "\n";
    uint64_t id = 0;
    auto tensor = [](const char* name, uint64_t addr, uint64_t bytes, const char* stream) {
        return nlohmann::json{{"name", name}, {"addr", addr}, {"bytes", bytes}, {"stream", stream}};
    };
    for (int layer = 0; layer < 4; ++layer) {
        nlohmann::json vec = {{"id", id}, {"op", "activation"}, {"func", "gelu"}, {"elements", 64ULL << 20},
                              {"inputs", {tensor("x", 0x10000000, 4 << 20, "activation")}},
                              {"outputs", {tensor("y", 0x20000000, 4 << 20, "activation")}}};
        if (id) vec["deps"] = {id - 1};
        f << vec.dump() << "\n";
        ++id;
        const uint64_t w = 0x100000000ULL + static_cast<uint64_t>(layer) * (64ULL << 20);
        nlohmann::json gemm = {{"id", id}, {"op", "matmul"}, {"m", 16}, {"n", 4096}, {"k", 1024},
                               {"deps", {id - 1}},
                               {"inputs", {tensor("a", 0x20000000, 16 * 1024 * 2, "activation"),
                                           tensor("w", w, 4096ULL * 1024 * 2, "weight")}},
                               {"outputs", {tensor("c", 0x30000000, 16 * 4096 * 2, "activation")}}};
        f << gemm.dump() << "\n";
        ++id;
    }
    return path;
}

TEST(HjsdEndToEnd, PrefetchSpeedsUpWeightStreaming) {
    const fs::path dir = fs::path(::testing::TempDir()) / ("asim-hjsd-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string trace = weight_streaming_trace(dir.string());
    const auto off = run(trace, "--set die.hjsd.prefetch_depth=0", (dir / "d0").string());
    const auto on = run(trace, "--set die.hjsd.prefetch_depth=5", (dir / "d5").string());
    EXPECT_EQ(off["prefetch"]["issued"], 0u);
    EXPECT_GT(on["prefetch"]["issued"].get<uint64_t>(), 0u);
    EXPECT_GT(on["prefetch"]["useful"].get<uint64_t>(), 0u);
    EXPECT_GT(on["hbm_prefetch_bytes"].get<uint64_t>(), 0u);
    EXPECT_LT(on["sim_time_ns"].get<double>(), off["sim_time_ns"].get<double>());
    EXPECT_GT(on["l2_weight_hit_rate"].get<double>(), off["l2_weight_hit_rate"].get<double>());
    RecordProperty("speedup", std::to_string(off["sim_time_ns"].get<double>() / on["sim_time_ns"].get<double>()));
    fs::remove_all(dir);
}

TEST(HjsdEndToEnd, BadRegistersAreInputErrors) {
    for (const char* set : {"die.hjsd.prefetch_depth=16", "die.hjsd.chunk=3000B", "die.hjsd.credits.weight=64MiB"}) {
        const std::string cmd = std::string(ASIM_BINARY) + " run --set " + set + " --out /nonexistent/x 2>&1";
        FILE* p = popen(cmd.c_str(), "r");
        std::string out;
        char buf[512];
        while (fgets(buf, sizeof buf, p)) out += buf;
        const int status = pclose(p);
        EXPECT_EQ(WEXITSTATUS(status), 2) << set << ": " << out;
        EXPECT_NE(out.find("die.hjsd"), std::string::npos) << out;
    }
}

}  // namespace
