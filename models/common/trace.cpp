// Op trace reader (format v1, traces/FORMAT.md).
//
// One line is read, parsed and checked at a time; nothing about earlier ops is kept except the
// previous id, so memory does not grow with the trace. Checking is strict: unknown fields,
// duplicate keys, wrong JSON types and out-of-range values are all errors naming file and line,
// because a silently ignored field in a trace is a silently wrong simulation.
#include "models/common/trace.h"

#include <sys/stat.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "models/common/config.h"
#include "models/common/errors.h"

namespace asim::trace {

namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Reading ".gz" files: a streambuf over gzread, so the reader sees an ordinary istream.

class GzStreamBuf : public std::streambuf {
public:
    explicit GzStreamBuf(gzFile file) : m_file(file) {}
    ~GzStreamBuf() override { gzclose(m_file); }
    GzStreamBuf(const GzStreamBuf&) = delete;
    GzStreamBuf& operator=(const GzStreamBuf&) = delete;

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const int n = gzread(m_file, m_buf.data(), static_cast<unsigned>(m_buf.size()));
        int err = Z_OK;
        const char* message = gzerror(m_file, &err);
        // A truncated file makes gzread return 0 with Z_BUF_ERROR set, which would otherwise
        // look like a clean end of file.
        if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
            throw std::runtime_error(std::string("gzip: ") + message);
        }
        if (n == 0) return traits_type::eof();
        setg(m_buf.data(), m_buf.data(), m_buf.data() + n);
        return traits_type::to_int_type(*gptr());
    }

private:
    gzFile m_file;
    std::array<char, 64 * 1024> m_buf{};
};

class GzIStream : public std::istream {
public:
    explicit GzIStream(gzFile file) : std::istream(nullptr), m_buf(file) {
        rdbuf(&m_buf);
        // Lets a decompression error thrown by the buffer reach next_line() instead of being
        // folded into a plain end of file.
        exceptions(std::ios::badbit);
    }

private:
    GzStreamBuf m_buf;
};

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::unique_ptr<std::istream> open_trace(const std::string& path) {
    auto cannot_open = [&](int err) {
        return TraceError("cannot open trace '" + path + "': " + std::strerror(err));
    };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw cannot_open(errno);
    if (S_ISDIR(st.st_mode)) throw cannot_open(EISDIR);
    if (ends_with(path, ".gz")) {
        errno = 0;
        gzFile file = gzopen(path.c_str(), "rb");
        if (file == nullptr) throw cannot_open(errno != 0 ? errno : ENOMEM);
        gzbuffer(file, 256 * 1024);
        return std::make_unique<GzIStream>(file);
    }
    errno = 0;
    auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*in) throw cannot_open(errno != 0 ? errno : EIO);
    return in;
}

// ---------------------------------------------------------------------------------------------
// Op kinds, functions and their FLOP counts.

struct KindName {
    std::string_view name;
    OpKind kind;
};

// "batch_matmul" is a spelling of kMatmul that makes "batch" required.
constexpr std::array<KindName, 10> kKindNames = {{
    {"matmul", OpKind::kMatmul},
    {"batch_matmul", OpKind::kMatmul},
    {"fused_attention", OpKind::kFusedAttention},
    {"elementwise", OpKind::kElementwise},
    {"activation", OpKind::kActivation},
    {"norm", OpKind::kNorm},
    {"softmax", OpKind::kSoftmax},
    {"reduce", OpKind::kReduce},
    {"memcpy", OpKind::kMemcpy},
    {"collective", OpKind::kCollective},
}};

// FLOPs per element of vector work. These are conventional counts used to report FLOPs and
// achieved TFLOPS, not timing: the Vector engine's cost tables decide how long an op takes.
// The derivations are in traces/FORMAT.md.
struct FuncFlops {
    OpKind kind;
    std::string_view func;
    double flops_per_element;
};

