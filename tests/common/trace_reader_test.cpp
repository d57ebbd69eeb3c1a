// Op trace reader (format v1): the sample parses to the expected ops, every class of error names
// file and line with a precise message, ".gz" files read through zlib, a long trace streams,
// and op_flops gives the documented counts.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "models/common/errors.h"
#include "models/common/trace.h"

#include "tests/harness/scratch.h"

namespace asim::trace {
namespace {

// Plain-gtest string checks (the suite links gtest, not gmock).
::testing::AssertionResult StartsWith(const std::string& text, const std::string& prefix) {
    if (text.compare(0, prefix.size(), prefix) == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "\"" << text << "\" does not start with \"" << prefix << "\"";
}

::testing::AssertionResult HasSubstr(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "\"" << text << "\" does not contain \"" << part << "\"";
}

const std::string kHeader = R"({"format":"ascend-sim-trace","version":1})"
                            "\n";

std::filesystem::path sample_path() {
#ifdef ASIM_SOURCE_DIR
    return std::filesystem::path(ASIM_SOURCE_DIR) / "traces/samples/tiny_mlp.jsonl";
#else
    return std::filesystem::path(__FILE__).parent_path() / "../../traces/samples/tiny_mlp.jsonl";
#endif
}

std::filesystem::path format_doc_path() { return sample_path().parent_path() / "../FORMAT.md"; }

std::unique_ptr<std::istream> text_stream(const std::string& text) {
    return std::make_unique<std::istringstream>(text);
}

// Reads `text` to the end; returns the TraceError message, or "" when it is valid.
std::string error_of(const std::string& text) {
    try {
        TraceReader reader(text_stream(text), "t.jsonl");
        Op op;
        while (reader.next(op)) {
        }
    } catch (const TraceError& e) {
        return e.what();
    }
    return "";
}

// The one op of `header + line`; fails the test on an error.
Op single_op(const std::string& line) {
    TraceReader reader(text_stream(kHeader + line + "\n"), "t.jsonl");
    Op op;
    EXPECT_TRUE(reader.next(op));
    Op extra;
    EXPECT_FALSE(reader.next(extra));
    return op;
}

// A temporary file path unique to this process and test.
std::string temp_path(const std::string& leaf) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return asim::test::scratch_path("trace", std::string(info->name()) + "-" + leaf);
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(TraceReader, SampleParsesWithExpectedFields) {
    TraceReader reader(sample_path().string());
    EXPECT_EQ(reader.header().version, 1);
    EXPECT_EQ(reader.header().name, "tiny_mlp");
    EXPECT_EQ(reader.header().dies, 1);
    EXPECT_EQ(reader.header().die, 0);

    Op op;
    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.id, 0u);
    EXPECT_EQ(op.line, 3u);  // line 2 is a comment
    EXPECT_EQ(op.kind, OpKind::kNorm);
    EXPECT_EQ(op.name, "mlp.norm");
    EXPECT_EQ(op.dtype, DType::kBf16);
    EXPECT_EQ(op.vector.func, "rmsnorm");
    EXPECT_EQ(op.vector.rows, 16u);
    EXPECT_EQ(op.vector.cols, 1024u);
    ASSERT_EQ(op.inputs.size(), 2u);
    EXPECT_EQ(op.inputs[1].name, "norm.gamma");
    EXPECT_EQ(op.inputs[1].addr, 0x100000000u);
    EXPECT_EQ(op.inputs[1].bytes, 2048u);
    EXPECT_EQ(op.inputs[1].stream, StreamClass::kWeight);
    ASSERT_EQ(op.outputs.size(), 1u);
    EXPECT_EQ(op.outputs[0].stream, StreamClass::kActivation);
    EXPECT_TRUE(op.deps.empty());

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.id, 1u);
    EXPECT_EQ(op.kind, OpKind::kMatmul);
    EXPECT_EQ(op.matmul.batch, 1u);
    EXPECT_EQ(op.matmul.m, 16u);
    EXPECT_EQ(op.matmul.n, 4096u);
    EXPECT_EQ(op.matmul.k, 1024u);
    EXPECT_FALSE(op.matmul.trans_a);
    EXPECT_FALSE(op.matmul.trans_b);
    EXPECT_EQ(op.inputs[1].addr, 0x100200000u);
    EXPECT_EQ(op.inputs[1].bytes, 8u << 20);
    EXPECT_EQ(op.deps, std::vector<uint64_t>{0});

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.kind, OpKind::kActivation);
    EXPECT_EQ(op.vector.func, "gelu");
    EXPECT_EQ(op.vector.rows, 1u);
    EXPECT_EQ(op.vector.cols, 65536u);
    // The previous op's fields must not leak into this one.
    EXPECT_EQ(op.matmul.m, 0u);

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.kind, OpKind::kMatmul);
    EXPECT_EQ(op.matmul.k, 4096u);

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.id, 4u);
    EXPECT_EQ(op.line, 7u);
    EXPECT_EQ(op.kind, OpKind::kElementwise);
    EXPECT_EQ(op.vector.func, "add");
    EXPECT_EQ(op.vector.elements(), 16384u);
    EXPECT_EQ(op.deps, std::vector<uint64_t>{3});

    EXPECT_FALSE(reader.next(op));
    EXPECT_FALSE(reader.next(op));  // stays at the end
}

