// The on-die network: hop counts on each topology, placement of slices and HBM controllers, and
// that the L2 latency a core sees grows by the round trip over the mesh.
#include "models/interconnect/noc/noc.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

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
    EXPECT_EQ(r.hops(0, 3), 4u);    // (0,0) -> (3,0)
    EXPECT_EQ(r.hops(0, 15), 7u);   // (0,0) -> (3,3)
    EXPECT_EQ(r.hops(5, 10), 3u);   // (1,1) -> (2,2)
    EXPECT_EQ(r.hops(10, 5), r.hops(5, 10));
    // Mean Manhattan distance on a 4 x 4 grid: 2 x (4^2 - 1) / (3 x 4) = 2.5, plus one.
    EXPECT_DOUBLE_EQ(r.mean_hops_core_to_slice(), 3.5);
}

TEST(Noc, SlicesSpreadOverTheMeshAndControllersSitOnBothEdges) {
    const NocRoutes r(mesh(9), 72, 32, 8);
    EXPECT_EQ(r.routers(), 72u);
    std::set<uint32_t> routers;
    for (uint32_t s = 0; s < 32; ++s) routers.insert(r.slice_router(s));
    EXPECT_EQ(routers.size(), 32u);  // no two slices share a router
    EXPECT_LT(*routers.begin(), 9u);     // first row
    EXPECT_GE(*routers.rbegin(), 63u);   // last row
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
    const double crossbar4 = hit_latency_cycles("--set die.noc.hop_cycles=4 --set die.noc.topology=crossbar");
    // ascend960: a 9-column mesh of 72 cores over 32 slices; per slice the average core's hops,
    // each rounded to whole cycles in the model.
    const NocRoutes routes(mesh(9, 4), 72, 32, 8);
    double round_trip = 0;
    for (double hops : routes.mean_hops_to_slices()) round_trip += 2.0 * static_cast<double>(static_cast<uint64_t>(hops * 4 + 0.5));
    round_trip /= 32;
    EXPECT_NEAR(mesh4 - flat, round_trip, 1.5);
    EXPECT_NEAR(crossbar4 - flat, 2 * 4, 1.0);
    EXPECT_GT(mesh4, crossbar4);
}

TEST(Noc, BadTopologyIsAConfigError) {
    const auto r = asim::test::run_cli("info --set die.noc.topology=ring");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("die.noc.topology"), std::string::npos) << r.output;
    const auto z = asim::test::run_cli("info --set die.noc.mesh_columns=0");
    EXPECT_EQ(z.exit_code, 2) << z.output;
}

}  // namespace
}  // namespace asim