constexpr std::array<FuncFlops, 23> kFuncFlops = {{
    {OpKind::kElementwise, "add", 1},  {OpKind::kElementwise, "sub", 1},
    {OpKind::kElementwise, "mul", 1},  {OpKind::kElementwise, "div", 1},
    {OpKind::kElementwise, "max", 1},  {OpKind::kElementwise, "min", 1},
    {OpKind::kElementwise, "cast", 0}, {OpKind::kElementwise, "copy", 0},
    {OpKind::kElementwise, "rope", 3}, {OpKind::kElementwise, "scale", 1},
    {OpKind::kActivation, "relu", 1},  {OpKind::kActivation, "gelu", 8},
    {OpKind::kActivation, "silu", 4},  {OpKind::kActivation, "swiglu", 5},
    {OpKind::kActivation, "exp", 1},   {OpKind::kActivation, "sigmoid", 4},
    {OpKind::kActivation, "tanh", 4},  {OpKind::kNorm, "rmsnorm", 4},
    {OpKind::kNorm, "layernorm", 7},   {OpKind::kSoftmax, "softmax", 5},
    {OpKind::kReduce, "sum", 1},       {OpKind::kReduce, "max", 1},
    {OpKind::kReduce, "mean", 1},
}};

const FuncFlops* find_func(OpKind kind, std::string_view func) {
    for (const FuncFlops& f : kFuncFlops) {
        if (f.kind == kind && f.func == func) return &f;
    }
    return nullptr;
}

std::vector<std::string> funcs_of(OpKind kind) {
    std::vector<std::string> out;
    for (const FuncFlops& f : kFuncFlops) {
        if (f.kind == kind) out.emplace_back(f.func);
    }
    return out;
}

constexpr std::array<std::string_view, 7> kCollectiveKinds = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send", "recv"};

// Fields each op kind accepts besides the common ones.
constexpr std::array<std::string_view, 8> kCommonFields = {"id",     "op",      "name", "dtype",
                                                           "inputs", "outputs", "deps", "die"};

const std::vector<std::string_view>& kind_fields(OpKind kind) {
    static const std::vector<std::string_view> kMatmul = {"m",     "n",       "k",
                                                          "batch", "trans_a", "trans_b"};
    static const std::vector<std::string_view> kAttention = {
        "batch", "heads", "kv_heads", "q_len", "kv_len", "head_dim", "causal"};
    static const std::vector<std::string_view> kElementwise = {"func", "elements"};
    static const std::vector<std::string_view> kRows = {"func", "rows", "cols"};
    static const std::vector<std::string_view> kMemcpy = {"bytes"};
    static const std::vector<std::string_view> kCollective = {"kind", "group", "bytes"};
    switch (kind) {
        case OpKind::kMatmul:
            return kMatmul;
        case OpKind::kFusedAttention:
            return kAttention;
        case OpKind::kElementwise:
        case OpKind::kActivation:
            return kElementwise;
        case OpKind::kNorm:
        case OpKind::kSoftmax:
        case OpKind::kReduce:
            return kRows;
        case OpKind::kMemcpy:
            return kMemcpy;
        case OpKind::kCollective:
            return kCollective;
    }
    return kMemcpy;
}

// Every field some op kind accepts, to tell "misplaced" from "unknown" in messages.
const std::vector<std::string_view>& all_kind_fields() {
    static const std::vector<std::string_view> kAll = [] {
        std::vector<std::string_view> out;
        for (const KindName& k : kKindNames) {
            for (std::string_view f : kind_fields(k.kind)) out.push_back(f);
        }
        return out;
    }();
    return kAll;
}

constexpr std::array<std::string_view, 4> kTensorFields = {"name", "addr", "bytes", "stream"};

template <typename Range>
std::string join(const Range& items) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += ", ";
        out += item;
    }
    return out;
}

template <typename Range, typename T>
bool contains(const Range& items, const T& wanted) {
    for (const auto& item : items) {
        if (item == wanted) return true;
    }
    return false;
}

// " (did you mean 'x'?)" or "".
template <typename Range>
std::string suggestion(const std::string& word, const Range& candidates) {
    std::vector<std::string> names(std::begin(candidates), std::end(candidates));
    const std::string best = closest_match(word, names);
    return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

// A JSON value as it appears in a message: scalars as written, containers by kind.
std::string describe(const json& v) {
    if (v.is_object()) return "an object";
    if (v.is_array()) return "an array";
    std::string text = v.dump();
    constexpr std::size_t kMax = 48;
    if (text.size() > kMax) text = text.substr(0, kMax) + "...";
    return text;
}

std::optional<uint64_t> as_unsigned(const json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<uint64_t>();
    return std::nullopt;
}

// Parses "0x..." (1 to 16 hex digits).
std::optional<uint64_t> parse_hex(const std::string& s) {
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
        return std::nullopt;
    }
    uint64_t value = 0;
    for (std::size_t i = 2; i < s.size(); ++i) {
        const char c = s[i];
        int digit;
        if (c >= '0' && c <= '9') {
            digit = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            digit = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            digit = c - 'A' + 10;
        } else {
            return std::nullopt;
        }
        value = (value << 4) | static_cast<uint64_t>(digit);
    }
    return value;
}

