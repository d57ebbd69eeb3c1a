#include "testbenches/figures/dsm_figures.h"

#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <queue>
#include <sstream>
#include <string>
#include <systemc>
#include <tlm>
#include <utility>

#include "models/common/clock_domain.h"
#include "models/common/errors.h"
#include "models/common/kernel.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/common/units.h"
#include "models/interconnect/network/flow_network.h"
#include "models/interconnect/topology/topology.h"
#include "models/memory/hbm_flat/hbm_flat.h"
#include "models/memory/tiers/dsm_pool.h"
#include "models/memory/tiers/network_fabric.h"
#include "models/memory/tiers/tier_router.h"
#include "platforms/platform.h"
#include "testbenches/command/progress.h"
#include "testbenches/figures/link_figures.h"
#include "testbenches/trace_replay/child_run.h"

namespace asim {

namespace {

constexpr uint64_t kLatencyProbeBytes = 512;
constexpr uint64_t kMaxChunk = uint64_t{1} << 30;  // a payload's length is 32 bits

// Bytes the point's readers have issued against their total, as a progress line
// (testbenches/command/progress.h); a total of 0 shows nothing.
class Progress {
public:
    Progress(const std::string& label, uint64_t total)
        : m_total(total),
          m_line("figures dsm: " + label, "", total,
                 total == 0 ? ProgressLine::Mode::kOff : ProgressLine::mode_from_environment()) {}
    void issued(uint64_t bytes) {
        m_done += bytes;
        if (++m_calls % 1024 != 0) return;
        m_line.update_with(m_done, simulated_time_detail);
    }
    void finish() { m_line.finish(m_total); }

private:
    uint64_t m_total;
    uint64_t m_done = 0;
    uint64_t m_calls = 0;
    ProgressLine m_line;
};

// A die's stream of demand reads: `bytes` from `base` in pieces of `chunk`, with up to
// `outstanding` in flight; the next is issued when the earliest in flight completes.
class StreamReader : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(StreamReader);
    tlm_utils::simple_initiator_socket<StreamReader> out{"out"};

    StreamReader(sc_core::sc_module_name name, uint64_t base, uint64_t bytes, uint64_t chunk,
                 uint32_t outstanding, Progress& progress)
        : sc_module(name),
          m_base(base),
          m_bytes(bytes),
          m_chunk(chunk),
          m_outstanding(outstanding),
          m_progress(progress) {
        SC_THREAD(run);
    }
    // The completion of its last read, in ps from t = 0.
    Picoseconds finish() const { return m_finish; }

private:
    void run() {
        std::priority_queue<Picoseconds, std::vector<Picoseconds>, std::greater<>> in_flight;
        for (uint64_t off = 0; off < m_bytes; off += m_chunk) {
            if (in_flight.size() == m_outstanding) {
                const Picoseconds earliest = in_flight.top();
                in_flight.pop();
                const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
                if (earliest > now) sc_core::wait(ClockDomain::from_ps(earliest - now));
            }
            const uint64_t len = std::min(m_chunk, m_bytes - off);
            const Picoseconds done = read(m_base + off, len);
            in_flight.push(done);
            m_finish = std::max(m_finish, done);
            m_progress.issued(len);
        }
    }
    Picoseconds read(uint64_t addr, uint64_t len) {
        tlm::tlm_generic_payload* p = m_payloads.acquire();
        p->set_command(tlm::TLM_READ_COMMAND);
        p->set_address(addr);
        p->set_data_length(static_cast<unsigned>(len));
        p->set_streaming_width(static_cast<unsigned>(len));
        info_of(*p)->stream = StreamClass::kWeight;  // a demand read
        info_of(*p)->engine = name();
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        out->b_transport(*p, delay);
        check_response(*p, name());
        p->release();
        return ClockDomain::to_ps(sc_core::sc_time_stamp() + delay);
    }

