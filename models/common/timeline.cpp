#include "models/common/timeline.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/units.h"

namespace asim {

namespace {

Picoseconds parse_time(const std::string& text, const std::string& option) {
    try {
        const int64_t ps = units::picoseconds(text);
        if (ps < 0) throw InputError(option + ": '" + text + "' is negative");
        return static_cast<Picoseconds>(ps);
    } catch (const units::UnitError& e) {
        throw InputError(option + ": " + e.what());
    }
}

uint32_t parse_core(const std::string& text) {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
        v = std::stoul(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || v > 1'000'000) {
        throw InputError("--timeline-cores: '" + text +
                         "' is not a core number (expected e.g. 0-3,8)");
    }
    return static_cast<uint32_t>(v);
}

// Picoseconds as trace-event microseconds, exactly (six decimals).
std::string micros(Picoseconds ps) {
    return fmt::format("{}.{:06}", ps / 1'000'000, ps % 1'000'000);
}

}  // namespace

void parse_timeline_window(const std::string& text, TimelineOptions& o) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) {
        throw InputError(
            "--timeline-window: expected START:END (e.g. 100us:250us; either may be empty), got '" +
            text + "'");
    }
    const std::string begin = text.substr(0, colon), end = text.substr(colon + 1);
    if (!begin.empty()) o.window_begin = parse_time(begin, "--timeline-window");
    if (!end.empty()) o.window_end = parse_time(end, "--timeline-window");
    if (o.window_end <= o.window_begin) {
        throw InputError("--timeline-window: the end must come after the start in '" + text + "'");
    }
}

void parse_timeline_cores(const std::string& text, TimelineOptions& o) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        const std::size_t dash = item.find('-');
        const uint32_t first = parse_core(item.substr(0, dash));
        const uint32_t last = dash == std::string::npos ? first : parse_core(item.substr(dash + 1));
        if (last < first) throw InputError("--timeline-cores: empty range '" + item + "'");
        for (uint32_t c = first; c <= last; ++c) o.cores.insert(c);
        pos = comma + 1;
    }
}

Timeline::Timeline(TimelineOptions options) : m_options(std::move(options)) {
    if (m_options.counter_bucket == 0) m_options.counter_bucket = 1;
    m_labels.emplace_back("");  // label 0: unnamed
    m_args.emplace_back("");    // args 0: none
}

uint32_t Timeline::group_of(const std::string& group) {
    const auto it = std::find(m_groups.begin(), m_groups.end(), group);
    if (it != m_groups.end()) return static_cast<uint32_t>(it - m_groups.begin());
    m_groups.push_back(group);
    return static_cast<uint32_t>(m_groups.size() - 1);
}

Timeline::TrackId Timeline::slice_track(const std::string& group, const std::string& name) {
    m_tracks.push_back(Track{group_of(group), name, false, {}, {}, {}});
    return static_cast<TrackId>(m_tracks.size() - 1);
}

Timeline::TrackId Timeline::counter_track(const std::string& group, const std::string& name) {
    m_tracks.push_back(Track{group_of(group), name, true, {}, {}, {}});
    return static_cast<TrackId>(m_tracks.size() - 1);
}

Timeline::TrackId Timeline::value_track(const std::string& group, const std::string& name,
                                        const std::string& unit) {
    m_tracks.push_back(Track{group_of(group), name, true, {}, unit, {}});
    return static_cast<TrackId>(m_tracks.size() - 1);
}

void Timeline::set_value(TrackId track, Picoseconds t, double value) {
    if (track == kNoTrack || t < m_options.window_begin || t >= m_options.window_end) return;
    m_tracks[track].values.emplace_back(t, value);
}

uint32_t Timeline::label(const std::string& text) {
    const auto [it, inserted] = m_label_ids.emplace(text, static_cast<uint32_t>(m_labels.size()));
    if (inserted) m_labels.push_back(text);
    return it->second;
}

uint32_t Timeline::args(std::string json_object) {
    m_args.push_back(std::move(json_object));
    return static_cast<uint32_t>(m_args.size() - 1);
}

bool Timeline::full() {
    if (m_slices.size() + m_flows.size() < m_options.max_events) return false;
    ++m_dropped;
    return true;
}

void Timeline::slice(TrackId track, Picoseconds begin, Picoseconds end, uint32_t label,
                     uint32_t args) {
    if (track == kNoTrack || end <= begin) return;
    if (end <= m_options.window_begin || begin >= m_options.window_end) return;
    if (full()) return;
    m_slices.push_back(Slice{track, label, args, begin, end});
}

void Timeline::flow(TrackId from, Picoseconds from_t, TrackId to, Picoseconds to_t) {
    if (from == kNoTrack || to == kNoTrack) return;
    const auto inside = [this](Picoseconds t) {
        return t >= m_options.window_begin && t < m_options.window_end;
    };
    if (!inside(from_t) || !inside(to_t)) return;
    if (full()) return;
    m_flows.push_back(Flow{from, to, from_t, to_t});
}

