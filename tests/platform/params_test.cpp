// Self-describing parameters (issue 14): every declared default reads and lies in its range,
// `ascend-sim params` lists every key of a platform with its value, every key a preset writes is
// declared, and a platform's bad values are named all at once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/params.h"
#include "models/common/registry.h"
#include "platforms/platform.h"
#include "tests/harness/cli_runner.h"

namespace asim {
namespace {

TEST(Params, EveryDeclaredDefaultReadsAndLiesInItsRange) {
    const auto rows = param_rows();
    ASSERT_GT(rows.size(), 100u);
    for (const ParamRow& row : rows) {
        const Param& p = *row.param;
        EXPECT_FALSE(p.description().empty()) << row.key;
        if (!p.default_text()) continue;
        ParamValue v;
        ASSERT_NO_THROW(v = default_value(p)) << row.key << " = " << *p.default_text();
        if (p.type() == ParamType::kChoice) {
            const auto choices = p.choices();
            EXPECT_NE(std::find(choices.begin(), choices.end(), *p.default_text()), choices.end())
                << row.key;
        }
        if (!p.value_range()) continue;
        const double x = std::holds_alternative<int64_t>(v)
                             ? static_cast<double>(std::get<int64_t>(v))
                         : std::holds_alternative<double>(v) ? std::get<double>(v)
                                                             : p.value_range()->min;
        EXPECT_GE(x, p.value_range()->min) << row.key;
        EXPECT_LE(x, p.value_range()->max) << row.key;
    }
}

// Every leaf of a preset's effective configuration matches a declared key ("<name>" matches any
// one segment), so `params` lists everything a preset can set.
TEST(Params, EveryKeyEveryPresetWritesIsDeclared) {
    std::vector<std::vector<std::string>> declared;
    for (const ParamRow& row : param_rows()) {
        std::vector<std::string> parts;
        std::string part;
        for (char c : row.key + ".") {
            if (c == '.') {
                parts.push_back(part);
                part.clear();
            } else {
                part += c;
            }
        }
        declared.push_back(parts);
    }
    auto is_declared = [&](const std::vector<std::string>& path) {
        for (const auto& d : declared) {
            if (d.size() != path.size()) continue;
            bool match = true;
            for (std::size_t i = 0; i < d.size() && match; ++i) {
                const std::string& seg = d[i];
                const bool wildcard = !seg.empty() && seg.front() == '<';
                match = wildcard || seg == path[i];
            }
            if (match) return true;
        }
        return false;
    };
    for (const auto& preset : builtin_presets()) {
        const Platform platform = load_platform(preset.name, {});
        for (const std::string& key : platform.config.leaf_paths()) {
            if (key == "name" || key == "description" || key == "base") continue;
            std::vector<std::string> path;
            std::string part;
            for (char c : key + ".") {
                if (c == '.') {
                    path.push_back(part);
                    part.clear();
                } else {
                    part += c;
                }
            }
            EXPECT_TRUE(is_declared(path)) << preset.name << ": " << key << " is not declared";
        }
    }
}

// The effective configuration written as config.yaml carries every declared key of the maps a
// preset has, defaults written in, and loads back to a platform whose effective configuration
// is the same text.
TEST(Params, EffectiveConfigurationWritesDefaultsInAndLoadsBack) {
    const std::string dir = test::scratch_path("params", "effective");
    std::filesystem::create_directories(dir);
    for (const auto& preset : builtin_presets()) {
        const Platform platform = load_platform(preset.name, {});
        const std::string yaml = effective_yaml(platform.config);
        const std::string file = dir + "/" + preset.name + ".yaml";
        std::ofstream(file) << yaml;
        ASSERT_NO_THROW(load_platform(file, {})) << preset.name << ":\n" << yaml;
        const Platform again = load_platform(file, {});
        EXPECT_EQ(effective_yaml(again.config), yaml) << preset.name;
        // Nothing written is lost.
        for (const std::string& key : platform.config.leaf_paths()) {
            if (key.find("[]") != std::string::npos) continue;
            EXPECT_EQ(again.config.value_text(key), platform.config.value_text(key)) << key;
        }
    }
    const Platform ascend = load_platform("ascend960", {});
    EXPECT_FALSE(ascend.config.value_text("die.l2.write_back_entries").has_value());
    const Platform written = load_platform(dir + "/ascend960.yaml", {});
    EXPECT_EQ(written.config.value_text("die.l2.write_back_entries"), "512");  // its default
    // The chosen implementation's own keys are written too.
    EXPECT_EQ(written.config.value_text("die.hbm.controller.row_hit_cap"), "4");
}

TEST(Params, JsonListsEveryKeyWithTypeUnitDefaultValueChoicesAndDescription) {
    const auto r = test::run_cli("params --platform supernode8_ring --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = nlohmann::json::parse(r.output);
    ASSERT_TRUE(rows.is_array());
    std::map<std::string, nlohmann::json> by_key;
    for (const auto& row : rows) {
        for (const char* field :
             {"key", "type", "unit", "default", "value", "choices", "description"}) {
            ASSERT_TRUE(row.contains(field)) << row.dump();
        }
        // Implementations may declare the same key (frfcfs and frfcfs_oldest: row_hit_cap):
        // keep the row of the one the platform chose, which has a value.
        auto& kept = by_key[row["key"].get<std::string>()];
        if (kept.is_null() || !row["value"].is_null()) kept = row;
    }
    EXPECT_EQ(by_key.at("die.l2.size")["value"], "64MiB");
    EXPECT_EQ(by_key.at("die.l2.size")["unit"], "B");
    EXPECT_EQ(by_key.at("die.hbm.controller.scheduler")["choices"],
              nlohmann::json({"fcfs", "frfcfs", "frfcfs_oldest"}));
    // An implementation's own key: its default is the value when the platform does not write it.
    EXPECT_EQ(by_key.at("die.hbm.controller.row_hit_cap")["implementation"], "frfcfs");
    EXPECT_EQ(by_key.at("die.hbm.controller.row_hit_cap")["value"], "4");
    EXPECT_EQ(by_key.at("die.hjsd.impl")["choices"], nlohmann::json({"rtl", "tlm"}));
    EXPECT_EQ(by_key.at("network.node.link.lane_rate")["value"], "200Gbps");
}

TEST(Params, BadValuesOfAPlatformAreNamedAllAtOnce) {
    try {
        load_platform(kDefaultPlatform,
                      {"die.l2.ways=0", "die.hjsd.queue_depth=0",
                       "die.hbm.controller.scheduler=fcfx", "die.hbm.timing.CL=1GHz"});
        FAIL() << "accepted";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("4 problems"), std::string::npos) << what;
        for (const char* set :
             {"--set die.l2.ways=0", "--set die.hjsd.queue_depth=0",
              "--set die.hbm.controller.scheduler=fcfx", "--set die.hbm.timing.CL=1GHz"}) {
            EXPECT_NE(what.find(set), std::string::npos) << set << "\n" << what;
        }
        EXPECT_NE(what.find("registered: fcfs, frfcfs"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace asim
