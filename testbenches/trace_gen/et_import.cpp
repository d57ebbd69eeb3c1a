// PyTorch execution trace -> op trace v1.
//
// Nodes are ops with `id`, `name`, `parent`, `inputs` / `input_shapes` / `input_types` and
// `outputs` / `output_shapes` / `output_types`; a tensor is [tensor_id, storage_id, offset,
// numel, element_size, device]. Node ids increase in execution order (parents before their
// children). Rules:
// - Only the outermost aten op of a call tree is imported (a `linear` and its `addmm` child are
//   one GEMM); an outermost op with no mapping whose children are aten ops is replaced by them.
// - View and bookkeeping ops (view, reshape, transpose, as_strided, select, resolve_conj, ...)
//   write nothing and are folded away.
// - Dependencies follow storage: an op depends on the last op that wrote a storage it reads,
//   so views resolve to the op that produced the underlying data, whatever the file order.
// - Ops without a v1 kind become `elementwise` `copy` ops over their output (named
//   "generic:aten::NAME") and are listed in the report.
// Tensors that no imported op wrote before they are read are model parameters or inputs: the
// second operand of a GEMM is classed `weight`, the rest `activation`.
#include "testbenches/trace_gen/et_import.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/trace.h"

namespace asim::tracegen {

namespace {

using json = nlohmann::json;
using OJ = nlohmann::ordered_json;

const std::set<std::string> kFolded = {
    "aten::view", "aten::reshape", "aten::_unsafe_view", "aten::transpose", "aten::t", "aten::permute",
    "aten::as_strided", "aten::select", "aten::slice", "aten::narrow", "aten::split", "aten::chunk",
    "aten::unsqueeze", "aten::squeeze", "aten::expand", "aten::flatten", "aten::resolve_conj",
    "aten::resolve_neg", "aten::detach", "aten::alias", "aten::empty", "aten::empty_like",
    "aten::empty_strided", "aten::dropout", "aten::feature_dropout", "aten::lift_fresh",
    "aten::to", "aten::_to_copy", "aten::contiguous_view", "aten::size", "aten::stride",
    "aten::is_nonzero", "aten::item", "aten::_local_scalar_dense", "aten::unbind", "aten::view_as"};

struct TensorRef {
    uint64_t id = 0, storage = 0, offset = 0, numel = 0, elem = 0;
};

bool is_tensor(const json& v) {
    // Ids, offsets and sizes are counts: a negative one is not a tensor reference.
    return v.is_array() && v.size() == 6 && v[0].is_number_unsigned() && v[1].is_number_unsigned() &&
           v[2].is_number_unsigned() && v[3].is_number_unsigned() && v[4].is_number_unsigned();
}

TensorRef tensor_of(const json& v) {
    return {v[0].get<uint64_t>(), v[1].get<uint64_t>(), v[2].get<uint64_t>(), v[3].get<uint64_t>(),
            v[4].get<uint64_t>()};
}

std::string dtype_of(const std::string& type) {
    if (type.find("BFloat16") != std::string::npos) return "bf16";
    if (type.find("Half") != std::string::npos) return "fp16";
    if (type.find("Float8") != std::string::npos) return "fp8";
    if (type.find("int") != std::string::npos || type.find("Int") != std::string::npos ||
        type.find("long") != std::string::npos) return "int32";
    return "fp32";  // float and double (double is counted as fp32: no fp64 in the format)
}

class Importer {
public:
    Importer(std::string path, std::ostream& out) : m_path(std::move(path)), m_out(out) {}

