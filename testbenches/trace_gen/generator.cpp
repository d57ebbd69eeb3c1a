#include "testbenches/trace_gen/generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <unordered_map>

#include "models/common/errors.h"
#include "models/memory/tiers/dsm_params.h"

namespace asim::tracegen {

namespace {

using OJ = nlohmann::ordered_json;
constexpr uint64_t kNoProducer = UINT64_MAX;
constexpr uint64_t kAct = 2;  // activations, gradients and KV cache are BF16

// A tensor in one die's global-memory address space, with the op that wrote it last.
struct Ten {
    std::string name;
    uint64_t addr = 0;
    uint64_t bytes = 0;
    const char* stream = "activation";
    uint64_t producer = kNoProducer;
    bool valid() const { return bytes > 0; }
    // A view of part of this tensor (e.g. V inside the fused QKV output).
    Ten part(const std::string& n, uint64_t offset, uint64_t size) const {
        Ten t = *this;
        t.name = n;
        t.addr = addr + offset;
        t.bytes = size;
        return t;
    }
};

OJ tensor_json(const Ten& t) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(t.addr));
    return OJ{{"name", t.name}, {"addr", addr}, {"bytes", t.bytes}, {"stream", t.stream}};
}

uint64_t split(uint64_t total, uint64_t parts, uint64_t rank) {
    return total * (rank + 1) / parts - total * rank / parts;
}

// A forward op as the backward pass needs it.
struct TapeOp {
    enum Kind {
        kMatmul,         // dgrad + wgrad (+ bias grad)
        kAttention,      // one fused backward op
        kNorm,           // norm backward with the weight gradient
        kVector,         // same function over the gradient
        kCollective,     // the backward collective (`bwd_kind`), if any
        kTpGradSync,     // Megatron's "f": identity forward, TP all-reduce of the gradient backward
        kResidual,       // residual add: the skip gradient is kept for the sublayer's start
        kResidualStart,  // start of a sublayer: add the kept skip gradient
        kEmbedding,      // gather forward, scatter-add into the table gradient backward
        kLoss,           // softmax cross-entropy: the gradient is softmax - one-hot
        kBucketEnd,      // all of `bucket`'s gradients are complete once this is passed backward
    };
    Kind kind = kMatmul;
    OJ fwd;
    Ten x, x2, x3, w, bias, y;
    std::string bwd_kind;
    uint64_t bwd_bytes = 0, bwd_out_bytes = 0;
    std::vector<int> group;
    std::string bucket;
};

const Ten kNone;

TapeOp tape(TapeOp::Kind kind, const OJ& fwd, const Ten& x, const Ten& x2, const Ten& x3,
            const Ten& w, const Ten& bias, const Ten& y, const std::string& bwd_kind = "",
            uint64_t bwd_bytes = 0, uint64_t bwd_out = 0, const std::vector<int>& group = {},
            const std::string& bucket = "") {
    TapeOp t;
    t.kind = kind;
    t.fwd = fwd;
    t.x = x;
    t.x2 = x2;
    t.x3 = x3;
    t.w = w;
    t.bias = bias;
    t.y = y;
    t.bwd_kind = bwd_kind;
    t.bwd_bytes = bwd_bytes;
    t.bwd_out_bytes = bwd_out;
    t.group = group;
    t.bucket = bucket;
    return t;
}

struct Weight {
    Ten t;
    uint64_t elements = 0;
    std::string bucket;
};

// Where die `die` of `world` places the tensors of a pool tier (traces/FORMAT.md, "Memory
// tiers"), from the tier kind's default base: a per-owner tier (remote_hbm) in the previous
// die's window (die 1's for a one-die trace), above that die's own long-lived tensors: on a
// unidirectional ring the previous die's data comes one hop, the next die's would cross all the
// others; a shared tier (host_ddr, pmem) in a slice per die.
constexpr uint64_t kRemoteHbmOffset = 128ULL << 30;
uint64_t tier_arena(Tier tier, uint64_t die, uint64_t world) {
    if (tier == Tier::kHbm) return 0;
    const PoolTierKind kind = default_kind(tier);
    if (kind.per_owner()) {
        const uint64_t owner = world < 2 ? 1 : (die + world - 1) % world;
        return kind.default_base + owner * kRemoteHbmOwnerStride + kRemoteHbmOffset;
    }
    const uint64_t slice = std::max<uint64_t>(1ULL << 30, (kTiB / world) & ~((1ULL << 30) - 1));
    return kind.default_base + die * slice;
}

Tier tier_named(const std::string& name, const char* option) {
    if (const auto t = tier_from_string(name)) return *t;
    throw InputError(std::string("trace gen: ") + option + " '" + name +
                     "' is not a memory tier (" + tier_name_list() + ")");
}

// Writes one die's ops; hands out addresses and keeps the die's weight and gradient tables.
class DieWriter {
public:
    DieWriter(std::ostream& out, uint64_t die, uint64_t world, uint64_t hbm_capacity)
        : m_out(out), m_die(die), m_hbm_capacity(hbm_capacity) {
        for (std::size_t i = 1; i < tier_count(); ++i)
            m_tier_next[i] = tier_arena(static_cast<Tier>(i), die, world);
    }

    Ten act(const std::string& name, uint64_t bytes) {
        // The activation arena is reused round-robin, as a framework's caching allocator reuses
        // freed blocks: an address comes back only after the whole arena (32 GiB, far beyond any
        // L2) has been handed out since, so no live tensor is overwritten in practice.
        if (bytes > kLongLivedBase - kActivationBase) {
            throw InputError(
                "trace gen: activation '" + name + "' (" + std::to_string(bytes >> 20) +
                " MiB) is larger than the 32 GiB activation arena; use more parallelism");
        }
        if (bytes > kLongLivedBase - m_act) m_act = kActivationBase;
        return take(name, bytes, "activation", m_act);
    }
    // A long-lived tensor by name: the first call places it, later ones (the next step's) get
    // the same tensor.
    Ten general(const std::string& name, uint64_t bytes, Tier tier = Tier::kHbm) {
        auto it = m_general.find(name);
        if (it == m_general.end())
            it = m_general.emplace(name, take_long_lived(name, bytes, "general", tier)).first;
        return it->second;
    }
    Ten weight(const std::string& name, uint64_t elements, uint64_t elem_bits,
               const std::string& bucket, Tier tier = Tier::kHbm) {
        auto it = m_weight_index.find(name);
        if (it != m_weight_index.end()) return m_weights[it->second].t;
        Weight w{take_long_lived(name, (elements * elem_bits + 7) / 8, "weight", tier), elements,
                 bucket};
        m_weight_index.emplace(name, m_weights.size());
        m_weights.push_back(w);
        if (m_bucket_order.empty() || m_bucket_order.back() != bucket) {
            if (std::find(m_bucket_order.begin(), m_bucket_order.end(), bucket) ==
                m_bucket_order.end()) {
                m_bucket_order.push_back(bucket);
            }
        }
        return w.t;
    }
    Ten& grad(const std::string& weight_name) {
        auto it = m_grads.find(weight_name);
        if (it == m_grads.end()) {
            const Weight& w = m_weights[m_weight_index.at(weight_name)];
            it = m_grads.emplace(weight_name, general("grad." + weight_name, w.elements * kAct))
                     .first;
        }
        return it->second;
    }
    const std::vector<Weight>& weights() const { return m_weights; }
    // The op that last wrote weight `name` (an optimizer update): later readers depend on it.
    void set_producer(const std::string& name, uint64_t op) {
        m_weights[m_weight_index.at(name)].t.producer = op;
    }
    const std::vector<std::string>& buckets() const { return m_bucket_order; }

    void header(const OJ& h) { m_out << h.dump() << '\n'; }

