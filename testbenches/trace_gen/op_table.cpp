#include "testbenches/trace_gen/op_table.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/csv.h"
#include "models/common/errors.h"
#include "models/common/trace_set_index.h"

namespace asim::tracegen {

namespace fs = std::filesystem;

namespace {

constexpr std::array<const char*, 4> kBounds = {"compute", "memory", "latency", "communication"};

bool vector_kind(trace::OpKind k) {
    return k == trace::OpKind::kElementwise || k == trace::OpKind::kActivation ||
           k == trace::OpKind::kNorm || k == trace::OpKind::kSoftmax || k == trace::OpKind::kReduce;
}

// One signature's ops: the first op seen stands for the shape; the rest add their measurements.
struct Group {
    trace::Op op;
    std::string signature;
    uint64_t count = 0;
    double total_ns = 0, min_ns = 0, max_ns = 0, flops = 0, hbm_read = 0, hbm_write = 0;
    std::array<uint64_t, kBounds.size()> bounds{};
    std::set<uint32_t> dies;
};

struct TraceOps {
    std::string path;  // what was read, for messages
    bool set = false;  // a trace set: ops.csv's die column selects the file
    // (die, op id) -> group index and kind; a single file is die 0 whatever its header says, as
    // a single-die run reports it.
    std::map<uint32_t, std::unordered_map<uint64_t, std::pair<uint32_t, trace::OpKind>>> ops;
    std::vector<Group> groups;
    std::unordered_map<std::string, uint32_t> by_signature;
    uint64_t count = 0;
};

// The ops of one die's trace file (a trace set's index reader has checked its header).
void read_trace_file(const std::string& path, uint32_t die, TraceOps& t) {
    trace::TraceReader reader(path);
    trace::Op op;
    auto& ids = t.ops[die];
    while (reader.next(op)) {
        std::string sig = op_signature(op);
        auto [it, fresh] = t.by_signature.emplace(sig, static_cast<uint32_t>(t.groups.size()));
        if (fresh) {
            Group g;
            g.signature = std::move(sig);
            op.inputs.clear();
            op.outputs.clear();
            op.deps.clear();
            g.op = op;
            t.groups.push_back(std::move(g));
        }
        ids.emplace(op.id, std::make_pair(it->second, op.kind));
        ++t.count;
    }
}

TraceOps read_trace(const std::string& path) {
    TraceOps t;
    std::error_code ec;
    fs::path index;
    if (fs::is_directory(path, ec)) {
        index = fs::path(path) / "index.json";
    } else if (fs::path(path).filename() == "index.json") {
        index = path;
    }
    if (index.empty()) {
        t.path = path;
        read_trace_file(path, 0, t);
        return t;
    }
    t.path = index.string();
    t.set = true;
    for (const auto& [die, file] : read_trace_set_index(index).files)
        read_trace_file(file.string(), die, t);
    return t;
}

// The trace the run replayed, from its stats.json (meta.trace), as given to `run`.
std::string trace_of_run(const fs::path& run_dir) {
    const fs::path stats = run_dir / "stats.json";
    std::ifstream in(stats);
    if (!in) {
        throw InputError(
            "--run '" + run_dir.string() +
            "' has no stats.json to name the trace that was run; give it with --trace");
    }
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("meta") ||
        !doc["meta"].is_object() || !doc["meta"].contains("trace") ||
        !doc["meta"]["trace"].is_string()) {
        throw InputError(stats.string() +
                         ": no meta.trace naming the trace that was run; give it with --trace");
    }
    const std::string trace = doc["meta"]["trace"].get<std::string>();
    if (trace.rfind("builtin:", 0) == 0) {
        throw InputError(
            stats.string() + ": the run replayed the built-in trace '" + trace +
            "', which has no file; write it with `ascend-sim trace gen` (traces/FORMAT.md) "
            "and give that file with --trace");
    }
    std::error_code ec;
    if (!fs::exists(trace, ec)) {
        throw InputError(
            stats.string() + ": the trace the run replayed, '" + trace +
            "' (meta.trace, as given to `run`), is not there from this directory; give it "
            "with --trace");
    }
    return trace;
}

std::string num(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.15g", v);
    return b;
}

std::string num(uint64_t v) { return std::to_string(v); }

}  // namespace