// Typed access to the fields of one JSON object; every failure throws a TraceError carrying
// `prefix` ("FILE:LINE: op 6: " or with a tensor path appended).
class Fields {
public:
    Fields(const json& obj, std::string prefix) : m_obj(obj), m_prefix(std::move(prefix)) {}

    const std::string& prefix() const { return m_prefix; }

    [[noreturn]] void fail(const std::string& message) const {
        throw TraceError(m_prefix + message);
    }

    const json* find(const char* key) const {
        auto it = m_obj.find(key);
        return it == m_obj.end() ? nullptr : &*it;
    }

    const json& required(const char* key) const {
        const json* v = find(key);
        if (v == nullptr) fail(std::string("missing required field '") + key + "'");
        return *v;
    }

    [[noreturn]] void wrong(const char* key, const char* expected, const json& v) const {
        fail(std::string("field '") + key + "' must be " + expected + ", got " + describe(v));
    }

    uint64_t unsigned_value(const char* key, const json& v) const {
        auto u = as_unsigned(v);
        if (!u) wrong(key, "an unsigned integer", v);
        return *u;
    }

    uint64_t positive_value(const char* key, const json& v) const {
        auto u = as_unsigned(v);
        if (!u || *u == 0) wrong(key, "a positive integer", v);
        return *u;
    }

    uint64_t positive(const char* key) const { return positive_value(key, required(key)); }
    uint64_t positive(const char* key, uint64_t dflt) const {
        const json* v = find(key);
        return v == nullptr ? dflt : positive_value(key, *v);
    }

    bool boolean(const char* key, bool dflt) const {
        const json* v = find(key);
        if (v == nullptr) return dflt;
        if (!v->is_boolean()) wrong(key, "true or false", *v);
        return v->get<bool>();
    }

    std::string string(const char* key) const { return string_value(key, required(key)); }
    std::string string(const char* key, const std::string& dflt) const {
        const json* v = find(key);
        return v == nullptr ? dflt : string_value(key, *v);
    }

    int int_value(const char* key, const json& v, int min, int max) const {
        if (!v.is_number_integer()) wrong(key, "an integer", v);
        // Unsigned values above INT64_MAX would read back negative, so they are caught first.
        const bool too_big =
            v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max);
        const int64_t i = too_big ? 0 : v.get<int64_t>();
        if (too_big || i < min || i > max) {
            fail(std::string("field '") + key + "' must be in [" + std::to_string(min) + ", " +
                 std::to_string(max) + "], got " + describe(v));
        }
        return static_cast<int>(i);
    }

    const json& array(const char* key, const json& v) const {
        if (!v.is_array()) wrong(key, "an array", v);
        return v;
    }

    // Rejects any field not in `allowed` (or in `common`), suggesting the closest allowed one.
    // `other` lists fields that are valid elsewhere, for a clearer message than "unknown".
    template <typename Common, typename Allowed>
    void check_known(const Common& common, const Allowed& allowed, const std::string& where,
                     const std::vector<std::string_view>* other = nullptr) const {
        for (auto it = m_obj.begin(); it != m_obj.end(); ++it) {
            const std::string& key = it.key();
            if (contains(common, key) || contains(allowed, key)) continue;
            std::vector<std::string> names(std::begin(common), std::end(common));
            names.insert(names.end(), std::begin(allowed), std::end(allowed));
            const std::string hint = suggestion(key, names);
            if (hint.empty() && other != nullptr && contains(*other, key)) {
                fail("field '" + key + "' does not apply to " + where);
            }
            fail("unknown field '" + key + "'" + hint);
        }
    }

private:
    std::string string_value(const char* key, const json& v) const {
        if (!v.is_string()) wrong(key, "a string", v);
        return v.get<std::string>();
    }

    const json& m_obj;
    std::string m_prefix;
};

