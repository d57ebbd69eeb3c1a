#include "testbenches/trace_replay/op_timeline.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/chip/die/die.h"
#include "models/common/gzip.h"
#include "testbenches/trace_replay/op_table.h"

namespace asim {

namespace {

// Lanes of non-overlapping slices: each interval goes on the lowest lane free at its start.
class Lanes {
public:
    std::size_t place(Picoseconds start, Picoseconds end) {
        for (std::size_t i = 0; i < m_free_at.size(); ++i) {
            if (m_free_at[i] <= start) {
                m_free_at[i] = end;
                return i;
            }
        }
        m_free_at.push_back(end);
        return m_free_at.size() - 1;
    }
    std::size_t size() const { return m_free_at.size(); }

private:
    std::vector<Picoseconds> m_free_at;
};

// A time inside [begin, end) near `edge`: flow events bind to the slice holding their time, so
// they must not sit on a boundary two slices share.
Picoseconds inside(Picoseconds begin, Picoseconds end, bool near_end) {
    const Picoseconds step = std::min<Picoseconds>((end - begin) / 2, 1000);
    return near_end ? end - step : begin + step;
}

}  // namespace

void record_op_tracks(Timeline& timeline, const std::string& group, const OpLedger& ledger,
                      const DieParams& params) {
    const std::vector<OpRecord>& ops = ledger.records();
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].finished && ops[i].end > ops[i].start) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ops[a].start < ops[b].start; });
    Lanes compute, comm;
    std::vector<std::size_t> lane(ops.size(), SIZE_MAX);
    for (std::size_t i : order) {
        Lanes& l = ops[i].kind == trace::OpKind::kCollective ? comm : compute;
        lane[i] = l.place(ops[i].start, ops[i].end);
    }
    // Tracks in display order: the op lanes, then the collective lanes.
    std::vector<Timeline::TrackId> compute_tracks, comm_tracks;
    for (std::size_t i = 0; i < compute.size(); ++i) {
        compute_tracks.push_back(timeline.slice_track(group, fmt::format("ops {}", i + 1)));
    }
    for (std::size_t i = 0; i < comm.size(); ++i) {
        comm_tracks.push_back(timeline.slice_track(group, fmt::format("collectives {}", i + 1)));
    }
    auto track_of = [&](std::size_t i) {
        return ops[i].kind == trace::OpKind::kCollective ? comm_tracks[lane[i]]
                                                         : compute_tracks[lane[i]];
    };
    for (std::size_t i : order) {
        const OpRecord& r = ops[i];
        const double rate = l2_hit_rate(r);
        std::string args = fmt::format(
            R"({{"op":{},"kind":"{}","flops":{},"hbm_read_bytes":{},"hbm_write_bytes":{})", r.id,
            trace::to_string(r.kind), r.flops, r.hbm_read_bytes, r.hbm_write_bytes);
        if (rate >= 0) args += fmt::format(R"(,"l2_hit_rate":{})", rate);
        args += fmt::format(R"(,"bound":"{}"}})", to_string(bound_of(r, params)));
        const std::string name = (r.name.empty() ? std::string(trace::to_string(r.kind)) : r.name) +
                                 " #" + std::to_string(r.id);
        timeline.slice(track_of(i), r.start, r.end, timeline.label(name),
                       timeline.args(std::move(args)));
    }
    for (std::size_t i : order) {
        for (uint64_t dep : ledger.deps(i)) {
            const std::size_t from = ledger.seq_of(dep);
            if (from == SIZE_MAX || lane[from] == SIZE_MAX) continue;
            timeline.flow(track_of(from), inside(ops[from].start, ops[from].end, true), track_of(i),
                          inside(ops[i].start, ops[i].end, false));
        }
    }
}

void record_cube_utilisation(Timeline& timeline, const std::string& group, const Die& die) {
    const Picoseconds end = die.dispatcher().end_time_ps();
    const BusyWindows::Summary s = die.cube_windows().summarize(end, die.params().ai_cores);
    if (s.curve.empty()) return;
    const Timeline::TrackId track = timeline.value_track(group, "Cube utilisation", "%");
    const Picoseconds window = die.cube_windows().window();
    for (std::size_t i = 0; i < s.curve.size(); ++i) {
        timeline.set_value(track, static_cast<Picoseconds>(i) * window, 100.0 * s.curve[i]);
    }
    // Whole windows only (as the summary), or the one window [0, end) of a shorter run.
    timeline.set_value(track, std::min(end, static_cast<Picoseconds>(s.curve.size()) * window),
                       0.0);
}

std::string write_timeline(AtomicOutputDir& out, const Timeline& timeline, bool gzip) {
    std::ostringstream json;
    timeline.write_json(json);
    const std::string file = gzip ? "timeline.json.gz" : "timeline.json";
    out.write(file, gzip ? gzip_compress(json.str()) : json.str());
    if (timeline.dropped() != 0) {
        std::fprintf(
            stderr,
            "ascend-sim: warning: %s holds the first %llu slices and %llu arrows; %llu more were "
            "dropped (choose a window with --timeline-window or cores with --timeline-cores)\n",
            file.c_str(), static_cast<unsigned long long>(timeline.slices()),
            static_cast<unsigned long long>(timeline.flows()),
            static_cast<unsigned long long>(timeline.dropped()));
    }
    return file;
}

}  // namespace asim
