// Op trace format v1 (traces/FORMAT.md): JSON Lines, one header line then one record per line.
// TraceReader streams it: memory use is independent of the trace's length (it holds one op and
// the previous op id). Every error is a TraceError naming file and line.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/dtype.h"
#include "models/common/stream_class.h"

namespace asim::trace {

constexpr int kFormatVersion = 1;
constexpr const char* kFormatName = "ascend-sim-trace";
// The largest amount of work one op may describe (matmul MACs, vector elements, bytes copied or
// communicated, tensor bytes): 2^60. Above it FLOP and byte counts (x 8 for 64-bit elements)
// would wrap 64 bits, and an op that large would take longer to simulate than anyone waits.
constexpr uint64_t kMaxOpWork = uint64_t{1} << 60;

struct Header {
    int version = kFormatVersion;
    std::string name;   // free text
    std::string model;  // free text, e.g. "llama3-70b"
    int dies = 1;       // dies the trace set spans (per-die placement, reserved)
    int die = 0;        // the die this file is for
};

struct Tensor {
    std::string name;
    uint64_t addr = 0;
    uint64_t bytes = 0;  // > 0
    StreamClass stream = StreamClass::kGeneral;
};

enum class OpKind {
    kMatmul,          // C[M,N] = A[M,K] x B[K,N]; batch > 1 is a batched matmul
    kFusedAttention,  // FlashAttention-style: softmax(Q K^T / sqrt(d)) V, optional causal mask
    kElementwise,     // add, sub, mul, div, max, min, cast, copy, rope, scale
    kActivation,      // relu, gelu, silu, swiglu, exp, sigmoid, tanh
    kNorm,            // rmsnorm, layernorm over rows x cols
    kSoftmax,         // rows x cols
    kReduce,          // sum, max, mean over rows x cols (reduce cols)
    kMemcpy,          // bytes from inputs[0] to outputs[0]
    kCollective,      // reserved in v1: read and kept, executed by the supernode model
};

std::string_view to_string(OpKind kind);

struct MatmulShape {
    uint64_t batch = 1, m = 0, n = 0, k = 0;
    bool trans_a = false, trans_b = false;
};

struct AttentionShape {
    uint64_t batch = 1, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
    bool causal = false;
};

// Element-wise, activation, norm, softmax and reduce ops. `func` names the function
// ("add", "silu", "rmsnorm", "sum", ...); the work is rows x cols elements (elements = rows x cols,
// rows = 1 for plain element-wise ops).
struct VectorShape {
    std::string func;
    uint64_t rows = 1, cols = 0;
    uint64_t elements() const { return rows * cols; }
};

// Reserved in v1 (filled in by the supernode issue): kind (all_reduce, all_gather,
// reduce_scatter, all_to_all, broadcast, send, recv), group of dies, bytes per die.
struct CollectiveShape {
    std::string kind;
    std::vector<int> group;
    uint64_t bytes = 0;
};

struct Op {
    uint64_t id = 0;  // strictly increasing within a file
    OpKind kind = OpKind::kMatmul;
    std::string name;  // free text, e.g. "layer0.qkv_proj"
    DType dtype = DType::kBf16;
    MatmulShape matmul;
    AttentionShape attention;
    VectorShape vector;
    CollectiveShape collective;
    uint64_t copy_bytes = 0;  // memcpy: bytes copied from inputs[0] to outputs[0]
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
    std::vector<uint64_t> deps;  // ids of earlier ops this one waits for
    int die = 0;                 // placement (reserved; must equal the header's die in v1)
    uint64_t line = 0;           // source line, for messages
};

// Mathematical floating-point work of an op (multiply-add = 2 FLOPs; vector ops count their
// element operations from the per-function table in trace.cpp). Padding is not counted.
double op_flops(const Op& op);

class TraceReader {
public:
    // Opens a file (".gz" is read through zlib). Throws TraceError if it cannot be opened or
    // its header is invalid.
    explicit TraceReader(const std::string& path);
    // Reads from a stream (tests, built-in traces); `display_name` is used in messages.
    TraceReader(std::unique_ptr<std::istream> in, std::string display_name);
    ~TraceReader();

    const Header& header() const { return m_header; }
    const std::string& display_name() const { return m_display_name; }

    // Reads the next op into `op`; returns false at the end. Blank lines and lines starting
    // with '#' are skipped. Throws TraceError("FILE:LINE: ...") on any malformed record.
    bool next(Op& op);

private:
    void read_header();
    bool next_line(std::string& line);

    std::unique_ptr<std::istream> m_in;
    std::string m_display_name;
    Header m_header;
    uint64_t m_line = 0;
    bool m_have_prev_id = false;
    uint64_t m_prev_id = 0;
};

// About how many ops a trace file holds, for a progress line's total: its lines that start a
// record ('{') less the header; 0 (unknown) for a .gz file or one that cannot be read. Reads the
// file once, at disk speed.
uint64_t estimate_op_count(const std::string& path);
// The same for a trace held in memory (a built-in trace's text).
uint64_t estimate_op_count_of_text(std::string_view text);

// The reader checks each line on its own, so deps are only known to be smaller than the op's id.
// Whoever replays a whole trace (the die's dispatcher, the fast fidelity's loader) passes every op
// through check() in order: a dependency on an id the trace skipped, including the ids just
// before the op that names it, is a TraceError naming file and line. Memory grows with the number
// of gaps, not with the trace's length.
class IdGaps {
public:
    void check(const Op& op, const std::string& display_name);

private:
    std::map<uint64_t, uint64_t> m_gaps;  // [first, end) ranges of absent ids
    uint64_t m_next_id = 0;
};

}  // namespace asim::trace