// Parses one line. Duplicate keys are detected through the parser callback because nlohmann
// keeps the last value silently, and "m" written twice is a mistake worth reporting.
json parse_line(const std::string& line, const std::string& where) {
    std::vector<std::vector<std::string>> keys;
    std::string duplicate;
    auto callback = [&](int, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
                keys.emplace_back();
                break;
            case json::parse_event_t::object_end:
                keys.pop_back();
                break;
            case json::parse_event_t::key: {
                const auto& key = parsed.get_ref<const std::string&>();
                auto& level = keys.back();
                if (contains(level, key)) {
                    if (duplicate.empty()) duplicate = key;
                } else {
                    level.push_back(key);
                }
                break;
            }
            default:
                break;
        }
        return true;
    };
    json value;
    try {
        value = json::parse(line, callback);
    } catch (const json::out_of_range& e) {
        // A number beyond what a double holds (1e400): nlohmann refuses it while parsing.
        throw TraceError(
            where + "a number in this line is out of range (beyond what a 64-bit value holds)");
    } catch (const json::exception& e) {
        // nlohmann's text starts "[json.exception.parse_error.101] parse error at line 1, ";
        // the line is ours to name, so only the column and the reason are kept.
        std::string what = e.what();
        if (!what.empty() && what[0] == '[') {
            auto close = what.find("] ");
            if (close != std::string::npos) what.erase(0, close + 2);
        }
        const std::string line_one = "parse error at line 1, ";
        if (what.compare(0, line_one.size(), line_one) == 0) what.erase(0, line_one.size());
        throw TraceError(where + "malformed JSON: " + what);
    }
    if (!duplicate.empty()) throw TraceError(where + "duplicate field '" + duplicate + "'");
    return value;
}

// Refuses an op whose work (MACs, elements, bytes) exceeds kMaxOpWork or wraps 64 bits.
void check_work(const Fields& f, const Op& op) {
    std::vector<std::pair<const char*, uint64_t>> factors;
    const char* what = "";
    switch (op.kind) {
        case OpKind::kMatmul:
            what = "batch x m x n x k";
            factors = {{"batch", op.matmul.batch},
                       {"m", op.matmul.m},
                       {"n", op.matmul.n},
                       {"k", op.matmul.k}};
            break;
        case OpKind::kFusedAttention:
            what = "batch x heads x q_len x kv_len x head_dim";
            factors = {{"batch", op.attention.batch},
                       {"heads", op.attention.heads},
                       {"q_len", op.attention.q_len},
                       {"kv_len", op.attention.kv_len},
                       {"head_dim", op.attention.head_dim}};
            break;
        case OpKind::kElementwise:
        case OpKind::kActivation:
        case OpKind::kNorm:
        case OpKind::kReduce:
        case OpKind::kSoftmax:
            what = "elements (rows x cols)";
            factors = {{"rows", op.vector.rows}, {"cols", op.vector.cols}};
            break;
        case OpKind::kMemcpy:
            what = "bytes";
            factors = {{"bytes", op.copy_bytes}};
            break;
        case OpKind::kCollective:
            what = "bytes";
            factors = {{"bytes", op.collective.bytes}};
            break;
    }
    uint64_t product = 1;
    for (const auto& factor : factors) {
        if (__builtin_mul_overflow(product, factor.second, &product) || product > kMaxOpWork) {
            f.fail(std::string("too large: ") + what +
                   " exceeds 2^60, the most one op may describe " + "(split it into several ops)");
        }
    }
}