    // Writes `op` with its inputs, outputs and the deps implied by the inputs' producers, and
    // marks the outputs as produced by it. Returns the id.
    uint64_t emit(const OJ& op, std::vector<Ten*> ins, std::vector<Ten*> outs,
                  std::vector<uint64_t> extra_deps = {}) {
        const uint64_t id = m_next++;
        OJ j;
        j["id"] = id;
        for (auto it = op.begin(); it != op.end(); ++it) j[it.key()] = it.value();
        std::vector<uint64_t> deps = std::move(extra_deps);
        if (!ins.empty()) {
            OJ in = OJ::array();
            for (Ten* t : ins) {
                in.push_back(tensor_json(*t));
                if (t->producer != kNoProducer) deps.push_back(t->producer);
            }
            j["inputs"] = std::move(in);
        }
        if (!outs.empty()) {
            OJ out = OJ::array();
            for (Ten* t : outs) out.push_back(tensor_json(*t));
            j["outputs"] = std::move(out);
        }
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        if (!deps.empty()) j["deps"] = deps;
        m_out << j.dump() << '\n';
        for (Ten* t : outs) t->producer = id;
        return id;
    }

private:
    // One die's address space (its HBM): a 32 GiB arena for activations from 4 GiB, then the
    // long-lived tensors (weights, KV cache, gradients, optimizer state) from 36 GiB up, packed.
    // A trace whose long-lived tensors fit a die's HBM therefore has every address inside it;
    // the replay refuses a tensor beyond the platform's HBM, naming the trace line.
    static constexpr uint64_t kActivationBase = 0x1'0000'0000ULL;  //  4 GiB
    static constexpr uint64_t kLongLivedBase = 0x9'0000'0000ULL;   // 36 GiB

    Ten take_long_lived(const std::string& name, uint64_t bytes, const char* stream, Tier tier) {
        if (tier != Tier::kHbm)
            return take(name, bytes, stream, m_tier_next[static_cast<std::size_t>(tier)]);
        if (bytes > m_hbm_capacity || m_long_lived > m_hbm_capacity - bytes) {
            throw InputError(
                "trace gen: die " + std::to_string(m_die) + ": '" + name + "' does not fit the " +
                std::to_string(m_hbm_capacity >> 30) +
                " GiB of HBM after the tensors before it (weights, KV cache, gradients); place "
                "weights in the memory pool with --weights / --expert-weights / --kv remote_hbm, "
                "host_ddr or pmem, use more parallelism, or give --hbm-capacity");
        }
        return take(name, bytes, stream, m_long_lived);
    }
    static Ten take(const std::string& name, uint64_t bytes, const char* stream, uint64_t& next) {
        Ten t;
        t.name = name;
        t.addr = next;
        t.bytes = bytes;
        t.stream = stream;
        next += (bytes + 4095) / 4096 * 4096;
        return t;
    }
    std::ostream& m_out;
    uint64_t m_die;
    uint64_t m_hbm_capacity;
    std::vector<uint64_t> m_tier_next = std::vector<uint64_t>(tier_count());  // by tier
    uint64_t m_next = 0;
    uint64_t m_act = kActivationBase;
    uint64_t m_long_lived = kLongLivedBase;
    std::vector<Weight> m_weights;
    std::unordered_map<std::string, std::size_t> m_weight_index;
    std::map<std::string, Ten> m_grads;
    std::unordered_map<std::string, Ten> m_general;  // general() tensors by name
    std::vector<std::string> m_bucket_order;
};

}  // namespace

const char* to_string(Phase p) {
    switch (p) {
        case Phase::kPrefill:
            return "prefill";
        case Phase::kDecode:
            return "decode";
        case Phase::kTrain:
            return "train";
    }
    return "?";
}

Generator::Generator(ModelConfig model, GenOptions options)
    : m_model(std::move(model)), m_opt(std::move(options)) {
    const ModelConfig& m = m_model;
    GenOptions& o = m_opt;
    auto bad = [&](const std::string& why) { throw InputError("trace gen: " + why); };
    auto need = [&](bool ok, const std::string& why) {
        if (!ok) bad(why);
    };
    need(o.batch > 0 && o.seq > 0, "--batch and --seq must be positive");
    // NaN would make every Zipf weight NaN and the expert draw never end.
    need(std::isfinite(o.skew) && o.skew >= 0 && o.skew <= 100,
         "--skew must be a number from 0 to 100");
    need(o.tp > 0 && o.pp > 0 && o.dp > 0 && o.ep > 0 && o.microbatches > 0,
         "--tp, --pp, --dp, --ep and --microbatches must be positive");
    need(o.dtype == DType::kBf16 || o.dtype == DType::kFp8 || o.dtype == DType::kFp4,
         "--dtype must be bf16, fp8 or fp4");
    if (o.kv_len == 0) o.kv_len = o.seq;
    m_layers = o.layers == 0 ? m.layers : o.layers;
    need(m_layers <= m.layers, "--layers " + std::to_string(m_layers) + " exceeds the model's " +
                                   std::to_string(m.layers) + " layers");
    need(o.phase == Phase::kDecode || o.kv_len >= o.seq, "--kv-len (" + std::to_string(o.kv_len) +
                                                             ") must be at least --seq (" +
                                                             std::to_string(o.seq) + ")");
    const auto& a = m.attention;
    need(a.heads % o.tp == 0, "attention heads (" + std::to_string(a.heads) +
                                  ") are not divisible by TP " + std::to_string(o.tp));
    need(a.kv_heads % o.tp == 0, "key/value heads (" + std::to_string(a.kv_heads) +
                                     ") are not divisible by TP " + std::to_string(o.tp) +
                                     " (replicating KV heads is not modelled)");
    need(m_layers % o.pp == 0, "layers (" + std::to_string(m_layers) +
                                   ") are not divisible by PP " + std::to_string(o.pp));
    need(m.ffn.intermediate % o.tp == 0 || (m.moe.enabled && m.moe.first_dense_layers == 0),
         "FFN intermediate size (" + std::to_string(m.ffn.intermediate) +
             ") is not divisible by TP " + std::to_string(o.tp));
    need(o.steps >= 1 && o.steps <= 1000, "--steps must be from 1 to 1000");
    need(o.grad_buckets <= m_layers, "--grad-buckets " + std::to_string(o.grad_buckets) +
                                         " exceeds the " + std::to_string(m_layers) + " layers");
    need(o.batch % o.dp == 0,
         "batch (" + std::to_string(o.batch) + ") is not divisible by DP " + std::to_string(o.dp));
    need(o.batch / o.dp % o.microbatches == 0,
         "batch per DP replica (" + std::to_string(o.batch / o.dp) + ") is not divisible by " +
             std::to_string(o.microbatches) + " microbatches");
    m_world = o.tp * o.pp * o.dp;
    need(m_world <= (1u << 20), "world size " + std::to_string(m_world) + " is too large");
    if (o.ep > 1)
        need(m.moe.enabled,
             "--ep " + std::to_string(o.ep) + " needs a MoE model; " + m.name + " is dense");
    if (m.moe.enabled) {
        need(m.moe.experts % o.ep == 0, "experts (" + std::to_string(m.moe.experts) +
                                            ") are not divisible by EP " + std::to_string(o.ep));
        need((o.tp * o.dp) % o.ep == 0,
             "world size per pipeline stage (TP x DP = " + std::to_string(o.tp * o.dp) +
                 ") is not divisible by EP " + std::to_string(o.ep));
        const uint64_t mb_tokens =
            (o.phase == Phase::kDecode ? 1 : o.seq) * (o.batch / o.dp / o.microbatches);
        need(mb_tokens % o.tp == 0, "MoE layers split each microbatch's " +
                                        std::to_string(mb_tokens) + " tokens over TP " +
                                        std::to_string(o.tp) + ": not divisible");
    }
    if (o.sequence_parallel) {
        const uint64_t mb_tokens =
            (o.phase == Phase::kDecode ? 1 : o.seq) * (o.batch / o.dp / o.microbatches);
        need(mb_tokens % o.tp == 0, "sequence parallelism needs tokens per microbatch (" +
                                        std::to_string(mb_tokens) + ") divisible by TP " +
                                        std::to_string(o.tp));
    }
    tier_named(o.weights_tier, "--weights");
    if (!o.expert_weights_tier.empty()) tier_named(o.expert_weights_tier, "--expert-weights");
    tier_named(o.kv_tier, "--kv");
    for (int d : o.only_dies) {
        need(d >= 0 && static_cast<uint64_t>(d) < m_world,
             "die " + std::to_string(d) + " is outside the " + std::to_string(m_world) + " dies");
    }
}

