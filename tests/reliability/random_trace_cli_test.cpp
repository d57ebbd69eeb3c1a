// Invariants of whole runs under random traces (issue 18, deliverable 5), through the binary:
// random op graphs (every compute kind, memcpy, random dependencies, tensors in the die's HBM and
// in the memory pool's tiers) on one die with either HBM fidelity, and random trace sets with
// collectives on an 8-die supernode. Every run must succeed, execute every op, and write a
// stats.json in which no number is negative, non-finite or wrapped (tests/reliability/
// stats_invariants.h), with the summary's byte and op counts consistent with the stats.
// Seeds as in random_traffic_test.cpp (ASIM_PROPERTY_SEED_BASE).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/harness/cli_runner.h"
#include "tests/reliability/stats_invariants.h"

namespace asim {
namespace {

using test::run_cli;
namespace fs = std::filesystem;

uint64_t seed_base() {
    const char* s = std::getenv("ASIM_PROPERTY_SEED_BASE");
    return s ? std::strtoull(s, nullptr, 10) : 0;
}

std::string hex(uint64_t v) {
    std::ostringstream s;
    s << "\"0x" << std::hex << v << '"';
    return s.str();
}

// Tensors are carved from a few regions: activations in HBM, weights in HBM or (when `pool`)
// in host DDR, persistent memory or die 1's HBM (windows of traces/FORMAT.md "Memory tiers").
struct Allocator {
    std::mt19937_64& rng;
    bool pool;
    uint64_t next_activation = 0x20000000, next_weight = 0x100000000;
    uint64_t next_pool[3] = {16ULL << 40, 32ULL << 40, (64ULL << 40) + (1ULL << 40)};