Tensor parse_tensor(const json& v, const std::string& prefix) {
    if (!v.is_object()) throw TraceError(prefix + "must be an object, got " + describe(v));
    Fields f(v, prefix);
    f.check_known(kTensorFields, std::array<std::string_view, 0>{}, "a tensor");
    Tensor t;
    t.name = f.string("name", "");
    const json& addr = f.required("addr");
    if (addr.is_string()) {
        auto hex = parse_hex(addr.get<std::string>());
        if (!hex) f.wrong("addr", "an unsigned integer or a hex string \"0x...\"", addr);
        t.addr = *hex;
    } else {
        auto u = as_unsigned(addr);
        if (!u) f.wrong("addr", "an unsigned integer or a hex string \"0x...\"", addr);
        t.addr = *u;
    }
    t.bytes = f.positive("bytes");
    if (t.bytes > kMaxOpWork)
        f.fail("field 'bytes' is " + std::to_string(t.bytes) + ", more than 2^60");
    if (t.bytes - 1 > std::numeric_limits<uint64_t>::max() - t.addr) {
        f.fail("tensor extends past the end of the 64-bit address space");
    }
    const std::string stream = f.string("stream", "general");
    auto cls = stream_class_from_string(stream);
    // Prefetch traffic is issued by the H-JSD, never named by a trace.
    if (!cls || *cls == StreamClass::kPrefetch) {
        constexpr std::array<std::string_view, 3> kStreams = {"weight", "activation", "general"};
        f.fail("field 'stream': unknown stream class '" + stream + "'" +
               suggestion(stream, kStreams) + "; expected one of " + join(kStreams));
    }
    t.stream = *cls;
    return t;
}

void parse_tensors(const Fields& f, const char* key, std::vector<Tensor>& out) {
    const json* v = f.find(key);
    if (v == nullptr) return;
    const json& list = f.array(key, *v);
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        out.push_back(parse_tensor(list[i], f.prefix() + key + "[" + std::to_string(i) + "]: "));
    }
}

std::string func_field(const Fields& f, OpKind kind, const std::string& func) {
    if (find_func(kind, func) == nullptr) {
        const auto funcs = funcs_of(kind);
        f.fail("field 'func': unknown " + std::string(to_string(kind)) + " function '" + func +
               "'" + suggestion(func, funcs) + "; expected one of " + join(funcs));
    }
    return func;
}

void parse_rows_cols(const Fields& f, Op& op) {
    op.vector.rows = f.positive("rows");
    op.vector.cols = f.positive("cols");
    if (op.vector.rows > std::numeric_limits<uint64_t>::max() / op.vector.cols) {
        f.fail("rows x cols overflows 64 bits");
    }
}

}  // namespace

// -------------------------------------------------------------------------------------------------

std::string_view to_string(OpKind kind) {
    switch (kind) {
        case OpKind::kMatmul:
            return "matmul";
        case OpKind::kFusedAttention:
            return "fused_attention";
        case OpKind::kElementwise:
            return "elementwise";
        case OpKind::kActivation:
            return "activation";
        case OpKind::kNorm:
            return "norm";
        case OpKind::kSoftmax:
            return "softmax";
        case OpKind::kReduce:
            return "reduce";
        case OpKind::kMemcpy:
            return "memcpy";
        case OpKind::kCollective:
            return "collective";
    }
    return "?";
}

double op_flops(const Op& op) {
    switch (op.kind) {
        case OpKind::kMatmul: {
            const MatmulShape& s = op.matmul;
            return 2.0 * static_cast<double>(s.batch) * static_cast<double>(s.m) *
                   static_cast<double>(s.n) * static_cast<double>(s.k);
        }
        case OpKind::kFusedAttention: {
            // Q K^T and P V, each 2 FLOPs per (query, key, head_dim) triple, counted over the
            // (query, key) pairs the mask leaves; the softmax in between is not counted.
            const AttentionShape& s = op.attention;
            const double q = static_cast<double>(s.q_len);
            const double kv = static_cast<double>(s.kv_len);
            double pairs = q * kv;
            if (s.causal) {
                // Query i (0-based) of the last q_len positions sees kv_len - q_len + i + 1
                // keys: q_len * (kv_len - q_len) + q_len * (q_len + 1) / 2 in total.
                pairs = q * (kv - q) + q * (q + 1.0) / 2.0;
            }
            return 4.0 * static_cast<double>(s.batch) * static_cast<double>(s.heads) *
                   static_cast<double>(s.head_dim) * pairs;
        }
        case OpKind::kElementwise:
        case OpKind::kActivation:
        case OpKind::kNorm:
        case OpKind::kSoftmax:
        case OpKind::kReduce: {
            const FuncFlops* f = find_func(op.kind, op.vector.func);
            if (f == nullptr) {
                throw SimulationError("op_flops: op " + std::to_string(op.id) + ": unknown " +
                                      std::string(to_string(op.kind)) + " function '" +
                                      op.vector.func + "'");
            }
            return f->flops_per_element * static_cast<double>(op.vector.rows) *
                   static_cast<double>(op.vector.cols);
        }
        case OpKind::kMemcpy:
        case OpKind::kCollective:
            return 0.0;
    }
    return 0.0;
}

