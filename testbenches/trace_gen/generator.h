// Trace generator: per-die op traces (traces/FORMAT.md v1) of one step of a Transformer model
// under tensor, pipeline, data and expert parallelism. See README.md for the sharding rules,
// the routing model, the collective sizes and what is approximated.
//
// Generation streams: each die's file is written op by op while it is produced. What is held
// is one die's per-layer record of its forward ops (the "tape") for the microbatches whose
// backward pass has not run yet, and a table of that die's weight names; both scale with the
// model's layers on the die, not with the trace's length.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/dtype.h"
#include "testbenches/trace_gen/model_config.h"

namespace asim::tracegen {

enum class Phase { kPrefill, kDecode, kTrain };
enum class Routing { kUniform, kSkewed };

struct GenOptions {
    Phase phase = Phase::kPrefill;
    uint64_t batch = 1;   // sequences per step, over all data-parallel replicas
    uint64_t seq = 0;     // prefill/train: tokens per sequence; decode: context so far
    uint64_t kv_len = 0;  // key/value positions attended to; 0 means `seq`
    uint64_t tp = 1, pp = 1, dp = 1, ep = 1;
    uint64_t microbatches = 1;           // per data-parallel replica (pipeline schedule: 1F1B)
    uint64_t layers = 0;                 // decoder layers; 0 means the model's
    DType dtype = DType::kBf16;          // GEMM dtype: bf16, fp8 or fp4
    bool sequence_parallel = false;      // TP collectives as reduce-scatter + all-gather
    bool distributed_optimizer = false;  // DP gradients reduce-scattered, optimizer sharded
    // DP gradient buckets over the decoder layers: 0 = one per layer (each synchronised as soon as
    // its backward is done); N = the layers in N buckets of consecutive layers, each synchronised
    // when its first layer's backward is done (1: one all-reduce after the whole backward).
    uint64_t grad_buckets = 0;
    // Steps one after another in each die's trace (the model's weights the same tensors in
    // each): a train step's forward reads the weights the step before updated, so it waits for
    // their optimizer update (and with it their gradient synchronisation); op names from the
    // second step on start with "stepN.".
    uint64_t steps = 1;
    bool collectives = true;  // false: leave every collective out (single-die replay)
    bool embedding = true;    // false: leave the embedding, final norm and LM head out
    Routing routing = Routing::kUniform;
    double skew = 1.2;  // Zipf exponent of expert popularity (skewed routing)
    uint64_t seed = 1;
    std::vector<int> only_dies;  // generate only these dies (empty: all)
    // Placement in the memory tiers (DESIGN §5b; traces/FORMAT.md "Memory tiers"): hbm,
    // a registered pool tier (tier_names()). Expert weights default to the weights' tier.
    std::string weights_tier = "hbm";
    std::string expert_weights_tier;  // empty: as weights_tier
    std::string kv_tier = "hbm";
    uint64_t hbm_capacity = 288ULL << 30;  // long-lived tensors placed in hbm must fit it
    std::string name;                      // header name; empty: a description of the options
};

const char* to_string(Phase p);

// Layout of the dies: die = tp_rank + tp * (dp_rank + dp * pp_rank). Expert-parallel groups are
// `ep` consecutive dies of one pipeline stage (in tp_rank-fastest order).
struct DieCoord {
    uint64_t tp_rank = 0, dp_rank = 0, pp_rank = 0, ep_rank = 0, ep_group = 0;
};

class Generator {
public:
    // Checks the options against the model (divisibility of heads, layers, experts, batch);
    // throws InputError naming the first problem.
    Generator(ModelConfig model, GenOptions options);

    uint64_t dies() const { return m_world; }
    DieCoord coord(uint64_t die) const;
    // Tokens one step processes over all dies (batch x seq, or batch for decode).
    uint64_t step_tokens() const;
    uint64_t decoder_layers() const { return m_layers; }
    const ModelConfig& model() const { return m_model; }
    const GenOptions& options() const { return m_opt; }

    // Writes die `die`'s trace to `out` (header first, then every op).
    void write_die(uint64_t die, std::ostream& out) const;
    // The index file (traces/FORMAT.md, "Trace sets"): dies, files, groups, parallelism.
    nlohmann::ordered_json index(const std::string& file_pattern) const;

    // Tokens each routed expert of `layer` receives from an expert-parallel group that routes
    // `tokens` tokens (uniform, or Zipf-skewed with the seed; every token picks top_k distinct
    // experts, so no expert gets more than `tokens`).
    std::vector<uint64_t> expert_load(uint64_t layer, uint64_t tokens) const;

private:
    ModelConfig m_model;
    GenOptions m_opt;
    uint64_t m_world = 1;
    uint64_t m_layers = 0;
};

}  // namespace asim::tracegen