// The examples in traces/FORMAT.md are part of the specification, so they must parse.
TEST(TraceReader, FormatDocExamplesParse) {
    std::ifstream doc(format_doc_path());
    ASSERT_TRUE(doc) << format_doc_path();
    std::string line;
    std::string ops;
    bool in_json = false;
    while (std::getline(doc, line)) {
        if (line == "```json") {
            in_json = true;
        } else if (line == "```") {
            in_json = false;
        } else if (in_json && line.rfind(R"({"id":)", 0) == 0) {  // op examples only
            ops += line + "\n";
        }
    }
    // The collective example needs four dies.
    TraceReader reader(text_stream(R"({"format":"ascend-sim-trace","version":1,"dies":4,"die":0})"
                                   "\n" +
                                   ops),
                       "FORMAT.md examples");
    Op op;
    std::vector<OpKind> kinds;
    while (reader.next(op)) kinds.push_back(op.kind);
    EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::kMatmul, OpKind::kMatmul, OpKind::kFusedAttention,
                                          OpKind::kElementwise, OpKind::kActivation, OpKind::kNorm,
                                          OpKind::kSoftmax, OpKind::kReduce, OpKind::kMemcpy,
                                          OpKind::kCollective}));
}

TEST(TraceReader, DefaultsAndOptionalFields) {
    Op op = single_op(R"({"id":7,"op":"matmul","m":2,"n":3,"k":4})");
    EXPECT_EQ(op.id, 7u);
    EXPECT_EQ(op.line, 2u);
    EXPECT_EQ(op.name, "");
    EXPECT_EQ(op.dtype, DType::kBf16);
    EXPECT_EQ(op.matmul.batch, 1u);
    EXPECT_TRUE(op.inputs.empty());
    EXPECT_EQ(op.die, 0);

    op = single_op(R"({"id":1,"op":"batch_matmul","batch":8,"m":2,"n":3,"k":4,"trans_b":true,)"
                   R"("dtype":"fp8","die":0,"inputs":[{"addr":4096,"bytes":16},)"
                   R"({"name":"w","addr":"0XABCdef","bytes":1,"stream":"weight"}]})");
    EXPECT_EQ(op.kind, OpKind::kMatmul);
    EXPECT_EQ(op.matmul.batch, 8u);
    EXPECT_TRUE(op.matmul.trans_b);
    EXPECT_FALSE(op.matmul.trans_a);
    EXPECT_EQ(op.dtype, DType::kFp8);
    ASSERT_EQ(op.inputs.size(), 2u);
    EXPECT_EQ(op.inputs[0].addr, 4096u);
    EXPECT_EQ(op.inputs[0].name, "");
    EXPECT_EQ(op.inputs[0].stream, StreamClass::kGeneral);
    EXPECT_EQ(op.inputs[1].addr, 0xabcdefu);
}

