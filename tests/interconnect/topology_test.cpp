// Topologies: every pair of dies is reachable by shortest paths on every topology; bad shapes
// are bad input; routes avoid down links, fall back to the standby star, or report none.
#include <gtest/gtest.h>

#include "models/common/errors.h"
#include "models/interconnect/topology/topology.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

TopologyParams node_of(const std::string& kind, uint32_t dies_per_node, uint32_t nodes = 1) {
    return test::node_topology(kind, dies_per_node, nodes);
}

std::vector<std::pair<std::string, TopologyParams>> all_topologies() {
    std::vector<std::pair<std::string, TopologyParams>> v;
    auto ring_uni = node_of("ring", 6);
    ring_uni.node_params.set("bidirectional", false);
    v.emplace_back("ring_uni", ring_uni);
    v.emplace_back("ring_bi", node_of("ring", 7));
    v.emplace_back("full_mesh", node_of("full_mesh", 5));
    auto mesh = node_of("mesh", 12);
    mesh.node_params.set("dims", std::vector<int64_t>{3, 4});
    v.emplace_back("mesh_3x4", mesh);
    auto torus = node_of("torus", 27);
    torus.node_params.set("dims", std::vector<int64_t>{3, 3, 3});
    v.emplace_back("torus_3x3x3", torus);
    auto clos = node_of("switch", 4, 3);
    clos.node_params.set("planes", int64_t{3});
    clos.scale_out = "clos";
    clos.scale_out_params.set("l2_per_plane", int64_t{2});
    v.emplace_back("clos", clos);
    auto fat = node_of("ring", 4, 4);
    fat.scale_out = "fat_tree";
    fat.scale_out_params.set("dies_per_leaf", int64_t{8});
    fat.scale_out_params.set("spines", int64_t{3});
    v.emplace_back("ring_nodes_fat_tree", fat);
    auto custom = node_of("custom", 5);
    custom.node_params.set("edges", std::vector<int64_t>{0, 1, 1, 2, 2, 3, 3, 4, 1, 4});
    v.emplace_back("custom", custom);
    return v;
}

TEST(Topology, RoutingReachesEveryPairByShortestPaths) {
    for (const auto& [name, params] : all_topologies()) {
        const Topology t(params);
        for (uint32_t a = 0; a < t.dies(); ++a) {
            for (uint32_t b = 0; b < t.dies(); ++b) {
                if (a == b) continue;
                const auto routes = t.routes(a, b, 64, {});
                ASSERT_FALSE(routes.empty()) << name << " " << a << "->" << b;
                const std::size_t shortest = t.search_path(a, b, {}).size();
                for (const Path& p : routes) {
                    ASSERT_FALSE(p.empty());
                    EXPECT_EQ(t.links()[p.front()].from, a) << name;
                    EXPECT_EQ(t.links()[p.back()].to, b) << name;
                    for (std::size_t i = 0; i + 1 < p.size(); ++i)
                        EXPECT_EQ(t.links()[p[i]].to, t.links()[p[i + 1]].from) << name;
                    EXPECT_EQ(p.size(), shortest)
                        << name << " " << a << "->" << b << " is not shortest";
                }
            }
        }
    }
}

TEST(Topology, ClosSpreadsOverPlanesAndSecondLevelChips) {
    auto params = all_topologies()[5].second;
    const Topology t(params);
    const auto routes = t.routes(0, 11, 64, {});
    EXPECT_EQ(routes.size(), 6u);  // 3 planes x 2 L2 chips
    const auto three = t.routes(0, 11, 3, {});
    ASSERT_EQ(three.size(), 3u);
    // The first choices take different planes (different first links).
    EXPECT_NE(three[0][0], three[1][0]);
    EXPECT_NE(three[1][0], three[2][0]);
    EXPECT_EQ(t.routes(0, 1, 64, {}).size(), 3u);  // inside the node: one path per plane
}

