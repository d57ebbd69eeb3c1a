// Issue 18, bad input: one test per class of input that used to crash, hang, blow up or give a
// silently wrong result. Each asserts exit 2 (or 1 for a failed simulation) and the message that
// names what is wrong; none may take long or print a library's own text.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using asim::test::CliResult;
using asim::test::run_cli;
using asim::test::scratch_path;
using asim::test::write_text;

bool has(const CliResult& r, const std::string& text) {
    return r.output.find(text) != std::string::npos;
}

// A bad-input verdict: exit 2, one "ascend-sim: error:" line that says `what`, no library text.
void expect_bad_input(const CliResult& r, const std::string& what) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output.rfind("ascend-sim: error: ", 0), 0u) << r.output;
    EXPECT_TRUE(has(r, what)) << "expected '" << what << "' in: " << r.output;
    EXPECT_FALSE(has(r, "json.exception")) << r.output;
    EXPECT_FALSE(has(r, "yaml-cpp")) << r.output;
}

std::string scratch_dir(const std::string& name) {
    const std::string dir = scratch_path("bad-input", name);
    fs::create_directories(dir);
    return dir;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const std::string kHeader = R"({"format":"ascend-sim-trace","version":1})";

std::string trace_file(const std::string& name, const std::string& ops) {
    const std::string path = scratch_dir(name) + "/t.jsonl";
    write_text(path, kHeader + "\n" + ops);
    return path;
}

// ---- YAML layer ------------------------------------------------------------------------------

TEST(BadInputYaml, AliasThatContainsItselfIsAnErrorNotACrash) {
    const std::string file = scratch_dir("self-alias") + "/p.yaml";
    write_text(file, "base: ascend960\ndie: &a {l2: *a}\n");
    const CliResult r = run_cli("info --platform " + file);
    expect_bad_input(r, "an alias that refers to a map or list containing it");
    EXPECT_TRUE(has(r, file + ":2:")) << r.output;
    expect_bad_input(run_cli("info --set 'die=&a {l2: *a}'"), "--set die=&a {l2: *a}");
}

TEST(BadInputYaml, AliasExpansionIsBoundedByTheFileSize) {
    // "Billion laughs": nine levels of ten aliases each, 10^9 values from 360 bytes (9.5 GB
    // before).
    std::string text = "base: ascend960\na: &a [x,x,x,x,x,x,x,x,x,x]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        const std::string prev(1, static_cast<char>(c - 1));
        text += std::string(1, c) + ": &" + std::string(1, c) + " [";
        for (int i = 0; i < 10; ++i) text += (i ? ",*" : "*") + prev;
        text += "]\n";
    }
    const std::string file = scratch_dir("laughs") + "/p.yaml";
    write_text(file, text);
    const auto t0 = std::chrono::steady_clock::now();
    expect_bad_input(run_cli("info --platform " + file), "aliases expand to more values than");
    EXPECT_LT(seconds_since(t0), 10.0);
}

TEST(BadInputYaml, UnknownKeyCheckIsLinearInTheKeys) {
    // 100,000 unknown keys (2.4 MB): 51 s before keys were indexed, well under a second after.
    std::string text = "base: ascend960\n";
    for (int i = 0; i < 100000; ++i)
        text += "key_" + std::to_string(1000000 + i) + "_abcdefgh: 1\n";
    const std::string file = scratch_dir("many-keys") + "/p.yaml";
    write_text(file, text);
    const auto t0 = std::chrono::steady_clock::now();
    const CliResult r = run_cli("info --platform " + file);
    expect_bad_input(r, "key_1000000_abcdefgh: unknown key");
    EXPECT_LT(seconds_since(t0), 10.0);
}

// ---- Numbers ---------------------------------------------------------------------------------

TEST(BadInputNumbers, NegativeCountsAreRefusedNotWrapped) {
    expect_bad_input(run_cli("figures hbm --requests -1"),
                     "--requests: must not be negative, got '-1'");
    expect_bad_input(run_cli("mem-replay --mem-trace /dev/null --issue-cap -1"),
                     "--issue-cap: must not be negative, got '-1'");
    expect_bad_input(run_cli("figures l2 --requests ' -5'"), "must not be negative");
}