TEST(TraceReader, EveryOpKindParses) {
    const std::string text =
        R"({"format":"ascend-sim-trace","version":1,"name":"n","model":"m","dies":4,"die":2})"
        "\r\n"
        "\n"
        "   \n"
        "  # indented comment\n" +
        std::string(R"({"id":1,"op":"fused_attention","batch":2,"heads":32,"kv_heads":8,)") +
        R"("q_len":128,"kv_len":4096,"head_dim":128,"causal":true})"
        "\r\n" +
        R"({"id":2,"op":"softmax","rows":4,"cols":5})"
        "\n" +
        R"({"id":3,"op":"reduce","func":"mean","rows":6,"cols":7,"die":2})"
        "\n" +
        R"({"id":4,"op":"memcpy","bytes":64,"inputs":[{"addr":"0x0","bytes":64}],)"
        R"("outputs":[{"addr":"0x40","bytes":64}]})"
        "\n" +
        R"({"id":5,"op":"collective","kind":"all_reduce","group":[0,1,2,3],"bytes":1024,)"
        R"("deps":[1,4]})";  // no final newline
    TraceReader reader(text_stream(text), "t.jsonl");
    EXPECT_EQ(reader.header().dies, 4);
    EXPECT_EQ(reader.header().die, 2);
    EXPECT_EQ(reader.header().model, "m");

    Op op;
    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.line, 5u);
    EXPECT_EQ(op.kind, OpKind::kFusedAttention);
    EXPECT_EQ(op.die, 2);
    EXPECT_EQ(op.attention.batch, 2u);
    EXPECT_EQ(op.attention.heads, 32u);
    EXPECT_EQ(op.attention.kv_heads, 8u);
    EXPECT_EQ(op.attention.q_len, 128u);
    EXPECT_EQ(op.attention.kv_len, 4096u);
    EXPECT_EQ(op.attention.head_dim, 128u);
    EXPECT_TRUE(op.attention.causal);

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.kind, OpKind::kSoftmax);
    EXPECT_EQ(op.vector.func, "softmax");
    EXPECT_EQ(op.vector.elements(), 20u);

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.kind, OpKind::kReduce);
    EXPECT_EQ(op.vector.func, "mean");

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.kind, OpKind::kMemcpy);
    EXPECT_EQ(op.copy_bytes, 64u);
    EXPECT_EQ(op.outputs.at(0).addr, 0x40u);

    ASSERT_TRUE(reader.next(op));
    EXPECT_EQ(op.line, 9u);
    EXPECT_EQ(op.kind, OpKind::kCollective);
    EXPECT_EQ(op.collective.kind, "all_reduce");
    EXPECT_EQ(op.collective.group, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(op.collective.bytes, 1024u);
    EXPECT_EQ(op.deps, (std::vector<uint64_t>{1, 4}));
    EXPECT_FALSE(reader.next(op));

    // Attention defaults: batch 1, kv_heads = heads, not causal.
    op = single_op(R"({"id":0,"op":"fused_attention","heads":4,"q_len":3,"kv_len":2,)"
                   R"("head_dim":64})");
    EXPECT_EQ(op.attention.batch, 1u);
    EXPECT_EQ(op.attention.kv_heads, 4u);
    EXPECT_FALSE(op.attention.causal);
}

TEST(TraceReader, MalformedJsonNamesLine) {
    const std::string msg = error_of(kHeader +
                                     R"({"id":1,"op":"matmul","m":2,"n":3,"k":4})"
                                     "\n" +
                                     R"({"id":2,"op":"matmul",})"
                                     "\n");
    EXPECT_TRUE(StartsWith(msg, "t.jsonl:3: malformed JSON: column "));
    EXPECT_TRUE(HasSubstr(msg, "syntax error"));
    EXPECT_EQ(error_of(kHeader + "[1,2]\n"),
              "t.jsonl:2: an op record must be a JSON object, got an array");
}