void Timeline::add_bytes(TrackId track, Picoseconds t, uint64_t bytes) {
    if (track == kNoTrack || t < m_options.window_begin || t >= m_options.window_end) return;
    m_tracks[track].buckets[t / m_options.counter_bucket] += static_cast<double>(bytes);
}

void Timeline::add_bytes_over(TrackId track, Picoseconds begin, Picoseconds end, double bytes) {
    if (track == kNoTrack || bytes <= 0) return;
    if (end <= begin) {
        if (begin >= m_options.window_begin && begin < m_options.window_end) {
            m_tracks[track].buckets[begin / m_options.counter_bucket] += bytes;
        }
        return;
    }
    const double per_ps = bytes / static_cast<double>(end - begin);
    const Picoseconds from = std::max(begin, m_options.window_begin);
    const Picoseconds to = std::min(end, m_options.window_end);
    const Picoseconds bucket = m_options.counter_bucket;
    for (Picoseconds t = from; t < to;) {
        const Picoseconds next = std::min(to, (t / bucket + 1) * bucket);
        m_tracks[track].buckets[t / bucket] += per_ps * static_cast<double>(next - t);
        t = next;
    }
}

void Timeline::write_json(std::ostream& out) const {
    // Perfetto shows processes by pid and threads by tid; tids are unique across the file.
    out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    auto sep = [&] {
        if (!first) out << ",\n";
        first = false;
    };
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        sep();
        out << fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":{}}}}})",
                           g + 1, nlohmann::json(m_groups[g]).dump());
        sep();
        out << fmt::format(
            R"({{"ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}}}})",
            g + 1, g);
    }
    for (std::size_t t = 0; t < m_tracks.size(); ++t) {
        const Track& track = m_tracks[t];
        if (track.counter) continue;  // counters are named by their events
        sep();
        out << fmt::format(
            R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})",
            track.group + 1, t + 1, nlohmann::json(track.name).dump());
        sep();
        out << fmt::format(
            R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
            track.group + 1, t + 1, t);
    }
    for (const Slice& s : m_slices) {
        const Track& track = m_tracks[s.track];
        sep();
        out << fmt::format(R"({{"ph":"X","name":{},"pid":{},"tid":{},"ts":{},"dur":{})",
                           nlohmann::json(m_labels[s.label]).dump(), track.group + 1, s.track + 1,
                           micros(s.begin), micros(s.end - s.begin));
        if (s.args != 0) out << ",\"args\":" << m_args[s.args];
        out << '}';
    }
    // Flow events bind to the slice enclosing their time on their thread ("bp":"e" for the end).
    for (std::size_t i = 0; i < m_flows.size(); ++i) {
        const Flow& f = m_flows[i];
        sep();
        out << fmt::format(
            R"({{"ph":"s","name":"dependency","cat":"dep","id":{},"pid":{},"tid":{},"ts":{}}})",
            i + 1, m_tracks[f.from].group + 1, f.from + 1, micros(f.from_t));
        sep();
        out << fmt::format(
            R"({{"ph":"f","bp":"e","name":"dependency","cat":"dep","id":{},"pid":{},"tid":{},"ts":{}}})",
            i + 1, m_tracks[f.to].group + 1, f.to + 1, micros(f.to_t));
    }
    const double bucket_s = static_cast<double>(m_options.counter_bucket) * 1e-12;
    for (std::size_t t = 0; t < m_tracks.size(); ++t) {
        const Track& track = m_tracks[t];
        if (!track.unit.empty()) {
            for (const auto& [at, value] : track.values) {
                sep();
                out << fmt::format(
                    R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{{{}:{:.3f}}}}})",
                    nlohmann::json(track.name).dump(), track.group + 1, micros(at),
                    nlohmann::json(track.unit).dump(), value);
            }
            continue;
        }
        if (!track.counter || track.buckets.empty()) continue;
        std::vector<std::pair<uint64_t, double>> buckets(track.buckets.begin(),
                                                         track.buckets.end());
        std::sort(buckets.begin(), buckets.end());
        const std::string name = nlohmann::json(track.name).dump();
        auto emit = [&](uint64_t bucket, double gbps) {
            sep();
            out << fmt::format(
                R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{{"GB/s":{:.3f}}}}})", name,
                track.group + 1, micros(bucket * m_options.counter_bucket), gbps);
        };
        for (std::size_t i = 0; i < buckets.size(); ++i) {
            // A bucket with nothing in it after a busy one drops the curve to zero.
            if (i > 0 && buckets[i - 1].first + 1 < buckets[i].first)
                emit(buckets[i - 1].first + 1, 0.0);
            emit(buckets[i].first, buckets[i].second / bucket_s * 1e-9);
        }
        emit(buckets.back().first + 1, 0.0);
    }
    out << "\n]}\n";
}

}  // namespace asim