    uint64_t m_base, m_bytes, m_chunk;
    std::size_t m_outstanding;
    Progress& m_progress;
    PayloadPool m_payloads;
    Picoseconds m_finish = 0;
};

struct Point {
    Tier tier;
    uint32_t readers;
    uint64_t size;
    uint64_t chunk;
    uint32_t outstanding;
    uint32_t owner_offset = 1;
};

// One point's model. Dies 0..D-1 (D: the readers and the owners they read), each with its flat
// HBM attached to a fresh pool; readers 0..N-1 each have a TierRouter in front of their HBM and a
// StreamReader into it. Reader k reads the tier's first `size` bytes (remote_hbm: of owner
// (k + 1) mod owners's window).
class PointBench : public sc_core::sc_module {
public:
    PointBench(sc_core::sc_module_name name, const Point& pt, const DsmParams& dsm,
               const HbmFlatParams& hbm, const NetworkParams* network, Progress& progress)
        : sc_module(name) {
        m_pool = std::make_unique<DsmPool>(dsm, m_stats);
        if (network) {  // remote_hbm data crosses the supernode's links, as in a run
            m_topology = std::make_unique<Topology>(network->topology);
            m_network = std::make_unique<FlowNetwork>(*m_topology, network->max_paths,
                                                      make_routing(*network));
            m_fabric = std::make_unique<NetworkFabric>(*m_network);
            m_pool->set_fabric(m_fabric.get());
        }
        const TierParams& tp = *dsm.find(pt.tier);
        const uint32_t dies =
            tp.kind.per_owner() ? std::min(dsm.owners, pt.readers + pt.owner_offset) : pt.readers;
        for (uint32_t d = 0; d < dies; ++d) {
            m_hbms.push_back(
                std::make_unique<HbmFlat>(fmt::format("die{}_hbm", d).c_str(), hbm, m_stats));
            m_pool->attach_hbm(d, m_hbms.back()->l2_in, hbm.latency_ps);
            if (d >= pt.readers) {  // an owner only: its L2 side stays idle
                m_idle.push_back(std::make_unique<tlm_utils::simple_initiator_socket<PointBench>>(
                    fmt::format("die{}_l2", d).c_str()));
                m_idle.back()->bind(m_hbms.back()->l2_in);
                continue;
            }
            m_routers.push_back(std::make_unique<TierRouter>(fmt::format("die{}_dsm", d).c_str(),
                                                             dsm, *m_pool, d, hbm.capacity_bytes,
                                                             hbm.capacity_bytes, m_stats));
            m_routers.back()->hbm_out.bind(m_hbms.back()->l2_in);
            const uint64_t base =
                tp.kind.per_owner()
                    ? tp.base + uint64_t{(d + pt.owner_offset) % dsm.owners} * kRemoteHbmOwnerStride
                    : tp.base;
            m_readers.push_back(std::make_unique<StreamReader>(fmt::format("reader{}", d).c_str(),
                                                               base, pt.size, pt.chunk,
                                                               pt.outstanding, progress));
            m_readers.back()->out.bind(m_routers.back()->l2_in);
        }
    }
    // The completion of the slowest reader's last read, in ps from t = 0.
    Picoseconds slowest() const {
        Picoseconds t = 0;
        for (const auto& r : m_readers) t = std::max(t, r->finish());
        return t;
    }

private:
    StatsRegistry m_stats;
    std::unique_ptr<Topology> m_topology;
    std::unique_ptr<FlowNetwork> m_network;
    std::unique_ptr<NetworkFabric> m_fabric;
    std::unique_ptr<DsmPool> m_pool;
    std::vector<std::unique_ptr<HbmFlat>> m_hbms;
    std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<PointBench>>> m_idle;
    std::vector<std::unique_ptr<TierRouter>> m_routers;
    std::vector<std::unique_ptr<StreamReader>> m_readers;
};

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
        out.push_back(b == std::string::npos ? "" : item.substr(b, e - b + 1));
    }
    if (!text.empty() && text.back() == ',') out.push_back("");
    return out;
}

std::string present_tiers(const DsmParams& dsm) {
    std::string s;
    for (const TierParams& t : dsm.tiers) s += (s.empty() ? "" : ", ") + to_string(t.tier);
    return s;
}