TEST(TraceReader, MissingRequiredField) {
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3})"),
              "t.jsonl:2: op 1: missing required field 'k'");
    EXPECT_EQ(error_of(kHeader + R"({"op":"matmul","m":2,"n":3,"k":4})"),
              "t.jsonl:2: missing required field 'id'");
    EXPECT_EQ(error_of(kHeader + R"({"id":3,"m":2,"n":3,"k":4})"),
              "t.jsonl:2: op 3: missing required field 'op'");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"batch_matmul","m":2,"n":3,"k":4})"),
              "t.jsonl:2: op 1: missing required field 'batch'");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"elementwise","elements":4})"),
              "t.jsonl:2: op 1: missing required field 'func'");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"memcpy","bytes":4,"inputs":[{"bytes":4}]})"),
              "t.jsonl:2: op 1: inputs[0]: missing required field 'addr'");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"collective","kind":"send","bytes":4})"),
              "t.jsonl:2: op 1: missing required field 'group'");
}

TEST(TraceReader, WrongType) {
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":"2","n":3,"k":4})"),
              "t.jsonl:2: op 1: field 'm' must be a positive integer, got \"2\"");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2.5,"n":3,"k":4})"),
              "t.jsonl:2: op 1: field 'm' must be a positive integer, got 2.5");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"trans_a":1})"),
              "t.jsonl:2: op 1: field 'trans_a' must be true or false, got 1");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"name":42})"),
              "t.jsonl:2: op 1: field 'name' must be a string, got 42");
    EXPECT_EQ(error_of(kHeader + R"({"id":"1","op":"matmul","m":2,"n":3,"k":4})"),
              "t.jsonl:2: field 'id' must be an unsigned integer, got \"1\"");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"inputs":{}})"),
              "t.jsonl:2: op 1: field 'inputs' must be an array, got an object");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"outputs":[5]})"),
              "t.jsonl:2: op 1: outputs[0]: must be an object, got 5");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,)"
                                 R"("inputs":[{"addr":"1000","bytes":4}]})"),
              "t.jsonl:2: op 1: inputs[0]: field 'addr' must be an unsigned integer or a hex "
              "string \"0x...\", got \"1000\"");
    EXPECT_EQ(error_of(kHeader + R"({"id":2,"op":"matmul","m":2,"n":3,"k":4,"deps":[-1]})"),
              "t.jsonl:2: op 2: field 'deps' must hold unsigned integers, got -1");
}

TEST(TraceReader, NonPositiveSizes) {
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"matmul","m":-3,"n":3,"k":4})"),
              "t.jsonl:2: op 6: field 'm' must be a positive integer, got -3");
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"norm","func":"rmsnorm","rows":0,"cols":4})"),
              "t.jsonl:2: op 6: field 'rows' must be a positive integer, got 0");
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"matmul","m":1,"n":3,"k":4,)"
                                 R"("outputs":[{"addr":0,"bytes":0}]})"),
              "t.jsonl:2: op 6: outputs[0]: field 'bytes' must be a positive integer, got 0");
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"matmul","m":1,"n":3,"k":4,)"
                                 R"("outputs":[{"addr":"0xffffffffffffffff","bytes":2}]})"),
              "t.jsonl:2: op 6: outputs[0]: tensor extends past the end of the 64-bit address "
              "space");
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"softmax","rows":4294967296,)"
                                 R"("cols":4294967296})"),
              "t.jsonl:2: op 6: rows x cols overflows 64 bits");
}

TEST(TraceReader, UnknownFieldsSuggestTheClosest) {
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"fused_attention","heads":4,"kv_heds":2,)"
                                 R"("q_len":3,"kv_len":3,"head_dim":8})"),
              "t.jsonl:2: op 1: unknown field 'kv_heds' (did you mean 'kv_heads'?)");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"heads":2})"),
              "t.jsonl:2: op 1: field 'heads' does not apply to op 'matmul'");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"zzzzzz":2})"),
              "t.jsonl:2: op 1: unknown field 'zzzzzz'");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,)"
                                 R"("inputs":[{"addr":0,"bytes":4,"streem":"weight"}]})"),
              "t.jsonl:2: op 1: inputs[0]: unknown field 'streem' (did you mean 'stream'?)");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmull","m":2,"n":3,"k":4})"),
              "t.jsonl:2: op 1: field 'op': unknown op kind 'matmull' (did you mean 'matmul'?); "
              "expected one of matmul, batch_matmul, fused_attention, elementwise, activation, "
              "norm, softmax, reduce, memcpy, collective");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"activation","func":"sigmiod","elements":4})"),
              "t.jsonl:2: op 1: field 'func': unknown activation function 'sigmiod' (did you "
              "mean 'sigmoid'?); expected one of relu, gelu, silu, swiglu, exp, sigmoid, tanh");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"m":3,"n":3,"k":4})"),
              "t.jsonl:2: duplicate field 'm'");
}

