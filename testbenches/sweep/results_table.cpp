#include "testbenches/sweep/results_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "models/common/csv.h"
#include "models/common/units.h"

namespace asim::sweep {

namespace {

void flatten(const nlohmann::json& node, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
    for (auto it = node.begin(); it != node.end(); ++it) {
        if (it.key() == "wall_s") continue;
        const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
        const nlohmann::json& v = it.value();
        if (v.is_object()) {
            flatten(v, path, out);
        } else if (v.is_string()) {
            out.emplace_back(path, v.get<std::string>());
        } else if (v.is_number() || v.is_boolean()) {
            out.emplace_back(path, v.dump());
        }
        // Arrays and nulls have no single cell; the summary has none today.
    }
}

// The documented summary keys (DESIGN §8) lead, in that order; groups by prefix follow.
int rank(const std::string& column) {
    static const std::vector<std::string> kLeading = {"sim_time_ns",
                                                      "ops",
                                                      "flops",
                                                      "achieved_tflops",
                                                      "peak_tflops",
                                                      "peak_dtype",
                                                      "cube_utilization",
                                                      "hbm_read_bytes",
                                                      "hbm_write_bytes",
                                                      "hbm_bw_gbps",
                                                      "hbm_peak_gbps",
                                                      "l2_hit_rate",
                                                      "l2_weight_hit_rate"};
    static const std::vector<std::string> kGroups = {"l2_partitions.", "prefetch."};
    for (std::size_t i = 0; i < kLeading.size(); ++i) {
        if (column == kLeading[i]) return static_cast<int>(i);
    }
    for (std::size_t i = 0; i < kGroups.size(); ++i) {
        if (column.rfind(kGroups[i], 0) == 0) return static_cast<int>(kLeading.size() + i);
    }
    return static_cast<int>(kLeading.size() + kGroups.size());
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten_summary(const nlohmann::json& summary) {
    std::vector<std::pair<std::string, std::string>> out;
    if (summary.is_object()) flatten(summary, "", out);
    return out;
}

bool summary_column_before(const std::string& a, const std::string& b) {
    const int ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
}

namespace {

// A swept key whose values are all quantities of one kind (1.2GHz, 4MiB, 20ns) also gets a
// numeric column in the kind's base unit (times in ns, as the summary's), named KEY_<unit>.
std::string numeric_suffix(units::Kind kind) {
    switch (kind) {
        case units::Kind::kSize:
            return "_bytes";
        case units::Kind::kTime:
            return "_ns";  // as the summary's times
        case units::Kind::kFrequency:
            return "_hz";
        case units::Kind::kBitRate:
            return "_bps";
        case units::Kind::kByteRate:
            return "_bytes_per_s";
    }
    return "";
}

std::optional<std::vector<std::string>> numeric_values(const std::vector<ResultRow>& rows,
                                                       std::size_t key, units::Kind& kind) {
    std::vector<std::string> out;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        units::Quantity q;
        try {
            q = units::parse(rows[r].values[key]);
        } catch (const units::UnitError&) {
            return std::nullopt;
        }
        if (r == 0) kind = q.kind;
        if (q.kind != kind) return std::nullopt;
        const double v = q.kind == units::Kind::kTime ? q.value / 1000 : q.value;  // ps -> ns
        out.push_back(v == std::floor(v) && std::fabs(v) < 9e15
                          ? std::to_string(static_cast<int64_t>(v))
                          : nlohmann::json(v).dump());
    }
    return out;
}

}  // namespace

std::string results_csv(const std::vector<std::string>& keys, const std::vector<ResultRow>& rows) {
    std::vector<std::map<std::string, std::string>> cells(rows.size());
    std::set<std::string> columns;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (auto& [path, text] : flatten_summary(rows[r].summary)) {
            columns.insert(path);
            cells[r][path] = std::move(text);
        }
    }
    std::vector<std::string> ordered(columns.begin(), columns.end());
    std::stable_sort(ordered.begin(), ordered.end(), summary_column_before);

    std::string out;
    auto add_row = [&out](const std::vector<std::string>& fields) {
        for (std::size_t i = 0; i < fields.size(); ++i)
            out += (i ? "," : "") + csv_field(fields[i]);
        out += "\n";
    };
    std::vector<std::string> header;
    std::vector<std::optional<std::vector<std::string>>> numeric(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) {
        header.push_back(keys[k]);
        units::Kind kind = units::Kind::kSize;
        if (!rows.empty()) numeric[k] = numeric_values(rows, k, kind);
        if (numeric[k]) header.push_back(keys[k] + numeric_suffix(kind));
    }
    header.insert(header.end(), ordered.begin(), ordered.end());
    header.emplace_back("point");
    add_row(header);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::vector<std::string> fields;
        for (std::size_t k = 0; k < keys.size(); ++k) {
            fields.push_back(rows[r].values[k]);
            if (numeric[k]) fields.push_back((*numeric[k])[r]);
        }
        for (const auto& c : ordered) {
            const auto it = cells[r].find(c);
            fields.push_back(it == cells[r].end() ? "" : it->second);
        }
        fields.push_back(rows[r].id);
        add_row(fields);
    }
    return out;
}

}  // namespace asim::sweep
