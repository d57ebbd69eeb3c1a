#include "testbenches/trace_gen/model_config.h"

#include <filesystem>

#include "models/common/errors.h"

namespace asim::tracegen {

namespace {

// Resolves a model name to a built-in YAML or a file on disk.
EmbeddedPresetResolver model_resolver() {
    std::vector<EmbeddedYaml> models;
    for (const auto& m : builtin_models()) models.push_back({m.name, m.display_name, m.yaml});
    return EmbeddedPresetResolver("model", std::move(models));
}

constexpr Range kPositive{1, 1e15};

uint64_t positive(const ConfigNode& n, const std::string& key) {
    return static_cast<uint64_t>(n.integer(key, kPositive));
}

uint64_t norm_parameters(const ModelConfig& m) { return m.layernorm ? 2 * m.hidden : m.hidden; }

uint64_t ffn_parameters(const ModelConfig& m) {
    const uint64_t h = m.hidden, i = m.ffn.intermediate;
    if (m.ffn.activation == FfnConfig::Activation::kSwiglu) {
        return 3 * h * i + (m.ffn.bias ? 2 * i + h : 0);
    }
    return 2 * h * i + (m.ffn.bias ? i + h : 0);
}

uint64_t expert_parameters(const ModelConfig& m) { return 3 * m.hidden * m.moe.intermediate; }

}  // namespace

uint64_t ModelConfig::attn_out_dim() const {
    return attention.type == AttentionConfig::Type::kMla ? attention.heads * attention.v_head_dim
                                                         : attention.heads * attention.head_dim;
}

uint64_t attention_parameters(const ModelConfig& m) {
    const AttentionConfig& a = m.attention;
    const uint64_t h = m.hidden;
    if (a.type == AttentionConfig::Type::kGqa) {
        const uint64_t q = a.heads * a.head_dim, kv = a.kv_heads * a.head_dim;
        return h * (q + 2 * kv) + q * h + (a.bias ? q + 2 * kv + h : 0) +
               (a.qk_norm ? 2 * a.head_dim : 0);
    }
    const uint64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const uint64_t q_part = a.q_lora_rank > 0
                                ? h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * a.heads * qk
                                : h * a.heads * qk;
    const uint64_t kv_part = h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank +
                             a.kv_lora_rank * a.heads * (a.qk_nope_head_dim + a.v_head_dim);
    return q_part + kv_part + a.heads * a.v_head_dim * h;
}

uint64_t layer_parameters(const ModelConfig& m, uint64_t layer) {
    const uint64_t base = attention_parameters(m) + 2 * norm_parameters(m);
    if (!m.is_moe_layer(layer)) return base + ffn_parameters(m);
    return base + (m.moe.experts + m.moe.shared_experts) * expert_parameters(m) +
           m.moe.experts * m.hidden;
}

uint64_t layer_active_parameters(const ModelConfig& m, uint64_t layer) {
    if (!m.is_moe_layer(layer)) return layer_parameters(m, layer);
    return attention_parameters(m) + 2 * norm_parameters(m) +
           (m.moe.top_k + m.moe.shared_experts) * expert_parameters(m) + m.moe.experts * m.hidden;
}

ParameterCount count_parameters(const ModelConfig& m) {
    ParameterCount c;
    c.embedding = m.vocab * m.hidden + (m.rope ? 0 : m.max_positions * m.hidden);
    c.lm_head = m.tied_embeddings ? 0 : m.vocab * m.hidden;
    c.total = c.embedding + c.lm_head + norm_parameters(m);
    c.active = c.total;
    for (uint64_t l = 0; l < m.layers; ++l) {
        c.total += layer_parameters(m, l);
        c.active += layer_active_parameters(m, l);
    }
    return c;
}

ModelConfig parse_model(const ConfigNode& root, const std::string& name,
                        const std::string& source) {
    ModelConfig m;
    m.name = root.string("name", name);
    m.source = source;
    m.description = root.string("description", "");
    m.vocab = positive(root, "vocab_size");
    m.hidden = positive(root, "hidden_size");
    m.layers = positive(root, "layers");
    m.layernorm = root.choice("norm", {"rmsnorm", "layernorm"}) == "layernorm";
    m.rope = root.choice("position", {"rope", "learned"}) == "rope";
    if (!m.rope) m.max_positions = positive(root, "max_positions");
    m.tied_embeddings = root.boolean("tie_word_embeddings");

    const ConfigNode a = root.child("attention");
    AttentionConfig& at = m.attention;
    at.type = a.choice("type", {"gqa", "mla"}) == "mla" ? AttentionConfig::Type::kMla
                                                        : AttentionConfig::Type::kGqa;
    at.heads = positive(a, "heads");
    if (at.type == AttentionConfig::Type::kGqa) {
        at.kv_heads = positive(a, "kv_heads");
        at.head_dim = positive(a, "head_dim");
        at.qk_norm = a.boolean("qk_norm", false);
        at.bias = a.boolean("bias", false);
        if (at.heads % at.kv_heads != 0) {
            a.fail("kv_heads", "heads (" + std::to_string(at.heads) +
                                   ") must be a multiple of kv_heads (" +
                                   std::to_string(at.kv_heads) + ")");
        }
    } else {
        at.q_lora_rank = static_cast<uint64_t>(a.integer("q_lora_rank", 0, {0, 1e9}));
        at.kv_lora_rank = positive(a, "kv_lora_rank");
        at.qk_nope_head_dim = positive(a, "qk_nope_head_dim");
        at.qk_rope_head_dim = positive(a, "qk_rope_head_dim");
        at.v_head_dim = positive(a, "v_head_dim");
        at.kv_heads = at.heads;
    }

    const ConfigNode f = root.child("ffn");
    m.ffn.activation = f.choice("activation", {"swiglu", "gelu"}) == "gelu"
                           ? FfnConfig::Activation::kGelu
                           : FfnConfig::Activation::kSwiglu;
    m.ffn.intermediate = positive(f, "intermediate_size");
    m.ffn.bias = f.boolean("bias", false);

    if (auto moe = root.optional_child("moe")) {
        MoeConfig& e = m.moe;
        e.enabled = true;
        e.experts = positive(*moe, "experts");
        e.top_k = positive(*moe, "top_k");
        e.shared_experts = static_cast<uint64_t>(moe->integer("shared_experts", 0, {0, 1e6}));
        e.intermediate = positive(*moe, "intermediate_size");
        e.first_dense_layers =
            static_cast<uint64_t>(moe->integer("first_dense_layers", 0, {0, 1e6}));
        e.router = moe->choice("router", {"softmax", "sigmoid"}) == "sigmoid"
                       ? MoeConfig::Router::kSigmoid
                       : MoeConfig::Router::kSoftmax;
        if (e.top_k > e.experts) {
            moe->fail("top_k", "top_k (" + std::to_string(e.top_k) + ") exceeds experts (" +
                                   std::to_string(e.experts) + ")");
        }
        if (e.first_dense_layers > m.layers) {
            moe->fail("first_dense_layers", "more dense layers than layers");
        }
        if (m.ffn.activation != FfnConfig::Activation::kSwiglu) {
            f.fail("activation", "MoE experts are modelled as SwiGLU FFNs; use activation: swiglu");
        }
    }
    if (auto ref = root.optional_child("reference")) {
        m.reference_parameters = ref->real("parameters", 0, {0, 1e16});
        m.reference_active_parameters = ref->real("active_parameters", 0, {0, 1e16});
    }
    return m;
}

ModelConfig load_model(const std::string& name_or_path) {
    const EmbeddedPresetResolver resolver = model_resolver();
    Config config = Config::load(name_or_path, resolver);
    const std::string stem = std::filesystem::path(name_or_path).stem().string();
    const auto [text, display] = resolver.resolve(name_or_path, "");
    ModelConfig m = parse_model(config.root(), stem, display);
    config.check_unused();
    return m;
}

}  // namespace asim::tracegen