TEST(Topology, DownLinksRerouteOrFallBackToTheStarOrLeaveNoRoute) {
    // Bidirectional ring: the other way round.
    {
        const Topology t(node_of("ring", 8));
        std::vector<char> down(t.links().size(), 0);
        down[static_cast<std::size_t>(t.link_between(0, 1))] = 1;
        const auto r = t.routes(0, 1, 4, down);
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(r[0].size(), 7u);
    }
    // Unidirectional ring with a host star: the star.
    auto uni = node_of("ring", 8);
    uni.node_params.set("bidirectional", false);
    uni.has_fallback = true;
    uni.fallback_link = test::ub_link();
    {
        const Topology t(uni);
        std::vector<char> down(t.links().size(), 0);
        EXPECT_EQ(t.routes(0, 4, 1, down)[0].size(), 4u);  // healthy: along the ring, not the star
        down[static_cast<std::size_t>(t.find_link("die2->die3"))] = 1;
        const auto r = t.routes(0, 4, 1, down);
        ASSERT_EQ(r.size(), 1u);
        // Into the host, through its forwarding copy, out to the die.
        ASSERT_EQ(r[0].size(), 3u);
        EXPECT_EQ(t.link_name(r[0][0]), "die0->host.n0");
        EXPECT_EQ(t.link_name(r[0][1]), "host.n0->host.n0.tx");
        EXPECT_EQ(t.link_name(r[0][2]), "host.n0.tx->die4");
        EXPECT_EQ(t.links()[r[0][1]].cls, LinkClass::host_copy);
        EXPECT_DOUBLE_EQ(t.link_params(r[0][1]).payload_bytes_per_s(LinkOp::write),
                         uni.host_copy_bytes_per_s);
        EXPECT_EQ(t.routes(0, 2, 1, down)[0].size(), 2u);  // pairs before the break keep the ring
    }
    // Without the star: no route.
    uni.has_fallback = false;
    const Topology t(uni);
    std::vector<char> down(t.links().size(), 0);
    down[static_cast<std::size_t>(t.find_link("die2->die3"))] = 1;
    EXPECT_TRUE(t.routes(0, 4, 1, down).empty());
}

TEST(Topology, BadShapesAreBadInput) {
    auto uneven = node_of("ring", 8);
    uneven.dies = 12;
    EXPECT_THROW(Topology{uneven}, InputError);
    auto mesh = node_of("mesh", 12);
    mesh.node_params.set("dims", std::vector<int64_t>{3, 3});
    EXPECT_THROW(Topology{mesh}, InputError);
    auto disconnected = node_of("custom", 4);
    disconnected.node_params.set("edges", std::vector<int64_t>{0, 1, 2, 3});
    try {
        Topology t(disconnected);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("does not connect"), std::string::npos) << e.what();
    }
    auto no_scale_out = node_of("ring", 4, 2);
    EXPECT_THROW(Topology{no_scale_out}, InputError);
    auto clos_on_ring = node_of("ring", 4, 2);
    clos_on_ring.scale_out = "clos";
    EXPECT_THROW(Topology{clos_on_ring}, InputError);
}

TEST(Topology, NamesRoundTrip) {
    const Topology t(all_topologies()[5].second);
    for (uint32_t l = 0; l < t.links().size(); ++l) EXPECT_EQ(t.find_link(t.link_name(l)), l);
    EXPECT_EQ(t.find_link("die0->die99"), -1);
}

TEST(Topology, BundlesGroupTheParallelLinksRoutesSprayOver) {
    for (const auto& [name, params] : all_topologies()) {
        const Topology t(params);
        uint32_t expected = 0;  // per die up and down; per node and L2 index up and down; per leaf
        const uint32_t planes = t.node_topology().switch_planes();
        auto so = [&](const char* key) {
            return static_cast<uint32_t>(params.scale_out_params.integer(key));
        };
        if (planes > 1) expected += 2 * params.dies;
        if (params.scale_out == "clos" && planes > 1)
            expected += 2 * params.nodes() * so("l2_per_plane");
        if (params.scale_out == "fat_tree" && so("spines") > 1)
            expected += 2 * params.dies / so("dies_per_leaf");
        EXPECT_EQ(t.bundles(), expected) << name;
        for (uint32_t b = 0; b < t.bundles(); ++b) {
            const uint32_t* first = t.bundle_begin(b);
            EXPECT_EQ(static_cast<uint32_t>(t.bundle_end(b) - first),
                      params.scale_out == "fat_tree" ? so("spines") : planes)
                << name;
            for (const uint32_t* l = first; l != t.bundle_end(b); ++l) {
                EXPECT_EQ(t.bundle_of(*l), b) << name;
                EXPECT_EQ(t.links()[*l].cls, t.links()[*first].cls) << name;
            }
        }
    }
    // Die 0's ports in the Clos: its bundle holds the links to the L1 chip of every plane.
    const Topology clos(all_topologies()[5].second);
    const int64_t p0 = clos.find_link("die0->l1.n0.p0"), p2 = clos.find_link("die0->l1.n0.p2");
    ASSERT_GE(p0, 0);
    EXPECT_EQ(clos.bundle_of(static_cast<uint32_t>(p0)), clos.bundle_of(static_cast<uint32_t>(p2)));
    const int64_t up = clos.find_link("l1.n1.p0->l2.p0.1"),
                  up2 = clos.find_link("l1.n1.p2->l2.p2.1");
    EXPECT_EQ(clos.bundle_of(static_cast<uint32_t>(up)),
              clos.bundle_of(static_cast<uint32_t>(up2)));
    EXPECT_NE(clos.bundle_of(static_cast<uint32_t>(up)),
              clos.bundle_of(static_cast<uint32_t>(clos.find_link("l1.n1.p0->l2.p0.0"))));
}

}  // namespace
}  // namespace asim