namespace {

// Generates one die's trace: the schedule of microbatches, their forward and backward passes,
// the gradient synchronisation and the optimizer step.
class DieGen {
public:
    DieGen(const Generator& g, uint64_t die, std::ostream& out)
        : m_g(g),
          m_m(g.model()),
          m_o(g.options()),
          m_die(die),
          m_w(out, die, g.dies(), g.options().hbm_capacity),
          m_c(g.coord(die)) {
        m_train = m_o.phase == Phase::kTrain;
        m_decode = m_o.phase == Phase::kDecode;
        m_wbits = dtype_bits(m_o.dtype);
        m_mb_seqs = m_o.batch / m_o.dp / m_o.microbatches;
        m_q_len = m_decode ? 1 : m_o.seq;
        m_tokens = m_mb_seqs * m_q_len;
        m_sp = m_o.sequence_parallel && m_o.tp > 1;
        m_tn = m_sp ? m_tokens / m_o.tp : m_tokens;
        m_stage_layers = m_g.decoder_layers() / m_o.pp;
        m_first_layer = m_c.pp_rank * m_stage_layers;
        m_first_stage = m_c.pp_rank == 0;
        m_last_stage = m_c.pp_rank + 1 == m_o.pp;
        m_tp_sfx = m_o.tp > 1 ? ".tp" + std::to_string(m_c.tp_rank) : "";
        for (uint64_t r = 0; r < m_o.tp; ++r)
            m_tp_group.push_back(die_of(r, m_c.dp_rank, m_c.pp_rank));
        for (uint64_t r = 0; r < m_o.dp; ++r)
            m_dp_group.push_back(die_of(m_c.tp_rank, r, m_c.pp_rank));
        const uint64_t first = m_c.ep_group * m_o.ep;
        for (uint64_t i = 0; i < m_o.ep; ++i) {
            const uint64_t flat = first + i;
            m_ep_group.push_back(die_of(flat % m_o.tp, flat / m_o.tp, m_c.pp_rank));
        }
    }

    void run() {
        OJ h;
        h["format"] = "ascend-sim-trace";
        h["version"] = 1;
        h["name"] = m_o.name;
        h["model"] = m_m.name;
        h["dies"] = m_g.dies();
        h["die"] = m_die;
        m_w.header(h);
        for (m_step = 0; m_step < m_o.steps; ++m_step) step();
    }

private:
    // One step. Pipeline schedule: 1F1B for training (warm-up forwards, alternating, cool-down
    // backwards), forwards only for inference.
    void step() {
        const uint64_t mbs = m_o.microbatches;
        if (!m_train) {
            for (uint64_t i = 0; i < mbs; ++i) forward(i);
            return;
        }
        // Each step synchronises every bucket's gradients afresh.
        m_reduced.clear();
        m_done_buckets.clear();
        m_synced.clear();
        const uint64_t warm = std::min<uint64_t>(m_o.pp - m_c.pp_rank - 1, mbs);
        for (uint64_t i = 0; i < warm; ++i) forward(i);
        for (uint64_t i = 0; i + warm < mbs; ++i) {
            forward(warm + i);
            backward(i);
        }
        for (uint64_t i = mbs - warm; i < mbs; ++i) backward(i);
        optimizer();
    }

    int die_of(uint64_t tp, uint64_t dp, uint64_t pp) const {
        return static_cast<int>(tp + m_o.tp * (dp + m_o.dp * pp));
    }
    bool tp_coll() const { return m_o.collectives && m_o.tp > 1; }
    std::string mbp() const {
        return (m_step > 0 ? "step" + std::to_string(m_step) + "." : "") +
               (m_o.microbatches > 1 ? "mb" + std::to_string(m_mb) + "." : "");
    }
    std::string lp(uint64_t layer) const { return "layer" + std::to_string(layer) + "."; }
    OJ op(const char* kind, const std::string& name, DType dt) const {
        OJ j;
        j["op"] = kind;
        j["name"] = mbp() + name;
        if (dt != DType::kBf16) j["dtype"] = std::string(asim::to_string(dt));
        return j;
    }
    Ten weight(const std::string& name, uint64_t elements, uint64_t elem_bits) {
        return m_w.weight(name, elements, elem_bits, m_bucket, m_weight_tier);
    }

    // ---- forward building blocks (each records what its backward needs) ----

    Ten matmul(const std::string& name, uint64_t m, uint64_t n, uint64_t k, Ten& x, const Ten& w,
               DType dt, const Ten* bias = nullptr, uint64_t batch = 1) {
        OJ j = op(batch > 1 ? "batch_matmul" : "matmul", name, dt);
        if (batch > 1) j["batch"] = batch;
        j["m"] = m;
        j["n"] = n;
        j["k"] = k;
        Ten y = m_w.act(name, batch * m * n * kAct);
        Ten wc = w, bc = bias ? *bias : Ten{};
        std::vector<Ten*> ins = {&x, &wc};
        if (bias) ins.push_back(&bc);
        m_w.emit(j, ins, {&y});
        if (m_train) {
            TapeOp t = tape(TapeOp::kMatmul, j, x, kNone, kNone, w, bias ? *bias : kNone, y);
            m_tape.push_back(std::move(t));
        }
        return y;
    }

    Ten norm(const std::string& name, uint64_t rows, uint64_t cols, Ten& x, bool layernorm,
             uint64_t wcols) {
        OJ j = op("norm", name, DType::kBf16);
        j["func"] = layernorm ? "layernorm" : "rmsnorm";
        j["rows"] = rows;
        j["cols"] = cols;
        Ten w = weight(name, (layernorm ? 2 : 1) * wcols, kAct * 8);
        Ten y = m_w.act(name, x.bytes);
        m_w.emit(j, {&x, &w}, {&y});
        if (m_train) m_tape.push_back(tape(TapeOp::kNorm, j, x, kNone, kNone, w, kNone, y));
        return y;
    }

    // Element-wise or activation op over `elements`; `bwd_factor` scales the backward's work
    // (SwiGLU's backward produces gradients for both of its inputs).
    Ten vec(const char* kind, const char* func, const std::string& name, uint64_t elements,
            std::vector<Ten*> ins, uint64_t out_bytes, bool record = true) {
        OJ j = op(kind, name, DType::kBf16);
        j["func"] = func;
        j["elements"] = elements;
        Ten y = m_w.act(name, out_bytes);
        m_w.emit(j, ins, {&y});
        if (m_train && record) {
            TapeOp t = tape(TapeOp::kVector, j, *ins[0], kNone, kNone, kNone, kNone, y);
            t.bwd_bytes = ins[0]->bytes;
            m_tape.push_back(std::move(t));
        }
        return y;
    }

    // A forward collective over `group`; `bwd_kind` is its backward ("" when the backward needs
    // no communication). Left out (the input passes through) when collectives are off.
    Ten coll(const char* kind, const std::string& name, const std::vector<int>& group,
             uint64_t bytes, Ten& x, uint64_t out_bytes, const char* bwd_kind, uint64_t bwd_bytes,
             uint64_t bwd_out) {
        if (!m_o.collectives || group.size() < 2) return x;
        OJ j = op("collective", name, DType::kBf16);
        j["kind"] = kind;
        j["group"] = group;
        j["bytes"] = bytes;
        Ten y = m_w.act(name, out_bytes);
        m_w.emit(j, {&x}, {&y});
        if (m_train) {
            TapeOp t = tape(TapeOp::kCollective, j, x, kNone, kNone, kNone, kNone, y, bwd_kind,
                            bwd_bytes, bwd_out, group);
            m_tape.push_back(std::move(t));
        }
        return y;
    }

    void mark(TapeOp::Kind kind) {
        if (m_train)
            m_tape.push_back(tape(kind, {}, kNone, kNone, kNone, kNone, kNone, kNone, "", 0, 0,
                                  std::vector<int>{}, m_bucket));
    }

    // Gathers the sequence-parallel shards before a column-parallel layer (or marks the TP
    // gradient all-reduce of Megatron's "f" operator without sequence parallelism).
    Ten enter_tp(const std::string& name, Ten& x) {
        const uint64_t full = m_tokens * m_m.hidden * kAct;
        if (m_sp)
            return coll("all_gather", name, m_tp_group, full, x, full, "reduce_scatter", full,
                        x.bytes);
        if (tp_coll()) mark(TapeOp::kTpGradSync);
        return x;
    }
    // Reduces the partial sums of a row-parallel layer.
    Ten leave_tp(const std::string& name, Ten& y) {
        const uint64_t full = m_tokens * m_m.hidden * kAct;
        if (m_sp)
            return coll("reduce_scatter", name, m_tp_group, full, y, full / m_o.tp, "all_gather",
                        full, full);
        return coll("all_reduce", name, m_tp_group, full, y, full, "", 0, 0);
    }