std::string op_signature(const trace::Op& op) {
    using trace::OpKind;
    std::ostringstream s;
    s << trace::to_string(op.kind);
    if (vector_kind(op.kind)) s << ' ' << op.vector.func;
    if (op.kind == OpKind::kCollective) s << ' ' << op.collective.kind;
    if (op.kind != OpKind::kMemcpy) s << ' ' << to_string(op.dtype);
    switch (op.kind) {
        case OpKind::kMatmul: {
            const auto& m = op.matmul;
            if (m.batch != 1) s << " batch=" << m.batch;
            s << " m=" << m.m << " n=" << m.n << " k=" << m.k << (m.trans_a ? " trans_a" : "")
              << (m.trans_b ? " trans_b" : "");
            break;
        }
        case OpKind::kFusedAttention: {
            const auto& a = op.attention;
            s << " batch=" << a.batch << " heads=" << a.heads << " kv_heads=" << a.kv_heads
              << " q_len=" << a.q_len << " kv_len=" << a.kv_len << " head_dim=" << a.head_dim
              << (a.causal ? " causal" : "");
            break;
        }
        case OpKind::kMemcpy:
            s << " bytes=" << op.copy_bytes;
            break;
        case OpKind::kCollective:
            s << " bytes=" << op.collective.bytes << " group=" << op.collective.group.size();
            break;
        default:
            if ((op.kind == OpKind::kElementwise || op.kind == OpKind::kActivation) &&
                op.vector.rows == 1) {
                s << " elements=" << op.vector.cols;
            } else {
                s << " rows=" << op.vector.rows << " cols=" << op.vector.cols;
            }
            break;
    }
    return s.str();
}

const char* op_table_header() {
    return "signature,kind,func,dtype,batch,m,n,k,trans_a,trans_b,heads,kv_heads,q_len,kv_len,head_"
           "dim,"
           "causal,rows,cols,bytes,group_size,count,dies,total_duration_ns,mean_duration_ns,"
           "min_duration_ns,max_duration_ns,flops_per_op,achieved_tflops,hbm_read_bytes_per_op,"
           "hbm_write_bytes_per_op,bound";
}

