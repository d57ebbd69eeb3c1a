// PyTorch execution trace -> op trace v1.
//
// Two layouts of the same content are read, normalised per node into one view (Node below):
// - schema 1.0.1 (torch.profiler.ExecutionGraphObserver, PyTorch 1.13): a node has `id`, `name`,
//   `parent`, `inputs` / `input_shapes` / `input_types` and `outputs` / `output_shapes` /
//   `output_types`, each an array with one entry per operand;
// - schema "1.0.2-chakra.0.0.4" and later ("1.0.3-", "1.0.4-", "1.1.0-", "1.1.1-chakra.0.0.4":
//   torch.profiler.ExecutionTraceObserver, PyTorch >= 2.1, which MLCommons Chakra's converter
//   reads as its host trace): `id`, `name`, `ctrl_deps` (the parent), `inputs` and `outputs` as
//   objects {"values": [...], "shapes": [...], "types": [...]} (1.1.1 adds "strides", ignored
//   here) and the other fields as `attrs` [{name, type, value}] (rf_id, fw_parent, seq_id, scope,
//   tid, fw_tid, op_schema; not needed here). Checked against pytorch/pytorch
//   torch/csrc/profiler/standalone/execution_trace_observer.cpp (writeJsonNode, convertIValue)
//   and mlcommons/chakra src/converter/pytorch_node.py (_parse_data_1_0_3_chakra_0_0_4) and
//   pytorch_tensor.py. A node is read in the second layout when it has `ctrl_deps`.
// In both, a tensor value is [tensor_id, storage_id, offset, numel, itemsize, device] (offset
// and numel in elements of the tensor's dtype); an operand that is a list (GenericList[Tensor])
// holds such values, and lists may nest. Node ids increase in execution order (parents before
// their children). Rules:
// - Only the outermost aten op of a call tree is imported (a `linear` and its `addmm` child are
//   one GEMM); an outermost op with no mapping whose children are aten ops is replaced by them.
// - View and bookkeeping ops (view, reshape, transpose, as_strided, select, resolve_conj, ...)
//   write nothing and are folded away.
// - Dependencies follow storage: an op depends on the last op that wrote a storage it reads,
//   so views resolve to the op that produced the underlying data, whatever the file order.
// - Ops without a v1 kind become `elementwise` `copy` ops over their output (named
//   "generic:aten::NAME") and are listed in the report.
// - Addresses: every storage an imported op names is placed once in the die's HBM, packed from
//   address 0 (see layout_storages()); a tensor sits at its offset inside its storage.
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

const std::set<std::string> kFolded = {"aten::view",
                                       "aten::reshape",
                                       "aten::_unsafe_view",
                                       "aten::transpose",
                                       "aten::t",
                                       "aten::permute",
                                       "aten::as_strided",
                                       "aten::select",
                                       "aten::slice",
                                       "aten::narrow",
                                       "aten::split",
                                       "aten::chunk",
                                       "aten::unsqueeze",
                                       "aten::squeeze",
                                       "aten::expand",
                                       "aten::flatten",
                                       "aten::resolve_conj",
                                       "aten::resolve_neg",
                                       "aten::detach",
                                       "aten::alias",
                                       "aten::empty",
                                       "aten::empty_like",
                                       "aten::empty_strided",
                                       "aten::dropout",
                                       "aten::feature_dropout",
                                       "aten::lift_fresh",
                                       "aten::to",
                                       "aten::_to_copy",
                                       "aten::contiguous_view",
                                       "aten::size",
                                       "aten::stride",
                                       "aten::is_nonzero",
                                       "aten::item",
                                       "aten::_local_scalar_dense",
                                       "aten::unbind",
                                       "aten::view_as"};

struct TensorRef {
    uint64_t id = 0, storage = 0, offset = 0, numel = 0, elem = 0;
};

bool is_tensor(const json& v) {
    // Ids, offsets and sizes are counts: a negative one is not a tensor reference.
    return v.is_array() && v.size() == 6 && v[0].is_number_unsigned() &&
           v[1].is_number_unsigned() && v[2].is_number_unsigned() && v[3].is_number_unsigned() &&
           v[4].is_number_unsigned();
}

TensorRef tensor_of(const json& v) {
    return {v[0].get<uint64_t>(), v[1].get<uint64_t>(), v[2].get<uint64_t>(), v[3].get<uint64_t>(),
            v[4].get<uint64_t>()};
}