TEST(BadInputNumbers, NonFiniteRealsAreRefused) {
    const std::string out = scratch_path("bad-input", "skew-out");
    for (const char* v : {"nan", "inf", "-inf"}) {
        expect_bad_input(
            run_cli(std::string("trace gen --model deepseek-v3 --seq 16 --routing skewed --skew ") +
                    v + " --out " + out),
            "--skew: must be a finite number");
    }
    EXPECT_FALSE(fs::exists(out));
}

TEST(BadInputNumbers, OpsBeyondTwoToTheSixtyAreRefusedForEveryKind) {
    // Element-wise and memcpy ops had no limit (2^62 elements ran "forever"); now every kind has
    // the matmul's.
    const char* too_big[] = {
        R"({"id":0,"op":"elementwise","func":"add","elements":4611686018427387904})",
        R"({"id":0,"op":"softmax","rows":1073741824,"cols":2147483648})",
        R"({"id":0,"op":"memcpy","bytes":2305843009213693952,"inputs":[{"addr":0,"bytes":64}],"outputs":[{"addr":64,"bytes":64}]})",
        R"({"id":0,"op":"matmul","m":1048576,"n":1048576,"k":2097152})",
    };
    int i = 0;
    for (const char* op : too_big) {
        const std::string t = trace_file("too-big-" + std::to_string(i++), std::string(op) + "\n");
        const auto t0 = std::chrono::steady_clock::now();
        expect_bad_input(
            run_cli("run --trace " + t + " --out " + scratch_path("bad-input", "too-big-out")),
            "exceeds 2^60");
        EXPECT_LT(seconds_since(t0), 20.0) << op;
    }
}

// Runs the binary with `args` (no shell); its exit status, output and peak resident set (KiB,
// from wait4: unlike `ulimit -v`, this works under AddressSanitizer, which reserves terabytes of
// address space for its shadow).
struct Measured {
    int status = -1;
    std::string output;
    long peak_kib = 0;
};
Measured run_measured(const std::vector<std::string>& args) {
    const std::string out_path = scratch_path("bad-input", "measured.txt");
    std::vector<std::string> argv_text = {ASIM_BINARY};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    Measured m;
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        execv(argv[0], argv.data());
        _exit(127);
    }
    rusage usage{};
    wait4(pid, &m.status, 0, &usage);
    m.peak_kib = usage.ru_maxrss;
    std::ifstream in(out_path);
    m.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return m;
}

TEST(BadInputNumbers, FiguresLinksMemoryDoesNotGrowWithTheMessage) {
    // 1 TiB took 11.6 GB (a record per packet); the bulk is now extrapolated from the steady state.
    const Measured small =
        run_measured({"figures", "links", "--platform", "supernode8_ring", "--sizes", "1MiB"});
    const Measured huge =
        run_measured({"figures", "links", "--platform", "supernode8_ring", "--sizes", "1TiB"});
    ASSERT_TRUE(WIFEXITED(huge.status) && WEXITSTATUS(huge.status) == 0) << huge.output;
    ASSERT_TRUE(WIFEXITED(small.status) && WEXITSTATUS(small.status) == 0) << small.output;
    EXPECT_NE(huge.output.find("1099511627776"), std::string::npos) << huge.output;
    // A million times the bytes, about the same memory.
    EXPECT_LT(huge.peak_kib, small.peak_kib * 3 / 2 + 20 * 1024)
        << "1 MiB: " << small.peak_kib << " KiB, 1 TiB: " << huge.peak_kib << " KiB";
    expect_bad_input(run_cli("figures links --platform supernode8_ring --sizes 1KiB..2000000TiB"),
                     "more than 2^60 bytes");
}