OpTable build_op_table(const std::string& run_dir, const std::string& trace_arg) {
    const fs::path run(run_dir);
    const fs::path ops_csv = run / "ops.csv";
    std::error_code ec;
    if (!fs::is_directory(run, ec)) {
        throw InputError("--run '" + run_dir +
                         "' is not a directory (give the --out directory of `ascend-sim run`)");
    }
    std::ifstream in(ops_csv, std::ios::binary);
    if (!in) {
        throw InputError(
            "--run '" + run_dir +
            "' has no ops.csv (give the --out directory of a finished `ascend-sim run`)");
    }
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();

    const std::string trace_path = trace_arg.empty() ? trace_of_run(run) : trace_arg;
    TraceOps t = read_trace(trace_path);

    // The columns are found by name: ops.csv only ever appends columns (docs/outputs.md).
    std::size_t pos = 0;
    std::vector<std::string> f;
    if (!csv_record(text, pos, f)) throw InputError(ops_csv.string() + ": empty (no header line)");
    std::map<std::string, std::size_t> col;
    for (std::size_t i = 0; i < f.size(); ++i) col.emplace(f[i], i);
    const char* needed[] = {
        "id", "kind", "die", "duration_ns", "flops", "hbm_read_bytes", "hbm_write_bytes", "bound"};
    for (const char* c : needed) {
        if (!col.count(c))
            throw InputError(ops_csv.string() + ":1: no column '" + c +
                             "' (not an ops.csv of `ascend-sim run`)");
    }
    std::set<std::pair<uint32_t, uint64_t>> seen;
    std::set<uint32_t> dies;
    std::vector<uint32_t> order;  // groups in order of first appearance in the run
    std::vector<bool> listed(t.groups.size(), false);
    uint64_t line = 1, rows = 0;
    while (csv_record(text, pos, f)) {
        ++line;
        const std::string at = ops_csv.string() + ":" + std::to_string(line) + ": ";
        if (f.size() == 1 && f[0].empty()) continue;  // a blank last line
        if (f.size() != col.size()) {
            throw InputError(at + std::to_string(f.size()) + " fields where the header has " +
                             std::to_string(col.size()));
        }
        auto unsigned_cell = [&](const char* name) {
            const std::string& v = f[col.at(name)];
            errno = 0;
            char* end = nullptr;
            const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
            if (v.empty() || v[0] == '-' || *end != '\0' || errno == ERANGE) {
                throw InputError(at + "column '" + name + "' must be an unsigned integer, got '" +
                                 v + "'");
            }
            return static_cast<uint64_t>(x);
        };
        auto number_cell = [&](const char* name) {
            const std::string& v = f[col.at(name)];
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || !(x >= 0) || x > 1e300) {
                throw InputError(at + "column '" + name + "' must be a number >= 0, got '" + v +
                                 "'");
            }
            return x;
        };
        const uint64_t id = unsigned_cell("id");
        const uint64_t die64 = unsigned_cell("die");
        if (die64 > UINT32_MAX)
            throw InputError(at + "die " + std::to_string(die64) + " out of range");
        const uint32_t die = static_cast<uint32_t>(die64);
        dies.insert(die);
        if (!t.set && dies.size() > 1) {
            throw InputError(at + "ops of several dies, but '" + t.path +
                             "' is one die's trace: give the trace set (its directory or "
                             "index.json) with --trace");
        }
        const auto file = t.ops.find(t.set ? die : 0);
        if (file == t.ops.end() || !file->second.count(id)) {
            throw InputError(
                at + "op " + std::to_string(id) + (t.set ? " of die " + std::to_string(die) : "") +
                " is not in the trace '" + t.path +
                "': the run did not replay this trace (give the one it did with --trace)");
        }
        const auto& [group, op_kind] = file->second.at(id);
        const std::string kind = f[col.at("kind")];
        if (kind != trace::to_string(op_kind)) {
            throw InputError(
                at + "op " + std::to_string(id) + " is a " + kind + " in the run but a " +
                std::string(trace::to_string(op_kind)) + " in the trace '" + t.path +
                "': the run did not replay this trace (give the one it did with --trace)");
        }
        if (!seen.emplace(die, id).second) {
            throw InputError(at + "op " + std::to_string(id) + " of die " + std::to_string(die) +
                             " appears twice");
        }
        const std::string bound = f[col.at("bound")];
        const auto b = std::find(kBounds.begin(), kBounds.end(), bound);
        if (b == kBounds.end()) throw InputError(at + "unknown bound '" + bound + "'");
        const double ns = number_cell("duration_ns");
        Group& g = t.groups[group];
        g.min_ns = g.count == 0 ? ns : std::min(g.min_ns, ns);
        g.max_ns = g.count == 0 ? ns : std::max(g.max_ns, ns);
        ++g.count;
        g.total_ns += ns;
        g.flops += number_cell("flops");
        g.hbm_read += number_cell("hbm_read_bytes");
        g.hbm_write += number_cell("hbm_write_bytes");
        ++g.bounds[static_cast<std::size_t>(b - kBounds.begin())];
        g.dies.insert(die);
        if (!listed[group]) {
            listed[group] = true;
            order.push_back(group);
        }
        ++rows;
    }
    if (rows != t.count) {
        throw InputError(ops_csv.string() + ": " + std::to_string(rows) + " ops, but the trace '" +
                         t.path + "' has " + std::to_string(t.count) +
                         ": the run did not replay this trace (give the one it did with --trace)");
    }

    OpTable table;
    table.trace = t.path;
    table.ops = rows;
    table.dies = static_cast<uint32_t>(dies.size());
    std::string& csv = table.csv;
    csv = std::string(op_table_header()) + "\n";
    for (uint32_t gi : order) {
        const Group& g = t.groups[gi];
        const trace::Op& op = g.op;
        using trace::OpKind;
        const bool mm = op.kind == OpKind::kMatmul, fa = op.kind == OpKind::kFusedAttention;
        const bool vec = vector_kind(op.kind), coll = op.kind == OpKind::kCollective;
        const std::string none;
        auto cell = [&](bool applies, const std::string& v) { return applies ? v : none; };
        const std::string func = vec ? op.vector.func : coll ? op.collective.kind : none;
        const std::size_t most =
            static_cast<std::size_t>(std::max_element(g.bounds.begin(), g.bounds.end()) -
                                     g.bounds.begin());  // ties: the first
        const double n = static_cast<double>(g.count);
        std::vector<std::string> c = {
            csv_field(g.signature),
            std::string(trace::to_string(op.kind)),
            csv_field(func),
            cell(op.kind != OpKind::kMemcpy, std::string(to_string(op.dtype))),  // a copy has none
            cell(mm || fa, num(mm ? op.matmul.batch : op.attention.batch)),
            cell(mm, num(op.matmul.m)),
            cell(mm, num(op.matmul.n)),
            cell(mm, num(op.matmul.k)),
            cell(mm, op.matmul.trans_a ? "1" : "0"),
            cell(mm, op.matmul.trans_b ? "1" : "0"),
            cell(fa, num(op.attention.heads)),
            cell(fa, num(op.attention.kv_heads)),
            cell(fa, num(op.attention.q_len)),
            cell(fa, num(op.attention.kv_len)),
            cell(fa, num(op.attention.head_dim)),
            cell(fa, op.attention.causal ? "1" : "0"),
            cell(vec, num(op.vector.rows)),
            cell(vec, num(op.vector.cols)),
            cell(op.kind == OpKind::kMemcpy || coll,
                 num(op.kind == OpKind::kMemcpy ? op.copy_bytes : op.collective.bytes)),
            cell(coll, num(static_cast<uint64_t>(op.collective.group.size()))),
            num(g.count),
            num(static_cast<uint64_t>(g.dies.size())),
            num(g.total_ns),
            num(g.total_ns / n),
            num(g.min_ns),
            num(g.max_ns),
            num(g.flops / n),
            cell(g.total_ns > 0, num(g.flops / g.total_ns / 1e3)),  // FLOP/ns = 1e9 FLOP/s
            num(g.hbm_read / n),
            num(g.hbm_write / n),
            kBounds[most],
        };
        for (std::size_t i = 0; i < c.size(); ++i) csv += (i ? "," : "") + c[i];
        csv += "\n";
        ++table.rows;
    }
    return table;
}

}  // namespace asim::tracegen
