// Transformer model configurations (traces/models/*.yaml, compiled into the binary) and the
// parameter counts that follow from them. The generator shards and times these shapes; the
// counts here are the analytical side of the "work adds up" checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/config.h"

namespace asim::tracegen {

struct AttentionConfig {
    enum class Type { kGqa, kMla };
    Type type = Type::kGqa;
    uint64_t heads = 0;
    uint64_t kv_heads = 0;  // GQA: key/value heads (== heads for multi-head attention)
    uint64_t head_dim = 0;  // GQA
    bool qk_norm = false;   // GQA: RMSNorm over head_dim on Q and K (Qwen3)
    bool bias = false;      // GQA: biases on the QKV and output projections (GPT-3)
    // MLA (DeepSeek-V2/V3): low-rank Q and compressed KV with a decoupled RoPE part.
    uint64_t q_lora_rank = 0;
    uint64_t kv_lora_rank = 0;
    uint64_t qk_nope_head_dim = 0;
    uint64_t qk_rope_head_dim = 0;
    uint64_t v_head_dim = 0;
};

struct FfnConfig {
    enum class Activation { kSwiglu, kGelu };
    Activation activation = Activation::kSwiglu;
    uint64_t intermediate = 0;
    bool bias = false;
};

struct MoeConfig {
    bool enabled = false;
    uint64_t experts = 0;  // routed experts
    uint64_t top_k = 0;
    uint64_t shared_experts = 0;  // always-active experts of the same size
    uint64_t intermediate = 0;    // per expert
    uint64_t first_dense_layers = 0;
    enum class Router { kSoftmax, kSigmoid };
    Router router = Router::kSoftmax;
};

struct ModelConfig {
    std::string name;    // file stem, e.g. "llama3-70b"
    std::string source;  // display name of the YAML it came from
    std::string description;
    uint64_t vocab = 0;
    uint64_t hidden = 0;
    uint64_t layers = 0;
    bool layernorm = false;      // false: RMSNorm (weight only); true: LayerNorm (weight and bias)
    bool rope = true;            // false: learned absolute position embeddings
    uint64_t max_positions = 0;  // learned positions only
    bool tied_embeddings = false;
    AttentionConfig attention;
    FfnConfig ffn;
    MoeConfig moe;
    double reference_parameters = 0;         // published total, for the config check
    double reference_active_parameters = 0;  // published activated (MoE), 0 when not given

    bool is_moe_layer(uint64_t layer) const {
        return moe.enabled && layer >= moe.first_dense_layers;
    }
    // Width of the attention output that the output projection reads (heads x value dim).
    uint64_t attn_out_dim() const;
};

// Analytical parameter counts (elements), straight from the configuration.
struct ParameterCount {
    uint64_t total = 0;
    uint64_t active = 0;     // per token: dense parts + top_k routed + shared experts
    uint64_t embedding = 0;  // token (+ position) embedding tables (no matmul FLOPs)
    uint64_t lm_head = 0;    // 0 when tied to the embedding
};
uint64_t attention_parameters(const ModelConfig& m);
uint64_t layer_parameters(const ModelConfig& m, uint64_t layer);
uint64_t layer_active_parameters(const ModelConfig& m, uint64_t layer);
ParameterCount count_parameters(const ModelConfig& m);

struct BuiltinModel {
    const char* name;          // file stem
    const char* display_name;  // "traces/models/NAME.yaml"
    const char* yaml;
};
const std::vector<BuiltinModel>& builtin_models();

// Loads a model: a built-in name (traces/models/*.yaml stem) or a path to a YAML file. Unknown
// names, unknown keys and bad values are ConfigErrors naming file, line and key.
ModelConfig load_model(const std::string& name_or_path);
// Parses an already loaded configuration (tests).
ModelConfig parse_model(const ConfigNode& root, const std::string& name, const std::string& source);

}  // namespace asim::tracegen