void IdGaps::check(const Op& op, const std::string& display_name) {
    for (uint64_t d : op.deps) {
        // Every id from m_next_id up to the op's own is missing too: the gap just before the op
        // counts as much as the earlier ones.
        auto gap = m_gaps.upper_bound(d);
        const bool in_earlier_gap = gap != m_gaps.begin() && d < std::prev(gap)->second;
        if (d >= m_next_id || in_earlier_gap) {
            throw TraceError(display_name + ":" + std::to_string(op.line) + ": op " +
                             std::to_string(op.id) + " depends on op " + std::to_string(d) +
                             ", which is not in the trace");
        }
    }
    if (op.id > m_next_id) m_gaps.emplace(m_next_id, op.id);
    m_next_id = op.id + 1;
}

TraceReader::TraceReader(const std::string& path) : TraceReader(open_trace(path), path) {}

TraceReader::TraceReader(std::unique_ptr<std::istream> in, std::string display_name)
    : m_in(std::move(in)), m_display_name(std::move(display_name)) {
    read_header();
}

TraceReader::~TraceReader() = default;

bool TraceReader::next_line(std::string& line) {
    const uint64_t line_no = m_line + 1;
    bool got;
    try {
        got = static_cast<bool>(std::getline(*m_in, line));
    } catch (const std::exception& e) {
        throw TraceError(m_display_name + ":" + std::to_string(line_no) +
                         ": read error: " + e.what());
    }
    if (!got) {
        if (m_in->bad()) {
            throw TraceError(m_display_name + ":" + std::to_string(line_no) +
                             ": read error: " + std::strerror(errno));
        }
        return false;
    }
    m_line = line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

void TraceReader::read_header() {
    const std::string where = m_display_name + ":1: ";
    const std::string expected = "expected the header {\"format\":\"" + std::string(kFormatName) +
                                 "\",\"version\":" + std::to_string(kFormatVersion) +
                                 ",...} as line 1";
    std::string line;
    if (!next_line(line)) throw TraceError(where + "empty trace: " + expected);
    // A UTF-8 byte order mark is harmless; some editors add one.
    if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) throw TraceError(where + "missing header: " + expected);
    if (line[first] == '#') {
        throw TraceError(where + "missing header: " + expected + ", found a comment");
    }
    const json obj = parse_line(line, where);
    if (!obj.is_object()) {
        throw TraceError(where + "missing header: " + expected + ", found " + describe(obj));
    }
    Fields f(obj, where + "header: ");
    if (!obj.contains("format")) {
        if (obj.contains("op") || obj.contains("id")) {
            throw TraceError(where + "missing header: " + expected + ", found an op record");
        }
        f.required("format");
    }
    const std::string format = f.string("format");
    if (format != kFormatName) {
        f.fail("field 'format' is \"" + format + "\", expected \"" + kFormatName + "\"");
    }
    const json& version = f.required("version");
    if (!version.is_number_integer()) f.wrong("version", "an integer", version);
    if (!version.is_number_unsigned() || version.get<uint64_t>() != kFormatVersion) {
        f.fail("unsupported format version " + describe(version) +
               "; this reader supports version " + std::to_string(kFormatVersion));
    }
    constexpr std::array<std::string_view, 6> kHeaderFields = {"format", "version", "name",
                                                               "model",  "dies",    "die"};
    f.check_known(kHeaderFields, std::array<std::string_view, 0>{}, "the header");
    m_header.version = kFormatVersion;
    m_header.name = f.string("name", "");
    m_header.model = f.string("model", "");
    const int int_max = std::numeric_limits<int>::max();
    if (const json* dies = f.find("dies")) m_header.dies = f.int_value("dies", *dies, 1, int_max);
    if (const json* die = f.find("die")) {
        m_header.die = f.int_value("die", *die, 0, int_max);
        if (m_header.die >= m_header.dies) {
            f.fail("field 'die' is " + std::to_string(m_header.die) + " but must be less than " +
                   "'dies' (" + std::to_string(m_header.dies) + ")");
        }
    }
}

