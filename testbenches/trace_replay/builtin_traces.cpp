#include "testbenches/trace_replay/builtin_traces.h"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/common/errors.h"

namespace asim {

namespace {

// Hands out tensor addresses: weights and activations in separate regions, 4 KiB aligned.
class AddressPlan {
public:
    nlohmann::json weight(const std::string& name, uint64_t bytes) { return take(name, bytes, "weight", m_weights); }
    nlohmann::json activation(const std::string& name, uint64_t bytes) {
        return take(name, bytes, "activation", m_activations);
    }

private:
    static nlohmann::json take(const std::string& name, uint64_t bytes, const char* stream, uint64_t& next) {
        char addr[32];
        std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(next));
        next += (bytes + 4095) / 4096 * 4096;
        return {{"name", name}, {"addr", addr}, {"bytes", bytes}, {"stream", stream}};
    }
    uint64_t m_weights = 0x1'0000'0000ULL;
    uint64_t m_activations = 0x10'0000'0000ULL;
};

}  // namespace

BuiltinTrace builtin_llama3_70b_layer() {
    // Llama-3-70B: hidden 8192, 80 layers, 64 heads, 8 KV heads, head dim 128, FFN 28672.
    constexpr uint64_t kTp = 8, kSeq = 4096, kHidden = 8192, kHeadDim = 128;
    constexpr uint64_t kHeads = 64 / kTp, kKvHeads = 8 / kTp, kFfn = 28672 / kTp;
    constexpr uint64_t kBytes = 2;  // bf16
    constexpr uint64_t kQ = kHeads * kHeadDim, kKv = kKvHeads * kHeadDim;

    AddressPlan mem;
    std::string text;
    auto emit = [&text](const nlohmann::json& j) { text += j.dump() + "\n"; };
    emit({{"format", "ascend-sim-trace"},
          {"version", 1},
          {"name", "llama3-70b decoder layer, TP shard 1/8, seq 4096, bf16, forward (built-in)"},
          {"model", "llama3-70b"},
          {"dies", 1},
          {"die", 0}});

    uint64_t id = 0;
    auto op = [&](nlohmann::json j) {
        j["id"] = id;
        if (id > 0) j["deps"] = {id - 1};
        ++id;
        emit(j);
    };
    const auto x = mem.activation("x", kSeq * kHidden * kBytes);
    const auto attn_norm_w = mem.weight("attn_norm.weight", kHidden * kBytes);
    const auto h = mem.activation("h", kSeq * kHidden * kBytes);
    op({{"op", "norm"}, {"name", "attn_norm"}, {"func", "rmsnorm"}, {"rows", kSeq}, {"cols", kHidden},
        {"inputs", {x, attn_norm_w}}, {"outputs", {h}}});

    const auto w_qkv = mem.weight("wqkv", kHidden * (kQ + 2 * kKv) * kBytes);
    const auto qkv = mem.activation("qkv", kSeq * (kQ + 2 * kKv) * kBytes);
    op({{"op", "matmul"}, {"name", "qkv_proj"}, {"m", kSeq}, {"n", kQ + 2 * kKv}, {"k", kHidden},
        {"inputs", {h, w_qkv}}, {"outputs", {qkv}}});

    const auto q = mem.activation("q", kSeq * kQ * kBytes);
    const auto k = mem.activation("k", kSeq * kKv * kBytes);
    const auto v = mem.activation("v", kSeq * kKv * kBytes);
    op({{"op", "elementwise"}, {"name", "rope"}, {"func", "rope"}, {"elements", kSeq * (kQ + kKv)},
        {"inputs", {qkv}}, {"outputs", {q, k}}});

    const auto attn = mem.activation("attn", kSeq * kQ * kBytes);
    op({{"op", "fused_attention"}, {"name", "attention"}, {"batch", 1}, {"heads", kHeads},
        {"kv_heads", kKvHeads}, {"q_len", kSeq}, {"kv_len", kSeq}, {"head_dim", kHeadDim},
        {"causal", true}, {"inputs", {q, k, v}}, {"outputs", {attn}}});

    const auto w_o = mem.weight("wo", kQ * kHidden * kBytes);
    const auto o = mem.activation("o", kSeq * kHidden * kBytes);
    op({{"op", "matmul"}, {"name", "o_proj"}, {"m", kSeq}, {"n", kHidden}, {"k", kQ},
        {"inputs", {attn, w_o}}, {"outputs", {o}}});

    const auto x1 = mem.activation("x1", kSeq * kHidden * kBytes);
    op({{"op", "elementwise"}, {"name", "attn_residual"}, {"func", "add"}, {"elements", kSeq * kHidden},
        {"inputs", {x, o}}, {"outputs", {x1}}});

    const auto ffn_norm_w = mem.weight("ffn_norm.weight", kHidden * kBytes);
    const auto h2 = mem.activation("h2", kSeq * kHidden * kBytes);
    op({{"op", "norm"}, {"name", "ffn_norm"}, {"func", "rmsnorm"}, {"rows", kSeq}, {"cols", kHidden},
        {"inputs", {x1, ffn_norm_w}}, {"outputs", {h2}}});

    const auto w_gate_up = mem.weight("w_gate_up", kHidden * 2 * kFfn * kBytes);
    const auto gate_up = mem.activation("gate_up", kSeq * 2 * kFfn * kBytes);
    op({{"op", "matmul"}, {"name", "gate_up_proj"}, {"m", kSeq}, {"n", 2 * kFfn}, {"k", kHidden},
        {"inputs", {h2, w_gate_up}}, {"outputs", {gate_up}}});

    const auto act = mem.activation("act", kSeq * kFfn * kBytes);
    op({{"op", "activation"}, {"name", "swiglu"}, {"func", "swiglu"}, {"elements", kSeq * kFfn},
        {"inputs", {gate_up}}, {"outputs", {act}}});

    const auto w_down = mem.weight("w_down", kFfn * kHidden * kBytes);
    const auto down = mem.activation("down", kSeq * kHidden * kBytes);
    op({{"op", "matmul"}, {"name", "down_proj"}, {"m", kSeq}, {"n", kHidden}, {"k", kFfn},
        {"inputs", {act, w_down}}, {"outputs", {down}}});

    const auto y = mem.activation("y", kSeq * kHidden * kBytes);
    op({{"op", "elementwise"}, {"name", "ffn_residual"}, {"func", "add"}, {"elements", kSeq * kHidden},
        {"inputs", {x1, down}}, {"outputs", {y}}});

    return {kDefaultTrace,
            "Llama-3-70B decoder layer, TP shard 1/8, seq 4096, bf16, forward (TP all-reduces left out)",
            text};
}

const std::vector<std::string>& builtin_trace_names() {
    static const std::vector<std::string> names = {kDefaultTrace};
    return names;
}

BuiltinTrace builtin_trace(const std::string& name) {
    if (name == kDefaultTrace) return builtin_llama3_70b_layer();
    throw InputError("unknown built-in trace '" + name + "' (available: " + kDefaultTrace + ")");
}

}  // namespace asim