TEST(TraceReader, BadStreamClass) {
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,)"
                                 R"("inputs":[{"addr":0,"bytes":4,"stream":"wieght"}]})"),
              "t.jsonl:2: op 1: inputs[0]: field 'stream': unknown stream class 'wieght' (did "
              "you mean 'weight'?); expected one of weight, activation, general");
    // Prefetch traffic is the H-JSD's, not the trace's.
    EXPECT_TRUE(
        StartsWith(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,)"
                                      R"("inputs":[{"addr":0,"bytes":4,"stream":"prefetch"}]})"),
                   "t.jsonl:2: op 1: inputs[0]: field 'stream': unknown stream class "
                   "'prefetch'"));
}

TEST(TraceReader, BadDtype) {
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"dtype":"bf17"})"),
              "t.jsonl:2: op 1: field 'dtype': unknown dtype 'bf17' (did you mean 'bf16'?); "
              "expected one of fp32, tf32, fp16, bf16, fp8, hif8, int8, fp4, hif4, int4, int32");
}

TEST(TraceReader, IdsMustStrictlyIncrease) {
    const std::string op1 = R"({"id":5,"op":"matmul","m":2,"n":3,"k":4})"
                            "\n";
    EXPECT_EQ(error_of(kHeader + op1 + "# c\n" + R"({"id":5,"op":"matmul","m":2,"n":3,"k":4})"),
              "t.jsonl:4: op 5: id 5 is not greater than the previous op's id 5 (ids must "
              "strictly increase)");
    EXPECT_EQ(error_of(kHeader + op1 + R"({"id":4,"op":"matmul","m":2,"n":3,"k":4})"),
              "t.jsonl:3: op 4: id 4 is not greater than the previous op's id 5 (ids must "
              "strictly increase)");
    EXPECT_EQ(error_of(kHeader + op1 + R"({"id":9,"op":"matmul","m":2,"n":3,"k":4})"), "");
}

TEST(TraceReader, DepsMustBeEarlier) {
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"matmul","m":2,"n":3,"k":4,"deps":[1,6]})"),
              "t.jsonl:2: op 6: dep 6 is not an earlier op (deps must be less than the op's id "
              "6)");
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"matmul","m":2,"n":3,"k":4,"deps":[9]})"),
              "t.jsonl:2: op 6: dep 9 is not an earlier op (deps must be less than the op's id "
              "6)");
    EXPECT_EQ(error_of(kHeader + R"({"id":6,"op":"matmul","m":2,"n":3,"k":4,"deps":[2,2]})"),
              "t.jsonl:2: op 6: dep 2 listed twice");
}

TEST(TraceReader, HeaderVersionAndFormat) {
    EXPECT_EQ(error_of(R"({"format":"ascend-sim-trace","version":2})"
                       "\n"),
              "t.jsonl:1: header: unsupported format version 2; this reader supports version 1");
    EXPECT_EQ(error_of(R"({"format":"ascend-sim-trace","version":"1"})"
                       "\n"),
              "t.jsonl:1: header: field 'version' must be an integer, got \"1\"");
    EXPECT_EQ(error_of(R"({"format":"ascend-sim-trace"})"
                       "\n"),
              "t.jsonl:1: header: missing required field 'version'");
    EXPECT_EQ(error_of(R"({"format":"chakra","version":1})"
                       "\n"),
              "t.jsonl:1: header: field 'format' is \"chakra\", expected \"ascend-sim-trace\"");
    EXPECT_EQ(error_of(R"({"version":1})"
                       "\n"),
              "t.jsonl:1: header: missing required field 'format'");
    EXPECT_EQ(error_of(R"({"format":"ascend-sim-trace","version":1,"modell":"x"})"
                       "\n"),
              "t.jsonl:1: header: unknown field 'modell' (did you mean 'model'?)");
    EXPECT_EQ(error_of(R"({"format":"ascend-sim-trace","version":1,"dies":2,"die":2})"
                       "\n"),
              "t.jsonl:1: header: field 'die' is 2 but must be less than 'dies' (2)");
    EXPECT_EQ(error_of(R"({"format":"ascend-sim-trace","version":1,"dies":0})"
                       "\n"),
              "t.jsonl:1: header: field 'dies' must be in [1, 2147483647], got 0");
    EXPECT_EQ(error_of(kHeader + kHeader),
              "t.jsonl:2: unexpected header record (the header is line 1 only)");
}

