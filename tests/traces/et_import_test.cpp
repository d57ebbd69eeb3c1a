// PyTorch execution-trace import, against the fixture made by
// scripts/make_pytorch_et_fixture.py with Debian's python3-torch: the imported GEMM FLOPs equal
// the profiler's with_flops figures for aten::mm, addmm and bmm of the same forward pass. The
// layout of PyTorch >= 2.1 (schema 1.0.2-chakra.0.0.4 and later) is tested with the same trace
// re-expressed in it by that script's --chakra mode (hand-made from the published layout: Debian's
// PyTorch 1.13 cannot write it) and with small traces written here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/trace.h"
#include "testbenches/trace_gen/et_import.h"

#include "tests/harness/scratch.h"

using namespace asim;
using namespace asim::tracegen;

namespace {

const std::string kFixture =
    std::string(ASIM_SOURCE_DIR) + "/traces/fixtures/pytorch_et_small_transformer.json";

std::vector<trace::Op> import_ops(const std::string& path, ImportReport* report = nullptr) {
    auto text = std::make_unique<std::stringstream>();
    const ImportReport r = import_pytorch_et(path, *text, "fixture");
    if (report) *report = r;
    trace::TraceReader reader(std::move(text), "imported");
    std::vector<trace::Op> ops;
    trace::Op op;
    while (reader.next(op)) ops.push_back(op);
    return ops;
}

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string p = asim::test::scratch_path("et", name);
    std::ofstream(p) << text;
    return p;
}

}  // namespace

TEST(EtImport, GemmFlopsEqualTheProfilers) {
    std::ifstream in(std::string(ASIM_SOURCE_DIR) +
                     "/traces/fixtures/pytorch_et_small_transformer.flops.json");
    const auto ref = nlohmann::json::parse(in)["flops"];
    const double profiler = ref["aten::mm"].get<double>() + ref["aten::addmm"].get<double>() +
                            ref["aten::bmm"].get<double>();
    ImportReport report;
    const auto ops = import_ops(kFixture, &report);
    double gemm = 0;
    int gemms = 0;
    for (const auto& op : ops) {
        if (op.kind == trace::OpKind::kMatmul) {
            gemm += trace::op_flops(op);
            ++gemms;
        }
    }
    EXPECT_EQ(gemm, profiler);
    // Five linear layers (in-projection, out-projection, two FFN, head) and the two attention
    // bmm: a linear and its mm / addmm child are one GEMM.
    EXPECT_EQ(gemms, 7);
    EXPECT_EQ(report.mapped["aten::linear"], 5u);
    EXPECT_EQ(report.mapped["aten::bmm"], 2u);
    EXPECT_GT(report.folded["aten::view"] + report.folded["aten::transpose"], 0u);
    EXPECT_EQ(report.ops, ops.size());
}

TEST(EtImport, DependenciesFollowTensorsNotFileOrder) {
    const auto ops = import_ops(kFixture);
    // The second bmm (P x V) reads the softmax's output and the V projection; the softmax
    // reads the first bmm's scores.
    uint64_t softmax = UINT64_MAX, first_bmm = UINT64_MAX;
    bool checked = false;
    for (const auto& op : ops) {
        if (op.name == "aten::bmm" && first_bmm == UINT64_MAX) {
            first_bmm = op.id;
        } else if (op.name == "aten::softmax") {
            softmax = op.id;
            EXPECT_NE(std::find(op.deps.begin(), op.deps.end(), first_bmm), op.deps.end());
        } else if (op.name == "aten::bmm" && softmax != UINT64_MAX) {
            EXPECT_NE(std::find(op.deps.begin(), op.deps.end(), softmax), op.deps.end());
            EXPECT_GE(op.deps.size(), 2u);
            checked = true;
        }
    }
    EXPECT_TRUE(checked);
    // The weights of the linears are weight-stream inputs.
    int weights = 0;
    for (const auto& op : ops) {
        for (const auto& t : op.inputs) weights += t.stream == StreamClass::kWeight ? 1 : 0;
    }
    EXPECT_GE(weights, 5);
}

TEST(EtImport, NotAnExecutionTraceNamesTheFile) {
    const std::string p = write_temp("bad.json", "{\"schema\": \"1.0.1\", \"nodes\": [");
    try {
        std::stringstream out;
        import_pytorch_et(p, out, "x");
        FAIL() << "no error";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("not a PyTorch execution trace"), std::string::npos)
            << e.what();
    }
    const std::string q = write_temp("nonodes.json", R"({"format":"ascend-sim-trace"})");
    std::stringstream out;
    EXPECT_THROW(import_pytorch_et(q, out, "x"), TraceError);
}