std::vector<Tier> parse_tiers(const std::string& text, const Platform& platform) {
    const DsmParams& dsm = platform.die.dsm;
    std::vector<Tier> tiers;
    if (text.empty()) {  // every tier of the platform, in its dsm: section's order
        for (const TierParams& t : dsm.tiers) tiers.push_back(t.tier);
        return tiers;
    }
    for (const std::string& name : split(text)) {
        const auto t = tier_from_string(name);
        if (!t) {
            throw InputError(
                fmt::format("figures dsm: --tier: unknown tier '{}' (the pool's tiers: {})", name,
                            pool_tier_registry().names_text()));
        }
        if (*t == Tier::kHbm) {
            throw InputError(
                "figures dsm: --tier: hbm is the die's own memory, not a pool tier (figures hbm "
                "measures it; the pool's tiers: " +
                pool_tier_registry().names_text() + ")");
        }
        if (!dsm.find(*t)) {
            throw InputError(
                fmt::format("figures dsm: --tier: platform {} has no {} tier in its dsm: "
                            "section (it has: {})",
                            platform.name, name, present_tiers(dsm)));
        }
        if (dsm.find(*t)->kind.per_owner() && dsm.owners < 2) {
            throw InputError(
                fmt::format("figures dsm: --tier {}: platform {} has one die, so "
                            "no other die's HBM to read",
                            name, platform.name));
        }
        tiers.push_back(*t);
    }
    return tiers;
}

std::vector<uint32_t> parse_readers(const std::string& text, const Platform& platform) {
    const uint32_t owners = platform.die.dsm.owners;
    if (text.empty()) return {platform.network ? platform.network->topology.dies : 1};
    std::vector<uint32_t> out;
    for (const std::string& item : split(text)) {
        if (item.empty() || item.size() > 9 ||
            item.find_first_not_of("0123456789") != std::string::npos) {
            throw InputError(
                fmt::format("figures dsm: --readers {}: '{}' is not a number (expected N "
                            "or N,N,... from 1 to {})",
                            text, item, owners));
        }
        const auto n = static_cast<uint32_t>(std::stoul(item));
        if (n == 0 || n > owners) {
            throw InputError(
                fmt::format("figures dsm: --readers {}: {} readers, but platform {} has {} "
                            "dies in its pool (remote_hbm owners): 1 to {}",
                            text, n, platform.name, owners, owners));
        }
        out.push_back(n);
    }
    return out;
}

// The bytes a reader may read of `t`: the tier's capacity (remote_hbm: an owner's window, no
// more than its HBM).
uint64_t readable_bytes(const TierParams& t, uint64_t hbm_bytes) {
    return t.kind.per_owner() ? std::min(t.capacity, hbm_bytes) : t.capacity;
}

// Runs in the child: the point's model and its tier's latency probe, simulated together (they
// share nothing); writes {"slowest_ps", "latency_ps"} to DIR/stats.json.
void run_point(const Point& pt, const DsmParams& dsm, const HbmFlatParams& hbm,
               const NetworkParams* network, const std::string& label, const std::string& dir) {
    set_kernel_time_resolution();
    Progress progress(label, pt.readers * pt.size);
    PointBench bench("dsm", pt, dsm, hbm, network, progress);
    Progress quiet("latency", 0);
    PointBench probe("latency_probe",
                     {pt.tier, 1, kLatencyProbeBytes, kLatencyProbeBytes, 1, pt.owner_offset}, dsm,
                     hbm, network, quiet);
    run_kernel();  // sc_start, and under ASan the thread back on its own stack
    progress.finish();
    const nlohmann::json out = {{"slowest_ps", bench.slowest()}, {"latency_ps", probe.slowest()}};
    std::filesystem::create_directories(dir);
    std::ofstream(std::filesystem::path(dir) / "stats.json") << out.dump() << "\n";
}

}  // namespace