    // Every node field is checked before use; anything nlohmann still throws (a value of a type
    // the importer did not expect somewhere deeper) is reported as a bad trace, never as a
    // library message.
    ImportReport run(const std::string& name) {
        try {
            return run_checked(name);
        } catch (const nlohmann::json::exception& e) {
            std::string what = e.what();
            const auto close = what.find("] ");
            if (!what.empty() && what[0] == '[' && close != std::string::npos) what.erase(0, close + 2);
            throw TraceError(m_path + ": not a valid PyTorch execution trace: " + what);
        }
    }

private:
    ImportReport run_checked(const std::string& name) {
        std::ifstream in(m_path);
        if (!in) throw TraceError("cannot open execution trace '" + m_path + "'");
        json doc;
        try {
            doc = json::parse(in);
        } catch (const json::parse_error& e) {
            throw TraceError(m_path + ": not a PyTorch execution trace: malformed JSON at byte " +
                             std::to_string(e.byte));
        }
        if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array()) {
            throw TraceError(m_path + ": not a PyTorch execution trace: no 'nodes' array "
                             "(expected the JSON of torch.profiler.ExecutionGraphObserver)");
        }
        std::size_t index = 0;
        for (const json& n : doc["nodes"]) {
            const std::string where = m_path + ": nodes[" + std::to_string(index++) + "]: ";
            if (!n.is_object() || !n.contains("id") || !n.contains("name") || !n.contains("parent")) {
                throw TraceError(m_path + ": not a PyTorch execution trace: a node lacks 'id', 'name' or 'parent'");
            }
            if (!n["id"].is_number_unsigned()) throw TraceError(where + "'id' must be an unsigned integer, got " + n["id"].dump());
            if (!n["parent"].is_number_unsigned()) {
                throw TraceError(where + "'parent' must be an unsigned integer, got " + n["parent"].dump());
            }
            if (!n["name"].is_string()) throw TraceError(where + "'name' must be a string, got " + n["name"].dump());
            if (!m_nodes.emplace(n["id"].get<uint64_t>(), &n).second) {
                throw TraceError(where + "node id " + std::to_string(n["id"].get<uint64_t>()) + " appears twice");
            }
            // The root names itself as its parent; that is no child edge.
            if (n["parent"].get<uint64_t>() != n["id"].get<uint64_t>()) {
                m_children[n["parent"].get<uint64_t>()].push_back(n["id"].get<uint64_t>());
            }
        }
        for (auto& [id, kids] : m_children) std::sort(kids.begin(), kids.end());
        m_report.nodes = m_nodes.size();
        OJ h{{"format", "ascend-sim-trace"}, {"version", 1}, {"name", name},
             {"model", "pytorch-et " + doc.value("schema", std::string("?"))}, {"dies", 1}, {"die", 0}};
        m_out << h.dump() << '\n';
        for (const auto& [id, n] : m_nodes) {
            const auto parent = m_nodes.find((*n)["parent"].get<uint64_t>());
            const bool parent_is_aten = parent != m_nodes.end() && parent->second != n &&
                                        is_aten(*parent->second);
            if (is_aten(*n) && !parent_is_aten) visit(*n);
        }
        return m_report;
    }

    static bool is_aten(const json& n) { return n["name"].get<std::string>().rfind("aten::", 0) == 0; }

    [[noreturn]] void fail(const json& n, const std::string& why) const {
        throw TraceError(m_path + ": node " + std::to_string(n["id"].get<uint64_t>()) + " (" +
                         n["name"].get<std::string>() + "): " + why);
    }

    const json& field(const json& n, const char* key) const {
        if (!n.contains(key) || !n[key].is_array()) fail(n, std::string("missing '") + key + "'");
        return n[key];
    }

    std::vector<uint64_t> shape(const json& n, std::size_t i) const {
        const json& shapes = field(n, "input_shapes");
        if (i >= shapes.size() || !shapes[i].is_array()) fail(n, "input_shapes lacks operand " + std::to_string(i));
        std::vector<uint64_t> s;
        uint64_t elements = 1;
        for (const json& d : shapes[i]) {
            if (!d.is_number_integer()) fail(n, "input_shapes[" + std::to_string(i) + "] is not a tensor shape");
            if (!d.is_number_unsigned()) {
                fail(n, "input_shapes[" + std::to_string(i) + "] has a negative dimension " + d.dump());
            }
            s.push_back(d.get<uint64_t>());
            if (__builtin_mul_overflow(elements, s.back(), &elements) || elements > trace::kMaxOpWork) {
                fail(n, "input_shapes[" + std::to_string(i) + "] has more than 2^60 elements");
            }
        }
        return s;
    }

