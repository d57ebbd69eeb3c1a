#include "testbenches/sweep/grid.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "models/common/errors.h"
#include "models/common/units.h"

namespace asim::sweep {

namespace {

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

bool is_plain_integer(const std::string& s) {
    std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
    }
    return true;
}

[[noreturn]] void fail(const std::string& spec, const std::string& what) {
    throw InputError("--grid " + spec + ": " + what);
}

long long to_integer(const std::string& spec, const std::string& s) {
    try {
        return std::stoll(s);
    } catch (const std::exception&) {
        fail(spec, "integer '" + s + "' is out of range");
    }
}

// The unit a quantity was written in: its trailing letters and '/' ("TB/s" of "4.8TB/s").
std::string unit_of(const std::string& s) {
    std::size_t i = s.size();
    while (i > 0 && (std::isalpha(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '/')) --i;
    return s.substr(i);
}

std::string format_number(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.12g", x);
    return buf;
}

bool whole_in(double base_value, double factor) {
    const double x = base_value / factor;
    return std::fabs(x - std::round(x)) <= 1e-9 * std::max(1.0, std::fabs(x));
}

std::vector<std::string> integer_range(const std::string& spec, const std::string& a,
                                       const std::string& b, const std::string& step_text) {
    const long long start = to_integer(spec, a), end = to_integer(spec, b);
    long long step = 1;
    if (!step_text.empty()) {
        if (!is_plain_integer(step_text)) {
            fail(spec, "the step '" + step_text + "' of an integer range must be a plain integer");
        }
        step = to_integer(spec, step_text);
    }
    if (step <= 0) fail(spec, "the step must be greater than zero");
    if (end < start)
        fail(spec, "the end " + b + " is below the start " + a + " (ranges go upwards)");
    // In unsigned arithmetic: end - start and the step past the end may not fit a long long
    // (-9223372036854775808..9223372036854775807), and signed overflow is undefined.
    const unsigned long long span =
        static_cast<unsigned long long>(end) - static_cast<unsigned long long>(start);
    const unsigned long long last = span / static_cast<unsigned long long>(step);
    if (last >= kMaxPoints) fail(spec, "more than " + std::to_string(kMaxPoints) + " values");
    std::vector<std::string> values;
    for (unsigned long long i = 0; i <= last; ++i) {
        const unsigned long long v =
            static_cast<unsigned long long>(start) + i * static_cast<unsigned long long>(step);
        values.push_back(std::to_string(static_cast<long long>(v)));  // start <= v <= end
    }
    return values;
}

std::vector<std::string> quantity_range(const std::string& spec, const std::string& a,
                                        const std::string& b, const std::string& step_text) {
    if (step_text.empty()) {
        fail(spec, "a range of quantities needs a step with its unit, e.g. " + a + ".." + b + ":" +
                       (unit_of(a).empty() ? "1" : "1" + unit_of(a)));
    }
    const std::string texts[3] = {a, b, step_text};
    const char* roles[3] = {"start", "end", "step"};
    units::Quantity q[3];
    for (int i = 0; i < 3; ++i) {
        if (is_plain_integer(texts[i])) {
            fail(spec, "the " + std::string(roles[i]) + " '" + texts[i] +
                           "' has no unit; a range is either plain integers or three quantities "
                           "of one unit kind");
        }
        try {
            q[i] = units::parse(texts[i]);
        } catch (const units::UnitError& e) {
            fail(spec, std::string(roles[i]) + ": " + e.what());
        }
    }
    for (int i = 1; i < 3; ++i) {
        if (q[i].kind != q[0].kind) {
            fail(spec, "the " + std::string(roles[i]) + " '" + texts[i] + "' is not " +
                           units::describe(q[0].kind) + " like the start '" + a + "'");
        }
    }
    const double start = q[0].value, end = q[1].value, step = q[2].value;
    if (!(step > 0)) fail(spec, "the step must be greater than zero");
    if (end < start)
        fail(spec, "the end " + b + " is below the start " + a + " (ranges go upwards)");
    // A relative slack, so that 4.8TB/s..9.6TB/s:1.2TB/s reaches 9.6TB/s despite rounding.
    const double steps = std::floor((end - start) / step + 1e-9);
    if (steps >= static_cast<double>(kMaxPoints)) {
        fail(spec, "more than " + std::to_string(kMaxPoints) + " values");
    }
    const auto count = static_cast<std::size_t>(steps) + 1;
    std::vector<double> base(count);
    for (std::size_t i = 0; i < count; ++i) base[i] = start + static_cast<double>(i) * step;

    // Write every value in the coarsest of the units the user wrote in which all values are
    // whole numbers (0B..48MiB:4MiB -> 0MiB, 4MiB, ...), else in the start's unit.
    std::string unit = unit_of(a);
    double factor = units::parse("1" + unit).value;
    double best = 0;
    for (const std::string& text : texts) {
        const std::string u = unit_of(text);
        const double f = units::parse("1" + u).value;
        if (f <= best) continue;
        if (std::all_of(base.begin(), base.end(), [f](double v) { return whole_in(v, f); })) {
            best = f;
            unit = u;
            factor = f;
        }
    }
    std::vector<std::string> values;
    for (double v : base) values.push_back(format_number(v / factor) + unit);
    return values;
}

}  // namespace

GridAxis parse_grid_spec(const std::string& spec) {
    GridAxis axis;
    axis.spec = spec;
    const auto eq = spec.find('=');
    if (eq == std::string::npos) fail(spec, "expected KEY=V1,V2,... or KEY=A..B[:STEP]");
    axis.key = trim(spec.substr(0, eq));
    const std::string rhs = trim(spec.substr(eq + 1));
    if (axis.key.empty()) fail(spec, "the key is empty");
    if (axis.key.find_first_of(" \t,") != std::string::npos)
        fail(spec, "malformed key '" + axis.key + "'");
    if (rhs.empty()) fail(spec, "no values");

    const auto dots = rhs.find("..");
    if (dots != std::string::npos) {
        const std::string a = trim(rhs.substr(0, dots));
        std::string rest = rhs.substr(dots + 2);
        std::string step;
        const auto colon = rest.rfind(':');
        if (colon != std::string::npos) {
            step = trim(rest.substr(colon + 1));
            if (step.empty()) fail(spec, "empty step after ':'");
            rest = rest.substr(0, colon);
        }
        const std::string b = trim(rest);
        if (a.empty() || b.empty()) fail(spec, "a range needs a start and an end: A..B[:STEP]");
        if (rhs.find(',') != std::string::npos)
            fail(spec, "a range cannot be combined with a list");
        axis.values = (is_plain_integer(a) && is_plain_integer(b))
                          ? integer_range(spec, a, b, step)
                          : quantity_range(spec, a, b, step);
        return axis;
    }

    std::set<std::string> seen;
    std::size_t start = 0;
    while (true) {
        const auto comma = rhs.find(',', start);
        const std::string v =
            trim(rhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (v.empty()) fail(spec, "empty value in the list");
        if (!seen.insert(v).second) fail(spec, "value '" + v + "' is listed twice");
        axis.values.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return axis;
}

std::vector<GridPoint> cartesian_points(const std::vector<GridAxis>& axes) {
    if (axes.empty()) throw InputError("the grid is empty: give at least one --grid KEY=VALUES");
    std::set<std::string> keys;
    std::size_t total = 1;
    for (const auto& axis : axes) {
        if (!keys.insert(axis.key).second) {
            throw InputError("--grid " + axis.spec + ": key '" + axis.key + "' is swept twice");
        }
        if (axis.values.empty()) throw InputError("--grid " + axis.spec + ": no values");
        total *= axis.values.size();
        if (total > kMaxPoints) {
            throw InputError("the grid has more than " + std::to_string(kMaxPoints) + " points");
        }
    }
    std::vector<GridPoint> points(total);
    for (std::size_t i = 0; i < total; ++i) {
        GridPoint& p = points[i];
        p.index = i;
        p.values.resize(axes.size());
        // Mixed-radix digits of i, the last axis being the least significant.
        std::size_t rest = i;
        for (std::size_t a = axes.size(); a-- > 0;) {
            p.values[a] = axes[a].values[rest % axes[a].values.size()];
            rest /= axes[a].values.size();
        }
        p.id = point_id(i, total, axes, p.values);
    }
    return points;
}

std::string point_id(std::size_t index, std::size_t total, const std::vector<GridAxis>& axes,
                     const std::vector<std::string>& values) {
    const std::size_t width =
        std::max<std::size_t>(3, std::to_string(total > 0 ? total - 1 : 0).size());
    std::string id = std::to_string(index);
    id.insert(0, width - std::min(width, id.size()), '0');

    auto last_component = [](const std::string& key) {
        const auto dot = key.rfind('.');
        return dot == std::string::npos ? key : key.substr(dot + 1);
    };
    auto sanitize = [](std::string s) {
        for (char& c : s) {
            const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' ||
                              c == '-' || c == '=' || c == '_';
            if (!keep) c = '_';
        }
        return s;
    };
    std::string name;
    for (std::size_t a = 0; a < axes.size() && a < values.size(); ++a) {
        std::string label = last_component(axes[a].key);
        for (std::size_t b = 0; b < axes.size(); ++b) {
            if (b != a && last_component(axes[b].key) == label) label = axes[a].key;
        }
        name += "-" + label + "=" + values[a];
    }
    name = sanitize(name);
    if (name.size() > 100) name.resize(100);
    return id + name;
}

std::vector<std::string> point_overrides(const std::vector<GridAxis>& axes,
                                         const GridPoint& point) {
    std::vector<std::string> out;
    for (std::size_t a = 0; a < axes.size(); ++a)
        out.push_back(axes[a].key + "=" + point.values[a]);
    return out;
}

}  // namespace asim::sweep
