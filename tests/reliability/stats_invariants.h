// Statistics that cannot be right: a negative or non-finite number, a count that wrapped (an
// unsigned counter decremented below zero reads as nearly 2^64), or a distribution whose
// minimum exceeds its maximum or whose percentiles run backwards. Shared by the random-traffic
// tests and the checks of stats.json written by the binary.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace asim::test {

// Every violation as "path: what", walking `j` (a stats or summary tree).
inline std::vector<std::string> stats_violations(const nlohmann::json& j,
                                                 const std::string& path = "") {
    constexpr double kWrapped = 4.611686018427388e18;  // 2^62: no honest count gets there
    std::vector<std::string> out;
    auto at = [&path](const std::string& key) { return path.empty() ? key : path + "." + key; };
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            auto sub = stats_violations(it.value(), at(it.key()));
            out.insert(out.end(), sub.begin(), sub.end());
        }
        auto number = [&j](const char* k) {
            return j.contains(k) && j[k].is_number() ? j[k].get<double>() : NAN;
        };
        const double lo = number("min"), hi = number("max"), mean = number("mean");
        if (lo > hi)
            out.push_back(path + ": min " + std::to_string(lo) + " > max " + std::to_string(hi));
        if (!std::isnan(mean) && (mean < lo * (1 - 1e-9) || mean > hi * (1 + 1e-9)))
            out.push_back(path + ": mean " + std::to_string(mean) + " outside [min, max]");
        const double p50 = number("p50"), p95 = number("p95"), p99 = number("p99");
        if (p50 > p95 || p95 > p99) out.push_back(path + ": percentiles run backwards");
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            auto sub = stats_violations(j[i], path + "[" + std::to_string(i) + "]");
            out.insert(out.end(), sub.begin(), sub.end());
        }
    } else if (j.is_number()) {
        const double v = j.get<double>();
        if (!std::isfinite(v)) {
            out.push_back(path + ": not finite");
        } else if (v < 0) {
            out.push_back(path + ": negative (" + j.dump() + ")");
        } else if (v >= kWrapped) {
            out.push_back(path + ": wrapped (" + j.dump() + ")");
        }
    }
    return out;
}

}  // namespace asim::test