TEST(TraceReader, MissingHeaderIsAnErrorAtLineOne) {
    const std::string expected =
        "expected the header {\"format\":\"ascend-sim-trace\",\"version\":1,...} as line 1";
    EXPECT_EQ(error_of("\xEF\xBB\xBF" + kHeader), "");  // a UTF-8 byte order mark is fine
    EXPECT_EQ(error_of(""), "t.jsonl:1: empty trace: " + expected);
    EXPECT_EQ(error_of("\n" + kHeader), "t.jsonl:1: missing header: " + expected);
    EXPECT_EQ(error_of("# comment\n" + kHeader),
              "t.jsonl:1: missing header: " + expected + ", found a comment");
    EXPECT_EQ(error_of(R"({"id":1,"op":"matmul","m":2,"n":3,"k":4})"),
              "t.jsonl:1: missing header: " + expected + ", found an op record");
    EXPECT_EQ(error_of("42\n"), "t.jsonl:1: missing header: " + expected + ", found 42");
    EXPECT_TRUE(StartsWith(error_of("{oops\n"), "t.jsonl:1: malformed JSON: "));
}

TEST(TraceReader, MissingFile) {
    const std::string path = temp_path("does_not_exist.jsonl");
    try {
        TraceReader reader(path);
        FAIL() << "no error for a missing file";
    } catch (const TraceError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot open trace '" + path + "': No such file or directory");
    }
    try {
        TraceReader reader(temp_path("missing.jsonl.gz"));
        FAIL() << "no error for a missing .gz file";
    } catch (const TraceError& e) {
        EXPECT_TRUE(HasSubstr(e.what(), "No such file or directory"));
    }
}

TEST(TraceReader, PlacementAndShapeChecks) {
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"matmul","m":2,"n":3,"k":4,"die":1})"),
              "t.jsonl:2: op 1: field 'die' is 1 but this file is for die 0 (v1 holds one die "
              "per file)");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"collective","kind":"all_gather",)"
                                 R"("group":[0,1],"bytes":4})"),
              "t.jsonl:2: op 1: field 'group' must be in [0, 0], got 1");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"collective","kind":"all_gather",)"
                                 R"("group":[],"bytes":4})"),
              "t.jsonl:2: op 1: field 'group' must name at least one die");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"collective","kind":"all_gather",)"
                                 R"("group":[0,0],"bytes":4})"),
              "t.jsonl:2: op 1: die 0 is listed twice in 'group'");
    EXPECT_TRUE(StartsWith(error_of(kHeader + R"({"id":1,"op":"collective","kind":"allreduce",)"
                                              R"("group":[0],"bytes":4})"),
                           "t.jsonl:2: op 1: field 'kind': unknown collective 'allreduce' (did "
                           "you mean 'all_reduce'?)"));
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"fused_attention","heads":6,"kv_heads":4,)"
                                 R"("q_len":3,"kv_len":3,"head_dim":8})"),
              "t.jsonl:2: op 1: heads (6) must be a multiple of kv_heads (4)");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"fused_attention","heads":4,"q_len":5,)"
                                 R"("kv_len":3,"head_dim":8,"causal":true})"),
              "t.jsonl:2: op 1: causal attention needs q_len <= kv_len, got q_len 5 and kv_len "
              "3");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"memcpy","bytes":4,)"
                                 R"("inputs":[{"addr":0,"bytes":4}]})"),
              "t.jsonl:2: op 1: memcpy needs exactly one input and one output tensor, got 1 "
              "and 0");
    EXPECT_EQ(error_of(kHeader + R"({"id":1,"op":"softmax","func":"logsoftmax","rows":1,)"
                                 R"("cols":4})"),
              "t.jsonl:2: op 1: field 'func': unknown softmax function 'logsoftmax' (did you "
              "mean 'softmax'?); expected one of softmax");
}

