// The generator's work adds up: parameter counts against the published ones, 6 x P x T for a
// dense training step, the active parameters of a MoE step, per-layer weight bytes, sums of
// sharded ops over dies, and collective bytes against the analytical formula per parallelism.
// Everything is read back through the v1 reader (trace_stats streams each file through it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "models/common/errors.h"
#include "models/common/trace.h"
#include "testbenches/trace_gen/generator.h"
#include "testbenches/trace_gen/trace_stats.h"

#include "tests/harness/scratch.h"

namespace fs = std::filesystem;
using namespace asim;
using namespace asim::tracegen;

namespace {

std::string scratch(const std::string& name) {
    const std::string p = asim::test::scratch_path("tg", name);
    fs::create_directories(p);
    return p;
}

// Generates every die of `o` for `model` into a fresh directory, as `trace gen` does.
std::string generate(const std::string& tag, const std::string& model, GenOptions o) {
    const std::string dir = scratch(tag);
    const Generator g(load_model(model), o);
    for (uint64_t d = 0; d < g.dies(); ++d) {
        std::ofstream out(dir + "/die" + std::to_string(d) + ".jsonl");
        g.write_die(d, out);
    }
    std::ofstream(dir + "/index.json") << g.index("die{die}.jsonl").dump();
    return dir;
}

// Reads every op of every die file of `dir` through the v1 reader.
template <typename F>
void for_each_op(const std::string& dir, F f) {
    for (uint64_t d = 0; fs::exists(dir + "/die" + std::to_string(d) + ".jsonl"); ++d) {
        trace::TraceReader r(dir + "/die" + std::to_string(d) + ".jsonl");
        trace::Op op;
        while (r.next(op)) f(d, op);
    }
}

double rel(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

// A small data-parallel training step of `layers` layers (2 sequences of 128 tokens, DP 2).
GenOptions small_dp_training(uint64_t layers) {
    GenOptions o;
    o.phase = Phase::kTrain;
    o.batch = 2;
    o.seq = 128;
    o.dp = 2;
    o.layers = layers;
    return o;
}

}  // namespace

TEST(ModelConfigs, EveryBuiltinModelMatchesItsPublishedParameterCount) {
    ASSERT_GE(builtin_models().size(), 7u);
    for (const auto& m : builtin_models()) {
        const ModelConfig c = load_model(m.name);
        const ParameterCount p = count_parameters(c);
        ASSERT_GT(c.reference_parameters, 0) << m.name;
        EXPECT_LT(rel(static_cast<double>(p.total), c.reference_parameters), 0.01)
            << m.name << ": counted " << p.total << ", published " << c.reference_parameters;
        if (c.reference_active_parameters > 0) {
            EXPECT_LT(rel(static_cast<double>(p.active), c.reference_active_parameters), 0.02)
                << m.name << ": counted active " << p.active;
        }
    }
    // Exact counts from the configs (hand-computed from the config.json values in the YAML).
    EXPECT_EQ(count_parameters(load_model("llama3-70b")).total, 70553706496u);
    EXPECT_EQ(count_parameters(load_model("llama3-8b")).total, 8030261248u);
    EXPECT_EQ(count_parameters(load_model("mixtral-8x7b")).total, 46702792704u);
}

TEST(TraceGen, DenseTrainingStepIsSixTimesParametersTimesTokens) {
    GenOptions o;
    o.phase = Phase::kTrain;
    o.batch = 1;
    o.seq = 4096;
    o.tp = 8;
    const std::string dir = generate("6pt", "llama3-70b", o);
    const TraceTotals t = trace_stats(dir);
    const ParameterCount p = count_parameters(load_model("llama3-70b"));
    EXPECT_EQ(t.parameters, p.total);  // every weight, each shard once
    EXPECT_EQ(t.tokens, 4096u);
    const double six_pt = 6.0 * static_cast<double>(t.parameters) * static_cast<double>(t.tokens);
    // GEMMs: forward 2, backward 4 FLOPs per matmul parameter and token; the embedding table
    // is a lookup (no FLOPs), so exactly 6 x (P - embedding - norms) x T.
    const uint64_t norms = 80 * 2 * 8192 + 8192;  // RMSNorm weights: no GEMM
    EXPECT_LT(rel(t.flops_gemm, 6.0 * static_cast<double>(p.total - p.embedding - norms) * 4096.0),
              1e-12);
    // The rule of thumb with all parameters, attention reported separately: within 2 %.
    EXPECT_LT(rel(t.flops_gemm + t.flops_other, six_pt), 0.02)
        << (t.flops_gemm + t.flops_other) / six_pt;
    EXPECT_GT(t.flops_attention, 0.0);
}

TEST(TraceGen, MoePrefillMatchesActiveParameters) {
    GenOptions o;
    o.phase = Phase::kPrefill;
    o.batch = 8;
    o.seq = 256;
    o.dp = 8;
    o.ep = 8;
    const std::string dir = generate("moe", "deepseek-v3", o);
    const TraceTotals t = trace_stats(dir);
    const ModelConfig m = load_model("deepseek-v3");
    const ParameterCount p = count_parameters(m);
    const double tokens = 8 * 256;
    // Forward GEMMs: 2 FLOPs per active matmul parameter and token (norm weights are not
    // matmul parameters); inference runs the LM head on each sequence's last position only.
    double active_matmul = 0, norms = m.hidden;
    for (uint64_t l = 0; l < m.layers; ++l) {
        const double layer_norms =
            2.0 * m.hidden + m.attention.q_lora_rank + m.attention.kv_lora_rank;
        active_matmul += static_cast<double>(layer_active_parameters(m, l)) - layer_norms;
        norms += layer_norms;
    }
    const double lm_head = 2.0 * static_cast<double>(p.lm_head) * 8;
    EXPECT_LT(rel(t.flops_gemm, 2.0 * active_matmul * tokens + lm_head), 1e-12);
    // Active parameters as the trace shows them, against the count and the published 37B.
    const double active = (t.flops_gemm - lm_head) / (2.0 * tokens) + norms +
                          static_cast<double>(p.embedding + p.lm_head);
    EXPECT_LT(rel(active, static_cast<double>(p.active)), 1e-12);
    EXPECT_LT(rel(active, m.reference_active_parameters), 0.03) << active;
    // Every routed expert's weights appear once: total parameters as configured.
    EXPECT_EQ(t.parameters, p.total);
    // EP all-to-all: dispatch and combine per MoE layer, each die sending its tokens x top-k
    // hidden vectors.
    const double per_die = 256.0 * m.moe.top_k * m.hidden * 2;
    EXPECT_EQ(t.collective_bytes.at("all_to_all"),
              static_cast<uint64_t>(2 * (m.layers - 3) * 8 * per_die));
}

TEST(TraceGen, PerLayerWeightBytesEqualTheConfigs) {
    GenOptions o;
    o.seq = 128;
    o.tp = 8;
    o.layers = 1;
    const std::string dir = generate("layerw", "llama3-70b", o);
    std::map<std::string, uint64_t> weights;
    for_each_op(dir, [&](uint64_t, const trace::Op& op) {
        for (const auto& t : op.inputs) {
            if (t.stream == StreamClass::kWeight && t.name.rfind("layer0.", 0) == 0)
                weights[t.name] = t.bytes;
        }
    });
    uint64_t bytes = 0;
    for (const auto& [n, b] : weights) bytes += b;
    // Llama-3-70B layer: 8192 x (8192 + 2 x 1024) QKV + 8192 x 8192 O + 3 x 8192 x 28672 MLP
    // + 2 x 8192 norms = 855,654,400 parameters, BF16.
    EXPECT_EQ(bytes, 855654400u * 2);
    EXPECT_EQ(layer_parameters(load_model("llama3-70b"), 0), 855654400u);
}

TEST(TraceGen, ShardedOpsSumToTheUnshardedOp) {
    GenOptions o;
    o.seq = 512;
    o.layers = 2;
    const std::string one = generate("tp1", "llama3-70b", o);
    o.tp = 8;
    o.sequence_parallel = true;
    const std::string eight = generate("tp8", "llama3-70b", o);
    std::map<std::string, double> a, b;
    for_each_op(one, [&](uint64_t, const trace::Op& op) { a[op.name] += trace::op_flops(op); });
    for_each_op(eight, [&](uint64_t, const trace::Op& op) { b[op.name] += trace::op_flops(op); });
    int compared = 0;
    for (const auto& [name, f] : a) {
        if (f == 0) continue;
        ASSERT_TRUE(b.count(name)) << name;
        EXPECT_LT(rel(b[name], f), 1e-12) << name << ": sum over 8 dies " << b[name] << " vs " << f;
        ++compared;
    }
    EXPECT_GE(compared, 20);
}

TEST(TraceGen, CollectiveBytesMatchTheFormulas) {
    // Llama-3-8B training, TP 2 x PP 2 x DP 2, 2 microbatches of 1 sequence of 512.
    GenOptions o;
    o.phase = Phase::kTrain;
    o.batch = 4;
    o.seq = 512;
    o.tp = 2;
    o.pp = 2;
    o.dp = 2;
    o.microbatches = 2;
    const ModelConfig m = load_model("llama3-8b");
    const TraceTotals t = trace_stats(generate("coll", "llama3-8b", o));
    const uint64_t h = m.hidden, T = 512, b = 2, dies = 8, mbs = 2;
    const uint64_t act = T * h * b;  // one microbatch's hidden states, bytes
    // TP all-reduce per die and microbatch: 2 per layer forward + 2 per layer backward over
    // the die's 16 layers, the embedding's forward one (stage 0), the LM head input's backward
    // one and the cross-entropy's 2 fp32 values per token (last stage).
    const uint64_t tp_layers = 4 * 16 * act;
    const uint64_t per_mb = dies * tp_layers + (dies / 2) * act + (dies / 2) * (act + T * 8);
    // DP all-reduce: every die's gradients (BF16) once per step.
    const uint64_t layer = layer_parameters(m, 0);
    const uint64_t norms = 2 * h;
    const uint64_t per_layer_die = (layer - norms) / 2 + norms;  // matmuls split over TP 2
    const uint64_t emb_die = m.vocab * h / 2;
    const uint64_t grads_per_replica = 2 * (16 * per_layer_die * 2) + 2 * emb_die +
                                       2 * (emb_die + h);  // stage 0 + stage 1, 2 TP ranks
    EXPECT_EQ(t.collective_bytes.at("all_reduce"), mbs * per_mb + 2 * grads_per_replica * b);
    // PP: per microbatch, each of the 4 stage-0 dies sends activations, each stage-1 die sends
    // gradients back; the receivers record the same bytes.
    EXPECT_EQ(t.collective_bytes.at("send"), mbs * 8 * act);
    EXPECT_EQ(t.collective_bytes.at("recv"), mbs * 8 * act);

    // Sequence parallelism and the distributed optimizer: reduce-scatter + all-gather.
    o.sequence_parallel = true;
    o.distributed_optimizer = true;
    const TraceTotals s = trace_stats(generate("coll-sp", "llama3-8b", o));
    // Per layer and microbatch: forward 2 all-gathers + 2 reduce-scatters, backward the mirror
    // (4 of each), each of the full T x h; embedding RS (fwd) + AG (bwd) on stage 0; final-norm
    // AG (fwd) + RS (bwd) on stage 1.
    const uint64_t sp_each = mbs * (dies * 16 * 4 * act + dies * act);
    EXPECT_EQ(s.collective_bytes.at("reduce_scatter"), sp_each + 2 * grads_per_replica * b);
    EXPECT_EQ(s.collective_bytes.at("all_gather"), sp_each + 2 * grads_per_replica * b);
    EXPECT_EQ(s.collective_bytes.at("all_reduce"), mbs * (dies / 2) * T * 8);  // cross-entropy only
}

// --grad-buckets: the DP gradient all-reduces of N buckets of consecutive layers instead of one
// per layer; the same bytes in fewer collectives, each issued once its layers' gradients are all
// complete (its inputs are every gradient of its layers), and 1 is one all-reduce after the
// backward.
TEST(TraceGen, GradientBucketsGroupLayersAndKeepTheBytes) {
    GenOptions o = small_dp_training(8);
    std::map<uint64_t, uint64_t> bytes;
    for (const uint64_t n : {0u, 1u, 3u}) {
        o.grad_buckets = n;
        const std::string dir = generate("gb" + std::to_string(n), "llama3-8b", o);
        uint64_t dp = 0, total = 0, last_grad_input = 0;
        uint64_t first_bucket_inputs = 0;
        for_each_op(dir, [&](uint64_t die, const trace::Op& op) {
            if (die != 0 || op.kind != trace::OpKind::kCollective) return;
            if (op.name.find(".dp_grad.") == std::string::npos) return;
            ++dp;
            total += op.collective.bytes;
            if (op.name.rfind("grad_bucket0.", 0) == 0 || op.name.rfind("layer0.", 0) == 0)
                first_bucket_inputs = op.inputs.size();
            last_grad_input = std::max<uint64_t>(last_grad_input, op.inputs.size());
        });
        bytes[n] = total;
        // Buckets: the layers' (8, or N) plus the embedding's and the head's.
        EXPECT_EQ(dp, (n == 0 ? 8 : n) + 2) << n;
        if (n == 1) {
            EXPECT_EQ(first_bucket_inputs, last_grad_input)
                << "one bucket holds every layer's gradients";
        }
    }
    EXPECT_EQ(bytes[1], bytes[0]);
    EXPECT_EQ(bytes[3], bytes[0]);
    o.grad_buckets = 9;  // more buckets than layers
    EXPECT_THROW(Generator(load_model("llama3-8b"), o), InputError);
}

// Two training steps in one trace: the second is the first again on the same weights and
// optimizer state (no new long-lived tensor), with every DP gradient bucket synchronised again,
// and each of its GEMMs that reads a weight depends on the first step's update of that weight,
// so the next forward waits for the synchronisation and update of what it reads.
TEST(TraceGen, StepsRepeatTheStepOnTheSameWeightsAfterTheirUpdate) {
    GenOptions o = small_dp_training(2);
    const TraceTotals one = trace_stats(generate("steps1", "llama3-8b", o));
    o.steps = 2;
    const std::string dir = generate("steps2", "llama3-8b", o);
    const TraceTotals two = trace_stats(dir);
    EXPECT_EQ(two.ops, 2 * one.ops);
    for (const auto& [kind, n] : one.collective_count)
        EXPECT_EQ(two.collective_count.at(kind), 2 * n);
    EXPECT_EQ(two.tokens, 2 * one.tokens);  // the index's tokens x steps
    EXPECT_DOUBLE_EQ(two.flops_total(), 2 * one.flops_total());
    EXPECT_EQ(two.parameters, one.parameters);
    std::map<uint64_t, std::string> name_of;  // die 0's ops by id
    std::map<uint64_t, uint64_t> update_of;   // weight address -> its step-0 update op
    std::set<uint64_t> long_lived_first, long_lived_second;
    uint64_t checked = 0;
    for_each_op(dir, [&](uint64_t die, const trace::Op& op) {
        if (die != 0) return;
        name_of[op.id] = op.name;
        const bool second = op.name.rfind("step1.", 0) == 0;
        for (const auto& t : op.outputs) {
            if (t.stream == StreamClass::kActivation) continue;
            (second ? long_lived_second : long_lived_first).insert(t.addr);
            if (!second && op.name.rfind("adam.update.", 0) == 0 &&
                t.stream == StreamClass::kWeight)
                update_of[t.addr] = op.id;
        }
        if (!second || op.kind != trace::OpKind::kMatmul) return;
        for (const auto& t : op.inputs) {
            if (t.stream != StreamClass::kWeight) continue;
            ASSERT_TRUE(update_of.count(t.addr)) << op.name;
            EXPECT_NE(std::find(op.deps.begin(), op.deps.end(), update_of[t.addr]), op.deps.end())
                << op.name << " does not wait for " << name_of[update_of[t.addr]];
            ++checked;
        }
    });
    EXPECT_GT(checked, 0u);
    // Every long-lived tensor the second step writes is one the first step wrote.
    for (const uint64_t a : long_lived_second) EXPECT_TRUE(long_lived_first.count(a)) << a;
    o.steps = 0;
    EXPECT_THROW(Generator(load_model("llama3-8b"), o), InputError);
}

TEST(TraceGen, EveryPhaseAndModelReadsBack) {
    struct Case {
        const char* model;
        Phase phase;
        uint64_t tp, ep, dp;
        DType dtype;
        Routing routing;
    };
    for (const Case& c :
         {Case{"gpt3-175b", Phase::kTrain, 4, 1, 1, DType::kBf16, Routing::kUniform},
          Case{"deepseek-v3", Phase::kDecode, 2, 4, 2, DType::kFp8, Routing::kSkewed},
          Case{"deepseek-v3", Phase::kTrain, 1, 2, 2, DType::kBf16, Routing::kSkewed},
          Case{"qwen3-30b-a3b", Phase::kDecode, 4, 4, 1, DType::kBf16, Routing::kUniform},
          Case{"mixtral-8x7b", Phase::kTrain, 2, 2, 1, DType::kFp8, Routing::kUniform},
          Case{"llama3-405b", Phase::kDecode, 8, 1, 1, DType::kFp8, Routing::kUniform}}) {
        GenOptions o;
        o.phase = c.phase;
        o.batch = 8;
        o.seq = 64;
        o.kv_len = c.phase == Phase::kDecode ? 1024 : 0;
        o.tp = c.tp;
        o.ep = c.ep;
        o.dp = c.dp;
        o.layers = c.phase == Phase::kTrain ? 4 : 0;
        if (std::string(c.model) == "deepseek-v3" && c.phase == Phase::kTrain) o.layers = 4;
        o.dtype = c.dtype;
        o.routing = c.routing;
        const std::string dir = generate(std::string(c.model) + to_string(c.phase), c.model, o);
        TraceTotals t;
        ASSERT_NO_THROW(t = trace_stats(dir)) << c.model;
        EXPECT_GT(t.flops_gemm, 0) << c.model;
        EXPECT_EQ(t.dies, c.tp * c.dp) << c.model;
    }
}

TEST(TraceGen, SkewedRoutingIsSeededAndConservesTokens) {
    GenOptions o;
    o.seq = 64;
    o.routing = Routing::kSkewed;
    o.seed = 7;
    const Generator g(load_model("deepseek-v3"), o);
    const auto a = g.expert_load(5, 1000), b = g.expert_load(5, 1000);
    EXPECT_EQ(a, b);
    uint64_t sum = 0, max = 0;
    for (uint64_t l : a) {
        sum += l;
        max = std::max(max, l);
    }
    EXPECT_EQ(sum, 1000u * 8);
    EXPECT_LE(max, 1000u);
    EXPECT_GT(max, 4 * 1000u * 8 / 256);  // skewed: the hottest expert well above the mean
    o.seed = 8;
    EXPECT_NE(Generator(load_model("deepseek-v3"), o).expert_load(5, 1000), a);
    o.routing = Routing::kUniform;
    const auto u = Generator(load_model("deepseek-v3"), o).expert_load(5, 1000);
    EXPECT_EQ(*std::max_element(u.begin(), u.end()) - *std::min_element(u.begin(), u.end()), 1u);
}

TEST(TraceGen, BadParallelismIsAnInputError) {
    const ModelConfig m = load_model("llama3-70b");
    GenOptions o;
    o.seq = 128;
    o.tp = 16;
    EXPECT_THROW(Generator(m, o), InputError);  // 8 KV heads
    o.tp = 3;
    EXPECT_THROW(Generator(m, o), InputError);  // 64 heads
    o.tp = 1;
    o.pp = 3;
    EXPECT_THROW(Generator(m, o), InputError);  // 80 layers
    o.pp = 1;
    o.ep = 2;
    EXPECT_THROW(Generator(m, o), InputError);  // dense model
    GenOptions e;
    e.seq = 128;
    e.ep = 3;
    e.dp = 3;
    EXPECT_THROW(Generator(load_model("deepseek-v3"), e), InputError);  // 256 experts
}

TEST(TraceReaderCollectives, GroupMustIncludeTheDieAndSendNamesTwo) {
    auto error_of = [](const std::string& op) {
        try {
            trace::TraceReader r(
                std::make_unique<std::istringstream>(
                    std::string(R"({"format":"ascend-sim-trace","version":1,"dies":4,"die":1})") +
                    "\n" + op + "\n"),
                "t.jsonl");
            trace::Op o;
            while (r.next(o)) {
            }
        } catch (const TraceError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of(R"({"id":0,"op":"collective","kind":"all_reduce","group":[0,2],"bytes":8})"),
              "t.jsonl:2: op 0: field 'group' does not include die 1, the die this file is for");
    EXPECT_EQ(error_of(R"({"id":0,"op":"collective","kind":"send","group":[1,2,3],"bytes":8})"),
              "t.jsonl:2: op 0: a send names two dies in 'group' ([sender, receiver]), got 3");
    EXPECT_EQ(error_of(R"({"id":0,"op":"collective","kind":"recv","group":[0,1],"bytes":8})"),
              "no error");
}
