// The config tree: typed access with units, located error messages, strict keys with
// "did you mean", base: inheritance, --set overrides and the effective-config dump.
#include "models/common/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/common/errors.h"

#include "tests/harness/scratch.h"

namespace asim {
namespace {

// The ConfigError message `fn` raises, or "" when it raises none.
template <typename Fn>
std::string error_of(Fn fn) {
    try {
        fn();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

// Serves presets from memory: "name" resolves to the text stored under it, shown as name.yaml.
class MapResolver : public PresetResolver {
public:
    explicit MapResolver(std::map<std::string, std::string> files) : m_files(std::move(files)) {}

    std::pair<std::string, std::string> resolve(const std::string& name,
                                                const std::string& relative_to) const override {
        m_requests.push_back(name + " from " + relative_to);
        auto it = m_files.find(name);
        if (it == m_files.end()) {
            throw ConfigError("cannot open platform '" + name + "': no such preset");
        }
        return {it->second, name + ".yaml"};
    }

    const std::vector<std::string>& requests() const { return m_requests; }

private:
    std::map<std::string, std::string> m_files;
    mutable std::vector<std::string> m_requests;
};

using Files = std::map<std::string, std::string>;

// Range is an aggregate; a function call keeps clang-format from unfolding the lambdas below.
Range between(double min, double max) { return Range{min, max}; }

constexpr const char* kSizeUnits = "a size (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)";

TEST(Config, ReadsEveryTypeAndAcceptsWhenAllKeysRead) {
    Config config = Config::from_string(
        "name: ascend\n"
        "clock: 1.65GHz\n"
        "die:\n"
        "  l2:\n"
        "    size: 64MiB\n"
        "    latency: 1.2ns\n"
        "    ways: 16\n"
        "    hit_ratio: 0.75\n"
        "    inclusive: false\n"
        "    policy: lru\n"
        "  link: 200Gbps\n"
        "  hbm: 1.6TB/s\n"
        "  ids: [3, -1, 7]\n"
        "cores:\n"
        "  - id: 0\n"
        "  - id: 1\n",
        "cfg.yaml");
    ConfigNode root = config.root();
    EXPECT_EQ(root.string("name"), "ascend");
    EXPECT_DOUBLE_EQ(root.frequency_hz("clock"), 1.65e9);
    ConfigNode die = root.child("die");
    EXPECT_EQ(die.path(), "die");
    ConfigNode l2 = die.child("l2");
    EXPECT_EQ(l2.path(), "die.l2");
    EXPECT_EQ(l2.key_path("size"), "die.l2.size");
    EXPECT_EQ(l2.location().str(), "cfg.yaml:5:5");
    EXPECT_EQ(l2.size_bytes("size"), 64u << 20);
    EXPECT_EQ(l2.time_ps("latency"), 1200);
    EXPECT_EQ(l2.integer("ways", between(1, 64)), 16);
    EXPECT_DOUBLE_EQ(l2.real("hit_ratio", between(0, 1)), 0.75);
    EXPECT_FALSE(l2.boolean("inclusive"));
    EXPECT_EQ(l2.choice("policy", {"lru", "fifo"}), "lru");
    EXPECT_DOUBLE_EQ(die.bit_rate("link"), 200e9);
    EXPECT_DOUBLE_EQ(die.byte_rate("hbm"), 1.6e12);
    EXPECT_EQ(die.integer_list("ids", between(-10, 10)), (std::vector<int64_t>{3, -1, 7}));
    std::vector<ConfigNode> cores = root.child_list("cores");
    ASSERT_EQ(cores.size(), 2u);
    EXPECT_EQ(cores[1].path(), "cores[1]");
    EXPECT_EQ(cores[1].integer("id", between(0, 7)), 1);
    EXPECT_EQ(cores[0].integer("id", between(0, 7)), 0);
    EXPECT_EQ(root.keys(), (std::vector<std::string>{"name", "clock", "die", "cores"}));
    EXPECT_NO_THROW(config.check_unused());
}

TEST(Config, DefaultsApplyOnlyWhenAbsent) {
    Config config = Config::from_string("ways: 4\n", "cfg.yaml");
    ConfigNode root = config.root();
    EXPECT_EQ(root.integer("ways", 8, between(1, 64)), 4);
    EXPECT_EQ(root.size_bytes("size", 4096), 4096u);
    EXPECT_EQ(root.time_ps("latency", 5), 5);
    EXPECT_DOUBLE_EQ(root.frequency_hz("clock", 1e9), 1e9);
    EXPECT_DOUBLE_EQ(root.bit_rate("link", 1.0), 1.0);
    EXPECT_DOUBLE_EQ(root.byte_rate("hbm", 2.0), 2.0);
    EXPECT_DOUBLE_EQ(root.real("ratio", 0.5, between(0, 1)), 0.5);
    EXPECT_TRUE(root.boolean("enabled", true));
    EXPECT_EQ(root.string("name", "x"), "x");
    EXPECT_EQ(root.choice("policy", {"lru", "fifo"}, "fifo"), "fifo");
    EXPECT_FALSE(root.optional_child("l3").has_value());
    EXPECT_TRUE(root.child_list("cores").empty());
    EXPECT_FALSE(root.has("other"));
    EXPECT_NO_THROW(config.check_unused());
}

TEST(Config, UnknownKeySuggestsClosestAskedKey) {
    Config config = Config::from_string("l2:\n  ways: 8\n  sise: 64MiB\n", "cfg.yaml");
    ConfigNode l2 = config.root().child("l2");
    EXPECT_EQ(l2.size_bytes("size", 1024), 1024u);  // the misspelt key is not seen...
    EXPECT_EQ(l2.integer("ways", between(1, 16)), 8);
    // ...but it is not silently ignored either.
    EXPECT_EQ(error_of([&] { config.check_unused(); }),
              "cfg.yaml:3:3: l2.sise: unknown key; did you mean 'size'?");
}

TEST(Config, UnknownKeyWithoutCloseMatch) {
    Config config = Config::from_string("size: 1MiB\ncolour: red\n", "cfg.yaml");
    config.root().size_bytes("size");
    EXPECT_EQ(error_of([&] { config.check_unused(); }), "cfg.yaml:2:1: colour: unknown key");
}

TEST(Config, UnreadSubtreeIsUnknownAtItsParent) {
    Config config = Config::from_string("l2:\n  size: 1MiB\nhbm:\n  size: 2MiB\n", "cfg.yaml");
    config.root().child("l2").size_bytes("size");
    // Nothing asked for "hbm" and nothing close to it was asked at the root; its own keys are
    // not reported separately.
    EXPECT_EQ(error_of([&] { config.check_unused(); }), "cfg.yaml:3:1: hbm: unknown key");
}

TEST(Config, UnknownKeyInsideListItem) {
    Config config = Config::from_string("cores:\n  - id: 0\n  - id: 1\n    idd: 2\n", "cfg.yaml");
    for (const ConfigNode& core : config.root().child_list("cores")) {
        core.integer("id", between(0, 7));
    }
    EXPECT_EQ(error_of([&] { config.check_unused(); }),
              "cfg.yaml:4:5: cores[1].idd: unknown key; did you mean 'id'?");
}

TEST(Config, HasMarksKeysAskedAndUsed) {
    Config config = Config::from_string("trace: on\nfrequncy: 1GHz\n", "cfg.yaml");
    ConfigNode root = config.root();
    EXPECT_TRUE(root.has("trace"));
    EXPECT_FALSE(root.has("frequency"));
    EXPECT_EQ(error_of([&] { config.check_unused(); }),
              "cfg.yaml:2:1: frequncy: unknown key; did you mean 'frequency'?");
}

TEST(Config, WrongUnitKindNamesFileLineColumnAndPath) {
    Config config = Config::from_string("die:\n  l2:\n    size: 1.65GHz\n", "ascend.yaml");
    ConfigNode l2 = config.root().child("die").child("l2");
    EXPECT_EQ(error_of([&] { l2.size_bytes("size"); }),
              std::string("ascend.yaml:3:11: die.l2.size: expected ") + kSizeUnits +
                  ", got '1.65GHz', which is a frequency");
    EXPECT_EQ(error_of([&] { l2.size_bytes("size", 5); }),
              std::string("ascend.yaml:3:11: die.l2.size: expected ") + kSizeUnits +
                  ", got '1.65GHz', which is a frequency");
}

TEST(Config, MissingUnitNamesExpectedKind) {
    Config config = Config::from_string("clock: 1650\n", "cfg.yaml");
    EXPECT_EQ(error_of([&] { config.root().frequency_hz("clock"); }),
              "cfg.yaml:1:8: clock: '1650' has no unit; expected a frequency (Hz, kHz, MHz, GHz), "
              "e.g. 1650GHz");
}

TEST(Config, MissingRequiredKeyIsLocatedAtItsMap) {
    Config config = Config::from_string("name: x\ndie:\n  l2:\n    ways: 8\n", "cfg.yaml");
    ConfigNode root = config.root();
    EXPECT_EQ(error_of([&] { root.frequency_hz("clock"); }),
              "cfg.yaml:1:1: clock: missing required key");
    EXPECT_EQ(error_of([&] { root.child("die").child("l2").size_bytes("size"); }),
              "cfg.yaml:4:5: die.l2.size: missing required key");
    EXPECT_EQ(error_of([&] { root.child("die").child("l3"); }),
              "cfg.yaml:3:3: die.l3: missing required key");
    EXPECT_EQ(error_of([&] { root.integer_list("ids", between(0, 1)); }),
              "cfg.yaml:1:1: ids: missing required key");
}

TEST(Config, BadValues) {
    Config config = Config::from_string(
        "size: 0B\n"
        "clock: 0GHz\n"
        "latency: -1ns\n"
        "ways: 100\n"
        "half: 1.5\n"
        "word: abc\n"
        "huge: 99999999999999999999\n"
        "flag: yes\n"
        "policy: fifi\n"
        "ratio: 1.5\n"
        "link: 0bps\n"
        "hbm: 0GB/s\n"
        "ids: [1, x]\n"
        "map: {a: 1}\n"
        "list: [1]\n"
        "empty:\n"
        "mode: LRU\n",
        "bad.yaml");
    ConfigNode root = config.root();
    EXPECT_EQ(error_of([&] { root.size_bytes("size"); }),
              "bad.yaml:1:7: size: must be greater than zero, got '0B'");
    EXPECT_EQ(error_of([&] { root.frequency_hz("clock"); }),
              "bad.yaml:2:8: clock: must be greater than zero, got '0GHz'");
    EXPECT_EQ(error_of([&] { root.bit_rate("link"); }),
              "bad.yaml:11:7: link: must be greater than zero, got '0bps'");
    EXPECT_EQ(error_of([&] { root.byte_rate("hbm"); }),
              "bad.yaml:12:6: hbm: must be greater than zero, got '0GB/s'");
    EXPECT_EQ(error_of([&] { root.time_ps("latency"); }),
              "bad.yaml:3:10: latency: '-1ns' is negative; expected a time (ps, ns, us, ms, s) "
              "of zero or more");
    EXPECT_EQ(error_of([&] { root.integer("ways", between(1, 64)); }),
              "bad.yaml:4:7: ways: '100' is out of range [1, 64]");
    EXPECT_EQ(error_of([&] { root.integer("half", between(1, 64)); }),
              "bad.yaml:5:7: half: expected an integer, got '1.5'");
    EXPECT_EQ(error_of([&] { root.integer("word", 3, between(1, 64)); }),
              "bad.yaml:6:7: word: expected an integer, got 'abc'");
    EXPECT_EQ(error_of([&] { root.integer("huge", between(0, 1e30)); }),
              "bad.yaml:7:7: huge: '99999999999999999999' is out of range [0, 1e+30]");
    EXPECT_EQ(error_of([&] { root.boolean("flag"); }),
              "bad.yaml:8:7: flag: expected true or false, got 'yes'");
    EXPECT_EQ(error_of([&] {
                  root.choice("policy", {"lru", "fifo", "random"});
              }),
              "bad.yaml:9:9: policy: expected one of 'lru', 'fifo', 'random', got 'fifi'; "
              "did you mean 'fifo'?");
    EXPECT_EQ(error_of([&] {
                  root.choice("policy", {"lru", "random"}, "lru");
              }),
              "bad.yaml:9:9: policy: expected one of 'lru', 'random', got 'fifi'");
    EXPECT_EQ(error_of([&] {
                  root.choice("mode", {"fifo", "lru"});
              }),
              "bad.yaml:17:7: mode: expected one of 'fifo', 'lru', got 'LRU'; "
              "did you mean 'lru'?");
    EXPECT_EQ(error_of([&] {
                  root.choice("word", {"lru", "fifo"});
              }),
              "bad.yaml:6:7: word: expected one of 'lru', 'fifo', got 'abc'");
    EXPECT_EQ(error_of([&] { root.real("ratio", between(0, 1)); }),
              "bad.yaml:10:8: ratio: '1.5' is out of range [0, 1]");
    EXPECT_EQ(error_of([&] { root.real("word", between(0, 1)); }),
              "bad.yaml:6:7: word: expected a number, got 'abc'");
    EXPECT_EQ(error_of([&] { root.integer_list("ids", between(0, 9)); }),
              "bad.yaml:13:10: ids[1]: expected an integer, got 'x'");
    EXPECT_EQ(error_of([&] { root.integer_list("ways", between(0, 9)); }),
              "bad.yaml:4:7: ways: expected a list of integers, got a scalar");
    EXPECT_EQ(error_of([&] { root.size_bytes("map"); }),
              std::string("bad.yaml:14:6: map: expected ") + kSizeUnits + ", got a map");
    EXPECT_EQ(error_of([&] { root.string("list"); }),
              "bad.yaml:15:7: list: expected a string, got a list");
    EXPECT_EQ(error_of([&] { root.string("empty"); }),
              "bad.yaml:16:1: empty: expected a string, got an empty value");
    EXPECT_EQ(error_of([&] { root.child("ways"); }),
              "bad.yaml:4:7: ways: expected a map of keys, got a scalar");
    EXPECT_EQ(error_of([&] { root.child_list("map"); }),
              "bad.yaml:14:6: map: expected a list of maps, got a map");
    EXPECT_EQ(error_of([&] { root.child_list("ids"); }),
              "bad.yaml:13:7: ids[0]: expected a map of keys, got a scalar");
}

TEST(Config, FailIsLocatedAtKeyOrMap) {
    Config config = Config::from_string("l2:\n  ways: 3\n", "cfg.yaml");
    ConfigNode l2 = config.root().child("l2");
    EXPECT_EQ(error_of([&] { l2.fail("ways", "must be a power of two"); }),
              "cfg.yaml:2:9: l2.ways: must be a power of two");
    EXPECT_EQ(error_of([&] { l2.fail("sets", "needs ways"); }),
              "cfg.yaml:2:3: l2.sets: needs ways");
}

TEST(Config, MalformedYamlNamesLine) {
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\n b: 2\n", "bad.yaml"); }),
              "bad.yaml:2:3: malformed YAML: illegal map value");
    std::string unclosed = error_of([] { Config::from_string("a: [1, 2\nb: 3\n", "bad.yaml"); });
    EXPECT_EQ(unclosed.rfind("bad.yaml:", 0), 0u) << unclosed;
    EXPECT_NE(unclosed.find("malformed YAML: end of sequence flow not found"), std::string::npos)
        << unclosed;
}

TEST(Config, StructuralErrors) {
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\na: 2\n", "dup.yaml"); }),
              "dup.yaml:2:1: a: duplicate key (first written at dup.yaml:1:1)");
    EXPECT_EQ(error_of([] { Config::from_string("- 1\n- 2\n", "list.yaml"); }),
              "list.yaml:1:1: the top level must be a map of keys, got a list");
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\n---\nb: 2\n", "two.yaml"); }),
              "two.yaml:3:1: a config file holds one YAML document, found 2");
    // yaml-cpp 0.7's LoadAll() looped forever on these, allocating until memory ran out (found by
    // fuzzing, jbeder/yaml-cpp#1040).
    EXPECT_EQ(error_of([] { Config::from_string(",", "comma.yaml"); }),
              "comma.yaml:1:1: malformed YAML: unexpected text where a document should start");
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\n---\n,\n", "late.yaml"); }),
              "late.yaml:3:1: malformed YAML: unexpected text where a document should start");
    // Config text is UTF-8: yaml-cpp writes each invalid byte as U+FFFD, so the effective
    // config.yaml did not load again (found by fuzzing).
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\nb\xff: 2\n", "bytes.yaml"); }),
              "bytes.yaml:2:2: not UTF-8 text (byte 0xFF)");
    EXPECT_EQ(error_of([] { Config::from_string("\xc3\x28: 1\n", "bytes.yaml"); }),
              "bytes.yaml:1:1: not UTF-8 text (byte 0xC3)");
    EXPECT_EQ(error_of([] { Config::from_string(std::string("a: 1\nb: x\0y\n", 11), "nul.yaml"); }),
              "nul.yaml:2:5: a control character (byte 0x00)");
    EXPECT_EQ(error_of([] {
                  Config c = Config::from_string("", "empty.yaml");
                  c.apply_override(std::string("k=\0\0\x04{kind: ring}", 16));
              }).rfind("--set k=", 0),
              0u);
    // A map under `base` made an effective config that names no preset (found by fuzzing).
    EXPECT_EQ(error_of([] {
                  Config c = Config::from_string("", "empty.yaml");
                  c.apply_override("base.x=1");
              }),
              "--set base.x=1: 'base' selects a preset file and cannot be overridden; choose the "
              "platform instead");
    EXPECT_NO_THROW(
        Config::from_string("name: \"Ascend \xe2\x80\x94 \xf0\x9f\x9a\x80\"\n", "ok.yaml"));
    EXPECT_EQ(error_of([] {
                  Config c = Config::from_string("", "empty.yaml");
                  c.apply_override("die.\xed\xa0\x80=1");
              }),
              "--set die.\xed\xa0\x80=1: not UTF-8 text (byte 0xED)");
    Config empty = Config::from_string("# nothing\n", "empty.yaml");
    EXPECT_TRUE(empty.root().keys().empty());
    EXPECT_NO_THROW(empty.check_unused());
}