namespace {

// The op's kind from field 'op' (its name in `kind_name`); fails on an unknown kind or on a field
// the kind does not take.
OpKind parse_kind(const Fields& f, std::string& kind_name) {
    kind_name = f.string("op");
    const KindName* kind = nullptr;
    for (const KindName& k : kKindNames) {
        if (k.name == kind_name) kind = &k;
    }
    if (kind == nullptr) {
        std::vector<std::string_view> names;
        for (const KindName& k : kKindNames) names.push_back(k.name);
        f.fail("field 'op': unknown op kind '" + kind_name + "'" + suggestion(kind_name, names) +
               "; expected one of " + join(names));
    }
    f.check_known(kCommonFields, kind_fields(kind->kind), "op '" + kind_name + "'",
                  &all_kind_fields());
    return kind->kind;
}

DType parse_dtype(const Fields& f) {
    const std::string dtype = f.string("dtype", "bf16");
    const auto dt = dtype_from_string(dtype);
    if (!dt) {
        std::vector<std::string> names;
        for (DType t :
             {DType::kFp32, DType::kTf32, DType::kFp16, DType::kBf16, DType::kFp8, DType::kHif8,
              DType::kInt8, DType::kFp4, DType::kHif4, DType::kInt4, DType::kInt32}) {
            names.emplace_back(to_string(t));
        }
        f.fail("field 'dtype': unknown dtype '" + dtype + "'" + suggestion(dtype, names) +
               "; expected one of " + join(names));
    }
    return *dt;
}

// Field 'deps': earlier ops' ids, each once.
void parse_deps(const Fields& f, Op& op) {
    const json* deps = f.find("deps");
    if (!deps) return;
    for (const json& d : f.array("deps", *deps)) {
        auto dep = as_unsigned(d);
        if (!dep) f.fail("field 'deps' must hold unsigned integers, got " + describe(d));
        if (*dep >= op.id) {
            f.fail("dep " + std::to_string(*dep) +
                   " is not an earlier op (deps must be less "
                   "than the op's id " +
                   std::to_string(op.id) + ")");
        }
        if (contains(op.deps, *dep)) f.fail("dep " + std::to_string(*dep) + " listed twice");
        op.deps.push_back(*dep);
    }
}

// A collective's kind, group (which must hold `die`, the file's) and bytes.
void parse_collective(const Fields& f, int die, int dies, CollectiveShape& s) {
    s.kind = f.string("kind");
    if (!contains(kCollectiveKinds, s.kind)) {
        f.fail("field 'kind': unknown collective '" + s.kind + "'" +
               suggestion(s.kind, kCollectiveKinds) + "; expected one of " +
               join(kCollectiveKinds));
    }
    const json& group = f.array("group", f.required("group"));
    if (group.empty()) f.fail("field 'group' must name at least one die");
    for (const json& g : group) {
        const int d = f.int_value("group", g, 0, dies - 1);
        if (contains(s.group, d)) {
            f.fail("die " + std::to_string(d) + " is listed twice in 'group'");
        }
        s.group.push_back(d);
    }
    if (!contains(s.group, die)) {
        f.fail("field 'group' does not include die " + std::to_string(die) +
               ", the die this file is for");
    }
    if ((s.kind == "send" || s.kind == "recv") && s.group.size() != 2) {
        f.fail("a " + s.kind + " names two dies in 'group' ([sender, receiver]), got " +
               std::to_string(s.group.size()));
    }
    s.bytes = f.positive("bytes");
}

// The fields of the op's kind (its shape, function or bytes).
void parse_kind_fields(const Fields& f, const std::string& kind_name, int dies, Op& op) {
    switch (op.kind) {
        case OpKind::kMatmul: {
            MatmulShape& s = op.matmul;
            s.m = f.positive("m");
            s.n = f.positive("n");
            s.k = f.positive("k");
            s.batch = kind_name == "batch_matmul" ? f.positive("batch") : f.positive("batch", 1);
            s.trans_a = f.boolean("trans_a", false);
            s.trans_b = f.boolean("trans_b", false);
            break;
        }
        case OpKind::kFusedAttention: {
            AttentionShape& s = op.attention;
            s.batch = f.positive("batch", 1);
            s.heads = f.positive("heads");
            s.kv_heads = f.positive("kv_heads", s.heads);
            s.q_len = f.positive("q_len");
            s.kv_len = f.positive("kv_len");
            s.head_dim = f.positive("head_dim");
            s.causal = f.boolean("causal", false);
            if (s.heads % s.kv_heads != 0) {
                f.fail("heads (" + std::to_string(s.heads) + ") must be a multiple of kv_heads (" +
                       std::to_string(s.kv_heads) + ")");
            }
            if (s.causal && s.q_len > s.kv_len) {
                f.fail("causal attention needs q_len <= kv_len, got q_len " +
                       std::to_string(s.q_len) + " and kv_len " + std::to_string(s.kv_len));
            }
            break;
        }
        case OpKind::kElementwise:
        case OpKind::kActivation:
            op.vector.func = func_field(f, op.kind, f.string("func"));
            op.vector.rows = 1;
            op.vector.cols = f.positive("elements");
            break;
        case OpKind::kNorm:
        case OpKind::kReduce:
            op.vector.func = func_field(f, op.kind, f.string("func"));
            parse_rows_cols(f, op);
            break;
        case OpKind::kSoftmax:
            op.vector.func = func_field(f, op.kind, f.string("func", "softmax"));
            parse_rows_cols(f, op);
            break;
        case OpKind::kMemcpy:
            op.copy_bytes = f.positive("bytes");
            if (op.inputs.size() != 1 || op.outputs.size() != 1) {
                f.fail("memcpy needs exactly one input and one output tensor, got " +
                       std::to_string(op.inputs.size()) + " and " +
                       std::to_string(op.outputs.size()));
            }
            break;
        case OpKind::kCollective:
            parse_collective(f, op.die, dies, op.collective);
            break;
    }
}

}  // namespace