    static uint64_t prod(const std::vector<uint64_t>& s, std::size_t from = 0, std::size_t to = SIZE_MAX) {
        uint64_t p = 1;
        for (std::size_t i = from; i < std::min(to, s.size()); ++i) p *= s[i];
        return p;
    }

    void visit(const json& n) {
        const std::string op = n["name"].get<std::string>();
        if (kFolded.count(op)) {
            ++m_report.folded[op];
            return;
        }
        OJ j;
        if (map(n, op, j)) {
            // A zero-sized tensor (a dimension of 0) makes the op do nothing, and a v1 op's
            // extents must be positive: it is folded away like the bookkeeping ops.
            uint64_t work =
                1;  // batch x m x n x k, rows x cols or elements: at most 2^60 (traces/FORMAT.md)
            for (const char* extent : {"batch", "m", "n", "k", "rows", "cols", "elements"}) {
                if (!j.contains(extent)) continue;
                const uint64_t e = j[extent].get<uint64_t>();
                if (e == 0) {
                    ++m_report.folded[op];
                    return;
                }
                if (__builtin_mul_overflow(work, e, &work) || work > trace::kMaxOpWork) {
                    fail(n,
                         "its operands' shapes describe more than 2^60 units of work, the most one "
                         "op may");
                }
            }
            emit(n, op, j);
            ++m_report.mapped[op];
            return;
        }
        const auto kids = m_children.find(n["id"].get<uint64_t>());
        if (kids != m_children.end() && !kids->second.empty()) {
            // Parent links that loop (a node its own ancestor) would recurse forever.
            if (!m_on_path.insert(n["id"].get<uint64_t>()).second) {
                fail(n, "is its own ancestor: the 'parent' links form a loop");
            }
            if (m_on_path.size() > kMaxDepth) {
                fail(n, "is nested more than " + std::to_string(kMaxDepth) + " ops deep");
            }
            for (uint64_t k : kids->second) visit(*m_nodes.at(k));
            m_on_path.erase(n["id"].get<uint64_t>());
            return;
        }
        // No v1 kind: keep the data movement as a generic copy and report it.
        uint64_t elements = 0;
        if (n.contains("outputs")) {
            for (const json& o : n["outputs"]) {
                if (is_tensor(o)) elements += tensor_of(o).numel;
            }
        }
        ++m_report.generic[op];
        if (elements == 0) return;
        OJ g{{"op", "elementwise"}, {"name", "generic:" + op}, {"func", "copy"}, {"elements", elements}};
        emit(n, op, g);
    }