    Ten residual(const std::string& name, Ten& skip, Ten& branch) {
        Ten y =
            vec("elementwise", "add", name, m_tn * m_m.hidden, {&skip, &branch}, skip.bytes, false);
        mark(TapeOp::kResidual);
        return y;
    }

    // ---- the model ----

    Ten attention_block(uint64_t layer, Ten& x) {
        const std::string L = lp(layer);
        const auto& a = m_m.attention;
        const uint64_t h = m_m.hidden, T = m_tokens, heads = a.heads / m_o.tp;
        mark(TapeOp::kResidualStart);
        Ten hn = norm(L + "attn_norm", m_tn, h, x, m_m.layernorm, h);
        Ten hf = enter_tp(L + "attn_norm.all_gather", hn);
        Ten attn;
        if (a.type == AttentionConfig::Type::kGqa) {
            const uint64_t kvh = a.kv_heads / m_o.tp, q = heads * a.head_dim, kv = kvh * a.head_dim;
            Ten w = weight(L + "wqkv" + m_tp_sfx, h * (q + 2 * kv), m_wbits);
            Ten b = a.bias ? weight(L + "bqkv" + m_tp_sfx, q + 2 * kv, m_wbits) : Ten{};
            Ten qkv =
                matmul(L + "qkv_proj", T, q + 2 * kv, h, hf, w, m_o.dtype, a.bias ? &b : nullptr);
            if (a.qk_norm) {
                qkv =
                    norm(L + "qk_norm", T * (heads + kvh), a.head_dim, qkv, false, 2 * a.head_dim);
            }
            Ten qt = qkv.part(L + "q", 0, T * q * kAct),
                kt = qkv.part(L + "k", T * q * kAct, T * kv * kAct);
            Ten vt = qkv.part(L + "v", T * (q + kv) * kAct, T * kv * kAct);
            if (m_m.rope) {
                Ten qk = vec("elementwise", "rope", L + "rope", T * (q + kv), {&qkv},
                             T * (q + kv) * kAct);
                qt = qk.part(L + "q", 0, T * q * kAct);
                kt = qk.part(L + "k", T * q * kAct, T * kv * kAct);
            }
            attn = attention(L, heads, kvh, a.head_dim, qt, kt, vt, kv, heads * a.head_dim);
        } else {
            attn = mla(L, heads, hf);
        }
        const uint64_t in = m_m.attn_out_dim() / m_o.tp;
        Ten wo = weight(L + "wo" + m_tp_sfx, in * h, m_wbits);
        Ten bo = a.bias ? weight(L + "bo", h, m_wbits) : Ten{};
        Ten o = matmul(L + "o_proj", T, h, in, attn, wo, m_o.dtype, a.bias ? &bo : nullptr);
        Ten r = leave_tp(L + "o_proj." + std::string(m_sp ? "reduce_scatter" : "all_reduce"), o);
        return residual(L + "attn_residual", x, r);
    }

    // Fused attention over this die's heads. Keys and values come from the KV cache when the
    // step attends to more positions than it computes (decode, chunked prefill).
    Ten attention(const std::string& L, uint64_t heads, uint64_t kvh, uint64_t head_dim, Ten& q,
                  Ten& k, Ten& v, uint64_t kv_width, uint64_t out_width) {
        OJ j = op("fused_attention", L + "attention", DType::kBf16);
        j["batch"] = m_mb_seqs;
        j["heads"] = heads;
        j["kv_heads"] = kvh;
        j["q_len"] = m_q_len;
        j["kv_len"] = m_o.kv_len;
        j["head_dim"] = head_dim;
        j["causal"] = true;
        Ten kc = k, vc = v;
        if (m_o.kv_len > m_q_len) {
            kc = cache(L + "k_cache", m_mb_seqs * m_o.kv_len * kv_width * kAct);
            vc = cache(L + "v_cache", m_mb_seqs * m_o.kv_len * kv_width * kAct);
            kc.producer = k.producer;
            vc.producer = v.producer;
        }
        Ten y = m_w.act(L + "attn_out", m_tokens * out_width * kAct);
        m_w.emit(j, {&q, &kc, &vc}, {&y});
        if (m_train) m_tape.push_back(tape(TapeOp::kAttention, j, q, kc, vc, kNone, kNone, y));
        return y;
    }

    Ten cache(const std::string& name, uint64_t bytes) {
        auto it = m_caches.find(name);
        if (it == m_caches.end())
            it = m_caches.emplace(name, m_w.general(name, bytes, m_kv_tier)).first;
        return it->second;
    }

    // Multi-head latent attention (DeepSeek-V2/V3). Prefill and training up-project the
    // compressed KV and run ordinary attention whose QK width (nope + rope) differs from its
    // PV width (v): one fused op with head_dim = their mean has the same FLOPs. Decode uses the
    // absorbed form: queries move into the latent space, attention is multi-query over the
    // cached latent (kv_lora + rope wide), and the result is up-projected per head.
    Ten mla(const std::string& L, uint64_t heads, Ten& hf) {
        const auto& a = m_m.attention;
        const uint64_t h = m_m.hidden, T = m_tokens, qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
        Ten q;
        if (a.q_lora_rank > 0) {
            Ten wqa = weight(L + "wq_a", h * a.q_lora_rank, m_wbits);
            Ten cq = matmul(L + "q_a_proj", T, a.q_lora_rank, h, hf, wqa, m_o.dtype);
            Ten cqn = norm(L + "q_a_norm", T, a.q_lora_rank, cq, false, a.q_lora_rank);
            Ten wqb = weight(L + "wq_b" + m_tp_sfx, a.q_lora_rank * heads * qk, m_wbits);
            q = matmul(L + "q_b_proj", T, heads * qk, a.q_lora_rank, cqn, wqb, m_o.dtype);
        } else {
            Ten wq = weight(L + "wq" + m_tp_sfx, h * heads * qk, m_wbits);
            q = matmul(L + "q_proj", T, heads * qk, h, hf, wq, m_o.dtype);
        }
        const uint64_t lat = a.kv_lora_rank + a.qk_rope_head_dim;
        Ten wkva = weight(L + "wkv_a", h * lat, m_wbits);
        Ten ckv = matmul(L + "kv_a_proj", T, lat, h, hf, wkva, m_o.dtype);
        Ten ckvn = norm(L + "kv_a_norm", T, a.kv_lora_rank, ckv, false, a.kv_lora_rank);
        Ten wkvb = weight(L + "wkv_b" + m_tp_sfx,
                          a.kv_lora_rank * heads * (a.qk_nope_head_dim + a.v_head_dim), m_wbits);
        const uint64_t rope_elems = T * (heads * a.qk_rope_head_dim + a.qk_rope_head_dim);
        Ten qr = vec("elementwise", "rope", L + "rope", rope_elems, {&q, &ckv}, q.bytes);
        if (!m_decode) {
            // Up-projection of every attended position's latent (the cache's too when chunked).
            const uint64_t rows = m_mb_seqs * m_o.kv_len;
            Ten kv = matmul(L + "kv_b_proj", rows, heads * (a.qk_nope_head_dim + a.v_head_dim),
                            a.kv_lora_rank, ckvn, wkvb, m_o.dtype);
            Ten k = kv.part(L + "k", 0, rows * heads * a.qk_nope_head_dim * kAct);
            Ten v = kv.part(L + "v", k.bytes, rows * heads * a.v_head_dim * kAct);
            OJ j = op("fused_attention", L + "attention", DType::kBf16);
            j["batch"] = m_mb_seqs;
            j["heads"] = heads;
            j["kv_heads"] = heads;
            j["q_len"] = m_q_len;
            j["kv_len"] = m_o.kv_len;
            j["head_dim"] = (qk + a.v_head_dim + 1) / 2;
            j["causal"] = true;
            Ten y = m_w.act(L + "attn_out", T * heads * a.v_head_dim * kAct);
            m_w.emit(j, {&qr, &k, &v}, {&y});
            if (m_train) m_tape.push_back(tape(TapeOp::kAttention, j, qr, k, v, kNone, kNone, y));
            return y;
        }
        OJ ja = op("batch_matmul", L + "q_absorb", m_o.dtype);
        ja["batch"] = heads;
        ja["m"] = T;
        ja["n"] = a.kv_lora_rank;
        ja["k"] = a.qk_nope_head_dim;
        Ten ql = m_w.act(L + "q_latent", heads * T * lat * kAct);
        m_w.emit(ja, {&qr, &wkvb}, {&ql});
        Ten c = cache(L + "kv_latent_cache", m_mb_seqs * m_o.kv_len * lat * kAct);
        c.producer = ckvn.producer;
        OJ j = op("fused_attention", L + "attention", DType::kBf16);
        j["batch"] = m_mb_seqs;
        j["heads"] = heads;
        j["kv_heads"] = 1;
        j["q_len"] = m_q_len;
        j["kv_len"] = m_o.kv_len;
        j["head_dim"] = (lat + a.kv_lora_rank + 1) / 2;
        j["causal"] = true;
        Ten ol = m_w.act(L + "attn_latent", T * heads * a.kv_lora_rank * kAct);
        m_w.emit(j, {&ql, &c, &c}, {&ol});
        OJ jv = op("batch_matmul", L + "v_up", m_o.dtype);
        jv["batch"] = heads;
        jv["m"] = T;
        jv["n"] = a.v_head_dim;
        jv["k"] = a.kv_lora_rank;
        Ten y = m_w.act(L + "attn_out", T * heads * a.v_head_dim * kAct);
        m_w.emit(jv, {&ol, &wkvb}, {&y});
        return y;
    }