bool TraceReader::next(Op& op) {
    std::string line;
    for (;;) {
        if (!next_line(line)) return false;
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line[first] != '#') break;
    }
    const std::string where = m_display_name + ":" + std::to_string(m_line) + ": ";
    const json obj = parse_line(line, where);
    if (!obj.is_object()) {
        throw TraceError(where + "an op record must be a JSON object, got " + describe(obj));
    }
    if (obj.contains("format")) {
        throw TraceError(where + "unexpected header record (the header is line 1 only)");
    }

    op = Op();
    op.line = m_line;
    {
        Fields f(obj, where);
        op.id = f.unsigned_value("id", f.required("id"));
    }
    Fields f(obj, where + "op " + std::to_string(op.id) + ": ");
    if (m_have_prev_id && op.id <= m_prev_id) {
        f.fail("id " + std::to_string(op.id) + " is not greater than the previous op's id " +
               std::to_string(m_prev_id) + " (ids must strictly increase)");
    }
    std::string kind_name;
    op.kind = parse_kind(f, kind_name);
    op.name = f.string("name", "");
    op.dtype = parse_dtype(f);
    parse_tensors(f, "inputs", op.inputs);
    parse_tensors(f, "outputs", op.outputs);
    parse_deps(f, op);
    op.die = m_header.die;
    if (const json* die = f.find("die")) {
        const int d = f.int_value("die", *die, 0, std::numeric_limits<int>::max());
        if (d != m_header.die) {
            f.fail("field 'die' is " + std::to_string(d) + " but this file is for die " +
                   std::to_string(m_header.die) + " (v1 holds one die per file)");
        }
    }
    parse_kind_fields(f, kind_name, m_header.dies, op);
    check_work(f, op);
    m_have_prev_id = true;
    m_prev_id = op.id;
    return true;
}

// Lines that start with '{' in `text`; `line_start` carries over from the previous piece.
static uint64_t count_records(std::string_view text, bool& line_start) {
    uint64_t records = 0;
    for (char c : text) {
        if (line_start && c == '{') ++records;
        line_start = c == '\n';
    }
    return records;
}

uint64_t estimate_op_count_of_text(std::string_view text) {
    bool line_start = true;
    const uint64_t records = count_records(text, line_start);
    return records > 0 ? records - 1 : 0;  // the header is a record too
}

uint64_t estimate_op_count(const std::string& path) {
    if (ends_with(path, ".gz")) return 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) return 0;
    uint64_t records = 0;
    bool line_start = true;
    std::vector<char> buf(std::size_t{1} << 20);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
        records += count_records(
            std::string_view(buf.data(), static_cast<std::size_t>(in.gcount())), line_start);
    }
    return records > 0 ? records - 1 : 0;
}

}  // namespace asim::trace
