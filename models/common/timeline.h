// A recorder of what the hardware did when, written as a Chrome / Perfetto trace-event file
// (JSON, https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU,
// opened by ui.perfetto.dev and chrome://tracing).
//
// Components that are given a Timeline record two kinds of track:
//  - slice tracks: intervals (a pipe busy on an op's tile), shown as bars;
//  - counter tracks: amounts (bytes moved) summed into fixed time buckets and shown as a rate;
//  - flows: arrows from one slice to another (an op to the op that waits for it).
// A slice may carry arguments (an op's id, FLOPs, bytes), shown when it is selected.
// Tracks are grouped: a group becomes a Perfetto "process" (e.g. `die.core3`), a track one of its
// "threads" (e.g. `AIC Cube`), in the order they were created.
//
// Large runs stay usable: only what overlaps the time window is kept, a component asks
// `core_selected` before it creates per-core tracks, and past `max_events` slices and flows
// further ones are counted as dropped rather than stored. Components never write files; the job
// does, with `write_json` (and gzip_compress for a .json.gz). Recording costs nothing when no
// Timeline is given (components hold a null pointer).
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/common/clock_domain.h"

namespace asim {

struct TimelineOptions {
    Picoseconds window_begin = 0;
    Picoseconds window_end = std::numeric_limits<Picoseconds>::max();
    std::set<uint32_t> cores;                // empty: every core, or none (all_cores_by_default)
    bool all_cores_by_default = true;        // false for trace sets: op tracks per die, no pipes
    Picoseconds counter_bucket = 1'000'000;  // 1 us
    uint64_t max_events = 4'000'000;         // slices and flows kept; about 100 B each in the file
};

// Parses "START:END" (times with units, either side may be empty: "100us:", ":2ms") into the
// window of `o`, and "0-3,8" into its core set. Throw InputError naming the option.
void parse_timeline_window(const std::string& text, TimelineOptions& o);
void parse_timeline_cores(const std::string& text, TimelineOptions& o);

class Timeline {
public:
    using TrackId = uint32_t;
    static constexpr TrackId kNoTrack = std::numeric_limits<TrackId>::max();

    explicit Timeline(TimelineOptions options);

    // Creates `group` now if it is new, so that it is shown before groups created later.
    void declare_group(const std::string& group) { group_of(group); }

    bool core_selected(uint32_t core) const {
        return m_options.cores.empty() ? m_options.all_cores_by_default
                                       : m_options.cores.count(core) != 0;
    }

    TrackId slice_track(const std::string& group, const std::string& name);
    // A counter of bytes, shown as GB/s per bucket.
    TrackId counter_track(const std::string& group, const std::string& name);
    // A counter of values set at points in time (a utilisation in %), shown under `unit`.
    TrackId value_track(const std::string& group, const std::string& name, const std::string& unit);
    // The value of a value track from `t` on (until the next one); kept inside the window.
    void set_value(TrackId track, Picoseconds t, double value);

    // A name shown on slices, interned once (e.g. "matmul #12").
    uint32_t label(const std::string& text);

    // Arguments shown with a slice: `json_object` is a rendered JSON object ("{\"op\":12}").
    // 0 stands for none.
    uint32_t args(std::string json_object);

    // Records [begin, end) on `track` under `label`; ignored outside the window or for kNoTrack.
    void slice(TrackId track, Picoseconds begin, Picoseconds end, uint32_t label,
               uint32_t args = 0);
    // An arrow from the slice on `from` that holds time `from_t` to the slice on `to` that holds
    // `to_t` (pick times inside the slices, not at their edges); kept when both are in the window.
    void flow(TrackId from, Picoseconds from_t, TrackId to, Picoseconds to_t);
    // Adds `bytes` at time `t` to a counter track.
    void add_bytes(TrackId track, Picoseconds t, uint64_t bytes);
    // Adds `bytes` moved evenly over [begin, end) to a counter track, split over its buckets.
    void add_bytes_over(TrackId track, Picoseconds begin, Picoseconds end, double bytes);

    uint64_t slices() const { return m_slices.size(); }
    uint64_t flows() const { return m_flows.size(); }
    uint64_t dropped() const { return m_dropped; }

    // Writes the trace-event JSON: metadata naming groups and tracks, the slices as complete
    // events ("X"), flows as start / finish pairs ("s", "f"), counters as GB/s per bucket ("C").
    void write_json(std::ostream& out) const;

private:
    struct Track {
        uint32_t group;
        std::string name;
        bool counter;
        std::unordered_map<uint64_t, double> buckets;  // bucket index -> bytes (counters)
        std::string unit;                              // value tracks: the unit, else empty
        std::vector<std::pair<Picoseconds, double>> values;
    };
    struct Slice {
        TrackId track;
        uint32_t label;
        uint32_t args;
        Picoseconds begin, end;
    };
    struct Flow {
        TrackId from, to;
        Picoseconds from_t, to_t;
    };
    bool full();  // past max_events: counts the event as dropped
    uint32_t group_of(const std::string& group);

    TimelineOptions m_options;
    std::vector<std::string> m_groups;
    std::vector<Track> m_tracks;
    std::vector<std::string> m_labels;
    std::unordered_map<std::string, uint32_t> m_label_ids;
    std::vector<Slice> m_slices;
    std::vector<Flow> m_flows;
    std::vector<std::string> m_args;  // index 0: none
    uint64_t m_dropped = 0;
};

}  // namespace asim