TEST(EtImport, MissingShapesNameTheNode) {
    const std::string p = write_temp(
        "noshapes.json",
        R"({"schema":"1.0.1","nodes":[{"id":1,"name":"[pytorch|profiler|execution_graph|thread]","parent":1},)"
        R"({"id":2,"name":"aten::mm","parent":1,"inputs":[[3,4,0,4,4,"cpu"],[5,6,0,4,4,"cpu"]],)"
        R"J("input_types":["Tensor(float)","Tensor(float)"],"outputs":[[7,8,0,4,4,"cpu"]]}]})J");
    try {
        std::stringstream out;
        import_pytorch_et(p, out, "x");
        FAIL() << "no error";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("node 2 (aten::mm)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("input_shapes"), std::string::npos) << e.what();
    }
}

TEST(EtImport, UnmappedOpsAreKeptAndReported) {
    const std::string p = write_temp(
        "generic.json",
        R"({"schema":"1.0.1","nodes":[{"id":1,"name":"[pytorch|profiler|execution_graph|thread]","parent":1},)"
        R"({"id":2,"name":"aten::cumsum","parent":1,"inputs":[[3,4,0,64,4,"cpu"],1],"input_shapes":[[8,8],[]],)"
        R"J("input_types":["Tensor(float)","Int"],"outputs":[[7,8,0,64,4,"cpu"]],"output_shapes":[[8,8]]}]})J");
    ImportReport r;
    const auto ops = import_ops(p, &r);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0].name, "generic:aten::cumsum");
    EXPECT_EQ(r.generic["aten::cumsum"], 1u);
}

namespace {

const std::string kChakraFixture =
    std::string(ASIM_SOURCE_DIR) + "/traces/fixtures/pytorch_et_small_transformer_chakra.json";

std::string import_text(const std::string& path, ImportReport* report = nullptr) {
    std::stringstream out;
    const ImportReport r = import_pytorch_et(path, out, "fixture");
    if (report) *report = r;
    return out.str();
}

std::string expect_import_error(const std::string& path) {
    try {
        std::stringstream out;
        import_pytorch_et(path, out, "x");
        ADD_FAILURE() << "no error for " << path;
    } catch (const TraceError& e) {
        return e.what();
    }
    return "";
}

// The root and thread nodes of a trace in the 1.0.2-chakra.0.0.4-and-later layout, then `nodes`.
std::string chakra_trace(const std::string& schema, const std::string& nodes) {
    return R"({"schema":")" + schema +
           R"(","pid":1,"time":"","start_ts":0,"nodes":[)"
           R"J({"id":1,"name":"[pytorch|profiler|execution_trace|process]","ctrl_deps":1,"inputs":{"values":[],"shapes":[],"types":[]},"outputs":{"values":[],"shapes":[],"types":[]},"attrs":[]},)J"
           R"J({"id":2,"name":"[pytorch|profiler|execution_trace|thread]","ctrl_deps":1,"inputs":{"values":[],"shapes":[],"types":[]},"outputs":{"values":[],"shapes":[],"types":[]},"attrs":[{"name":"tid","type":"uint64","value":1}]},)J" +
           nodes + "]}";
}

}  // namespace

// The Chakra-layout fixture is the 1.0.1 fixture re-expressed by scripts/make_pytorch_et_fixture.py
// --chakra (Debian's PyTorch 1.13 cannot write that layout): the same nodes must import to the
// same ops, addresses and dependencies; only the header's schema differs.
TEST(EtImport, ChakraLayoutImportsToTheSameOpsAsTheOldOne) {
    ImportReport a, b;
    const std::string old_text = import_text(kFixture, &a);
    const std::string new_text = import_text(kChakraFixture, &b);
    const auto body = [](const std::string& t) { return t.substr(t.find('\n') + 1); };
    EXPECT_EQ(body(old_text), body(new_text));
    EXPECT_NE(new_text.find("\"model\":\"pytorch-et 1.0.3-chakra.0.0.4\""), std::string::npos);
    EXPECT_EQ(a.ops, 18u);
    EXPECT_EQ(b.ops, a.ops);
    EXPECT_EQ(b.mapped, a.mapped);
    EXPECT_EQ(b.folded, a.folded);
    EXPECT_EQ(b.footprint_bytes, a.footprint_bytes);
}