TEST(TraceReader, ReadsGzipFiles) {
    const std::string plain = read_file(sample_path());
    ASSERT_FALSE(plain.empty());
    const std::string path = temp_path("tiny_mlp.jsonl.gz");
    gzFile out = gzopen(path.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, plain.data(), static_cast<unsigned>(plain.size())),
              static_cast<int>(plain.size()));
    ASSERT_EQ(gzclose(out), Z_OK);

    {
        TraceReader reader(path);
        EXPECT_EQ(reader.header().name, "tiny_mlp");
        Op op;
        uint64_t count = 0;
        uint64_t last_id = 0;
        while (reader.next(op)) {
            ++count;
            last_id = op.id;
        }
        EXPECT_EQ(count, 5u);
        EXPECT_EQ(last_id, 4u);
        EXPECT_EQ(op.line, 7u);
    }

    // A truncated archive is a read error, not a silently short trace.
    const std::string whole = read_file(path);
    const std::string cut_path = temp_path("cut.jsonl.gz");
    {
        std::ofstream cut(cut_path, std::ios::binary);
        cut.write(whole.data(), static_cast<std::streamsize>(whole.size() - 12));
    }
    try {
        TraceReader reader(cut_path);
        Op op;
        while (reader.next(op)) {
        }
        ADD_FAILURE() << "no error for a truncated .gz file";
    } catch (const TraceError& e) {
        EXPECT_TRUE(StartsWith(e.what(), cut_path + ":"));
        EXPECT_TRUE(HasSubstr(e.what(), "read error: gzip: "));
    }
    std::remove(path.c_str());
    std::remove(cut_path.c_str());
}

// Produces a trace line by line as it is read, so neither the test nor the reader ever holds
// more than one line: if the reader kept per-op state, this is where it would show.
class GeneratedTraceBuf : public std::streambuf {
public:
    explicit GeneratedTraceBuf(uint64_t ops) : m_ops(ops) {}

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (m_next > m_ops) return traits_type::eof();
        if (m_next == 0) {
            m_text = kHeader;
        } else {
            const uint64_t id = m_next * 2;  // gaps in ids are allowed
            const std::string common =
                R"({"id":)" + std::to_string(id) + R"(,"deps":[)" + std::to_string(id - 1) + "],";
            switch (m_next % 3) {
                case 0:
                    m_text = common + R"("op":"matmul","m":16,"n":32,"k":64,"inputs":[)"
                                      R"({"addr":"0x1000","bytes":2048,"stream":"weight"}]})"
                                      "\n";
                    break;
                case 1:
                    m_text = common + R"("op":"elementwise","func":"add","elements":100})"
                                      "\n";
                    break;
                default:
                    m_text = common + R"("op":"norm","func":"rmsnorm","rows":2,"cols":50})"
                                      "\n";
                    break;
            }
        }
        ++m_next;
        setg(m_text.data(), m_text.data(), m_text.data() + m_text.size());
        return traits_type::to_int_type(*gptr());
    }

private:
    uint64_t m_ops;
    uint64_t m_next = 0;  // 0 is the header
    std::string m_text;
};

class GeneratedTraceStream : public std::istream {
public:
    explicit GeneratedTraceStream(uint64_t ops) : std::istream(nullptr), m_buf(ops) {
        rdbuf(&m_buf);
    }

private:
    GeneratedTraceBuf m_buf;
};

TEST(TraceReader, StreamsALongTrace) {
    constexpr uint64_t kOps = 100000;
    TraceReader reader(std::make_unique<GeneratedTraceStream>(kOps), "generated");
    Op op;
    uint64_t count = 0;
    double flops = 0;
    while (reader.next(op)) {
        ++count;
        flops += op_flops(op);
    }
    EXPECT_EQ(count, kOps);
    EXPECT_EQ(op.id, 2 * kOps);
    EXPECT_EQ(op.line, kOps + 1);
    // kOps / 3 matmuls (2*16*32*64), kOps / 3 + 1 adds (100) and kOps / 3 norms (4 * 100).
    const double expected = (kOps / 3) * 65536.0 + (kOps / 3 + 1) * 100.0 + (kOps / 3) * 400.0;
    EXPECT_DOUBLE_EQ(flops, expected);
}