TEST(Config, BaseInheritsAndOverrides) {
    MapResolver resolver(Files{
        {"common", "clock: 1GHz\nl2:\n  size: 1MiB\n  ways: 8\nids: [1, 2, 3]\n"},
        {"mid", "base: common\nl2:\n  ways: 16\n"},
    });
    Config config = Config::from_string("base: mid\nl2:\n  size: 2MiB\nids: [4]\nextra: true\n",
                                        "top.yaml", &resolver);
    ConfigNode root = config.root();
    EXPECT_EQ(root.keys(), (std::vector<std::string>{"clock", "l2", "ids", "extra"}));
    EXPECT_DOUBLE_EQ(root.frequency_hz("clock"), 1e9);                // from common
    EXPECT_EQ(root.child("l2").size_bytes("size"), 2u << 20);         // top overrides common
    EXPECT_EQ(root.child("l2").integer("ways", between(1, 64)), 16);  // mid overrides common
    EXPECT_EQ(root.integer_list("ids", between(0, 9)), (std::vector<int64_t>{4}));  // replaced
    EXPECT_TRUE(root.boolean("extra"));
    EXPECT_FALSE(root.has("base"));
    EXPECT_NO_THROW(config.check_unused());
    EXPECT_EQ(resolver.requests(),
              (std::vector<std::string>{"mid from top.yaml", "common from mid.yaml"}));
}