    Ten ffn_block(uint64_t layer, Ten& x) {
        const std::string L = lp(layer);
        const uint64_t h = m_m.hidden, T = m_tokens;
        mark(TapeOp::kResidualStart);
        Ten hn = norm(L + "ffn_norm", m_tn, h, x, m_m.layernorm, h);
        if (m_m.is_moe_layer(layer)) {
            Ten y = moe(layer, hn);
            return residual(L + "ffn_residual", x, y);
        }
        Ten hf = enter_tp(L + "ffn_norm.all_gather", hn);
        const uint64_t I = m_m.ffn.intermediate / m_o.tp;
        const bool swiglu = m_m.ffn.activation == FfnConfig::Activation::kSwiglu;
        const uint64_t up = swiglu ? 2 * I : I;
        Ten w1 = weight(L + (swiglu ? "w_gate_up" : "w_up") + m_tp_sfx, h * up, m_wbits);
        Ten b1 = m_m.ffn.bias ? weight(L + "b_up" + m_tp_sfx, up, m_wbits) : Ten{};
        Ten gu = matmul(L + (swiglu ? "gate_up_proj" : "up_proj"), T, up, h, hf, w1, m_o.dtype,
                        m_m.ffn.bias ? &b1 : nullptr);
        Ten act = vec("activation", swiglu ? "swiglu" : "gelu", L + (swiglu ? "swiglu" : "gelu"),
                      T * I, {&gu}, T * I * kAct);
        Ten w2 = weight(L + "w_down" + m_tp_sfx, I * h, m_wbits);
        Ten b2 = m_m.ffn.bias ? weight(L + "b_down", h, m_wbits) : Ten{};
        Ten d = matmul(L + "down_proj", T, h, I, act, w2, m_o.dtype, m_m.ffn.bias ? &b2 : nullptr);
        Ten r = leave_tp(L + "down_proj." + std::string(m_sp ? "reduce_scatter" : "all_reduce"), d);
        return residual(L + "ffn_residual", x, r);
    }

    // A MoE FFN. Each TP rank routes its 1/TP share of the tokens (with sequence parallelism
    // that is its own shard), so the replicated tokens of a TP group are routed once; an
    // all-gather over TP restores the full tokens afterwards.
    Ten moe(uint64_t layer, Ten& hn) {
        const std::string L = lp(layer);
        const auto& e = m_m.moe;
        const uint64_t h = m_m.hidden, tm = m_tokens / m_o.tp, k = e.top_k;
        Ten xs = m_sp ? hn : hn.part(L + "moe_in", m_c.tp_rank * tm * h * kAct, tm * h * kAct);
        Ten wr = weight(L + "router", h * e.experts, kAct * 8);
        Ten logits = matmul(L + "router", tm, e.experts, h, xs, wr, DType::kBf16);
        Ten scores;
        if (e.router == MoeConfig::Router::kSigmoid) {
            scores = vec("activation", "sigmoid", L + "router_scores", tm * e.experts, {&logits},
                         logits.bytes);
        } else {
            OJ j = op("softmax", L + "router_scores", DType::kBf16);
            j["rows"] = tm;
            j["cols"] = e.experts;
            scores = m_w.act(L + "router_scores", logits.bytes);
            m_w.emit(j, {&logits}, {&scores});
            if (m_train)
                m_tape.push_back(tape(TapeOp::kVector, j, logits, kNone, kNone, kNone, kNone,
                                      scores, "", logits.bytes, 0, std::vector<int>{}, ""));
        }
        // Top-k selection, costed as one row reduction; it has no gradient.
        OJ jt = op("reduce", L + "topk", DType::kBf16);
        jt["func"] = "max";
        jt["rows"] = tm;
        jt["cols"] = e.experts;
        Ten topk = m_w.act(L + "topk", tm * k * 8);
        m_w.emit(jt, {&scores}, {&topk});

        const uint64_t send = tm * k * h * kAct;
        const uint64_t local = e.experts / m_o.ep, first = m_c.ep_rank * local;
        const std::vector<uint64_t> load = m_g.expert_load(layer, tm * m_o.ep);
        uint64_t recv_tokens = 0;
        for (uint64_t i = 0; i < local; ++i) recv_tokens += load[first + i];
        Ten disp;
        if (m_o.ep > 1 && m_o.collectives) {
            disp = coll("all_to_all", L + "moe_dispatch", m_ep_group, send, xs,
                        std::max<uint64_t>(1, recv_tokens) * h * kAct, "all_to_all", send, send);
        } else {
            OJ j = op("memcpy", L + "moe_permute", DType::kBf16);
            j["bytes"] = send;
            disp = m_w.act(L + "moe_permute", send);
            m_w.emit(j, {&xs}, {&disp});
            recv_tokens = m_o.ep > 1 ? recv_tokens : tm * k;
        }
        Ten outbuf = m_w.act(L + "expert_out", std::max<uint64_t>(1, recv_tokens) * h * kAct);
        uint64_t offset = 0;
        std::vector<uint64_t> expert_ops;
        for (uint64_t i = 0; i < local; ++i) {
            const uint64_t n = load[first + i];
            if (n == 0) continue;
            const std::string E = L + "expert" + std::to_string(first + i) + ".";
            Ten xe = disp.part(E + "in", std::min(offset, disp.bytes - 1), n * h * kAct);
            Ten ye = expert(E, n, xe);
            expert_ops.push_back(ye.producer);
            offset += n * h * kAct;
        }
        outbuf.producer = kNoProducer;
        Ten comb;
        if (m_o.ep > 1 && m_o.collectives) {
            Ten ob = outbuf;
            OJ j = op("collective", L + "moe_combine", DType::kBf16);
            j["kind"] = "all_to_all";
            j["group"] = m_ep_group;
            j["bytes"] = send;
            comb = m_w.act(L + "moe_combine", send);
            m_w.emit(j, {&ob}, {&comb}, expert_ops);
            if (m_train)
                m_tape.push_back(tape(TapeOp::kCollective, j, ob, kNone, kNone, kNone, kNone, comb,
                                      "all_to_all", send, send, m_ep_group, ""));
        } else {
            Ten ob = outbuf;
            OJ j = op("memcpy", L + "moe_unpermute", DType::kBf16);
            j["bytes"] = send;
            comb = m_w.act(L + "moe_unpermute", send);
            m_w.emit(j, {&ob}, {&comb}, expert_ops);
        }
        // Weighting by the router scores and summing the top-k outputs of each token.
        Ten y = vec("elementwise", "mul", L + "moe_weighted_sum", tm * k * h, {&comb, &scores},
                    tm * h * kAct);
        if (e.shared_experts > 0) {
            Ten ys = expert(L + "shared_expert.", tm, xs, e.shared_experts);
            y = vec("elementwise", "add", L + "shared_add", tm * h, {&y, &ys}, tm * h * kAct);
        }
        if (!m_sp) {
            const uint64_t full = m_tokens * h * kAct;
            y = coll("all_gather", L + "moe_out.all_gather", m_tp_group, full, y, full, "", 0, 0);
        }
        return y;
    }