TEST(EtImport, StoragesArePackedFromAddressZeroOnAlignedBases) {
    ImportReport r;
    const auto ops = import_ops(kFixture, &r);
    // storage -> [lowest address, highest end) of the tensors naming it ("tT/sS").
    std::map<std::string, std::pair<uint64_t, uint64_t>> span;
    for (const auto& op : ops) {
        for (const auto* list : {&op.inputs, &op.outputs}) {
            for (const auto& t : *list) {
                const std::string s = t.name.substr(t.name.find('/') + 1);
                auto it = span.emplace(s, std::make_pair(t.addr, t.addr + t.bytes)).first;
                it->second.first = std::min(it->second.first, t.addr);
                it->second.second = std::max(it->second.second, t.addr + t.bytes);
                EXPECT_LE(t.addr + t.bytes, r.footprint_bytes) << t.name;
            }
        }
    }
    EXPECT_EQ(span.size(), r.storages);
    EXPECT_EQ(r.storages, 34u);
    // Dense: 34 storages of this model in 544,768 B (133 4-KiB blocks), nothing near 4 GiB.
    EXPECT_EQ(r.footprint_bytes, 544768u);
    uint64_t lowest = UINT64_MAX;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (const auto& [s, range] : span) {
        lowest = std::min(lowest, range.first);
        ranges.push_back(range);
    }
    EXPECT_EQ(lowest, 0u);
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t i = 1; i < ranges.size(); ++i) {
        EXPECT_LE(ranges[i - 1].second, ranges[i].first) << "storages overlap";
        // Every storage's block starts on 4 KiB: the next one's lowest tensor lies beyond the
        // 4 KiB boundary after the previous one's end.
        EXPECT_GE(ranges[i].first, (ranges[i - 1].second + 4095) / 4096 * 4096 - 4096);
    }
    ImportReport shown;
    import_text(kFixture, &shown);
    EXPECT_NE(shown.text().find("tensor footprint       544768 B (0.5 MiB) in 34 storages"),
              std::string::npos)
        << shown.text();
}

TEST(EtImport, Schema111WithStridesAndBf16) {
    // 1.1.1-chakra.0.0.4 adds "strides" beside values/shapes/types; types name c10 dtypes.
    const std::string p = write_temp(
        "v111.json",
        chakra_trace(
            "1.1.1-chakra.0.0.4",
            R"J({"id":3,"name":"aten::linear","ctrl_deps":2,)J"
            R"J("inputs":{"values":[[4,5,0,4096,2,"cuda:0"],[6,7,0,8192,2,"cuda:0"],"<None>"],"shapes":[[2,16,128],[64,128],[]],"types":["Tensor(c10::BFloat16)","Tensor(c10::BFloat16)","None"],"strides":[[2048,128,1],[128,1],[]]},)J"
            R"J("outputs":{"values":[[8,9,0,2048,2,"cuda:0"]],"shapes":[[2,16,64]],"types":["Tensor(c10::BFloat16)"],"strides":[[1024,64,1]]},)J"
            R"J("attrs":[{"name":"rf_id","type":"uint64","value":1},{"name":"op_schema","type":"string","value":"aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"}]})J"));
    const auto ops = import_ops(p);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0].kind, trace::OpKind::kMatmul);
    EXPECT_EQ(ops[0].dtype, DType::kBf16);
    EXPECT_EQ(ops[0].matmul.m, 32u);
    EXPECT_EQ(ops[0].matmul.n, 64u);
    EXPECT_EQ(ops[0].matmul.k, 128u);
    EXPECT_TRUE(ops[0].matmul.trans_b);
    ASSERT_EQ(ops[0].inputs.size(), 2u);
    EXPECT_EQ(ops[0].inputs[0].addr, 0u);
    EXPECT_EQ(ops[0].inputs[1].addr, 8192u);  // 4096 x 2 B, on a 4 KiB boundary
    EXPECT_EQ(ops[0].inputs[1].stream, StreamClass::kWeight);
}

