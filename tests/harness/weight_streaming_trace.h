// A weight-streaming op trace shared by the H-JSD end-to-end and RTL-in-the-loop tests.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace asim::test {

// Four layers of: a vector phase (much compute on a small, L2-resident tensor) then a GEMM with
// M = 16 tokens and 8 MiB of weights that nobody has read before.
inline std::string weight_streaming_trace(const std::string& dir) {
    const std::string path = dir + "/stream.jsonl";
    std::ofstream f(path);
    f << R"({"format":"ascend-sim-trace","version":1,"name":"weight streaming","dies":1,"die":0})"
      << "\n";
    uint64_t id = 0;
    auto tensor = [](const char* name, uint64_t addr, uint64_t bytes, const char* stream) {
        return nlohmann::json{{"name", name}, {"addr", addr}, {"bytes", bytes}, {"stream", stream}};
    };
    for (int layer = 0; layer < 4; ++layer) {
        nlohmann::json vec = {{"id", id},
                              {"op", "activation"},
                              {"func", "gelu"},
                              {"elements", 64ULL << 20},
                              {"inputs", {tensor("x", 0x10000000, 4 << 20, "activation")}},
                              {"outputs", {tensor("y", 0x20000000, 4 << 20, "activation")}}};
        if (id) vec["deps"] = {id - 1};
        f << vec.dump() << "\n";
        ++id;
        const uint64_t w = 0x100000000ULL + static_cast<uint64_t>(layer) * (64ULL << 20);
        nlohmann::json gemm = {{"id", id},
                               {"op", "matmul"},
                               {"m", 16},
                               {"n", 4096},
                               {"k", 1024},
                               {"deps", {id - 1}},
                               {"inputs",
                                {tensor("a", 0x20000000, 16 * 1024 * 2, "activation"),
                                 tensor("w", w, 4096ULL * 1024 * 2, "weight")}},
                               {"outputs", {tensor("c", 0x30000000, 16 * 4096 * 2, "activation")}}};
        f << gemm.dump() << "\n";
        ++id;
    }
    return path;
}

}  // namespace asim::test