    // Fills `j` with the v1 op for `n`; false when the op has no mapping.
    bool map(const json& n, const std::string& op, OJ& j) {
        static const std::map<std::string, std::pair<const char*, const char*>> kVector = {
            {"aten::add", {"elementwise", "add"}},   {"aten::add_", {"elementwise", "add"}},
            {"aten::sub", {"elementwise", "sub"}},   {"aten::sub_", {"elementwise", "sub"}},
            {"aten::mul", {"elementwise", "mul"}},   {"aten::mul_", {"elementwise", "mul"}},
            {"aten::div", {"elementwise", "div"}},   {"aten::div_", {"elementwise", "div"}},
            {"aten::maximum", {"elementwise", "max"}}, {"aten::minimum", {"elementwise", "min"}},
            {"aten::gelu", {"activation", "gelu"}},  {"aten::silu", {"activation", "silu"}},
            {"aten::relu", {"activation", "relu"}},  {"aten::relu_", {"activation", "relu"}},
            {"aten::sigmoid", {"activation", "sigmoid"}}, {"aten::tanh", {"activation", "tanh"}},
            {"aten::exp", {"activation", "exp"}},    {"aten::clone", {"elementwise", "copy"}},
            {"aten::contiguous", {"elementwise", "copy"}}, {"aten::copy_", {"elementwise", "copy"}}};
        j = OJ{{"name", op}};
        if (op == "aten::mm" || op == "aten::addmm") {
            const std::size_t a = op == "aten::mm" ? 0 : 1;
            const auto A = shape(n, a), B = shape(n, a + 1);
            if (A.size() != 2 || B.size() != 2) fail(n, "expected 2-D operands");
            j["op"] = "matmul";
            j["m"] = A[0];
            j["n"] = B[1];
            j["k"] = A[1];
            m_weight_operand = a + 1;
            return true;
        }
        if (op == "aten::bmm" || op == "aten::baddbmm") {
            const std::size_t a = op == "aten::bmm" ? 0 : 1;
            const auto A = shape(n, a), B = shape(n, a + 1);
            if (A.size() != 3 || B.size() != 3) fail(n, "expected 3-D operands");
            j["op"] = "batch_matmul";
            j["batch"] = A[0];
            j["m"] = A[1];
            j["n"] = B[2];
            j["k"] = A[2];
            m_weight_operand = a + 1;
            return true;
        }
        if (op == "aten::matmul") {
            const auto A = shape(n, 0), B = shape(n, 1);
            if (A.size() < 2 || B.size() < 2) return false;  // vector products: left to children
            j["op"] = B.size() == 2 ? "matmul" : "batch_matmul";
            if (B.size() == 2) {
                j["m"] = prod(A, 0, A.size() - 1);
            } else {
                j["batch"] = prod(A, 0, A.size() - 2);
                j["m"] = A[A.size() - 2];
            }
            j["n"] = B.back();
            j["k"] = A.back();
            m_weight_operand = 1;
            return true;
        }
        if (op == "aten::linear") {
            const auto X = shape(n, 0), W = shape(n, 1);
            if (X.empty() || W.size() != 2) fail(n, "expected an input and a 2-D weight");
            j["op"] = "matmul";
            j["m"] = prod(X, 0, X.size() - 1);
            j["n"] = W[0];
            j["k"] = W[1];
            j["trans_b"] = true;
            m_weight_operand = 1;
            return true;
        }
        m_weight_operand = SIZE_MAX;
        if (op == "aten::softmax" || op == "aten::_softmax") {
            const auto X = shape(n, 0);
            if (X.empty()) fail(n, "softmax of a scalar");
            j["op"] = "softmax";
            j["rows"] = prod(X, 0, X.size() - 1);
            j["cols"] = X.back();
            return true;
        }
        if (op == "aten::layer_norm" || op == "aten::native_layer_norm" || op == "aten::rms_norm") {
            const auto X = shape(n, 0);
            const json& norm_shape = field(n, "inputs")[1];
            const std::size_t dims = norm_shape.is_array() ? std::max<std::size_t>(1, norm_shape.size()) : 1;
            if (X.size() < dims) fail(n, "normalized shape longer than the input");
            j["op"] = "norm";
            j["func"] = op == "aten::rms_norm" ? "rmsnorm" : "layernorm";
            j["rows"] = prod(X, 0, X.size() - dims);
            j["cols"] = prod(X, X.size() - dims);
            return true;
        }
        const auto v = kVector.find(op);
        if (v != kVector.end()) {
            uint64_t elements = 0;
            for (const json& o : field(n, "outputs")) {
                if (is_tensor(o)) elements = std::max(elements, tensor_of(o).numel);
            }
            if (elements == 0) fail(n, "no output tensor");
            j["op"] = v->second.first;
            j["func"] = v->second.second;
            j["elements"] = elements;
            return true;
        }
        return false;
    }

    OJ tensor_json(const TensorRef& t, const char* stream) {
        char addr[32];
        // Each storage gets its own 4 GiB window; the tensor sits at its offset inside it.
        std::snprintf(addr, sizeof addr, "0x%llx",
                      static_cast<unsigned long long>(0x1'0000'0000ULL * (t.storage + 1) + t.offset * t.elem));
        return OJ{{"name", "t" + std::to_string(t.id) + "/s" + std::to_string(t.storage)},
                  {"addr", addr},
                  {"bytes", std::max<uint64_t>(1, t.numel * t.elem)},
                  {"stream", stream}};
    }