    // A SwiGLU expert FFN (or `count` shared experts as one wider FFN) over n tokens.
    Ten expert(const std::string& E, uint64_t n, Ten& x, uint64_t count = 1) {
        const uint64_t h = m_m.hidden, I = m_m.moe.intermediate * count;
        const Tier dense = m_weight_tier;
        m_weight_tier = m_expert_tier;  // routed and shared experts: --expert-weights
        Ten w1 = weight(E + "w_gate_up", h * 2 * I, m_wbits);
        Ten w2 = weight(E + "w_down", I * h, m_wbits);
        m_weight_tier = dense;
        Ten gu = matmul(E + "gate_up_proj", n, 2 * I, h, x, w1, m_o.dtype);
        Ten act = vec("activation", "swiglu", E + "swiglu", n * I, {&gu}, n * I * kAct);
        return matmul(E + "down_proj", n, h, I, act, w2, m_o.dtype);
    }

    Ten embedding() {
        const uint64_t h = m_m.hidden, rows = split(m_m.vocab, m_o.tp, m_c.tp_rank);
        m_bucket = "embedding";
        Ten table = weight("embedding" + m_tp_sfx, rows * h, kAct * 8);
        Ten ids = m_w.act("token_ids", m_tokens * 4);
        OJ j = op("memcpy", "embedding", DType::kBf16);
        j["bytes"] = m_tokens * h * kAct;
        Ten x = m_w.act("embedding", m_tokens * h * kAct);
        Ten tc = table;
        m_w.emit(j, {&tc}, {&x});
        if (m_train)
            m_tape.push_back(tape(TapeOp::kEmbedding, j, ids, kNone, kNone, table, kNone, x, "", 0,
                                  0, std::vector<int>{}, m_bucket));
        if (!m_m.rope) {
            Ten pos = weight("pos_embedding", m_m.max_positions * h, kAct * 8);
            OJ jp = op("memcpy", "pos_embedding", DType::kBf16);
            jp["bytes"] = m_tokens * h * kAct;
            Ten p = m_w.act("pos_embedding", m_tokens * h * kAct);
            m_w.emit(jp, {&pos}, {&p});
            if (m_train)
                m_tape.push_back(tape(TapeOp::kEmbedding, jp, ids, kNone, kNone, pos, kNone, p, "",
                                      0, 0, std::vector<int>{}, m_bucket));
            x = vec("elementwise", "add", "pos_add", m_tokens * h, {&x, &p}, x.bytes, false);
        }
        // Vocabulary-parallel embedding: each TP rank holds a slice of the table and
        // contributes the rows it owns; the partial rows are summed over TP.
        const uint64_t full = m_tokens * h * kAct;
        if (m_sp)
            return coll("reduce_scatter", "embedding.reduce_scatter", m_tp_group, full, x,
                        full / m_o.tp, "all_gather", full, full);
        return coll("all_reduce", "embedding.all_reduce", m_tp_group, full, x, full, "", 0, 0);
    }

    Ten head(Ten& x) {
        const uint64_t h = m_m.hidden, rows = split(m_m.vocab, m_o.tp, m_c.tp_rank);
        m_bucket = "head";
        Ten xn = norm("final_norm", m_tn, h, x, m_m.layernorm, h);
        Ten xf = enter_tp("final_norm.all_gather", xn);
        // Inference computes logits for each sequence's last position only.
        const uint64_t m = m_train ? m_tokens : m_mb_seqs;
        Ten xl = m_train ? xf : xf.part("last_positions", 0, m * h * kAct);
        Ten w = m_m.tied_embeddings ? weight("embedding" + m_tp_sfx, rows * h, kAct * 8)
                                    : weight("lm_head" + m_tp_sfx, rows * h, kAct * 8);
        Ten logits = matmul("lm_head", m, rows, h, xl, w, DType::kBf16);
        if (!m_train) {
            const uint64_t full = m * m_m.vocab * kAct;
            return coll("all_gather", "logits.all_gather", m_tp_group, full, logits, full, "", 0,
                        0);
        }
        OJ j = op("softmax", "cross_entropy", DType::kBf16);
        j["rows"] = m;
        j["cols"] = rows;
        Ten p = m_w.act("probs", logits.bytes);
        m_w.emit(j, {&logits}, {&p});
        if (m_train)
            m_tape.push_back(tape(TapeOp::kLoss, j, logits, kNone, kNone, kNone, kNone, p));
        // Vocabulary-parallel cross-entropy: the row max and the exp-sum (fp32) over TP.
        return coll("all_reduce", "cross_entropy.all_reduce", m_tp_group, m * 8, p, m * 8, "", 0,
                    0);
    }

    void forward(uint64_t mb) {
        m_mb = mb;
        m_tape.clear();
        const uint64_t h = m_m.hidden;
        Ten x;
        if (m_first_stage) {
            if (m_o.embedding) {
                x = embedding();
            } else {
                x = m_w.act("input", m_tn * h * kAct);
            }
        } else {
            x = m_w.act("stage_input", m_tn * h * kAct);
            x = p2p("recv", "pp.recv_activation", die_of(m_c.tp_rank, m_c.dp_rank, m_c.pp_rank - 1),
                    m_die, x);
        }
        for (uint64_t l = m_first_layer; l < m_first_layer + m_stage_layers; ++l) {
            m_bucket = "layer" + std::to_string(l);
            mark(TapeOp::kBucketEnd);
            x = attention_block(l, x);
            x = ffn_block(l, x);
        }
        if (m_last_stage) {
            if (m_o.embedding) head(x);
        } else {
            p2p("send", "pp.send_activation", m_die,
                die_of(m_c.tp_rank, m_c.dp_rank, m_c.pp_rank + 1), x);
        }
        if (m_train) m_tapes[mb] = std::move(m_tape);
    }

    Ten p2p(const char* kind, const std::string& name, int from, int to, Ten& x) {
        if (!m_o.collectives) return x;
        OJ j = op("collective", name, DType::kBf16);
        j["kind"] = kind;
        j["group"] = {from, to};
        j["bytes"] = x.bytes;
        Ten y = x;
        if (std::string(kind) == "recv") {
            m_w.emit(j, {}, {&y});
        } else {
            m_w.emit(j, {&y}, {});
        }
        return y;
    }

    // ---- backward ----

