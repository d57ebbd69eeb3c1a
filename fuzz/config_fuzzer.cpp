// Fuzzes the configuration loader: a platform YAML (with `base:` resolved against two built-in
// presets) followed, after a line "%%", by one `--set` assignment per line. Every key is then read
// through each typed accessor (units, ranges, choices, lists), unknown keys are checked, and the
// effective configuration is written and must load again (a run's config.yaml repeats the run).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "models/common/config.h"

namespace {

using asim::ConfigNode;
using asim::fuzz::expect_only_input_errors;

const asim::EmbeddedPresetResolver& resolver() {
    static const asim::EmbeddedPresetResolver r(
        "platform",
        {{"tiny", "platforms/tiny.yaml",
          "die:\n  clock: 1.5GHz\n  ai_cores: 4\n  l2:\n    size: 32MiB\n    ways: 16\n"},
         {"derived", "platforms/derived.yaml", "base: tiny\ndie:\n  ai_cores: 8\n"}});
    return r;
}

void read_every_key(const ConfigNode& node, int depth) {
    if (depth > 64) return;  // yaml-cpp stops at 500 levels; 64 is plenty for coverage
    for (const std::string& key : node.keys()) {
        expect_only_input_errors([&] { read_every_key(node.child(key), depth + 1); });
        expect_only_input_errors([&] {
            for (const ConfigNode& item : node.child_list(key)) read_every_key(item, depth + 1);
        });
        const asim::Range any{-1e300, 1e300};
        expect_only_input_errors([&] { node.size_bytes(key); });
        expect_only_input_errors([&] { node.size_bytes_or_zero(key, 0); });
        expect_only_input_errors([&] { node.time_ps(key); });
        expect_only_input_errors([&] { node.frequency_hz(key); });
        expect_only_input_errors([&] { node.bit_rate(key); });
        expect_only_input_errors([&] { node.byte_rate(key); });
        expect_only_input_errors([&] { node.integer(key, any); });
        expect_only_input_errors([&] { node.integer(key, {0, 1024}); });
        expect_only_input_errors([&] { node.real(key, any); });
        expect_only_input_errors([&] { node.boolean(key); });
        expect_only_input_errors([&] { node.string(key); });
        expect_only_input_errors([&] { node.choice(key, {"ring", "mesh", "torus"}); });
        expect_only_input_errors([&] { node.integer_list(key, any); });
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(asim::fuzz::as_text(data, size));
    std::string yaml = text;
    std::vector<std::string> overrides;
    const std::size_t split = text.find("\n%%\n");
    if (split != std::string::npos) {
        yaml = text.substr(0, split + 1);
        std::size_t start = split + 4;
        while (start <= text.size()) {
            std::size_t end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            overrides.push_back(text.substr(start, end - start));
            start = end + 1;
        }
    }
    expect_only_input_errors([&] {
        asim::Config config = asim::Config::from_string(yaml, "fuzz.yaml", &resolver());
        for (const std::string& o : overrides) {
            expect_only_input_errors([&] { config.apply_override(o); });
        }
        expect_only_input_errors([&] { config.check_unused(); });
        read_every_key(config.root(), 0);
        expect_only_input_errors([&] { config.check_unused(); });
        const std::string effective = config.to_yaml();
        try {
            asim::Config::from_string(effective, "config.yaml");
        } catch (const asim::InputError& e) {
            throw std::logic_error(std::string("the effective config does not load again: ") +
                                   e.what() + "\n" + effective);
        }
    });
    return 0;
}
