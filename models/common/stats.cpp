#include "models/common/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace asim {

namespace {
// 32 buckets per power of two: unit-wide below 64 (exact percentiles for small latencies, such as
// an unloaded HBM's ~90 ns), at most 1/32 (3.1 %) of the value wide above. A histogram holds one
// counter per bucket up to its largest sample: about 2 KiB for nanosecond latencies below 4 us.
constexpr int kSubBucketBits = 5;
constexpr uint64_t kSubBuckets = 1u << kSubBucketBits;

std::string num(double v) { return fmt::format("{:.17g}", v); }

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(path);
    while (std::getline(in, part, '.')) parts.push_back(part);
    return parts;
}

std::string csv_escape(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}
}  // namespace

std::vector<std::pair<std::string, std::string>> Counter::csv_fields() const {
    return {{"value", std::to_string(m_value)}};
}

void Average::sample(double v) {
    if (m_count == 0) {
        m_min = m_max = v;
    } else {
        m_min = std::min(m_min, v);
        m_max = std::max(m_max, v);
    }
    ++m_count;
    m_sum += v;
}

void Average::restore(uint64_t count, double sum, double min, double max) {
    m_count = count;
    m_sum = sum;
    m_min = min;
    m_max = max;
}

nlohmann::json Average::to_json() const {
    return {{"count", m_count}, {"sum", m_sum}, {"mean", mean()}, {"min", min()}, {"max", max()}};
}

std::vector<std::pair<std::string, std::string>> Average::csv_fields() const {
    return {{"count", std::to_string(m_count)},
            {"mean", num(mean())},
            {"min", num(min())},
            {"max", num(max())}};
}

// Values below 32 get a bucket each; above, each power of two [2^e, 2^(e+1)) splits into 32
// (so [32, 64) is unit-wide too).
std::size_t Histogram::bucket_of(uint64_t v) {
    if (v < kSubBuckets) return static_cast<std::size_t>(v);
    const int e = 63 - __builtin_clzll(v);  // v in [2^e, 2^(e+1)), e >= kSubBucketBits
    const uint64_t sub = (v >> (e - kSubBucketBits)) & (kSubBuckets - 1);
    return static_cast<std::size_t>((e - kSubBucketBits + 1) * kSubBuckets + sub);
}

uint64_t Histogram::bucket_low(std::size_t b) {
    if (b < kSubBuckets) return b;
    const int e = static_cast<int>(b / kSubBuckets) + kSubBucketBits - 1;
    const uint64_t sub = b % kSubBuckets;
    return (uint64_t{1} << e) + (sub << (e - kSubBucketBits));
}

uint64_t Histogram::bucket_high(std::size_t b) {
    if (b < kSubBuckets) return b + 1;
    const int e = static_cast<int>(b / kSubBuckets) + kSubBucketBits - 1;
    const uint64_t low = bucket_low(b);
    const uint64_t width = uint64_t{1} << (e - kSubBucketBits);
    return low > std::numeric_limits<uint64_t>::max() - width ? std::numeric_limits<uint64_t>::max()
                                                              : low + width;
}

void Histogram::sample(uint64_t v) {
    const std::size_t b = bucket_of(v);
    if (b >= m_buckets.size()) m_buckets.resize(b + 1, 0);
    ++m_buckets[b];
    if (m_count == 0 || v < m_min) m_min = v;
    m_max = std::max(m_max, v);
    ++m_count;
    m_sum += v;
}

uint64_t percentile_rank(double q, uint64_t n) {
    // The small tolerance keeps q * n that should be an integer (0.95 * 100) from rounding up.
    const double x = std::clamp(q, 0.0, 1.0) * static_cast<double>(n);
    const auto r = static_cast<uint64_t>(std::ceil(x - 1e-9 * std::max(1.0, x)));
    return std::clamp<uint64_t>(r, 1, std::max<uint64_t>(n, 1));
}

uint64_t percentile_in_bucket(uint64_t k, uint64_t count, uint64_t low, uint64_t high, uint64_t min,
                              uint64_t max) {
    const uint64_t a = std::max(low, min);
    const uint64_t z = std::min(high - 1, max);
    if (z <= a || count == 0) return std::clamp(a, min, max);
    const double width = static_cast<double>(z - a) + 1.0;
    const double share =
        (static_cast<double>(std::clamp<uint64_t>(k, 1, count)) - 0.5) / static_cast<double>(count);
    const double v = static_cast<double>(a) - 0.5 + share * width;
    const auto rounded = static_cast<uint64_t>(std::floor(std::max(0.0, v + 0.5)));
    return std::clamp(rounded, a, z);
}

uint64_t Histogram::percentile(double q) const {
    if (m_count == 0) return 0;
    const uint64_t rank = percentile_rank(q, m_count);
    if (rank == 1) return m_min;  // the extremes are known exactly
    if (rank == m_count) return m_max;
    uint64_t before = 0;
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        if (before + m_buckets[b] >= rank) {
            return percentile_in_bucket(rank - before, m_buckets[b], bucket_low(b), bucket_high(b),
                                        m_min, m_max);
        }
        before += m_buckets[b];
    }
    return m_max;
}