TEST(Config, InheritedValueErrorsNameTheBaseFile) {
    MapResolver resolver(Files{{"common", "l2:\n  size: 1MiB\n  ways: 1GHz\n"}});
    Config config = Config::from_string("base: common\nl2:\n  size: 2MiB\n", "top.yaml", &resolver);
    EXPECT_EQ(error_of([&] { config.root().child("l2").integer("ways", between(1, 64)); }),
              "common.yaml:3:9: l2.ways: expected an integer, got '1GHz'");
}

TEST(Config, BaseErrors) {
    MapResolver resolver(
        Files{{"a", "base: b\nx: 1\n"}, {"b", "base: a\n"}, {"self", "base: self\n"}});
    EXPECT_EQ(error_of([&] { Config::load("a", resolver); }),
              "b.yaml:1:7: base: base cycle: a.yaml -> b.yaml -> a.yaml");
    EXPECT_EQ(error_of([&] { Config::load("self", resolver); }),
              "self.yaml:1:7: base: base cycle: self.yaml -> self.yaml");
    EXPECT_EQ(error_of([&] { Config::from_string("base: nope\n", "t.yaml", &resolver); }),
              "t.yaml:1:7: base: cannot open platform 'nope': no such preset");
    EXPECT_EQ(error_of([] { Config::from_string("base: x\n", "t.yaml"); }),
              "t.yaml:1:7: base: cannot load 'x': this config was given as text, with no preset "
              "resolver to look names up");
    EXPECT_EQ(error_of([&] { Config::from_string("base: [a]\n", "t.yaml", &resolver); }),
              "t.yaml:1:7: base: expected the name of a preset or file, got a list");
    EXPECT_EQ(error_of([&] { Config::load("missing", resolver); }),
              "cannot open platform 'missing': no such preset");
}

