// Invariants of the flow network under random traffic (issue 18, deliverable 5): on every kind of
// topology, random transfers between random dies at random times, with links going down while
// they run (where the graph has another way round, or a standby star). Checked:
//   - every transfer is delivered exactly once, after it started (strictly after, when it crosses
//     a link), and nothing is pending at the end;
//   - bytes are conserved at every vertex: what enters a die or switch on its links plus what it
//     sends equals what leaves it on its links plus what it receives (link_bytes(), so multi-path
//     splits, bundled planes and rerouted remainders all count);
//   - a down link carries nothing after it went down (its bytes do not grow after that time).
// Seeds as in random_traffic_test.cpp (ASIM_PROPERTY_SEED_BASE).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "models/interconnect/network/flow_network.h"
#include "models/interconnect/topology/topology.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

constexpr int kSeeds = 4;

uint64_t seed_base() {
    const char* s = std::getenv("ASIM_PROPERTY_SEED_BASE");
    return s ? std::strtoull(s, nullptr, 10) : 0;
}

// The star through the host forwards at PCIe-like rates with the seed's software latency.
TopologyParams node_of(const std::string& kind, uint32_t dies_per_node, uint32_t nodes = 1) {
    TopologyParams t = test::node_topology(kind, dies_per_node, nodes);
    t.fallback_link = test::alpha_beta_link(18'000'000);
    return t;
}

struct Shape {
    std::string name;
    TopologyParams params;
    bool links_may_fail;  // another route (or the standby star) exists for any one link
    std::size_t max_paths;
};

std::vector<Shape> shapes() {
    std::vector<Shape> v;
    auto ring_uni = node_of("ring", 8);
    ring_uni.node_params.set("bidirectional", false);
    ring_uni.has_fallback = true;  // a broken ring falls back to the star through the host
    v.push_back({"ring_uni_fallback", ring_uni, true, 1});
    v.push_back({"ring_bi", node_of("ring", 7), true, 2});
    v.push_back({"full_mesh", node_of("full_mesh", 5), true, 1});
    auto torus = node_of("torus", 12);
    torus.node_params.set("dims", std::vector<int64_t>{3, 4});
    v.push_back({"torus_3x4", torus, true, 4});
    auto clos = node_of("switch", 4, 3);
    clos.node_params.set("planes", int64_t{3});
    clos.scale_out = "clos";
    clos.scale_out_params.set("l2_per_plane", int64_t{2});
    v.push_back({"clos", clos, true, 6});
    auto fat = node_of("ring", 4, 4);
    fat.scale_out = "fat_tree";
    fat.scale_out_params.set("dies_per_leaf", int64_t{8});
    fat.scale_out_params.set("spines", int64_t{3});
    v.push_back({"ring_nodes_fat_tree", fat, false, 3});
    return v;
}

struct Case {
    std::size_t shape;
    int seed;
};

class FlowConservation : public ::testing::TestWithParam<Case> {};

TEST_P(FlowConservation, EveryTransferDeliveredOnceAndBytesConservedAtEveryVertex) {
    const Shape shape = shapes()[GetParam().shape];
    const uint64_t seed = seed_base() + static_cast<uint64_t>(GetParam().seed);
    SCOPED_TRACE(shape.name + ", seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Topology topo(shape.params);
    FlowNetwork net(topo, shape.max_paths);

    struct Sent {
        uint32_t src, dst;
        uint64_t bytes;
        int64_t at;
        int deliveries = 0;
        int64_t delivered = -1;
    };
    std::vector<Sent> sent(200);
    const uint32_t dies = topo.dies();
    for (Sent& s : sent) {
        s.src = static_cast<uint32_t>(rng() % dies);
        s.dst = static_cast<uint32_t>(rng() % dies);
        // Sizes from 1 B to 64 MiB, log-uniform, so latency- and bandwidth-bound ones mix.
        s.bytes = static_cast<uint64_t>(std::exp2(static_cast<double>(rng() % 2600) / 100.0));
        s.at = static_cast<int64_t>(rng() % 2'000'000'000);  // within 2 ms
    }
    for (std::size_t i = 0; i < sent.size(); ++i) {
        Sent& s = sent[i];
        net.start_transfer(
            s.src, s.dst, s.bytes, rng() % 2 ? LinkOp::write : LinkOp::read, s.at,
            [&s](int64_t t) {
                ++s.deliveries;
                s.delivered = t;
            },
            i);
    }
    // Up to two die links go down while transfers run (never both directions of one pair on a
    // ring without a star, so a route always remains).
    std::vector<int64_t> down_at(topo.links().size(), -1);
    std::vector<double> carried_when_down(topo.links().size(), -1);
    if (shape.links_may_fail) {
        const int failures = 1 + static_cast<int>(rng() % (shape.params.has_fallback ? 1 : 2));
        for (int f = 0; f < failures; ++f) {
            uint32_t link = 0;
            do {
                link = static_cast<uint32_t>(rng() % topo.links().size());
            } while (topo.links()[link].cls != LinkClass::die || down_at[link] >= 0);
            down_at[link] = static_cast<int64_t>(rng() % 1'000'000'000);
            net.set_link_down(link, down_at[link]);
            net.schedule(down_at[link] + 1, [&net, &carried_when_down, link] {
                carried_when_down[link] = net.link_bytes()[link];
            });
            if (shape.params.node_topology == "ring" &&
                (!shape.params.node_params.has("bidirectional") ||
                 shape.params.node_params.boolean("bidirectional")))
                break;  // a second cut could split a ring into two arcs
        }
    }
    net.run();

    EXPECT_EQ(net.pending_transfers(), 0u);
    for (const Sent& s : sent) {
        EXPECT_EQ(s.deliveries, 1) << s.src << "->" << s.dst << " " << s.bytes << " B";
        if (s.src == s.dst) {
            EXPECT_GE(s.delivered, s.at);
        } else {
            EXPECT_GT(s.delivered, s.at) << s.src << "->" << s.dst;
        }
    }
    // Conservation at every vertex.
    const std::vector<double> carried = net.link_bytes();
    ASSERT_EQ(carried.size(), topo.links().size());
    std::vector<double> in(topo.vertices(), 0), out(topo.vertices(), 0);
    double total_carried = 0;
    for (std::size_t l = 0; l < carried.size(); ++l) {
        EXPECT_GE(carried[l], 0) << topo.link_name(static_cast<uint32_t>(l));
        if (down_at[l] >= 0) {
            EXPECT_EQ(carried[l], carried_when_down[l])
                << topo.link_name(static_cast<uint32_t>(l)) << " carried bytes after it went down";
        }
        out[topo.links()[l].from] += carried[l];
        in[topo.links()[l].to] += carried[l];
        total_carried += carried[l];
    }
    for (const Sent& s : sent) {
        if (s.src == s.dst) continue;  // delivered at once, never on a link
        out[s.src] -= static_cast<double>(s.bytes);
        in[s.dst] -= static_cast<double>(s.bytes);
    }
    const double tolerance = 1e-9 * total_carried + 1;
    for (uint32_t v = 0; v < topo.vertices(); ++v)
        EXPECT_NEAR(in[v], out[v], tolerance) << topo.vertex_name(v);
}

std::vector<Case> cases() {
    std::vector<Case> out;
    for (std::size_t s = 0; s < shapes().size(); ++s)
        for (int seed = 1; seed <= kSeeds; ++seed) out.push_back({s, seed});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Topologies, FlowConservation, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                             return shapes()[param_info.param.shape].name + "_seed" +
                                    std::to_string(param_info.param.seed);
                         });

}  // namespace
}  // namespace asim