nlohmann::json Histogram::to_json() const {
    nlohmann::json bins = nlohmann::json::array();
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        if (m_buckets[b]) bins.push_back({bucket_low(b), bucket_high(b), m_buckets[b]});
    }
    return {{"count", m_count},
            {"sum", m_sum},
            {"mean", mean()},
            {"min", min()},
            {"max", m_max},
            {"p50", percentile(0.50)},
            {"p95", percentile(0.95)},
            {"p99", percentile(0.99)},
            {"bins", bins}};
}

void Histogram::restore(const nlohmann::json& j) {
    m_count = j.at("count").get<uint64_t>();
    m_sum = j.at("sum").get<uint64_t>();
    m_min = j.at("min").get<uint64_t>();
    m_max = j.at("max").get<uint64_t>();
    m_buckets.clear();
    for (const auto& bin : j.at("bins")) {
        const std::size_t b = bucket_of(bin.at(0).get<uint64_t>());
        if (b >= m_buckets.size()) m_buckets.resize(b + 1, 0);
        m_buckets[b] = bin.at(2).get<uint64_t>();
    }
}

std::vector<std::pair<std::string, std::string>> Histogram::csv_fields() const {
    return {{"count", std::to_string(m_count)},
            {"mean", num(mean())},
            {"min", std::to_string(min())},
            {"max", std::to_string(m_max)},
            {"p50", std::to_string(percentile(0.50))},
            {"p95", std::to_string(percentile(0.95))},
            {"p99", std::to_string(percentile(0.99))}};
}

template <typename T>
T& StatsRegistry::add(const std::string& path, std::string description, std::string unit) {
    if (path.empty() || path.front() == '.' || path.back() == '.' ||
        path.find("..") != std::string::npos) {
        throw std::logic_error("stats: malformed path '" + path + "'");
    }
    auto [it, inserted] = m_stats.emplace(path, nullptr);
    if (!inserted) throw std::logic_error("stats: '" + path + "' registered twice");
    auto stat = std::make_unique<T>(std::move(description), std::move(unit));
    T& ref = *stat;
    it->second = std::move(stat);
    return ref;
}

Counter& StatsRegistry::counter(const std::string& path, std::string description,
                                std::string unit) {
    return add<Counter>(path, std::move(description), std::move(unit));
}
Average& StatsRegistry::average(const std::string& path, std::string description,
                                std::string unit) {
    return add<Average>(path, std::move(description), std::move(unit));
}
Histogram& StatsRegistry::histogram(const std::string& path, std::string description,
                                    std::string unit) {
    return add<Histogram>(path, std::move(description), std::move(unit));
}

const Stat* StatsRegistry::find(const std::string& path) const {
    auto it = m_stats.find(path);
    return it == m_stats.end() ? nullptr : it->second.get();
}

nlohmann::json StatsRegistry::to_json() const {
    nlohmann::json tree = nlohmann::json::object();
    for (const auto& [path, stat] : m_stats) {
        nlohmann::json* node = &tree;
        const auto parts = split_path(path);
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
            nlohmann::json& next = (*node)[parts[i]];
            if (!next.is_object() && !next.is_null()) {
                throw std::logic_error("stats: '" + path + "' nests under a leaf");
            }
            node = &next;
        }
        (*node)[parts.back()] = stat->to_json();
    }
    return tree;
}

std::string StatsRegistry::to_csv() const {
    std::string out = "path,kind,field,value,unit,description\n";
    for (const auto& [path, stat] : m_stats) {
        for (const auto& [field, value] : stat->csv_fields()) {
            out += fmt::format("{},{},{},{},{},{}\n", path, stat->kind(), field, value,
                               csv_escape(stat->unit()), csv_escape(stat->description()));
        }
    }
    return out;
}

namespace {
void rebuild(StatsRegistry& reg, const nlohmann::json& node, const std::string& prefix) {
    for (const auto& [key, value] : node.items()) {
        const std::string path = prefix.empty() ? key : prefix + "." + key;
        if (value.is_number_unsigned() || value.is_number_integer()) {
            reg.counter(path, "").set(value.get<uint64_t>());
        } else if (value.is_object() && value.contains("bins")) {
            reg.histogram(path, "").restore(value);
        } else if (value.is_object() && value.contains("mean") && value.contains("count")) {
            reg.average(path, "").restore(
                value.at("count").get<uint64_t>(), value.at("sum").get<double>(),
                value.at("min").get<double>(), value.at("max").get<double>());
        } else if (value.is_object()) {
            rebuild(reg, value, path);
        } else {
            throw std::invalid_argument("stats: cannot read '" + path + "'");
        }
    }
}
}  // namespace

StatsRegistry StatsRegistry::from_json(const nlohmann::json& tree) {
    StatsRegistry reg;
    rebuild(reg, tree, "");
    return reg;
}

}  // namespace asim