TEST(Config, FilePresetResolverFindsFilesRelativeToIncluder) {
    namespace fs = std::filesystem;
    const fs::path dir = asim::test::scratch_path("config", "resolver");
    fs::create_directories(dir / "platforms");
    std::ofstream(dir / "platforms" / "common.yaml") << "clock: 1GHz\nways: 4\n";
    std::ofstream(dir / "platforms" / "chip.yaml") << "base: common.yaml\nways: 8\n";
    FilePresetResolver resolver;
    std::string chip = (dir / "platforms" / "chip.yaml").string();
    Config config = Config::load(chip, resolver);
    EXPECT_DOUBLE_EQ(config.root().frequency_hz("clock"), 1e9);
    EXPECT_EQ(config.root().integer("ways", between(1, 64)), 8);
    EXPECT_EQ(config.root().location().str(), chip + ":1:1");

    std::string missing = error_of([&] { Config::load("no_such_platform.yaml", resolver); });
    EXPECT_EQ(missing,
              "cannot open platform 'no_such_platform.yaml': no such file (tried "
              "'no_such_platform.yaml')");
    std::string relative =
        error_of([&] { resolver.resolve("other.yaml", (dir / "platforms" / "x.yaml").string()); });
    EXPECT_NE(relative.find("(tried '" + (dir / "platforms" / "other.yaml").string() +
                            "', 'other.yaml')"),
              std::string::npos)
        << relative;
    fs::remove_all(dir);
}