TEST(OpFlops, MatchesTheDocumentedCounts) {
    Op op;
    op.kind = OpKind::kMatmul;
    op.matmul = {3, 16, 32, 64, false, false};
    EXPECT_DOUBLE_EQ(op_flops(op), 2.0 * 3 * 16 * 32 * 64);

    op.kind = OpKind::kFusedAttention;
    op.attention = {2, 8, 2, 128, 128, 64, false};
    EXPECT_DOUBLE_EQ(op_flops(op), 4.0 * 2 * 8 * 128 * 128 * 64);
    op.attention.causal = true;  // q_len == kv_len: q(q+1)/2 pairs
    EXPECT_DOUBLE_EQ(op_flops(op), 4.0 * 2 * 8 * (128.0 * 129 / 2) * 64);
    op.attention = {1, 1, 1, 4, 10, 2, true};  // query i sees 10 - 4 + i + 1 keys: 7+8+9+10
    EXPECT_DOUBLE_EQ(op_flops(op), 4.0 * 34 * 2);
    op.attention = {1, 1, 1, 1, 4096, 128, true};  // decode: one query sees every key
    EXPECT_DOUBLE_EQ(op_flops(op), 4.0 * 4096 * 128);

    auto vector_flops = [](OpKind kind, const char* func, uint64_t rows, uint64_t cols) {
        Op v;
        v.kind = kind;
        v.vector = {func, rows, cols};
        return op_flops(v);
    };
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kElementwise, "add", 1, 1000), 1000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kElementwise, "cast", 1, 1000), 0);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kElementwise, "rope", 1, 1000), 3000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kActivation, "gelu", 1, 1000), 8000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kActivation, "silu", 1, 1000), 4000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kActivation, "swiglu", 1, 1000), 5000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kNorm, "rmsnorm", 10, 100), 4000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kNorm, "layernorm", 10, 100), 7000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kSoftmax, "softmax", 10, 100), 5000);
    EXPECT_DOUBLE_EQ(vector_flops(OpKind::kReduce, "max", 10, 100), 1000);
    EXPECT_THROW(vector_flops(OpKind::kReduce, "gelu", 1, 1), SimulationError);

    op.kind = OpKind::kMemcpy;
    op.copy_bytes = 1 << 20;
    EXPECT_DOUBLE_EQ(op_flops(op), 0);
    op.kind = OpKind::kCollective;
    EXPECT_DOUBLE_EQ(op_flops(op), 0);
}

TEST(OpFlops, SampleTraceTotal) {
    TraceReader reader(sample_path().string());
    Op op;
    double flops = 0;
    while (reader.next(op)) flops += op_flops(op);
    const double expected = 4.0 * 16 * 1024 +         // rmsnorm
                            2.0 * 16 * 4096 * 1024 +  // up projection
                            8.0 * 65536 +             // gelu
                            2.0 * 16 * 1024 * 4096 +  // down projection
                            1.0 * 16384;              // residual add
    EXPECT_DOUBLE_EQ(flops, expected);
}

TEST(OpKindNames, ToString) {
    EXPECT_EQ(to_string(OpKind::kMatmul), "matmul");
    EXPECT_EQ(to_string(OpKind::kFusedAttention), "fused_attention");
    EXPECT_EQ(to_string(OpKind::kElementwise), "elementwise");
    EXPECT_EQ(to_string(OpKind::kActivation), "activation");
    EXPECT_EQ(to_string(OpKind::kNorm), "norm");
    EXPECT_EQ(to_string(OpKind::kSoftmax), "softmax");
    EXPECT_EQ(to_string(OpKind::kReduce), "reduce");
    EXPECT_EQ(to_string(OpKind::kMemcpy), "memcpy");
    EXPECT_EQ(to_string(OpKind::kCollective), "collective");
}

}  // namespace
}  // namespace asim::trace