// Lists of tensors nest (a tuple of lists); deeper than this is not a real operand and is
// ignored, which also bounds the recursion on hostile input.
constexpr int kMaxListDepth = 4;

// The tensors of one operand value: the value itself, or those inside (nested) lists.
void tensors_in(const json& v, std::vector<TensorRef>& out, int depth = 0) {
    if (is_tensor(v)) {
        out.push_back(tensor_of(v));
    } else if (v.is_array() && depth < kMaxListDepth) {
        for (const json& x : v) tensors_in(x, out, depth + 1);
    }
}

std::string dtype_of(const std::string& type) {
    if (type.find("BFloat16") != std::string::npos) return "bf16";
    if (type.find("Half") != std::string::npos) return "fp16";
    if (type.find("Float8") != std::string::npos) return "fp8";
    if (type.find("int") != std::string::npos || type.find("Int") != std::string::npos ||
        type.find("long") != std::string::npos)
        return "int32";
    return "fp32";  // float and double (double is counted as fp32: no fp64 in the format)
}

// One execution-trace node, whichever layout it came in. The array pointers are null when the
// node lacks the field; the labels name the fields as the node spells them, for messages.
struct Node {
    uint64_t id = 0, parent = 0;
    std::string name;
    const json* inputs = nullptr;
    const json* input_shapes = nullptr;
    const json* input_types = nullptr;
    const json* outputs = nullptr;
    bool chakra = false;  // the 1.0.2-chakra.0.0.4 and later layout
    const char* label(const char* field) const {
        if (!chakra) return field;
        if (std::string(field) == "inputs") return "inputs.values";
        if (std::string(field) == "input_shapes") return "inputs.shapes";
        if (std::string(field) == "input_types") return "inputs.types";
        return "outputs.values";
    }
};

