// The statistics registry. Components register named statistics at construction through a
// StatsGroup (below), which prefixes their module path ("die.core3.cube.busy_cycles"), and update
// them while running; only the platform turns the registry into files (JSON tree and CSV), so
// components never write files.
//
// Kinds: Counter (an integer: added to while running, or set once from a total at the end),
// Average (sum, count, min, max of samples) and
// Histogram (log-linear buckets: one per value below 64, then 32 per power of two, so a bucket is
// at most 1/32 of its values wide and memory is bounded whatever the number of samples).
// Percentiles are exact where a bucket holds one possible value (every value below 64, and any
// bucket the observed min or max narrows to one value) and at the extremes (p0 = min, p100 =
// max); elsewhere they are interpolated inside the bucket (percentile_in_bucket), always within
// [min, max].
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace asim {

class Stat {
public:
    virtual ~Stat() = default;
    const std::string& description() const { return m_description; }
    const std::string& unit() const { return m_unit; }
    virtual const char* kind() const = 0;
    virtual nlohmann::json to_json() const = 0;
    // Rows "field,value" for CSV (one per exported field).
    virtual std::vector<std::pair<std::string, std::string>> csv_fields() const = 0;

protected:
    Stat(std::string description, std::string unit)
        : m_description(std::move(description)), m_unit(std::move(unit)) {}

private:
    std::string m_description;
    std::string m_unit;
};

class Counter final : public Stat {
public:
    Counter(std::string description, std::string unit)
        : Stat(std::move(description), std::move(unit)) {}
    Counter& operator+=(uint64_t n) {
        m_value += n;
        return *this;
    }
    Counter& operator++() {
        ++m_value;
        return *this;
    }
    void set(uint64_t v) { m_value = v; }
    uint64_t value() const { return m_value; }
    const char* kind() const override { return "counter"; }
    nlohmann::json to_json() const override { return m_value; }
    std::vector<std::pair<std::string, std::string>> csv_fields() const override;

private:
    uint64_t m_value = 0;
};

class Average final : public Stat {
public:
    Average(std::string description, std::string unit)
        : Stat(std::move(description), std::move(unit)) {}
    void sample(double v);
    uint64_t count() const { return m_count; }
    double sum() const { return m_sum; }
    double mean() const { return m_count ? m_sum / static_cast<double>(m_count) : 0.0; }
    double min() const { return m_count ? m_min : 0.0; }
    double max() const { return m_count ? m_max : 0.0; }
    const char* kind() const override { return "average"; }
    nlohmann::json to_json() const override;
    std::vector<std::pair<std::string, std::string>> csv_fields() const override;
    void restore(uint64_t count, double sum, double min, double max);

private:
    uint64_t m_count = 0;
    double m_sum = 0.0, m_min = 0.0, m_max = 0.0;
};

class Histogram final : public Stat {
public:
    Histogram(std::string description, std::string unit)
        : Stat(std::move(description), std::move(unit)) {}
    void sample(uint64_t v);
    uint64_t count() const { return m_count; }
    double mean() const {
        return m_count ? static_cast<double>(m_sum) / static_cast<double>(m_count) : 0.0;
    }
    uint64_t min() const { return m_count ? m_min : 0; }
    uint64_t max() const { return m_max; }
    // The nearest-rank q-quantile (the ceil(q * count)-th smallest sample), exact in unit-wide
    // buckets and interpolated inside wider ones (percentile_in_bucket); in [min, max].
    uint64_t percentile(double q) const;
    const char* kind() const override { return "histogram"; }
    nlohmann::json to_json() const override;
    std::vector<std::pair<std::string, std::string>> csv_fields() const override;
    void restore(const nlohmann::json& j);

    static std::size_t bucket_of(uint64_t v);
    static uint64_t bucket_low(std::size_t b);
    static uint64_t bucket_high(std::size_t b);  // exclusive

private:
    std::vector<uint64_t> m_buckets;  // grown on demand
    uint64_t m_count = 0, m_sum = 0, m_min = 0, m_max = 0;
};

// The rank (1-based, in [1, n]) of the nearest-rank q-quantile of n samples: ceil(q * n).
uint64_t percentile_rank(double q, uint64_t n);

// The k-th smallest (1-based) of the `count` integer samples in a histogram bucket covering
// [low, high), for samples observed in [min, max]. The bucket is first narrowed to the values it
// can hold, [max(low, min), min(high - 1, max)]; if one value remains, that is the answer
// (exact). Otherwise the samples are taken as evenly spread over the narrowed range (each
// integer v standing for [v - 0.5, v + 0.5)), the k-th at the middle of its share, rounded to
// the nearest integer. Monotone in k; a bucket filled evenly gives its values exactly.
uint64_t percentile_in_bucket(uint64_t k, uint64_t count, uint64_t low, uint64_t high, uint64_t min,
                              uint64_t max);

class StatsRegistry {
public:
    // Registration. A path may be registered once; a second registration is a programming error
    // (std::logic_error). Paths are dotted; no path may be a prefix-directory of a leaf.
    Counter& counter(const std::string& path, std::string description, std::string unit = "");
    Average& average(const std::string& path, std::string description, std::string unit = "");
    Histogram& histogram(const std::string& path, std::string description, std::string unit = "");

    const Stat* find(const std::string& path) const;
    std::size_t size() const { return m_stats.size(); }

    // Nested JSON object keyed by path components, leaves as Stat::to_json().
    nlohmann::json to_json() const;
    // "path,kind,field,value,unit,description" with a header row.
    std::string to_csv() const;
    // Rebuilds a registry from to_json() output (used to compare and merge runs).
    static StatsRegistry from_json(const nlohmann::json& tree);

private:
    template <typename T>
    T& add(const std::string& path, std::string description, std::string unit);
    std::map<std::string, std::unique_ptr<Stat>> m_stats;  // sorted: deterministic output
};

// The statistics of one owner, registered under its module path: the owner names each statistic
// by its own name and the group prefixes the path (gem5's statistics::Group, SST's statistics
// declarations), so no path is spelt by hand. Cheap to copy.
//   StatsGroup g(stats, *this);                // an sc_module: its name() ("die.l2")
//   m_hits = &g.counter("hits", "demand hits");  // "die.l2.hits"
//   StatsGroup part = g.group("partition.weight");
class StatsGroup {
public:
    StatsGroup(StatsRegistry& registry, std::string path)
        : m_registry(&registry), m_path(std::move(path)) {}
    // Any owner with a name() (an sc_module): its hierarchical name is the path.
    template <typename Owner, typename = decltype(std::declval<const Owner&>().name())>
    StatsGroup(StatsRegistry& registry, const Owner& owner)
        : StatsGroup(registry, std::string(owner.name())) {}

    Counter& counter(const std::string& name, std::string description,
                     std::string unit = "") const {
        return m_registry->counter(path_of(name), std::move(description), std::move(unit));
    }
    Average& average(const std::string& name, std::string description,
                     std::string unit = "") const {
        return m_registry->average(path_of(name), std::move(description), std::move(unit));
    }
    Histogram& histogram(const std::string& name, std::string description,
                         std::string unit = "") const {
        return m_registry->histogram(path_of(name), std::move(description), std::move(unit));
    }
    // A group below this one ("partition.weight").
    StatsGroup group(const std::string& name) const {
        return StatsGroup(*m_registry, path_of(name));
    }

    const std::string& path() const { return m_path; }
    StatsRegistry& registry() const { return *m_registry; }

private:
    std::string path_of(const std::string& name) const {
        return m_path.empty() ? name : m_path + "." + name;
    }
    StatsRegistry* m_registry;
    std::string m_path;
};

}  // namespace asim