TEST(Config, OverrideWinsAndIsNamedInErrors) {
    Config config = Config::from_string("l2:\n  size: 1MiB\n  ways: 8\n", "cfg.yaml");
    config.apply_override("l2.size=4MiB");
    config.apply_override("l3.size = 8MiB");  // creates l3
    config.apply_override("ids=[1, 2]");
    ConfigNode root = config.root();
    EXPECT_EQ(root.child("l2").size_bytes("size"), 4u << 20);
    EXPECT_EQ(root.child("l2").integer("ways", between(1, 64)), 8);
    EXPECT_EQ(root.child("l3").size_bytes("size"), 8u << 20);
    EXPECT_EQ(root.integer_list("ids", between(0, 9)), (std::vector<int64_t>{1, 2}));
    EXPECT_NO_THROW(config.check_unused());

    config.apply_override("l2.size=1GHz");
    EXPECT_EQ(error_of([&] { config.root().child("l2").size_bytes("size"); }),
              std::string("--set l2.size=1GHz: l2.size: expected ") + kSizeUnits +
                  ", got '1GHz', which is a frequency");
}

TEST(Config, OverrideFlowMapMergesIntoMap) {
    Config config = Config::from_string("l2:\n  size: 1MiB\n  ways: 8\n", "cfg.yaml");
    config.apply_override("l2={ways: 4}");
    ConfigNode l2 = config.root().child("l2");
    EXPECT_EQ(l2.size_bytes("size"), 1u << 20);
    EXPECT_EQ(l2.integer("ways", between(1, 64)), 4);
}

