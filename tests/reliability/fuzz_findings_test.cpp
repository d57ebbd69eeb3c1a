// Issue 18, fuzzing (fuzz/README.md): every finding of the libFuzzer harnesses, fixed in its
// parser, has a test here, in the release suite (no clang needed). Each replays the reproducer
// committed to fuzz/corpus/<harness>/ and checks the class it stands for with inputs of its own.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/common/trace.h"
#include "testbenches/mem_replay/mem_trace.h"
#include "testbenches/trace_gen/et_import.h"
#include "testbenches/trace_gen/trace_stats.h"
#include "tests/harness/cli_runner.h"

namespace {

namespace fs = std::filesystem;

std::string corpus_file(const std::string& harness, const std::string& name) {
    return std::string(ASIM_SOURCE_DIR) + "/fuzz/corpus/" + harness + "/" + name;
}

std::string scratch_file(const std::string& name, const std::string& contents) {
    const std::string dir = asim::test::scratch_path("fuzz-findings", "files");
    fs::create_directories(dir);
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << contents;
    return path;
}

// Reads a memory trace to its end through read(); returns the error text ("" at a clean end).
std::string read_all(asim::MemTraceReader& reader) {
    asim::MemRecord r;
    std::string error;
    while (reader.read(r, error)) {
    }
    return error;
}

// mem_trace: a corrupt gzip stream made read(), the entry point that must not throw (it runs on
// SystemC thread stacks), throw TraceError from inside; the message also named the file twice.
TEST(FuzzFindings, MemTraceCorruptGzipIsAnErrorTextNotAnException) {
    const std::string path =
        corpus_file("mem_trace", "crash-9b1312ce58f044706559c0817b206e622db8892f");
    asim::MemTraceReader reader(path);
    std::string error;
    EXPECT_NO_THROW(error = read_all(reader));
    EXPECT_NE(error.find("invalid code lengths set"), std::string::npos) << error;
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
    EXPECT_EQ(error.find(path, path.size()), std::string::npos) << "the path twice: " << error;
    asim::MemTraceReader again(path);
    asim::MemRecord r;
    EXPECT_THROW(
        {
            while (again.next(r)) {
            }
        },
        asim::TraceError);
}

// mem_trace: the buffer grew without bound on a line with no newline (a device, a gzip bomb);
// now a line is at most 1 MiB.
TEST(FuzzFindings, MemTraceLineLongerThanTheLimitIsAnError) {
    const std::string path = scratch_file(
        "long_line.trc",
        "0x40 READ 0\n0x" + std::string(asim::MemTraceReader::kMaxLineBytes + 10, '0'));
    asim::MemTraceReader reader(path);
    const std::string error = read_all(reader);
    EXPECT_NE(error.find(":2: line longer than 1 MiB"), std::string::npos) << error;
    EXPECT_EQ(reader.line(), 1u);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// config: a platform file with a line starting with ',' (the fuzzer's was a mangled
// hbm3_6400.yaml) hung in yaml-cpp 0.7's LoadAll(), which added a null document per turn until
// memory ran out (jbeder/yaml-cpp#1040). Now a ConfigError naming the line, at once.
TEST(FuzzFindings, ConfigLoneCommaIsMalformedYamlNotAHang) {
    const std::string text =
        read_file(corpus_file("config", "timeout-d90256000aa3f17a1e0e3d87148abddbbfe4a4da"));
    ASSERT_FALSE(text.empty());
    const auto t0 = std::chrono::steady_clock::now();
    try {
        asim::Config::from_string(text, "fuzz.yaml");
        ADD_FAILURE() << "accepted";
    } catch (const asim::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("fuzz.yaml:5:2: malformed YAML"), std::string::npos)
            << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

// config: --set keys with bytes that are not UTF-8 were accepted; yaml-cpp writes each such byte
// as U+FFFD, so two keys differing only there became one duplicate key in the effective
// config.yaml, which then did not load. Replays the fuzzer's input the way its harness does: every
// override is applied or refused, and what is written loads again.
// The same for NUL and other control bytes in a --set value (crash-7b38ff9...): yaml-cpp then wrote
// bytes into config.yaml that were in neither input; they are refused like stray bytes.
class ConfigEffectiveYaml : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(FuzzFindings, ConfigEffectiveYaml,
                         ::testing::Values("crash-9f904c26ceee9070859fe3b66544806789722dd0",
                                           "crash-7b38ff90c300211214ad33fd281c144f9e57d107",
                                           "crash-a58a1944f3b3a8fb535d47fe90aa866048e1694a"));

TEST_P(ConfigEffectiveYaml, LoadsAgainAfterOverridesWithStrayBytes) {
    const std::string text = read_file(corpus_file("config", GetParam()));
    const std::size_t split = text.find("\n%%\n");
    ASSERT_NE(split, std::string::npos);
    // The two presets of fuzz/config_fuzzer.cpp; the input's file starts with "base: derived".
    const asim::EmbeddedPresetResolver resolver(
        "platform",
        {{"tiny", "platforms/tiny.yaml",
          "die:\n  clock: 1.5GHz\n  ai_cores: 4\n  l2:\n    size: 32MiB\n    ways: 16\n"},
         {"derived", "platforms/derived.yaml", "base: tiny\ndie:\n  ai_cores: 8\n"}});
    asim::Config config =
        asim::Config::from_string(text.substr(0, split + 1), "fuzz.yaml", &resolver);
    int refused = 0;
    std::istringstream overrides(text.substr(split + 4));
    for (std::string line; std::getline(overrides, line);) {
        try {
            config.apply_override(line);
        } catch (const asim::ConfigError& e) {
            const std::string what = e.what();
            refused += what.find("not UTF-8 text") != std::string::npos ||
                       what.find("a control character") != std::string::npos ||
                       what.find("'base' selects a preset") != std::string::npos;
        }
    }
    EXPECT_GT(refused, 0);
    const std::string effective = config.to_yaml();
    EXPECT_NO_THROW(asim::Config::from_string(effective, "config.yaml")) << effective;
}

// trace_set_index: `trace stats SET` read "dies" and "tokens" with nlohmann's get<uint64_t>(),
// which converts any number: 418446744073709551615 (a float beyond 2^64) was undefined behaviour
// (UBSan), and -1 became 2^64-1. Both are now "must be an unsigned integer".
TEST(FuzzFindings, TraceStatsIndexCountsMustBeUnsignedIntegers) {
    const std::string dir = asim::test::scratch_path("fuzz-findings", "index");
    fs::create_directories(dir);
    fs::copy_file(corpus_file("trace_set_index", "crash-e4fd782d8b4fa357482c8014cad76d7d3e9a41a4"),
                  dir + "/index.json", fs::copy_options::overwrite_existing);
    auto error_of = [&] {
        try {
            asim::tracegen::trace_stats(dir);
        } catch (const asim::InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(error_of().find("\"dies\" must be an unsigned integer, got 4.1844674407370955e+20"),
              std::string::npos)
        << error_of();
    std::ofstream(dir + "/index.json")
        << R"({"format":"ascend-sim-trace-index","version":1,"dies":1,"tokens":-1,"files":[]})";
    EXPECT_NE(error_of().find("\"tokens\" must be an unsigned integer, got -1"), std::string::npos)
        << error_of();
}

// pytorch_et: the importer walks a node's children recursively, and a node listed as its own
// child recursed until the stack overflowed (AddressSanitizer: stack-overflow). The reproducer's
// root (id 1, parent 1, as real traces write the root) was renamed to an aten op with no mapping,
// so the importer descended into its children, itself among them. The root's self-link is now no
// child edge, and parent links that loop (1 -> 2 -> 1) are "its own ancestor".
TEST(FuzzFindings, PytorchEtParentLinksThatLoopAreAnErrorNotAStackOverflow) {
    auto import = [](const std::string& path) {
        std::ostringstream out;
        try {
            asim::tracegen::import_pytorch_et(path, out, "t");
        } catch (const asim::InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    // The reproducer imports: its self-parented root is no loop.
    EXPECT_EQ(import(corpus_file("pytorch_et", "crash-710c711964dc76c38182841a4358f25bf6e0d77d")),
              "accepted");
    const std::string node =
        R"("op_schema":"","inputs":[],"input_shapes":[],"input_types":[],"outputs":[],"output_shapes":[],"output_types":[])";
    const std::string loop = scratch_file(
        "loop.json",
        R"({"schema":"1.0.1","nodes":[{"name":"[pytorch|profiler|execution_graph|thread]","id":1,"parent":3,)" +
            node + R"(},{"name":"aten::unmapped_a","id":2,"parent":1,)" + node +
            R"(},{"name":"aten::unmapped_b","id":3,"parent":2,)" + node + "}]}");
    const std::string error = import(loop);
    EXPECT_NE(error.find("its own ancestor"), std::string::npos) << error;
}

// pytorch_et (the harness's own check that an import the importer accepts reads back): a
// zero-sized operand (here a batch of 0 in an aten::bmm) was written as "batch":0, which the
// trace reader refuses (extents are positive). An op with a zero extent does no work: it is
// folded away now.
TEST(FuzzFindings, PytorchEtZeroSizedOpsAreFoldedNotWrittenAsInvalidOps) {
    const std::string out = scratch_file("zero.jsonl", "");
    {
        std::ofstream o(out);
        asim::tracegen::import_pytorch_et(
            corpus_file("pytorch_et", "crash-209a191d4f361f7d5883cdbc534fd4555b440187"), o, "t");
    }
    asim::trace::TraceReader reader(out);
    asim::trace::Op op;
    uint64_t ops = 0;
    while (reader.next(op)) ++ops;  // throws TraceError on the op the old importer wrote
    EXPECT_GT(ops, 0u);
    const std::string node =
        R"J("inputs":[[1,1,0,0,4,"cpu"],[2,2,0,64,4,"cpu"]],"input_shapes":[[0,4,4],[1,4,4]],"input_types":["Tensor(float)","Tensor(float)"],"outputs":[[3,3,0,0,4,"cpu"]],"output_shapes":[[0,4,4]],"output_types":["Tensor(float)"])J";
    const std::string et = scratch_file(
        "zero-bmm.json",
        R"({"schema":"1.0.1","nodes":[{"name":"[pytorch|profiler|execution_graph|thread]","id":1,"parent":1,"inputs":[],"input_shapes":[],"input_types":[],"outputs":[],"output_shapes":[],"output_types":[]},{"name":"aten::bmm","id":2,"parent":1,)" +
            node + "}]}");
    std::ostringstream text;
    const auto report = asim::tracegen::import_pytorch_et(et, text, "t");
    EXPECT_EQ(report.folded.count("aten::bmm"), 1u);
    EXPECT_EQ(text.str().find("\"batch\":0"), std::string::npos) << text.str();
}

// pytorch_et, third 30-minute run after ~1370 s (the read-back check again): every operand shape
// was within 2^60 elements, but the matmul they describe (batch x m x n x k) was not, and the
// reader refused the op the importer wrote. The import now stops with an error naming the node.
TEST(FuzzFindings, PytorchEtOpsBeyondTheWorkLimitAreAnErrorNamingTheNode) {
    std::ostringstream out;
    try {
        asim::tracegen::import_pytorch_et(
            corpus_file("pytorch_et", "crash-2a83834c83c3f442a6f1b15de13ad0d65d40ed19"), out, "t");
        FAIL() << "accepted";
    } catch (const asim::TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("more than 2^60 units of work"), std::string::npos)
            << e.what();
    }
}

}  // namespace