TEST(EtImport, ChakraNodeErrorsNameTheNodeAndTheField) {
    const std::string p = write_temp(
        "chakra-bad.json",
        chakra_trace(
            "1.0.3-chakra.0.0.4",
            R"J({"id":3,"name":"aten::mm","ctrl_deps":2,"inputs":[[4,5,0,4,4,"cpu"]],"attrs":[]})J"));
    std::string e = expect_import_error(p);
    EXPECT_NE(e.find("node 3 (aten::mm)"), std::string::npos) << e;
    EXPECT_NE(e.find("'inputs' must be an object"), std::string::npos) << e;
    const std::string q = write_temp(
        "chakra-noshapes.json",
        chakra_trace(
            "1.0.3-chakra.0.0.4",
            R"J({"id":3,"name":"aten::mm","ctrl_deps":2,"inputs":{"values":[[4,5,0,4,4,"cpu"],[6,7,0,4,4,"cpu"]],"types":["Tensor(float)","Tensor(float)"]},"outputs":{"values":[[8,9,0,4,4,"cpu"]]},"attrs":[]})J"));
    e = expect_import_error(q);
    EXPECT_NE(e.find("node 3 (aten::mm): missing 'inputs.shapes'"), std::string::npos) << e;
    const std::string r =
        write_temp("chakra-parent.json",
                   chakra_trace("1.0.3-chakra.0.0.4",
                                R"J({"id":3,"name":"aten::mm","ctrl_deps":-1,"attrs":[]})J"));
    e = expect_import_error(r);
    EXPECT_NE(e.find("node 3 (aten::mm): 'ctrl_deps' must be an unsigned integer"),
              std::string::npos)
        << e;
}

// Reproducers for the packing's limits (fuzz/pytorch_et_fuzzer.cpp exercises the importer): a
// tensor whose (offset + numel) x itemsize wraps or passes 2^60, and storages that add up past
// 2^60, are errors naming the node, never a wrapped address.
TEST(EtImport, StoragesBeyondTheByteLimitAreAnErrorNamingTheNode) {
    const std::string wrap = write_temp(
        "wrap.json",
        R"({"schema":"1.0.1","nodes":[{"id":1,"name":"root","parent":1},)"
        R"J({"id":2,"name":"aten::relu","parent":1,"inputs":[[3,4,18446744073709551615,2,4,"cpu"]],"input_shapes":[[2]],)J"
        R"J("input_types":["Tensor(float)"],"outputs":[[5,6,0,2,4,"cpu"]]}]})J");
    std::string e = expect_import_error(wrap);
    EXPECT_NE(e.find("node 2 (aten::relu): tensor 3 (storage 4) reaches beyond 2^60 bytes"),
              std::string::npos)
        << e;
    // Two storages of 2^59 + 1 bytes each: each fits, together they pass 2^60.
    const std::string sum = write_temp(
        "sum.json",
        R"({"schema":"1.0.1","nodes":[{"id":1,"name":"root","parent":1},)"
        R"J({"id":2,"name":"aten::add","parent":1,"inputs":[[3,4,0,576460752303423489,1,"cpu"],[5,6,0,576460752303423489,1,"cpu"]],)J"
        R"J("input_shapes":[[1],[1]],"input_types":["Tensor(float)","Tensor(float)"],"outputs":[[7,8,0,1,4,"cpu"]]}]})J");
    e = expect_import_error(sum);
    EXPECT_NE(e.find("node 2 (aten::add): its storage 6 brings the imported tensors to more than "
                     "2^60 bytes"),
              std::string::npos)
        << e;
}

TEST(EtImport, TensorsInsideListsGiveDependencies) {
    // aten::cat reads a list of tensors (GenericList[Tensor]); it has no v1 kind and stays a
    // generic copy, which must wait for the two ops that wrote the listed tensors.
    const std::string p = write_temp(
        "lists.json",
        R"({"schema":"1.0.1","nodes":[{"id":1,"name":"root","parent":1},)"
        R"J({"id":2,"name":"aten::relu","parent":1,"inputs":[[3,4,0,8,4,"cpu"]],"input_shapes":[[8]],"input_types":["Tensor(float)"],"outputs":[[5,6,0,8,4,"cpu"]]},)J"
        R"J({"id":3,"name":"aten::relu","parent":1,"inputs":[[7,8,0,8,4,"cpu"]],"input_shapes":[[8]],"input_types":["Tensor(float)"],"outputs":[[9,10,0,8,4,"cpu"]]},)J"
        R"J({"id":4,"name":"aten::cat","parent":1,"inputs":[[[5,6,0,8,4,"cpu"],[9,10,0,8,4,"cpu"]],0],"input_shapes":[[[8],[8]],[]],)J"
        R"J("input_types":["GenericList[Tensor(float),Tensor(float)]","Int"],"outputs":[[11,12,0,16,4,"cpu"]]}]})J");
    ImportReport r;
    const auto ops = import_ops(p, &r);
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_EQ(ops[2].name, "generic:aten::cat");
    EXPECT_EQ(ops[2].deps, (std::vector<uint64_t>{0, 1}));
    EXPECT_EQ(ops[2].inputs.size(), 2u);
    EXPECT_EQ(r.storages, 5u);
}