TEST(Config, OverrideSyntaxErrors) {
    Config config = Config::from_string("l2:\n  size: 1MiB\nways: 8\n", "cfg.yaml");
    EXPECT_EQ(error_of([&] { config.apply_override("l2.size"); }),
              "--set l2.size: expected key=value, e.g. die.l2.size=64MiB");
    EXPECT_EQ(error_of([&] { config.apply_override("=4MiB"); }),
              "--set =4MiB: the key before '=' is empty");
    EXPECT_EQ(error_of([&] { config.apply_override("l2.size="); }),
              "--set l2.size=: the value after '=' is empty");
    EXPECT_EQ(error_of([&] { config.apply_override("l2..size=1MiB"); }),
              "--set l2..size=1MiB: empty segment in key 'l2..size'");
    EXPECT_EQ(error_of([&] { config.apply_override("l2=5"); }),
              "--set l2=5: l2 is a map (cfg.yaml:2:3); set its keys one by one, e.g. --set "
              "l2.<key>=...");
    EXPECT_EQ(error_of([&] { config.apply_override("ways.x=5"); }),
              "--set ways.x=5: ways is a scalar (cfg.yaml:3:7), not a map");
    EXPECT_EQ(error_of([&] {
                  config.apply_override("ids=[1, 2");
              }).rfind("--set ids=[1, 2: malformed YAML value: ", 0),
              0u);
    EXPECT_EQ(error_of([&] { config.apply_override("base=other"); }),
              "--set base=other: 'base' selects a preset file and cannot be overridden; choose "
              "the platform instead");
}