std::vector<FigureTable> dsm_figures(const DsmFiguresOptions& o) {
    // Everything that can be wrong with the input is found before anything is built.
    const std::vector<uint64_t> sizes = parse_size_list(o.sizes, "figures dsm: --sizes");
    for (const uint64_t s : sizes) {
        if (s == 0)
            throw InputError("figures dsm: --sizes " + o.sizes + ": sizes must be positive");
    }
    uint64_t chunk = 0;
    try {
        chunk = units::bytes(o.chunk);
    } catch (const units::UnitError& e) {
        throw InputError(fmt::format("figures dsm: --chunk {}: {}", o.chunk, e.what()));
    }
    if (chunk == 0 || chunk > kMaxChunk) {
        throw InputError(fmt::format("figures dsm: --chunk {}: must be from 1B to 1GiB", o.chunk));
    }
    if (o.outstanding == 0) throw InputError("figures dsm: --outstanding must be at least 1");
    const Platform platform = load_platform(o.platform, o.overrides);
    const DsmParams& dsm = platform.die.dsm;
    if (!dsm.enabled()) {
        throw InputError(fmt::format(
            "figures dsm: platform {} has no dsm: section (no memory pool)", platform.name));
    }
    const std::vector<Tier> tiers = parse_tiers(o.tiers, platform);
    const std::vector<uint32_t> readers = parse_readers(o.readers, platform);
    if (o.owner_offset == 0 || (dsm.owners > 1 && o.owner_offset >= dsm.owners)) {
        throw InputError(fmt::format(
            "figures dsm: --owner-offset {}: must be from 1 to {} (reader k reads owner (k + "
            "offset) mod {}, another die)",
            o.owner_offset, std::max<uint32_t>(1, dsm.owners - 1), dsm.owners));
    }
    const HbmFlatParams hbm = platform.die.hbm.flat_params();
    for (const Tier t : tiers) {
        const uint64_t cap = readable_bytes(*dsm.find(t), hbm.capacity_bytes);
        for (const uint64_t s : sizes) {
            if (s > cap) {
                throw InputError(
                    fmt::format("figures dsm: --sizes: {} B ({}) is more than a reader can read "
                                "of {} ({} B{})",
                                s, units::format_bytes(s), to_string(t), cap,
                                dsm.find(t)->kind.per_owner() ? " per owner: its HBM" : ""));
            }
        }
    }

    // Each point in a child process (SystemC elaborates once per process): its model, and beside
    // it the tier's latency probe (one 512 B read, nothing else in its model).
    namespace fs = std::filesystem;
    const fs::path tmp = fs::temp_directory_path() / ("asim-dsm-" + std::to_string(::getpid()));
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    FigureTable table{
        "dsm",
        {"tier", "readers", "size_bytes", "latency_us", "aggregate_GBps", "per_reader_GBps"},
        {}};
    try {
        for (const Tier t : tiers) {
            for (const uint32_t n : readers) {
                for (const uint64_t s : sizes) {
                    const Point pt{t, n, s, chunk, o.outstanding, o.owner_offset};
                    const std::string label =
                        fmt::format("{} x{} {}", to_string(t), n, units::format_bytes(s));
                    const std::string dir =
                        (tmp / ("point" + std::to_string(table.rows.size()))).string();
                    const nlohmann::json r = run_in_child(
                        [&] {
                            run_point(pt, dsm, hbm, platform.network ? &*platform.network : nullptr,
                                      label, dir);
                        },
                        dir, "figures dsm: " + label);
                    const double slowest_s = r.at("slowest_ps").get<double>() * 1e-12;
                    const double latency_us = r.at("latency_ps").get<double>() * 1e-6;
                    const double aggregate =
                        static_cast<double>(n) * static_cast<double>(s) / slowest_s;
                    table.rows.push_back({to_string(t), std::to_string(n), std::to_string(s),
                                          fmt::format("{:.4f}", latency_us),
                                          fmt::format("{:.3f}", aggregate * 1e-9),
                                          fmt::format("{:.3f}", aggregate * 1e-9 / n)});
                }
            }
        }
    } catch (...) {
        fs::remove_all(tmp);
        throw;
    }
    fs::remove_all(tmp);
    return {table};
}

}  // namespace asim