// Storages start on 4 KiB boundaries: a multiple of the L2's 512 B line, so no line holds bytes
// of two storages (an op's misses never bring in another storage's data, and one storage's
// write-backs are never charged to another's op), and the host page size PyTorch's allocators
// round to. The padding costs at most 4 KiB per storage.
constexpr uint64_t kStorageAlign = 4096;

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
            if (!what.empty() && what[0] == '[' && close != std::string::npos)
                what.erase(0, close + 2);
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
            throw TraceError(m_path +
                             ": not a PyTorch execution trace: no 'nodes' array "
                             "(expected the JSON of torch.profiler.ExecutionGraphObserver or "
                             "ExecutionTraceObserver)");
        }
        std::size_t index = 0;
        for (const json& n : doc["nodes"]) {
            Node node = normalise(n, m_path + ": nodes[" + std::to_string(index++) + "]: ");
            const uint64_t id = node.id, parent = node.parent;
            if (!m_nodes.emplace(id, std::move(node)).second) {
                throw TraceError(m_path + ": nodes[" + std::to_string(index - 1) + "]: node id " +
                                 std::to_string(id) + " appears twice");
            }
            // The root names itself as its parent; that is no child edge.
            if (parent != id) m_children[parent].push_back(id);
        }
        for (auto& [id, kids] : m_children) std::sort(kids.begin(), kids.end());
        m_report.nodes = m_nodes.size();
        measure_storages();
        for (const auto& [id, n] : m_nodes) {
            const auto parent = m_nodes.find(n.parent);
            const bool parent_is_aten =
                parent != m_nodes.end() && parent->first != id && is_aten(parent->second);
            if (is_aten(n) && !parent_is_aten) visit(n);
        }
        layout_storages();
        OJ h{{"format", "ascend-sim-trace"},
             {"version", 1},
             {"name", name},
             {"model", "pytorch-et " + (doc.contains("schema") && doc["schema"].is_string()
                                            ? doc["schema"].get<std::string>()
                                            : std::string("?"))},
             {"dies", 1},
             {"die", 0}};
        m_out << h.dump() << '\n';
        for (auto& p : m_pending) emit(*p.node, std::move(p.op), p.weight_operand);
        return m_report;
    }

    // The node in one view; `where` locates it for messages until its id is known.
    Node normalise(const json& n, const std::string& where) const {
        if (!n.is_object() || !n.contains("id") || !n.contains("name") ||
            (!n.contains("parent") && !n.contains("ctrl_deps"))) {
            throw TraceError(m_path +
                             ": not a PyTorch execution trace: a node lacks 'id', 'name' or "
                             "'parent' (or 'ctrl_deps')");
        }
        if (!n["id"].is_number_unsigned())
            throw TraceError(where + "'id' must be an unsigned integer, got " + n["id"].dump());
        if (!n["name"].is_string())
            throw TraceError(where + "'name' must be a string, got " + n["name"].dump());
        Node node;
        node.id = n["id"].get<uint64_t>();
        node.name = n["name"].get<std::string>();
        node.chakra = n.contains("ctrl_deps");
        const std::string at =
            m_path + ": node " + std::to_string(node.id) + " (" + node.name + "): ";
        const char* parent_key = node.chakra ? "ctrl_deps" : "parent";
        const json& parent = n[parent_key];
        if (!parent.is_number_unsigned()) {
            throw TraceError(at + "'" + parent_key +
                             "' must be an unsigned integer (the parent node's id), got " +
                             parent.dump());
        }
        node.parent = parent.get<uint64_t>();
        // An array field, or null when absent; present with another type is an error.
        auto array = [&](const json& obj, const char* key,
                         const std::string& label) -> const json* {
            if (!obj.contains(key)) return nullptr;
            if (!obj[key].is_array()) throw TraceError(at + "'" + label + "' must be an array");
            return &obj[key];
        };
        if (!node.chakra) {
            node.inputs = array(n, "inputs", "inputs");
            node.input_shapes = array(n, "input_shapes", "input_shapes");
            node.input_types = array(n, "input_types", "input_types");
            node.outputs = array(n, "outputs", "outputs");
            return node;
        }
        for (const char* side : {"inputs", "outputs"}) {
            if (n.contains(side) && !n[side].is_object()) {
                throw TraceError(at + "'" + side +
                                 "' must be an object {\"values\", \"shapes\", \"types\"} "
                                 "(schema 1.0.2-chakra.0.0.4 and later)");
            }
        }
        if (n.contains("inputs")) {
            node.inputs = array(n["inputs"], "values", "inputs.values");
            node.input_shapes = array(n["inputs"], "shapes", "inputs.shapes");
            node.input_types = array(n["inputs"], "types", "inputs.types");
        }
        if (n.contains("outputs")) node.outputs = array(n["outputs"], "values", "outputs.values");
        return node;
    }

    static bool is_aten(const Node& n) { return n.name.rfind("aten::", 0) == 0; }

    [[noreturn]] void fail(const Node& n, const std::string& why) const {
        throw TraceError(m_path + ": node " + std::to_string(n.id) + " (" + n.name + "): " + why);
    }

    // The tensors of the node's inputs (or outputs), with the operand each came from.
    static std::vector<std::pair<std::size_t, TensorRef>> operands(const json* values) {
        std::vector<std::pair<std::size_t, TensorRef>> out;
        if (!values) return out;
        std::vector<TensorRef> ts;
        for (std::size_t i = 0; i < values->size(); ++i) {
            ts.clear();
            tensors_in((*values)[i], ts);
            for (const TensorRef& t : ts) out.emplace_back(i, t);
        }
        return out;
    }

    // Pass 1, over every node: the bytes each storage must span, the largest (offset + numel) x
    // itemsize of any tensor naming it, so that every view of it lies inside.
    void measure_storages() {
        for (const auto& [id, n] : m_nodes) {
            for (const json* side : {n.inputs, n.outputs}) {
                for (const auto& [operand, t] : operands(side)) {
                    uint64_t end = 0, bytes = 0;
                    if (__builtin_add_overflow(t.offset, t.numel, &end) ||
                        __builtin_mul_overflow(end, t.elem, &bytes) || bytes > trace::kMaxOpWork) {
                        fail(n, "tensor " + std::to_string(t.id) + " (storage " +
                                    std::to_string(t.storage) +
                                    ") reaches beyond 2^60 bytes of its storage ((offset + numel) "
                                    "x itemsize), "
                                    "the most a v1 tensor may span");
                    }
                    uint64_t& e = m_extent[t.storage];
                    e = std::max<uint64_t>({e, bytes, 1});
                }
            }
        }
    }

    // Pass 2, after the ops to import are known: every storage they name gets a base in the die's
    // HBM, in order of first appearance in those ops, each kStorageAlign-aligned, from address 0
    // up. Address 0 is the bottom of the die's HBM (traces/FORMAT.md, Memory tiers), which
    // reserves nothing there; the die keeps its HCCL buffers for collectives at the top of HBM,
    // so low addresses stay clear of them. Whether the footprint fits the platform's HBM is the
    // run's check (it names the tensor); here the sum only has to stay far from wrapping.
    void layout_storages() {
        uint64_t next = 0;
        for (const Pending& p : m_pending) {
            for (const json* side : {p.node->inputs, p.node->outputs}) {
                for (const auto& [operand, t] : operands(side)) {
                    if (m_base.count(t.storage)) continue;
                    const uint64_t bytes = m_extent.at(t.storage);  // <= 2^60 (pass 1)
                    const uint64_t padded =
                        (bytes + kStorageAlign - 1) / kStorageAlign * kStorageAlign;
                    if (next > trace::kMaxOpWork - padded) {
                        fail(*p.node, "its storage " + std::to_string(t.storage) +
                                          " brings the imported tensors to more than 2^60 bytes");
                    }
                    m_base[t.storage] = next;
                    next += padded;
                }
            }
        }
        m_report.storages = m_base.size();
        m_report.footprint_bytes = next;
    }

    const json& field(const Node& n, const json* values, const char* key) const {
        if (!values) fail(n, std::string("missing '") + n.label(key) + "'");
        return *values;
    }

    std::vector<uint64_t> shape(const Node& n, std::size_t i) const {
        const json& shapes = field(n, n.input_shapes, "input_shapes");
        const std::string label = n.label("input_shapes");
        if (i >= shapes.size() || !shapes[i].is_array())
            fail(n, label + " lacks operand " + std::to_string(i));
        std::vector<uint64_t> s;
        uint64_t elements = 1;
        for (const json& d : shapes[i]) {
            if (!d.is_number_integer())
                fail(n, label + "[" + std::to_string(i) + "] is not a tensor shape");
            if (!d.is_number_unsigned()) {
                fail(n, label + "[" + std::to_string(i) + "] has a negative dimension " + d.dump());
            }
            s.push_back(d.get<uint64_t>());
            if (__builtin_mul_overflow(elements, s.back(), &elements) ||
                elements > trace::kMaxOpWork) {
                fail(n, label + "[" + std::to_string(i) + "] has more than 2^60 elements");
            }
        }
        return s;
    }

    static uint64_t prod(const std::vector<uint64_t>& s, std::size_t from = 0,
                         std::size_t to = SIZE_MAX) {
        uint64_t p = 1;
        for (std::size_t i = from; i < std::min(to, s.size()); ++i) p *= s[i];
        return p;
    }

    void visit(const Node& n) {
        const std::string& op = n.name;
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
            pend(n, std::move(j), m_weight_operand);
            ++m_report.mapped[op];
            return;
        }
        const auto kids = m_children.find(n.id);
        if (kids != m_children.end() && !kids->second.empty()) {
            // Parent links that loop (a node its own ancestor) would recurse forever.
            if (!m_on_path.insert(n.id).second) {
                fail(n, std::string("is its own ancestor: the '") +
                            (n.chakra ? "ctrl_deps" : "parent") + "' links form a loop");
            }
            if (m_on_path.size() > kMaxDepth) {
                fail(n, "is nested more than " + std::to_string(kMaxDepth) + " ops deep");
            }
            for (uint64_t k : kids->second) visit(m_nodes.at(k));
            m_on_path.erase(n.id);
            return;
        }
        // No v1 kind: keep the data movement as a generic copy and report it.
        uint64_t elements = 0;
        for (const auto& [operand, t] : operands(n.outputs)) {
            if (__builtin_add_overflow(elements, t.numel, &elements) ||
                elements > trace::kMaxOpWork) {
                fail(n, "its outputs hold more than 2^60 elements, the most one op may");
            }
        }
        ++m_report.generic[op];
        if (elements == 0) return;
        OJ g{{"op", "elementwise"},
             {"name", "generic:" + op},
             {"func", "copy"},
             {"elements", elements}};
        pend(n, std::move(g), SIZE_MAX);
    }

    // Queues the op; emit() then needs the node's inputs and their types, checked here so that a
    // bad trace fails before anything is written.
    void pend(const Node& n, OJ op, std::size_t weight_operand) {
        field(n, n.inputs, "inputs");
        field(n, n.input_types, "input_types");
        m_pending.push_back({&n, std::move(op), weight_operand});
    }

    // Fills `j` with the v1 op for `n`; false when the op has no mapping.
    bool map(const Node& n, const std::string& op, OJ& j) {
        static const std::map<std::string, std::pair<const char*, const char*>> kVector = {
            {"aten::add", {"elementwise", "add"}},
            {"aten::add_", {"elementwise", "add"}},
            {"aten::sub", {"elementwise", "sub"}},
            {"aten::sub_", {"elementwise", "sub"}},
            {"aten::mul", {"elementwise", "mul"}},
            {"aten::mul_", {"elementwise", "mul"}},
            {"aten::div", {"elementwise", "div"}},
            {"aten::div_", {"elementwise", "div"}},
            {"aten::maximum", {"elementwise", "max"}},
            {"aten::minimum", {"elementwise", "min"}},
            {"aten::gelu", {"activation", "gelu"}},
            {"aten::silu", {"activation", "silu"}},
            {"aten::relu", {"activation", "relu"}},
            {"aten::relu_", {"activation", "relu"}},
            {"aten::sigmoid", {"activation", "sigmoid"}},
            {"aten::tanh", {"activation", "tanh"}},
            {"aten::exp", {"activation", "exp"}},
            {"aten::clone", {"elementwise", "copy"}},
            {"aten::contiguous", {"elementwise", "copy"}},
            {"aten::copy_", {"elementwise", "copy"}}};
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
            const json& inputs = field(n, n.inputs, "inputs");
            if (inputs.size() < 2)
                fail(n, std::string(n.label("inputs")) + " lacks the normalized shape");
            const json& norm_shape = inputs[1];
            const std::size_t dims =
                norm_shape.is_array() ? std::max<std::size_t>(1, norm_shape.size()) : 1;
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
            for (const json& o : field(n, n.outputs, "outputs")) {
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

    OJ tensor_json(const TensorRef& t, const char* stream) const {
        char addr[32];
        // Inside its storage's block (layout_storages); offset x itemsize stays inside the
        // storage's extent (measure_storages), so neither sum can wrap.
        std::snprintf(addr, sizeof addr, "0x%llx",
                      static_cast<unsigned long long>(m_base.at(t.storage) + t.offset * t.elem));
        return OJ{{"name", "t" + std::to_string(t.id) + "/s" + std::to_string(t.storage)},
                  {"addr", addr},
                  {"bytes", std::max<uint64_t>(1, t.numel * t.elem)},
                  {"stream", stream}};
    }

    void emit(const Node& n, OJ j, std::size_t weight_operand) {
        const json& types = field(n, n.input_types, "input_types");
        std::string dtype = "fp32";
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i].is_string() && types[i].get<std::string>().rfind("Tensor", 0) == 0) {
                dtype = dtype_of(types[i].get<std::string>());
                break;
            }
        }
        OJ ins = OJ::array(), outs = OJ::array();
        std::set<uint64_t> deps;
        for (const auto& [operand, t] : operands(n.inputs)) {
            const auto p = m_writer.find(t.storage);
            const bool written = p != m_writer.end();
            if (written) deps.insert(p->second);
            const bool weight = !written && operand == weight_operand;
            if (ins.size() < 4) ins.push_back(tensor_json(t, weight ? "weight" : "activation"));
        }
        const auto written = operands(n.outputs);
        for (const auto& [operand, t] : written) {
            if (outs.size() < 2) outs.push_back(tensor_json(t, "activation"));
        }
        if (j["op"] == "elementwise" && j["func"] == "copy" && ins.size() == 1 &&
            outs.size() == 1) {
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
        for (const auto& [operand, t] : written) m_writer[t.storage] = m_next;
        ++m_next;
        ++m_report.ops;
    }

    struct Pending {  // an op to write, in import order
        const Node* node;
        OJ op;
        std::size_t weight_operand;
    };

    std::string m_path;
    std::ostream& m_out;
    std::map<uint64_t, Node> m_nodes;
    std::unordered_map<uint64_t, std::vector<uint64_t>> m_children;
    std::unordered_set<uint64_t> m_on_path;           // the nodes visit() is inside of
    static constexpr std::size_t kMaxDepth = 256;     // real traces nest a few dozen deep
    std::unordered_map<uint64_t, uint64_t> m_extent;  // storage id -> bytes it spans
    std::unordered_map<uint64_t, uint64_t> m_base;    // storage id -> its address
    std::vector<Pending> m_pending;
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
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(footprint_bytes) / (1 << 20));
    o << "  tensor footprint       " << footprint_bytes << " B (" << mib << " MiB) in " << storages
      << " storages, packed from address 0 in 4 KiB-aligned blocks\n";
    return o.str();
}

ImportReport import_pytorch_et(const std::string& et_path, std::ostream& out,
                               const std::string& name) {
    return Importer(et_path, out).run(name);
}

}  // namespace asim::tracegen
