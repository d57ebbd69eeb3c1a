// The on-die network: hop counts on each topology, placement of slices and HBM controllers, that
// the L2 latency a core sees grows by the round trip over the mesh, and the mesh links' loads.
#include "models/interconnect/noc/noc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <nlohmann/json.hpp>

#include "models/common/config.h"
#include "models/common/stats.h"
#include "models/interconnect/noc/on_die_network.h"
#include "tests/harness/cli_runner.h"
#include "tests/harness/sc_harness.h"

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
                              doc["stats"]["die"]["noc"]["link_wait_ps"].get<double>());
    };
    const auto off = run("off", "");
    const auto wide = run("wide", "--set die.noc.link_bytes_per_cycle=4096");
    const auto narrow = run("narrow", "--set die.noc.link_bytes_per_cycle=64");
    EXPECT_EQ(off.second, 0.0);
    EXPECT_NEAR(wide.first, off.first, 0.01 * off.first);
    EXPECT_GT(narrow.first, 2.0 * off.first);
    EXPECT_GT(narrow.second, 0.0);
}

// The network as a module between initiators and the L2: a target that stands for the L2 and
// records, per call, the distances the request carried; initiators that each issue one request.
struct RouteRecorder : sc_core::sc_module {
    tlm_utils::simple_target_socket<RouteRecorder> in{"in"};
    std::vector<SliceDistances> seen;  // a copy of each request's route, in call order
    explicit RouteRecorder(sc_core::sc_module_name n) : sc_module(n) {
        in.register_b_transport(this, &RouteRecorder::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
        const TransactionInfo* info = info_of(p);
        seen.push_back(info && info->noc_route ? *info->noc_route : SliceDistances{});
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct OneRequest : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<OneRequest> out{"out"};
    PayloadPool pool;
    Picoseconds at = 0;  // issue time
    uint64_t bytes = 64;
    bool write = false, prefetch = false, with_info = true;
    tlm::tlm_response_status response = tlm::TLM_INCOMPLETE_RESPONSE;
    Picoseconds done = 0;
    bool route_left_on_payload = true;
    explicit OneRequest(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    SC_HAS_PROCESS(OneRequest);
    void run() {
        wait(ClockDomain::from_ps(at));
        tlm::tlm_generic_payload* p = pool.acquire();
        p->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p->set_address(0);
        p->set_data_length(static_cast<unsigned>(bytes));
        p->set_streaming_width(static_cast<unsigned>(bytes));
        TransactionInfo* info = info_of(*p);
        info->stream = prefetch ? StreamClass::kPrefetch : StreamClass::kWeight;
        if (!with_info) p->clear_extension(info);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        out->b_transport(*p, delay);
        response = p->get_response_status();
        route_left_on_payload = with_info && info->noc_route != nullptr;
        if (!with_info) p->set_extension(info);
        p->release();
        done = ClockDomain::to_ps(sc_core::sc_time_stamp() + delay);
    }
};

// ascend960's geometry (72 cores on a 9-column mesh, 32 slices, 8 controllers), 1 GHz, 2-cycle
// hops; ports: the SDMA port at the middle router, core 0, core 71.
struct NetworkBench {
    ClockDomain clock{"clk", 1'000'000'000};
    StatsRegistry stats;
    NocPlacement placement{72, 32, 8, {NocPlacement::kCentre, 0, 71}};
    OnDieNetwork noc;
    RouteRecorder l2{"l2"};
    std::vector<std::unique_ptr<OneRequest>> ports;
    explicit NetworkBench(const NocParams& params) : noc("noc", params, placement, clock, stats) {
        noc.to_l2.bind(l2.in);
        for (std::size_t i = 0; i < placement.port_core.size(); ++i) {
            ports.push_back(std::make_unique<OneRequest>(("port" + std::to_string(i)).c_str()));
            ports.back()->out.bind(noc.from_engines);
        }
    }
};

TEST(OnDieNetwork, RequestsCarryTheirPortsDistancesToTheL2) {
    const NocParams params = mesh(9, 2);
    NetworkBench bench(params);
    for (std::size_t i = 0; i < bench.ports.size(); ++i)
        bench.ports[i]->at = 1000 * (i + 1);  // one after the other: the record's order
    test::run_simulation(sc_core::sc_time(1, sc_core::SC_US));
    const NocRoutes routes(params, 72, 32, 8);
    const std::vector<uint32_t> routers = {routes.routers() / 2, routes.core_router(0),
                                           routes.core_router(71)};
    ASSERT_EQ(bench.l2.seen.size(), 3u);
    for (std::size_t port = 0; port < 3; ++port) {
        const SliceDistances& got = bench.l2.seen[port];
        ASSERT_EQ(got.one_way.size(), 32u);
        Picoseconds sum = 0;
        for (uint32_t s = 0; s < 32; ++s) {
            EXPECT_EQ(got.one_way[s], 2000 * routes.hops(routers[port], routes.slice_router(s)))
                << "port " << port << " slice " << s;
            sum += got.one_way[s];
        }
        EXPECT_EQ(got.mean, sum / 32);
        EXPECT_EQ(bench.noc.route(port).mean, got.mean);
        EXPECT_EQ(bench.ports[port]->response, tlm::TLM_OK_RESPONSE);
        EXPECT_FALSE(bench.ports[port]->route_left_on_payload);  // the L2's only
        // Links not modelled: the network adds nothing to the target's (zero) delay.
        EXPECT_EQ(bench.ports[port]->done, bench.ports[port]->at);
    }
    // The corners are farther from the slices than the middle.
    EXPECT_LT(bench.l2.seen[0].mean, bench.l2.seen[1].mean);
    EXPECT_GT(bench.noc.slice_to_hbm(), 0u);
}

// Narrow links: a read's data crosses them after the L2 has served it; the request completes
// when its most loaded link has carried its share, plus the mean distance. Prefetches load no
// links; a payload without a TransactionInfo cannot carry a route and is refused.
TEST(OnDieNetwork, NarrowLinksDelayReadsButNotPrefetches) {
    NocParams params = mesh(9, 2);
    params.link_bytes_per_cycle = 8;
    NetworkBench bench(params);
    OneRequest& prefetch = *bench.ports[0];
    OneRequest& read = *bench.ports[1];
    OneRequest& bare = *bench.ports[2];
    prefetch.prefetch = true;
    prefetch.bytes = read.bytes = 64 * 1024;
    bare.with_info = false;
    test::run_simulation(sc_core::sc_time(1, sc_core::SC_MS));
    const NocRoutes routes(params, 72, 32, 8);
    Cycles slowest = 0;
    for (const LinkShare& l : routes.link_shares(routes.core_router(0), false)) {
        const auto share = static_cast<uint64_t>(l.fraction * 65536.0 + 0.5);
        slowest = std::max<Cycles>(slowest, (share + 7) / 8);
    }
    EXPECT_EQ(read.done, 1000 * slowest + bench.noc.route(1).mean);
    EXPECT_GT(slowest, 1000u);  // the link out of the corner carries about half of 64 KiB
    EXPECT_EQ(prefetch.done, 0u);
    EXPECT_EQ(prefetch.response, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(bare.response, tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(bench.l2.seen.size(), 2u);
    const auto* wait = dynamic_cast<const Counter*>(bench.stats.find("noc.link_wait_ps"));
    ASSERT_NE(wait, nullptr);
    EXPECT_EQ(wait->value(), read.done);  // the L2 took no time: all of it waiting for links
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