TEST(BadInputNumbers, AbsurdClocksAreRefused) {
    expect_bad_input(run_cli("info --set die.clock=1e30GHz"), "1THz");
    expect_bad_input(run_cli("info --set die.clock=0.1Hz"), "below 1Hz");
}

// ---- Traces ----------------------------------------------------------------------------------

TEST(BadInputTrace, DependencyOnAMissingIdJustBeforeTheOp) {
    const std::string t =
        trace_file("gap", R"({"id":0,"op":"softmax","rows":64,"cols":64})"
                          "\n"
                          R"({"id":5,"op":"softmax","rows":64,"cols":64,"deps":[3]})"
                          "\n");
    const CliResult r =
        run_cli("run --trace " + t + " --out " + scratch_path("bad-input", "gap-out"));
    expect_bad_input(r, t + ":3: op 5 depends on op 3, which is not in the trace");
    // An id of an earlier gap, and of the gap before the first op, alike.
    const std::string t2 =
        trace_file("gap2", R"({"id":2,"op":"softmax","rows":64,"cols":64})"
                           "\n"
                           R"({"id":5,"op":"softmax","rows":64,"cols":64,"deps":[1]})"
                           "\n");
    expect_bad_input(
        run_cli("run --trace " + t2 + " --out " + scratch_path("bad-input", "gap2-out")),
        "depends on op 1, which is not in the trace");
}

TEST(BadInputTrace, NumbersBeyondADoubleAreTraceErrors) {
    const std::string t = trace_file("1e400", R"({"id":0,"op":"softmax","rows":1e400,"cols":64})"
                                              "\n");
    expect_bad_input(
        run_cli("run --trace " + t + " --out " + scratch_path("bad-input", "1e400-out")),
        t + ":2: a number in this line is out of range");
}

TEST(BadInputTrace, CollectiveBytesBeyondTwoToTheSixty) {
    const std::string dir = scratch_dir("coll-bytes");
    write_text(
        dir + "/index.json",
        R"({"format":"ascend-sim-trace-index","version":1,"dies":2,"files":[{"die":0,"file":"d0.jsonl"},{"die":1,"file":"d1.jsonl"}]})");
    for (int d : {0, 1}) {
        write_text(
            dir + "/d" + std::to_string(d) + ".jsonl",
            std::string(R"({"format":"ascend-sim-trace","version":1,"dies":2,"die":)") +
                std::to_string(d) + "}\n" +
                R"({"id":0,"op":"collective","kind":"all_reduce","group":[0,1],"bytes":18446744073709551615})" +
                "\n");
    }
    expect_bad_input(run_cli("run --platform supernode8_ring --trace " + dir + " --out " +
                             scratch_path("bad-input", "coll-bytes-out")),
                     "exceeds 2^60");
    expect_bad_input(run_cli("figures collectives --platform supernode8_ring --sizes 2000000TiB"),
                     "more than 2^60 bytes");
}

TEST(BadInputTrace, AlltoallvCountsThatOverflowAreRefused) {
    const std::string counts = scratch_dir("a2av") + "/counts.csv";
    std::string text;
    for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 8; ++j) text += (j ? "," : "") + std::string("4611686018427387904");
        text += "\n";
    }
    write_text(counts, text);
    expect_bad_input(
        run_cli("figures collectives --platform supernode8_ring --op alltoallv --counts " + counts),
        counts + ":1: the counts add up to more than 2^60 bytes");
}

// The PyTorch fixture with `edit` applied to its JSON, written to a scratch file.
std::string edited_et(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    std::ifstream in(std::string(ASIM_SOURCE_DIR) +
                     "/traces/fixtures/pytorch_et_small_transformer.json");
    nlohmann::json et = nlohmann::json::parse(in);
    edit(et);
    const std::string path = scratch_dir(name) + "/et.json";
    write_text(path, et.dump());
    return path;
}