    std::string tensor(uint64_t bytes, bool weight) {
        bytes = (bytes + 511) / 512 * 512;
        uint64_t* cursor = weight ? &next_weight : &next_activation;
        if (weight && pool && rng() % 2) cursor = &next_pool[rng() % 3];
        const uint64_t addr = *cursor;
        *cursor += bytes;
        return std::string("{\"addr\":") + hex(addr) + ",\"bytes\":" + std::to_string(bytes) +
               ",\"stream\":\"" + (weight ? "weight" : "activation") + "\"}";
    }
};

// `ops` random ops for `die` of `dies`; collectives (when dies > 1) use `collectives`, the same
// sequence for every die so members agree on kind, group and size.
struct Collective {
    std::string kind;
    uint64_t bytes;
};
std::string random_trace(std::mt19937_64& rng, int ops, bool pool, uint32_t die, uint32_t dies,
                         const std::vector<Collective>& collectives) {
    std::ostringstream t;
    t << R"({"format":"ascend-sim-trace","version":1,"name":"random","dies":)" << dies
      << R"(,"die":)" << die << "}\n";
    Allocator a{rng, pool};
    std::size_t next_collective = 0;
    for (int id = 0; id < ops; ++id) {
        t << "{\"id\":" << id << ",";
        const unsigned kind = rng() % 7;
        auto dim = [&rng] { return 16 * (1 + rng() % 64); };  // 16 .. 1024
        if (dies > 1 && next_collective < collectives.size() && rng() % 4 == 0) {
            const Collective& c = collectives[next_collective++];
            t << R"("op":"collective","kind":")" << c.kind << R"(","group":[)";
            for (uint32_t d = 0; d < dies; ++d) t << (d ? "," : "") << d;
            t << "],\"bytes\":" << c.bytes;
        } else if (kind <= 2) {
            const uint64_t m = dim(), n = dim(), k = dim();
            t << R"("op":"matmul","m":)" << m << ",\"n\":" << n << ",\"k\":" << k << ",\"inputs\":["
              << a.tensor(m * k * 2, false) << "," << a.tensor(k * n * 2, true) << "],\"outputs\":["
              << a.tensor(m * n * 2, false) << "]";
        } else if (kind == 3) {
            const uint64_t e = dim() * dim();
            t << R"("op":"elementwise","func":"add","elements":)" << e << ",\"inputs\":["
              << a.tensor(e * 2, false) << "," << a.tensor(e * 2, false) << "],\"outputs\":["
              << a.tensor(e * 2, false) << "]";
        } else if (kind == 4) {
            const uint64_t r = dim(), c = dim();
            t << R"("op":"norm","func":"rmsnorm","rows":)" << r << ",\"cols\":" << c
              << ",\"inputs\":[" << a.tensor(r * c * 2, false) << "," << a.tensor(c * 2, true)
              << "],\"outputs\":[" << a.tensor(r * c * 2, false) << "]";
        } else if (kind == 5) {
            const uint64_t r = dim(), c = dim();
            t << R"("op":"softmax","rows":)" << r << ",\"cols\":" << c << ",\"inputs\":["
              << a.tensor(r * c * 2, false) << "],\"outputs\":[" << a.tensor(r * c * 2, false)
              << "]";
        } else {
            const uint64_t bytes = 512 * (1 + rng() % 4096);
            t << R"("op":"memcpy","bytes":)" << bytes << ",\"inputs\":["
              << a.tensor(bytes, rng() % 2) << "],\"outputs\":[" << a.tensor(bytes, false) << "]";
        }
        // Up to three dependencies on earlier ops.
        if (id > 0) {
            std::vector<int> deps;
            for (int d = 0, n = static_cast<int>(rng() % 4); d < n; ++d) {
                const int dep = static_cast<int>(rng() % static_cast<uint64_t>(id));
                if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
            }
            std::sort(deps.begin(), deps.end());
            if (!deps.empty()) {
                t << ",\"deps\":[";
                for (std::size_t i = 0; i < deps.size(); ++i) t << (i ? "," : "") << deps[i];
                t << "]";
            }
        }
        t << "}\n";
    }
    return t.str();
}

nlohmann::json run_and_read(const std::string& args, const std::string& out) {
    const auto r = run_cli("run " + args + " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(out + "/stats.json");
    if (!in) return {};
    return nlohmann::json::parse(in);
}

void expect_sane(const nlohmann::json& stats) {
    ASSERT_TRUE(stats.contains("summary"));
    const std::vector<std::string> bad = test::stats_violations(stats);
    EXPECT_TRUE(bad.empty()) << bad.size() << " bad statistics, first: " << bad.front();
}

struct Case {
    std::string name;
    std::string fidelity;  // die.hbm.fidelity
    bool pool;
    int seed;
};

class RandomTraceRun : public ::testing::TestWithParam<Case> {};

TEST_P(RandomTraceRun, EveryOpRunsAndNoStatisticIsNegativeOrWrapped) {
    const Case c = GetParam();
    const uint64_t seed = seed_base() + static_cast<uint64_t>(c.seed);
    SCOPED_TRACE(c.name + ", seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const int ops = c.fidelity == "jedec" ? 12 : 40;
    const std::string trace = test::scratch_path("random_trace", c.name + ".jsonl");
    test::write_text(trace, random_trace(rng, ops, c.pool, 0, 1, {}));
    const std::string out = test::scratch_path("random_trace", c.name + "_out");
    const nlohmann::json s =
        run_and_read("--trace " + trace + " --set die.hbm.fidelity=" + c.fidelity, out);
    expect_sane(s);
    const auto& sum = s["summary"];
    EXPECT_EQ(sum["ops"].get<int>(), ops);
    EXPECT_GT(sum["sim_time_ns"].get<double>(), 0);
    // What the L2 fetched (demand and prefetch) is what the die's HBM and the pool's tiers read
    // (no staging or tiering in the preset, so nothing else reads the pool).
    uint64_t memory_read = sum["hbm_read_bytes"].get<uint64_t>();
    if (sum.contains("tiers"))
        for (const auto& [tier, t] : sum["tiers"].items())
            memory_read += t["read_bytes"].get<uint64_t>();
    EXPECT_EQ(memory_read,
              sum["hbm_demand_bytes"].get<uint64_t>() + sum["hbm_prefetch_bytes"].get<uint64_t>());
    EXPECT_LE(sum["l2_hit_rate"].get<double>(), 1.0);
    EXPECT_LE(sum["cube_utilization"].get<double>(), 1.0);
    if (c.pool) {
        ASSERT_TRUE(sum.contains("tiers")) << sum.dump();
    }
}

std::vector<Case> cases() {
    std::vector<Case> v;
    for (int s = 1; s <= 3; ++s) {
        v.push_back({"flat_seed" + std::to_string(s), "flat", false, s});
        v.push_back({"flat_pool_seed" + std::to_string(s), "flat", true, s});
    }
    v.push_back({"jedec_seed1", "jedec", false, 1});
    v.push_back({"jedec_pool_seed2", "jedec", true, 2});
    return v;
}

INSTANTIATE_TEST_SUITE_P(Traces, RandomTraceRun, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                             return param_info.param.name;
                         });

// A random trace set on supernode8_ring: every die runs its own random ops and the same random
// sequence of collectives over all 8 dies.
TEST(RandomTraceSet, EveryDieFinishesAndNoStatisticIsNegativeOrWrapped) {
    for (int seed = 1; seed <= 2; ++seed) {
        const uint64_t s = seed_base() + static_cast<uint64_t>(seed);
        SCOPED_TRACE("seed " + std::to_string(s));
        std::mt19937_64 rng(s);
        std::vector<Collective> collectives;
        const char* kinds[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                               "broadcast"};
        for (int i = 0; i < 6; ++i)
            collectives.push_back({kinds[rng() % 5], 8 * 4096 * (1 + rng() % 256)});
        const std::string dir = test::scratch_path("random_trace", "set" + std::to_string(seed));
        fs::remove_all(dir);
        fs::create_directories(dir);
        nlohmann::json index = {{"format", "ascend-sim-trace-index"},
                                {"version", 1},
                                {"name", "random"},
                                {"model", "random"},
                                {"phase", "train"},
                                {"dies", 8},
                                {"tokens", 1}};
        nlohmann::json files = nlohmann::json::array();
        for (uint32_t d = 0; d < 8; ++d) {
            std::mt19937_64 die_rng(s * 100 + d);
            test::write_text(dir + "/die" + std::to_string(d) + ".jsonl",
                             random_trace(die_rng, 24, false, d, 8, collectives));
            files.push_back({{"die", d}, {"file", "die" + std::to_string(d) + ".jsonl"}});
        }
        index["files"] = files;
        // Every die draws collectives in the same order but at random points, and stops early
        // when its ops run out: append the ones it did not reach so members agree.
        for (uint32_t d = 0; d < 8; ++d) {
            const std::string path = dir + "/die" + std::to_string(d) + ".jsonl";
            const std::string text = test::read_text(path);
            std::size_t used = 0;
            for (std::size_t p = text.find("\"collective\""); p != std::string::npos;
                 p = text.find("\"collective\"", p + 1))
                ++used;
            std::ofstream app(path, std::ios::app);
            for (std::size_t i = used; i < collectives.size(); ++i) {
                app << "{\"id\":" << 24 + i << R"(,"op":"collective","kind":")"
                    << collectives[i].kind << R"(","group":[0,1,2,3,4,5,6,7],"bytes":)"
                    << collectives[i].bytes << "}\n";
            }
        }
        test::write_text(dir + "/index.json", index.dump());
        const nlohmann::json stats =
            run_and_read("--platform supernode8_ring --trace " + dir + "/index.json",
                         test::scratch_path("random_trace", "set" + std::to_string(seed) + "_out"));
        expect_sane(stats);
        EXPECT_EQ(stats["summary"]["collectives"].get<int>(), 6);
        ASSERT_EQ(stats["summary"]["per_die"].size(), 8u);
        for (const auto& die : stats["summary"]["per_die"]) {
            EXPECT_LE(die["comm_exposed_ns"].get<double>(),
                      die["comm_time_ns"].get<double>() * (1 + 1e-9));
            EXPECT_LE(die["cube_utilization"].get<double>(), 1.0);
        }
    }
}

}  // namespace
}  // namespace asim
