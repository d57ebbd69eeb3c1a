// Measures how busy HBM is: bytes HBM delivered in a sliding window, as a fraction of what the
// peak bandwidth could move in that window, as a controller's bus-utilisation counter does. The
// HBM model records every access it serves when it completes (its data delivered, its write
// taken; HbmModel::set_load_monitor); the H-JSD raises its throttle when the fraction is above a
// threshold. Arithmetic only.
//
// Delivered, not requested: requests come in bursts (decode attention asks for its KV cache at
// once), so bytes requested per window ran to over twice the peak while a queue built up, and a
// threshold near 1 could not switch the throttle off. Delivered bytes stay within what the device
// moves (an access's bytes count at its completion, so a window can hold slightly more than its
// share of accesses that straddle its start).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "models/common/clock_domain.h"

namespace asim {

class HbmLoadMonitor {
public:
    HbmLoadMonitor(double peak_bytes_per_s, Picoseconds window_ps)
        : m_peak_bytes_per_ps(peak_bytes_per_s * 1e-12),
          m_window_ps(window_ps),
          m_bucket_shift(floor_log2(std::max<Picoseconds>(1, window_ps / kBucketsPerWindow))) {}

    // An access of `bytes` that completes at `done` (at or after the kernel's time). Also forgets
    // what has left the window at the kernel's time: its caller asks at the kernel's time, which
    // never goes back, so no answer changes, and the record holds about one window of accesses
    // (plus those still to complete) instead of every access since the H-JSD last asked (it asks
    // only when its inputs change: a one-op GEMM 16384^3 kept 31 M records, 500 MB).
    void record(Picoseconds done, uint64_t bytes) {
        forget(ClockDomain::to_ps(sc_core::sc_time_stamp()));
        place({done, bytes});
    }

    // Fraction of peak delivered in (now - window, now]. `now` never decreases from one call to
    // the next and is at least the kernel's time of every earlier record().
    double utilisation(Picoseconds now) {
        forget(now);
        return static_cast<double>(delivered(now)) /
               (m_peak_bytes_per_ps * static_cast<double>(m_window_ps));
    }

    Picoseconds window_ps() const { return m_window_ps; }

private:
    // The accesses sit in buckets of completion time (a window is 64 to 128 of them, below):
    // record() is a push, and a question adds whole buckets and looks at single accesses only in
    // the two buckets the window's edges cut. A heap in completion order cost 19 % of the
    // default layer's run time (it held every access still to complete). A bucket spans a power
    // of two ps, the largest within window / kBucketsPerWindow (so 64 to 128 buckets a window):
    // an access's bucket is a shift, not a 64-bit division. The answers do not depend on the
    // bucket size (the edge buckets are looked at access by access).
    static constexpr Picoseconds kBucketsPerWindow = 64;
    // Buckets kept from the oldest one in the window on (32 to 64 windows): an access that
    // completes further ahead (a memory made absurdly slow by --set) waits in m_far, so memory
    // stays bounded.
    static constexpr uint64_t kMaxBuckets = 64 * kBucketsPerWindow;
    struct Record {
        Picoseconds done;
        uint64_t bytes;
    };
    struct Bucket {
        uint64_t bytes = 0;  // of its records
        std::vector<Record> records;
    };

    // Bytes of the accesses completed in (now - window, now].
    uint64_t delivered(Picoseconds now) const {
        if (m_buckets.empty()) return 0;
        const bool whole_past = now < m_window_ps;  // the window reaches back before time 0
        const Picoseconds after = whole_past ? 0 : now - m_window_ps;  // exclusive, unless 0
        const uint64_t lo = std::max(bucket_of(after), m_first);
        const uint64_t hi = std::min<uint64_t>(bucket_of(now), m_first + m_buckets.size() - 1);
        uint64_t sum = 0;
        for (uint64_t i = lo; i <= hi; ++i) {
            const Bucket& b = m_buckets[i - m_first];
            const bool edge = i == hi || (i == lo && !whole_past);
            if (!edge) {
                sum += b.bytes;
                continue;
            }
            for (const Record& r : b.records) {
                if (r.done <= now && (whole_past || r.done > after)) sum += r.bytes;
            }
        }
        return sum;
    }
    // Puts an access into its bucket, or into m_far when that is kMaxBuckets or more ahead.
    void place(const Record& r) {
        const uint64_t index = bucket_of(r.done);
        if (m_buckets.empty() && index < m_first) m_first = index;
        for (; index < m_first; --m_first) m_buckets.emplace_front();  // not after forget()
        if (index - m_first >= kMaxBuckets) {
            m_far.push(r);
            return;
        }
        if (index - m_first >= m_buckets.size()) m_buckets.resize(index - m_first + 1);
        Bucket& b = m_buckets[index - m_first];
        if (b.records.capacity() == 0 && !m_spare.empty()) {
            b.records.swap(m_spare.back());
            m_spare.pop_back();
        }
        b.bytes += r.bytes;
        b.records.push_back(r);
    }
    // Drops the buckets whose accesses all completed at or before now - window, and brings the
    // far accesses that have come within kMaxBuckets into theirs.
    void forget(Picoseconds now) {
        if (now >= m_window_ps) {
            const Picoseconds gone = now - m_window_ps;  // completions at or before it are out
            while (!m_buckets.empty() && ((m_first + 1) << m_bucket_shift) - 1 <= gone) {
                std::vector<Record>& records = m_buckets.front().records;
                if (records.capacity() != 0 && m_spare.size() < kBucketsPerWindow) {
                    records.clear();
                    m_spare.push_back(std::move(records));
                }
                m_buckets.pop_front();
                ++m_first;
            }
            if (m_buckets.empty()) m_first = std::max(m_first, bucket_of(gone));
        }
        while (!m_far.empty() && bucket_of(m_far.top().done) < m_first + kMaxBuckets) {
            const Record r = m_far.top();
            m_far.pop();
            if (bucket_of(r.done) >= m_first) place(r);  // else it has left the window
        }
    }

    double m_peak_bytes_per_ps;
    Picoseconds m_window_ps;
    static int floor_log2(Picoseconds v) { return 63 - __builtin_clzll(v); }
    uint64_t bucket_of(Picoseconds t) const { return t >> m_bucket_shift; }

    int m_bucket_shift;            // a bucket spans 2^m_bucket_shift ps
    std::deque<Bucket> m_buckets;  // bucket m_first + i covers [(m_first + i) << shift, +1)
    uint64_t m_first = 0;
    // Record arrays of forgotten buckets, kept for new ones (each bucket allocating its own was
    // 5 % of a pool run's profile, in malloc and free).
    std::vector<std::vector<Record>> m_spare;
    struct Later {
        bool operator()(const Record& a, const Record& b) const { return a.done > b.done; }
    };
    std::priority_queue<Record, std::vector<Record>, Later> m_far;  // earliest completion on top
};

}  // namespace asim