TEST(BadInputTrace, NegativeShapesInAnExecutionTrace) {
    int edited = 0;
    const std::string et = edited_et("et-negative", [&](nlohmann::json& doc) {
        for (auto& n : doc["nodes"]) {
            const std::string name = n["name"];
            if ((name == "aten::mm" || name == "aten::addmm" || name == "aten::linear" ||
                 name == "aten::bmm") &&
                n["input_shapes"].is_array() && !n["input_shapes"].empty() &&
                !n["input_shapes"][0].empty()) {
                n["input_shapes"][0][0] = -5;
                ++edited;
            }
        }
    });
    ASSERT_GT(edited, 0);
    const std::string out = scratch_path("bad-input", "et-negative.jsonl");
    expect_bad_input(run_cli("trace import --from pytorch-et " + et + " --out " + out),
                     "negative dimension -5");
    EXPECT_FALSE(fs::exists(out));
}

TEST(BadInputTrace, WrongTypesInAnExecutionTraceAreNamed) {
    const std::string et =
        edited_et("et-null", [](nlohmann::json& doc) { doc["nodes"][3]["name"] = nullptr; });
    expect_bad_input(run_cli("trace import --from pytorch-et " + et + " --out " +
                             scratch_path("bad-input", "et-null.jsonl")),
                     "nodes[3]: 'name' must be a string, got null");
}

// ---- Trace sets ------------------------------------------------------------------------------

// A two-die set; `index` overrides the index text, `headers` the dies named in the files.
std::string trace_set(const std::string& name, const std::string& index, int header0 = 0,
                      int header1 = 1, uint64_t bytes0 = 1048576, uint64_t bytes1 = 1048576) {
    const std::string dir = scratch_dir(name);
    write_text(dir + "/index.json", index);
    const int headers[] = {header0, header1};
    const uint64_t bytes[] = {bytes0, bytes1};
    for (int d : {0, 1}) {
        write_text(
            dir + "/die" + std::to_string(d) + ".jsonl",
            std::string(R"({"format":"ascend-sim-trace","version":1,"dies":2,"die":)") +
                std::to_string(headers[d]) + "}\n" +
                R"({"id":0,"op":"collective","name":"ar","kind":"all_reduce","group":[0,1],"bytes":)" +
                std::to_string(bytes[d]) + "}\n");
    }
    return dir;
}

const std::string kIndex =
    R"({"format":"ascend-sim-trace-index","version":1,"dies":2,"files":[{"die":0,"file":"die0.jsonl"},{"die":1,"file":"die1.jsonl"}]})";

CliResult run_set(const std::string& dir) {
    return run_cli("run --platform supernode8_ring --trace " + dir + " --out " +
                   scratch_path("bad-input", "set-out"));
}

TEST(BadInputTraceSet, ConsistentSetRuns) {
    EXPECT_EQ(run_set(trace_set("set-ok", kIndex)).exit_code, 0);
}

TEST(BadInputTraceSet, HeaderNamingAnotherDie) {
    const CliResult r = run_set(trace_set("set-header", kIndex, 0, 0));
    expect_bad_input(r, "die1.jsonl:1: the header says die 0 of 2, but");
}

TEST(BadInputTraceSet, SameFileForTwoDies) {
    const std::string dir = trace_set(
        "set-same",
        R"({"format":"ascend-sim-trace-index","version":1,"dies":2,"files":[{"die":0,"file":"die0.jsonl"},{"die":1,"file":"./die0.jsonl"}]})");
    expect_bad_input(run_set(dir), "is also the file of die 0");
}

TEST(BadInputTraceSet, IndexVersionTwo) {
    std::string index = kIndex;
    index.replace(index.find("\"version\":1"), 11, "\"version\":2");
    expect_bad_input(run_set(trace_set("set-v2", index)), "unsupported index version 2");
}

TEST(BadInputTraceSet, MalformedIndexIsNamedWithoutLibraryText) {
    expect_bad_input(run_set(trace_set("set-bad-json", "{\"format\": ")), "index.json: not JSON");
    expect_bad_input(run_cli("trace stats " + trace_set("stats-bad-json", "{\"format\": ")),
                     "index.json: malformed index");
    std::string index = kIndex;
    index.replace(index.find("\"version\":1"), 11, "\"version\":2");
    expect_bad_input(run_cli("trace stats " + trace_set("stats-v2", index)),
                     "unsupported index version 2");
}