TEST(Config, MisspeltOverrideIsUnknown) {
    Config config = Config::from_string("l2:\n  size: 1MiB\n", "cfg.yaml");
    config.apply_override("l2.sise=2MiB");
    config.root().child("l2").size_bytes("size");
    EXPECT_EQ(error_of([&] { config.check_unused(); }),
              "--set l2.sise=2MiB: l2.sise: unknown key; did you mean 'size'?");
}

TEST(Config, ToYamlRoundTrips) {
    MapResolver resolver(Files{{"common", "clock: 1.65GHz\nl2:\n  size: 64MiB\n  ways: 8\n"}});
    Config config = Config::from_string(
        "base: common\nname: \"007\"\nl2:\n  ways: 16\ncores:\n  - id: 0\n  - id: 1\n"
        "ids: [1, 2]\n",
        "top.yaml", &resolver);
    config.apply_override("l2.latency=1.2ns");
    std::string text = config.to_yaml();
    EXPECT_EQ(text.find("base"), std::string::npos) << text;
    EXPECT_NE(text.find("size: 64MiB"), std::string::npos) << text;    // written as given
    EXPECT_NE(text.find("name: \"007\""), std::string::npos) << text;  // stays a string
    EXPECT_LT(text.find("clock"), text.find("l2"));  // base order kept, new keys after
    EXPECT_LT(text.find("l2"), text.find("name"));

    Config again = Config::from_string(text, "effective.yaml");
    ConfigNode root = again.root();
    EXPECT_DOUBLE_EQ(root.frequency_hz("clock"), 1.65e9);
    EXPECT_EQ(root.string("name"), "007");
    ConfigNode l2 = root.child("l2");
    EXPECT_EQ(l2.size_bytes("size"), 64u << 20);
    EXPECT_EQ(l2.integer("ways", between(1, 64)), 16);
    EXPECT_EQ(l2.time_ps("latency"), 1200);
    std::vector<ConfigNode> cores = root.child_list("cores");
    ASSERT_EQ(cores.size(), 2u);
    EXPECT_EQ(cores[1].integer("id", between(0, 9)), 1);
    cores[0].integer("id", between(0, 9));
    EXPECT_EQ(root.integer_list("ids", between(0, 9)), (std::vector<int64_t>{1, 2}));
    EXPECT_NO_THROW(again.check_unused());
    EXPECT_EQ(again.to_yaml(), text);
}

TEST(Config, SourceLocationFormat) {
    EXPECT_EQ((SourceLocation{"a.yaml", 3, 7}).str(), "a.yaml:3:7");
    EXPECT_EQ((SourceLocation{"a.yaml", 3, 0}).str(), "a.yaml:3");
    EXPECT_EQ((SourceLocation{"--set x=1", 0, 0}).str(), "--set x=1");
}

TEST(Config, EditDistanceAndClosestMatch) {
    EXPECT_EQ(edit_distance("", ""), 0u);
    EXPECT_EQ(edit_distance("size", "sise"), 1u);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(edit_distance("abc", ""), 3u);
    EXPECT_EQ(edit_distance("Size", "size"), 1u);                // case-sensitive itself
    EXPECT_EQ(closest_match("Size", {"ways", "size"}), "size");  // matching is not
    EXPECT_EQ(closest_match("sise", {"ways", "size"}), "size");
    EXPECT_EQ(closest_match("bw", {"id"}), "");
    EXPECT_EQ(closest_match("x", {"y"}), "y");  // a one-letter slip is still allowed
    EXPECT_EQ(closest_match("latncy_cycles", {"latency_cycles", "latency"}), "latency_cycles");
    EXPECT_EQ(closest_match("cat", {"bat", "cot"}), "bat");  // ties go to the first
    EXPECT_EQ(closest_match("frequency", {}), "");
}

}  // namespace
}  // namespace asim