    void backward(uint64_t mb) {
        m_mb = mb;
        std::vector<TapeOp> tape = std::move(m_tapes[mb]);
        m_tapes.erase(mb);
        const uint64_t h = m_m.hidden;
        const bool last_mb = mb + 1 == m_o.microbatches;
        Ten g;
        if (m_last_stage && m_o.embedding) {
            g = Ten{};  // set by the loss
        } else if (m_last_stage) {
            g = m_w.act("output_grad", m_tn * h * kAct);
        } else {
            g = m_w.act("stage_output_grad", m_tn * h * kAct);
            g = p2p("recv", "pp.recv_grad", die_of(m_c.tp_rank, m_c.dp_rank, m_c.pp_rank + 1),
                    m_die, g);
        }
        std::vector<Ten> skips;
        for (auto it = tape.rbegin(); it != tape.rend(); ++it) {
            TapeOp& t = *it;
            const std::string name =
                t.fwd.contains("name") ? t.fwd["name"].get<std::string>() : std::string();
            switch (t.kind) {
                case TapeOp::kMatmul:
                    g = bwd_matmul(t, name, g);
                    break;
                case TapeOp::kAttention: {
                    OJ j = t.fwd;
                    j["name"] = name + ".bwd";
                    // FlashAttention-2's backward runs five GEMMs where the forward runs two:
                    // the same op with 2.5x the head width carries that work.
                    j["head_dim"] = (t.fwd["head_dim"].get<uint64_t>() * 5 + 1) / 2;
                    Ten dq = m_w.act(name + ".dq", t.x.bytes),
                        dkv = m_w.act(name + ".dkv", t.x2.bytes + t.x3.bytes);
                    m_w.emit(j, {&t.x, &t.x2, &t.x3, &g}, {&dq, &dkv});
                    g = dq;
                    break;
                }
                case TapeOp::kNorm: {
                    OJ j = t.fwd;
                    j["name"] = name + ".bwd";
                    Ten gx = m_w.act(name + ".dgrad", t.x.bytes);
                    Ten& gw = m_w.grad(t.w.name);
                    m_w.emit(j, {&t.x, &g, &t.w}, {&gx, &gw});
                    g = gx;
                    break;
                }
                case TapeOp::kVector: {
                    OJ j = t.fwd;
                    j["name"] = name + ".bwd";
                    if (j.contains("func") && j["func"] == "swiglu")
                        j["elements"] = 2 * j["elements"].get<uint64_t>();
                    Ten gx = m_w.act(name + ".dgrad", t.bwd_bytes);
                    m_w.emit(j, {&t.x, &g}, {&gx});
                    g = gx;
                    break;
                }
                case TapeOp::kCollective: {
                    if (t.bwd_kind.empty()) break;
                    OJ j = op("collective", name.substr(mbp().size()) + ".bwd", DType::kBf16);
                    j["kind"] = t.bwd_kind;
                    j["group"] = t.group;
                    j["bytes"] = t.bwd_bytes;
                    Ten gx = m_w.act(name + ".bwd", t.bwd_out_bytes);
                    m_w.emit(j, {&g}, {&gx});
                    g = gx;
                    break;
                }
                case TapeOp::kTpGradSync: {
                    OJ j = op("collective", "tp_grad.all_reduce", DType::kBf16);
                    j["kind"] = "all_reduce";
                    j["group"] = m_tp_group;
                    j["bytes"] = m_tokens * h * kAct;
                    Ten gx = m_w.act("tp_grad", m_tokens * h * kAct);
                    m_w.emit(j, {&g}, {&gx});
                    g = gx;
                    break;
                }
                case TapeOp::kResidual:
                    skips.push_back(g);
                    break;
                case TapeOp::kResidualStart: {
                    Ten s = skips.back();
                    skips.pop_back();
                    OJ j = op("elementwise", "residual_grad", DType::kBf16);
                    j["func"] = "add";
                    j["elements"] = m_tn * h;
                    Ten gx = m_w.act("residual_grad", m_tn * h * kAct);
                    m_w.emit(j, {&g, &s}, {&gx});
                    g = gx;
                    break;
                }
                case TapeOp::kEmbedding: {
                    // Scatter-add of the token gradients into the table's gradient rows.
                    OJ j = op("elementwise", name.substr(mbp().size()) + ".wgrad", DType::kBf16);
                    j["func"] = "add";
                    j["elements"] = m_tokens * h;
                    Ten& gw = m_w.grad(t.w.name);
                    m_w.emit(j, {&t.x, &g}, {&gw});
                    break;
                }
                case TapeOp::kLoss: {
                    // d(cross-entropy)/d(logits) = softmax - one-hot.
                    OJ j = op("elementwise", "cross_entropy.bwd", DType::kBf16);
                    j["func"] = "sub";
                    j["elements"] = t.fwd["rows"].get<uint64_t>() * t.fwd["cols"].get<uint64_t>();
                    Ten gx = m_w.act("logits_grad", t.x.bytes);
                    m_w.emit(j, {&t.y}, {&gx});
                    g = gx;
                    break;
                }
                case TapeOp::kBucketEnd:
                    if (last_mb) bucket_done(t.bucket);
                    break;
            }
        }
        if (m_first_stage && m_o.embedding && last_mb) dp_reduce("embedding");
        if (m_last_stage && m_o.embedding && last_mb) dp_reduce("head");
        if (!m_first_stage) {
            p2p("send", "pp.send_grad", m_die, die_of(m_c.tp_rank, m_c.dp_rank, m_c.pp_rank - 1),
                g);
        }
    }

    Ten bwd_matmul(TapeOp& t, const std::string& name, Ten& g) {
        const uint64_t m = t.fwd["m"], n = t.fwd["n"], k = t.fwd["k"];
        const DType dt = t.fwd.contains("dtype")
                             ? *dtype_from_string(t.fwd["dtype"].get<std::string>())
                             : DType::kBf16;
        OJ dx = op("matmul", name.substr(mbp().size()) + ".dgrad", dt);
        dx["m"] = m;
        dx["n"] = k;
        dx["k"] = n;
        dx["trans_b"] = true;
        Ten gx = m_w.act(name + ".dgrad", m * k * kAct);
        m_w.emit(dx, {&g, &t.w}, {&gx});
        OJ dw = op("matmul", name.substr(mbp().size()) + ".wgrad", dt);
        dw["m"] = k;
        dw["n"] = n;
        dw["k"] = m;
        dw["trans_a"] = true;
        Ten& gw = m_w.grad(t.w.name);
        m_w.emit(dw, {&t.x, &g}, {&gw});
        if (t.bias.valid()) {
            OJ db = op("reduce", name.substr(mbp().size()) + ".bias_grad", DType::kBf16);
            db["func"] = "sum";
            db["rows"] = n;
            db["cols"] = m;
            Ten& gb = m_w.grad(t.bias.name);
            m_w.emit(db, {&g}, {&gb});
        }
        return gx;
    }

    uint64_t bucket_grad_bytes(const std::string& bucket) {
        uint64_t bytes = 0;
        for (const Weight& w : m_w.weights()) {
            if (w.bucket == bucket) bytes += w.elements * kAct;
        }
        return bytes;
    }

    // The DP gradient bucket a layer's weights are synchronised in (--grad-buckets): the layer's
    // own, or "grad_bucketK" of N buckets of consecutive layers. Embedding and head: their own.
    std::string sync_bucket(const std::string& bucket) const {
        if (m_o.grad_buckets == 0 || bucket.rfind("layer", 0) != 0) return bucket;
        const uint64_t layer = std::stoull(bucket.substr(5));
        return "grad_bucket" + std::to_string(layer * m_o.grad_buckets / m_g.decoder_layers());
    }

    // The backward has passed the start of `bucket` (a layer): its gradients are complete. The
    // sync bucket it belongs to is synchronised once all of its layers on this die are.
    void bucket_done(const std::string& bucket) {
        m_done_buckets.insert(bucket);
        const std::string sync = sync_bucket(bucket);
        std::vector<std::string> members;
        for (const std::string& b : m_w.buckets()) {
            if (sync_bucket(b) != sync) continue;
            if (!m_done_buckets.count(b)) return;
            members.push_back(b);
        }
        dp_reduce(sync, members);
    }
    void dp_reduce(const std::string& bucket) { dp_reduce(bucket, {bucket}); }

    // Data-parallel gradient synchronisation of one sync bucket (a layer or several, the
    // embedding, the head), issued as soon as its last gradient is complete so it overlaps the
    // rest of the backward.
    void dp_reduce(const std::string& name, const std::vector<std::string>& members) {
        if (!m_o.collectives || m_o.dp < 2 || m_reduced.count(name)) return;
        m_reduced[name] = true;
        uint64_t bytes = 0;
        for (const std::string& b : members) bytes += bucket_grad_bytes(b);
        if (bytes == 0) return;
        std::vector<Ten*> grads;
        for (const Weight& w : m_w.weights()) {
            if (std::find(members.begin(), members.end(), w.bucket) != members.end())
                grads.push_back(&m_w.grad(w.t.name));
        }
        const std::string& bucket = name;
        OJ j =
            op("collective",
               bucket + ".dp_grad." + (m_o.distributed_optimizer ? "reduce_scatter" : "all_reduce"),
               DType::kBf16);
        j["kind"] = m_o.distributed_optimizer ? "reduce_scatter" : "all_reduce";
        j["group"] = m_dp_group;
        j["bytes"] = bytes;
        Ten synced = m_w.general(bucket + ".synced_grads",
                                 m_o.distributed_optimizer ? (bytes + m_o.dp - 1) / m_o.dp : bytes);
        m_w.emit(j, grads, {&synced});
        for (const std::string& b : members) m_synced[b] = synced;
    }

