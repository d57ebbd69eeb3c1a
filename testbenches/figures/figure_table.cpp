#include "testbenches/figures/figure_table.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

namespace asim {

std::string FigureTable::csv() const {
    std::string s;
    for (std::size_t i = 0; i < columns.size(); ++i) s += (i ? "," : "") + columns[i];
    s += "\n";
    for (const auto& r : rows) {
        for (std::size_t i = 0; i < r.size(); ++i) s += (i ? "," : "") + r[i];
        s += "\n";
    }
    return s;
}

std::string FigureTable::json() const {
    nlohmann::json rows_json = nlohmann::json::array();
    for (const auto& r : rows) {
        nlohmann::json o = nlohmann::json::object();
        for (std::size_t i = 0; i < columns.size(); ++i) {
            char* end = nullptr;
            const double v = std::strtod(r[i].c_str(), &end);
            if (end != nullptr && *end == '\0' && !r[i].empty()) {
                o[columns[i]] = v;
            } else {
                o[columns[i]] = r[i];
            }
        }
        rows_json.push_back(o);
    }
    return nlohmann::json{{"table", name}, {"columns", columns}, {"rows", rows_json}}.dump(2) +
           "\n";
}

}  // namespace asim
