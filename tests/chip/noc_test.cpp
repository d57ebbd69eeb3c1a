// The on-die network: hop counts on each topology, placement of slices and HBM controllers, that
// the L2 latency a core sees grows by the round trip over the mesh, and the mesh links' loads.
#include "models/interconnect/noc/noc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/common/config.h"
#include "tests/harness/cli_runner.h"

namespace asim {
namespace {

NocParams mesh(uint32_t columns, uint32_t hop_cycles = 2) {
    NocParams p;
    p.topology = NocParams::Topology::kMesh;
    p.mesh_columns = columns;
    p.hop_cycles = hop_cycles;
    return p;
}

TEST(Noc, CrossbarIsOneHopBetweenAnyPair) {
    const NocRoutes r(NocParams{}, 72, 32, 8);
    for (uint32_t c : {0u, 35u, 71u}) {
        for (uint32_t s : {0u, 17u, 31u}) EXPECT_EQ(r.hops_core_to_slice(c, s), 1u);
    }
    EXPECT_DOUBLE_EQ(r.mean_hops_slice_to_hbm(), 1.0);
}

TEST(Noc, MeshHopsAreManhattanDistancePlusTheEntryRouter) {
    const NocRoutes r(mesh(4), 16, 16, 2);  // 4 x 4 routers, a slice at every router
    EXPECT_EQ(r.routers(), 16u);
    EXPECT_EQ(r.hops(0, 0), 1u);
    EXPECT_EQ(r.hops(0, 3), 4u);   // (0,0) -> (3,0)
    EXPECT_EQ(r.hops(0, 15), 7u);  // (0,0) -> (3,3)
    EXPECT_EQ(r.hops(5, 10), 3u);  // (1,1) -> (2,2)
    EXPECT_EQ(r.hops(10, 5), r.hops(5, 10));
    // Mean Manhattan distance on a 4 x 4 grid: 2 x (4^2 - 1) / (3 x 4) = 2.5, plus one.
    EXPECT_DOUBLE_EQ(r.mean_hops_core_to_slice(), 3.5);
}

TEST(Noc, SlicesSpreadOverTheMeshAndControllersSitOnBothEdges) {
    const NocRoutes r(mesh(9), 72, 32, 8);
    EXPECT_EQ(r.routers(), 72u);
    std::set<uint32_t> routers;
    for (uint32_t s = 0; s < 32; ++s) routers.insert(r.slice_router(s));
    EXPECT_EQ(routers.size(), 32u);     // no two slices share a router
    EXPECT_LT(*routers.begin(), 9u);    // first row
    EXPECT_GE(*routers.rbegin(), 63u);  // last row
    // A slice next to an edge controller is closer than the mean; the mean is over the nearest.
    EXPECT_GE(r.mean_hops_slice_to_hbm(), 1.0);
    EXPECT_LT(r.mean_hops_slice_to_hbm(), r.mean_hops_core_to_slice());
}

double hit_latency_cycles(const std::string& sets) {
    const auto r = asim::test::run_cli("figures l2 --requests 2000 " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::istringstream in(r.output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("hit,", 0) == 0) return std::stod(line.substr(4));
    }
    ADD_FAILURE() << "no hit row in: " << r.output;
    return 0;
}

TEST(Noc, L2HitLatencyGrowsByTheMeshRoundTrip) {
    const double flat = hit_latency_cycles("--set die.noc.hop_cycles=0");
    const double mesh4 = hit_latency_cycles("--set die.noc.hop_cycles=4");
    const double crossbar4 =
        hit_latency_cycles("--set die.noc.hop_cycles=4 --set die.noc.topology=crossbar");
    // ascend960: a 9-column mesh of 72 cores over 32 slices; per slice the average core's hops,
    // each rounded to whole cycles in the model.
    const NocRoutes routes(mesh(9, 4), 72, 32, 8);
    double round_trip = 0;
    for (double hops : routes.mean_hops_to_slices())
        round_trip += 2.0 * static_cast<double>(static_cast<uint64_t>(hops * 4 + 0.5));
    round_trip /= 32;
    EXPECT_NEAR(mesh4 - flat, round_trip, 1.5);
    EXPECT_NEAR(crossbar4 - flat, 2 * 4, 1.0);
    EXPECT_GT(mesh4, crossbar4);
}

// A request spread evenly over the slices puts 1/slices of its bytes on every link of every XY
// route: the shares of a router add up to its mean distance to the slices in links (hops - 1);
// reads and writes load mirror-image links; a crossbar has no links to load.
TEST(Noc, LinkSharesAddUpToTheMeanRouteLength) {
    const NocRoutes r(mesh(9), 72, 32, 8);
    EXPECT_EQ(r.link_count(), 2u * 8u * 8u + 2u * 9u * 7u);
    for (uint32_t core : {0u, 40u, 71u}) {
        double mean_links = 0;
        for (uint32_t s = 0; s < 32; ++s) mean_links += r.hops_core_to_slice(core, s) - 1.0;
        mean_links /= 32;
        for (bool to_slices : {true, false}) {
            double sum = 0, largest = 0;
            for (const LinkShare& l : r.link_shares(r.core_router(core), to_slices)) {
                EXPECT_LT(l.link, r.link_count());
                EXPECT_GT(l.fraction, 0.0);
                EXPECT_LE(l.fraction, 1.0);
                sum += l.fraction;
                largest = std::max(largest, l.fraction);
            }
            EXPECT_NEAR(sum, mean_links, 1e-9) << "core " << core;
            EXPECT_GT(largest,
                      0.4);  // the link out of (into) a corner carries about half its traffic
        }
    }
    EXPECT_EQ(NocRoutes(NocParams{}, 72, 32, 8).link_count(), 0u);
}

// Mesh links of a given width: wide ones leave a layer's time alone, narrow ones make the mesh
// the bottleneck (requests wait for their most loaded link).
TEST(Noc, NarrowMeshLinksSlowTheDie) {
    auto run = [](const std::string& name, const std::string& sets) {
        const std::string dir = asim::test::scratch_path("noc", name);
        const auto r = asim::test::run_cli("run --out " + dir + " " + sets);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        const auto doc = nlohmann::json::parse(asim::test::read_text(dir + "/stats.json"));
        return std::make_pair(doc["summary"]["sim_time_ns"].get<double>(),
                              doc["stats"]["die"]["l2"]["noc_link_wait_ps"].get<double>());
    };
    const auto off = run("off", "");
    const auto wide = run("wide", "--set die.noc.link_bytes_per_cycle=4096");
    const auto narrow = run("narrow", "--set die.noc.link_bytes_per_cycle=64");
    EXPECT_EQ(off.second, 0.0);
    EXPECT_NEAR(wide.first, off.first, 0.01 * off.first);
    EXPECT_GT(narrow.first, 2.0 * off.first);
    EXPECT_GT(narrow.second, 0.0);
}

TEST(Noc, BadTopologyIsAConfigError) {
    const auto r = asim::test::run_cli("info --set die.noc.topology=ring");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("die.noc.topology"), std::string::npos) << r.output;
    const auto z = asim::test::run_cli("info --set die.noc.mesh_columns=0");
    EXPECT_EQ(z.exit_code, 2) << z.output;
}

// NocParams' defaults are the declared ones (noc.cpp): code that builds the NoC without YAML gets
// what a platform that leaves the keys out gets. The one key with a default, link_bytes_per_cycle,
// is read on a mesh only, so the section is a mesh; the other keys are given the struct's values
// (mesh_columns has no default: a mesh needs it).
TEST(NocParams, StructDefaultsAreTheDeclaredDefaults) {
    const NocParams d;
    const Config c =
        Config::from_string("topology: mesh\nmesh_columns: 8\nhop_cycles: 1\n", "t.yaml");
    const NocParams p = parse_noc_params(c.root());
    ASSERT_EQ(p.mesh_columns, d.mesh_columns);
    ASSERT_EQ(p.hop_cycles, d.hop_cycles);
    EXPECT_EQ(p.link_bytes_per_cycle, d.link_bytes_per_cycle);  // declared: links not modelled
}

}  // namespace
}  // namespace asim