    // Adam: per weight, one op for the moment updates and one for the parameter update (fp32
    // master weights and moments). With the distributed optimizer each DP rank updates 1/DP
    // of every bucket and the updated weights are all-gathered.
    void optimizer() {
        m_mb = 0;
        const uint64_t dp_shard = m_o.distributed_optimizer ? m_o.dp : 1;
        for (const std::string& bucket : m_w.buckets()) {
            std::vector<uint64_t> updates;
            for (const Weight& wt : m_w.weights()) {
                if (wt.bucket != bucket) continue;
                const uint64_t n = (wt.elements + dp_shard - 1) / dp_shard;
                const std::string& W = wt.t.name;
                Ten g = m_w.grad(W);
                auto it = m_synced.find(bucket);
                if (it != m_synced.end()) g.producer = it->second.producer;
                Ten mom = m_w.general("adam.moments." + W, n * 8);
                Ten master = m_w.general("adam.master." + W, n * 4);
                OJ j1 = op("elementwise", "adam.moments." + W, DType::kFp32);
                j1["func"] = "mul";
                j1["elements"] = 5 * n;  // m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2
                Ten mom2 = mom;
                m_w.emit(j1, {&g, &mom}, {&mom2});
                OJ j2 = op("elementwise", "adam.update." + W, DType::kFp32);
                j2["func"] = "div";
                j2["elements"] = 5 * n;  // bias corrections, sqrt, divide, step
                Ten w = wt.t;
                m_w.emit(j2, {&mom2, &master}, {&master, &w});
                updates.push_back(w.producer);
                m_w.set_producer(W, w.producer);  // the next step's forward reads the update
            }
            if (m_o.distributed_optimizer && m_o.collectives && m_o.dp > 1 && !updates.empty()) {
                const uint64_t bytes = [&] {
                    uint64_t b = 0;
                    for (const Weight& wt : m_w.weights())
                        b += wt.bucket == bucket ? wt.t.bytes : 0;
                    return b;
                }();
                OJ j = op("collective", bucket + ".dp_params.all_gather", DType::kBf16);
                j["kind"] = "all_gather";
                j["group"] = m_dp_group;
                j["bytes"] = bytes;
                Ten out = m_w.general(bucket + ".gathered_params", bytes);
                const uint64_t gathered = m_w.emit(j, {}, {&out}, updates);
                for (const Weight& wt : m_w.weights())  // every rank's shard arrives with it
                    if (wt.bucket == bucket) m_w.set_producer(wt.t.name, gathered);
            }
        }
    }

    const Generator& m_g;
    const ModelConfig& m_m;
    const GenOptions& m_o;
    uint64_t m_die;
    DieWriter m_w;
    Tier m_weight_tier = tier_named(m_o.weights_tier, "--weights");
    Tier m_expert_tier =
        tier_named(m_o.expert_weights_tier.empty() ? m_o.weights_tier : m_o.expert_weights_tier,
                   "--expert-weights");
    Tier m_kv_tier = tier_named(m_o.kv_tier, "--kv");
    DieCoord m_c;
    bool m_train = false, m_decode = false, m_sp = false;
    bool m_first_stage = true, m_last_stage = true;
    uint64_t m_wbits = 16, m_mb_seqs = 1, m_q_len = 1, m_tokens = 1, m_tn = 1;
    uint64_t m_stage_layers = 0, m_first_layer = 0, m_mb = 0, m_step = 0;
    std::string m_tp_sfx, m_bucket = "layer";
    std::vector<int> m_tp_group, m_dp_group, m_ep_group;
    std::vector<TapeOp> m_tape;
    std::map<uint64_t, std::vector<TapeOp>> m_tapes;
    std::map<std::string, Ten> m_caches;
    std::map<std::string, bool> m_reduced;
    std::set<std::string> m_done_buckets;  // layers whose backward is done (last microbatch)
    std::map<std::string, Ten> m_synced;
};

}  // namespace

DieCoord Generator::coord(uint64_t die) const {
    DieCoord c;
    c.tp_rank = die % m_opt.tp;
    c.dp_rank = die / m_opt.tp % m_opt.dp;
    c.pp_rank = die / (m_opt.tp * m_opt.dp);
    const uint64_t flat = die % (m_opt.tp * m_opt.dp);
    c.ep_rank = flat % m_opt.ep;
    c.ep_group = flat / m_opt.ep;
    return c;
}

uint64_t Generator::step_tokens() const {
    return m_opt.batch * (m_opt.phase == Phase::kDecode ? 1 : m_opt.seq);
}

void Generator::write_die(uint64_t die, std::ostream& out) const { DieGen(*this, die, out).run(); }

std::vector<uint64_t> Generator::expert_load(uint64_t layer, uint64_t tokens) const {
    const uint64_t experts = m_model.moe.experts, k = m_model.moe.top_k, total = tokens * k;
    std::vector<uint64_t> load(experts, 0);
    if (m_opt.routing == Routing::kUniform) {
        for (uint64_t e = 0; e < experts; ++e)
            load[e] = total / experts + (e < total % experts ? 1 : 0);
        return load;
    }
    // Zipf popularity over a seeded permutation of the experts (a different one per layer);
    // largest-remainder rounding, then no expert above `tokens` (top-k picks distinct experts).
    std::vector<uint64_t> rank(experts);
    std::iota(rank.begin(), rank.end(), 0);
    std::mt19937_64 rng(m_opt.seed * 1000003ULL + layer);
    std::shuffle(rank.begin(), rank.end(), rng);
    std::vector<double> p(experts);
    double sum = 0;
    for (uint64_t e = 0; e < experts; ++e)
        sum += p[e] = 1.0 / std::pow(static_cast<double>(rank[e] + 1), m_opt.skew);
    std::vector<std::pair<double, uint64_t>> rem;
    uint64_t given = 0;
    for (uint64_t e = 0; e < experts; ++e) {
        const double exact = static_cast<double>(total) * p[e] / sum;
        load[e] = static_cast<uint64_t>(exact);
        given += load[e];
        rem.emplace_back(exact - static_cast<double>(load[e]), e);
    }
    std::sort(rem.begin(), rem.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (uint64_t i = 0; given < total; ++i, ++given) ++load[rem[i % experts].second];
    uint64_t excess = 0;
    for (auto& l : load) {
        if (l > tokens) {
            excess += l - tokens;
            l = tokens;
        }
    }
    for (uint64_t e = 0; excess > 0; e = (e + 1) % experts) {
        if (load[e] < tokens) {
            ++load[e];
            --excess;
        }
    }
    return load;
}

nlohmann::ordered_json Generator::index(const std::string& file_pattern) const {
    OJ j;
    j["format"] = "ascend-sim-trace-index";
    j["version"] = 1;
    j["name"] = m_opt.name;
    j["model"] = m_model.name;
    j["phase"] = to_string(m_opt.phase);
    j["dies"] = m_world;
    j["tokens"] = step_tokens();
    j["steps"] = m_opt.steps;
    j["parallelism"] = OJ{{"tp", m_opt.tp},
                          {"pp", m_opt.pp},
                          {"dp", m_opt.dp},
                          {"ep", m_opt.ep},
                          {"microbatches", m_opt.microbatches},
                          {"sequence_parallel", m_opt.sequence_parallel},
                          {"distributed_optimizer", m_opt.distributed_optimizer}};
    OJ files = OJ::array();
    for (uint64_t d = 0; d < m_world; ++d) {
        if (!m_opt.only_dies.empty() && std::find(m_opt.only_dies.begin(), m_opt.only_dies.end(),
                                                  static_cast<int>(d)) == m_opt.only_dies.end()) {
            continue;
        }
        const DieCoord c = coord(d);
        std::string file = file_pattern;
        file.replace(file.find("{die}"), 5, std::to_string(d));
        files.push_back(OJ{{"die", d},
                           {"file", file},
                           {"tp_rank", c.tp_rank},
                           {"dp_rank", c.dp_rank},
                           {"pp_rank", c.pp_rank},
                           {"ep_rank", c.ep_rank}});
    }
    j["files"] = std::move(files);
    // Where the long-lived tensors live (traces/FORMAT.md, "Memory tiers").
    j["placement"] =
        OJ{{"weights", m_opt.weights_tier},
           {"expert_weights",
            m_opt.expert_weights_tier.empty() ? m_opt.weights_tier : m_opt.expert_weights_tier},
           {"kv", m_opt.kv_tier}};
    auto groups = [&](auto same) {
        std::map<uint64_t, std::vector<uint64_t>> g;
        for (uint64_t d = 0; d < m_world; ++d) g[same(coord(d))].push_back(d);
        OJ out = OJ::array();
        for (auto& [key, dies] : g) out.push_back(dies);
        return out;
    };
    const uint64_t big = 1u << 20;
    j["groups"] =
        OJ{{"tp", groups([&](const DieCoord& c) { return c.dp_rank + big * c.pp_rank; })},
           {"dp", groups([&](const DieCoord& c) { return c.tp_rank + big * c.pp_rank; })},
           {"pp", groups([&](const DieCoord& c) { return c.tp_rank + big * c.dp_rank; })},
           {"ep", groups([&](const DieCoord& c) { return c.ep_group + big * c.pp_rank; })}};
    return j;
}

}  // namespace asim::tracegen
