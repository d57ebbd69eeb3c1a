#include "models/common/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace asim {

namespace {
constexpr int kSubBucketBits = 3;  // 8 buckets per power of two
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
    return {{"count", std::to_string(m_count)}, {"mean", num(mean())}, {"min", num(min())},
            {"max", num(max())}};
}

// Values below 8 get a bucket each; above, each power of two [2^e, 2^(e+1)) splits into 8.
std::size_t Histogram::bucket_of(uint64_t v) {
    if (v < kSubBuckets) return static_cast<std::size_t>(v);
    const int e = 63 - __builtin_clzll(v);  // v in [2^e, 2^(e+1)), e >= 3
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

uint64_t Histogram::percentile(double q) const {
    if (m_count == 0) return 0;
    const double target = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(m_count));
    uint64_t seen = 0;
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        seen += m_buckets[b];
        if (static_cast<double>(seen) >= target && m_buckets[b] > 0) {
            return std::clamp(bucket_high(b) - 1, m_min, m_max);
        }
    }
    return m_max;
}

nlohmann::json Histogram::to_json() const {
    nlohmann::json bins = nlohmann::json::array();
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        if (m_buckets[b]) bins.push_back({bucket_low(b), bucket_high(b), m_buckets[b]});
    }
    return {{"count", m_count}, {"sum", m_sum},           {"mean", mean()},
            {"min", min()},     {"max", m_max},           {"p50", percentile(0.50)},
            {"p95", percentile(0.95)}, {"p99", percentile(0.99)}, {"bins", bins}};
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
    return {{"count", std::to_string(m_count)},           {"mean", num(mean())},
            {"min", std::to_string(min())},               {"max", std::to_string(m_max)},
            {"p50", std::to_string(percentile(0.50))},    {"p95", std::to_string(percentile(0.95))},
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

Counter& StatsRegistry::counter(const std::string& path, std::string description, std::string unit) {
    return add<Counter>(path, std::move(description), std::move(unit));
}
Average& StatsRegistry::average(const std::string& path, std::string description, std::string unit) {
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
            reg.average(path, "").restore(value.at("count").get<uint64_t>(),
                                          value.at("sum").get<double>(),
                                          value.at("min").get<double>(),
                                          value.at("max").get<double>());
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