TEST(BadInputTraceSet, MembersDisagreeingOnACollectivesSize) {
    const CliResult r = run_set(trace_set("set-sizes", kIndex, 0, 1, 1048576, 2097152));
    expect_bad_input(r, "members must agree on the size");
    // Found before the run (testbenches/supernode/collective_agreement.h): both members' files
    // and lines are named, and the simulation never started (no simulated time in the output).
    EXPECT_TRUE(has(r, "die1.jsonl:")) << r.output;
    EXPECT_TRUE(has(r, "die0.jsonl:")) << r.output;
    EXPECT_FALSE(has(r, "simulation failed")) << r.output;
}

// A partial set (its index lists die 0 only) whose collective names die 1: it could never
// finish; found before the run instead of as a deadlock.
TEST(BadInputTraceSet, AGroupNamingADieWithoutATraceInTheSet) {
    const std::string dir = trace_set("set-partial", kIndex);
    write_text(
        dir + "/index.json",
        R"({"format":"ascend-sim-trace-index","version":1,"dies":2,"files":[{"die":0,"file":"die0.jsonl"}]})");
    const CliResult r = run_set(dir);
    expect_bad_input(r, "its group names die 1, which has no trace in the set");
    EXPECT_TRUE(has(r, "die0.jsonl:")) << r.output;
}

TEST(BadInputTraceSet, WatchdogDoesNotHideACollectiveDeadlock) {
    const std::string dir = scratch_dir("set-deadlock");
    write_text(dir + "/index.json", kIndex);
    write_text(
        dir + "/die0.jsonl",
        std::string(R"({"format":"ascend-sim-trace","version":1,"dies":2,"die":0})") + "\n" +
            R"({"id":0,"op":"collective","name":"ar","kind":"all_reduce","group":[0,1],"bytes":1048576})" +
            "\n");
    write_text(dir + "/die1.jsonl",
               std::string(R"({"format":"ascend-sim-trace","version":1,"dies":2,"die":1})") + "\n" +
                   R"({"id":0,"op":"softmax","rows":64,"cols":64})" + "\n");
    const CliResult r =
        run_cli("run --platform supernode8_ring --trace " + dir + " --max-sim-time 1s --out " +
                scratch_path("bad-input", "deadlock-out"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "deadlock")) << r.output;
    EXPECT_FALSE(has(r, "watchdog")) << r.output;
    EXPECT_TRUE(has(r, "'ar' on dies [0,1]: reached by [0] only")) << r.output;
}

// ---- Messages --------------------------------------------------------------------------------

TEST(BadInputMessages, SetErrorsBlameTheSetNotThePreset) {
    const CliResult r = run_cli("info --set die.l2.size=1MiB");
    expect_bad_input(
        r,
        "ascend-sim: error: --set die.l2.size=1MiB: die.l2.partitions (platforms/ascend960.yaml:");
}

TEST(BadInputMessages, ParserErrorsCarryThePrefix) {
    expect_bad_input(run_cli("run --bogus"), "--bogus");
    expect_bad_input(run_cli("figures hbm --requests many"), "--requests");
    expect_bad_input(run_cli("trace gen"), "--model");
}

TEST(BadInputMessages, UnknownSubcommandIsNamed) {
    expect_bad_input(run_cli("frobnicate"), "unknown subcommand 'frobnicate' of ascend-sim");
    const CliResult r = run_cli("figures lnks --platform supernode8_ring");
    expect_bad_input(r, "unknown subcommand 'lnks' of ascend-sim figures; did you mean 'links'?");
    expect_bad_input(run_cli("trace genn"),
                     "unknown subcommand 'genn' of ascend-sim trace; did you mean 'gen'?");
}

}  // namespace