    void emit(const json& n, const std::string& op, OJ j) {
        const json& inputs = field(n, "inputs");
        const json& types = field(n, "input_types");
        std::string dtype = "fp32";
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i].is_string() && types[i].get<std::string>().rfind("Tensor", 0) == 0) {
                dtype = dtype_of(types[i].get<std::string>());
                break;
            }
        }
        OJ ins = OJ::array(), outs = OJ::array();
        std::set<uint64_t> deps;
        std::size_t operand = 0;
        for (const json& in : inputs) {
            if (is_tensor(in)) {
                const TensorRef t = tensor_of(in);
                const auto p = m_writer.find(t.storage);
                const bool written = p != m_writer.end();
                if (written) deps.insert(p->second);
                const bool weight = !written && operand == m_weight_operand;
                if (ins.size() < 4) ins.push_back(tensor_json(t, weight ? "weight" : "activation"));
            }
            ++operand;
        }
        if (n.contains("outputs")) {
            for (const json& o : n["outputs"]) {
                std::vector<const json*> list;
                if (is_tensor(o)) list.push_back(&o);
                else if (o.is_array()) for (const json& x : o) if (is_tensor(x)) list.push_back(&x);
                for (const json* x : list) {
                    if (outs.size() < 2) outs.push_back(tensor_json(tensor_of(*x), "activation"));
                }
            }
        }
        if (j["op"] == "elementwise" && j["func"] == "copy" && ins.size() == 1 && outs.size() == 1) {
            const uint64_t bytes = outs[0]["bytes"].get<uint64_t>();
            j = OJ{{"op", "memcpy"}, {"name", j["name"]}, {"bytes", bytes}};
        }
        OJ rec;
        rec["id"] = m_next;
        for (auto it = j.begin(); it != j.end(); ++it) rec[it.key()] = it.value();
        if (dtype != "bf16") rec["dtype"] = dtype;
        if (!ins.empty()) rec["inputs"] = ins;
        if (!outs.empty()) rec["outputs"] = outs;
        if (!deps.empty()) rec["deps"] = std::vector<uint64_t>(deps.begin(), deps.end());
        m_out << rec.dump() << '\n';
        if (n.contains("outputs")) {
            for (const json& o : n["outputs"]) {
                if (is_tensor(o)) m_writer[tensor_of(o).storage] = m_next;
                else if (o.is_array()) for (const json& x : o) if (is_tensor(x)) m_writer[tensor_of(x).storage] = m_next;
            }
        }
        (void)op;
        ++m_next;
        ++m_report.ops;
    }

    std::string m_path;
    std::ostream& m_out;
    std::map<uint64_t, const json*> m_nodes;
    std::unordered_map<uint64_t, std::vector<uint64_t>> m_children;
    std::unordered_set<uint64_t> m_on_path;           // the nodes visit() is inside of
    static constexpr std::size_t kMaxDepth = 256;     // real traces nest a few dozen deep
    std::unordered_map<uint64_t, uint64_t> m_writer;  // storage id -> last op that wrote it
    std::size_t m_weight_operand = SIZE_MAX;
    uint64_t m_next = 0;
    ImportReport m_report;
};

}  // namespace

std::string ImportReport::text() const {
    std::ostringstream o;
    o << "  execution-trace nodes  " << nodes << "\n  v1 ops written         " << ops << "\n";
    auto list = [&o](const char* title, const std::map<std::string, uint64_t>& m) {
        uint64_t total = 0;
        for (const auto& [k, v] : m) total += v;
        o << "  " << title << " (" << total << ")\n";
        for (const auto& [k, v] : m) o << "    " << k << " x" << v << "\n";
    };
    list("mapped", mapped);
    list("folded away (views, bookkeeping)", folded);
    list("kept as generic copies (no v1 kind)", generic);
    return o.str();
}

ImportReport import_pytorch_et(const std::string& et_path, std::ostream& out, const std::string& name) {
    return Importer(et_path, out).run(name);
}

}  // namespace asim::tracegen
