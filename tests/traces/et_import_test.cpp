// PyTorch execution-trace import, against the fixture made by
// scripts/make_pytorch_et_fixture.py with Debian's python3-torch: the imported GEMM FLOPs equal
// the profiler's with_flops figures for aten::mm, addmm and bmm of the same forward pass.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/trace.h"
#include "testbenches/trace_gen/et_import.h"

using namespace asim;
using namespace asim::tracegen;

namespace {

const std::string kFixture = std::string(ASIM_SOURCE_DIR) + "/traces/fixtures/pytorch_et_small_transformer.json";

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
    const std::string p = ::testing::TempDir() + "/asim-et-" + std::to_string(::getpid()) + "-" + name;
    std::ofstream(p) << text;
    return p;
}

}  // namespace

TEST(EtImport, GemmFlopsEqualTheProfilers) {
    std::ifstream in(std::string(ASIM_SOURCE_DIR) + "/traces/fixtures/pytorch_et_small_transformer.flops.json");
    const auto ref = nlohmann::json::parse(in)["flops"];
    const double profiler = ref["aten::mm"].get<double>() + ref["aten::addmm"].get<double>() + ref["aten::bmm"].get<double>();
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
        EXPECT_NE(std::string(e.what()).find("not a PyTorch execution trace"), std::string::npos) << e.what();
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
