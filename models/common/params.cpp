#include "models/common/params.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "models/common/errors.h"
#include "models/common/registry.h"
#include "models/common/units.h"

namespace asim {

const char* to_string(ParamType type) {
    switch (type) {
        case ParamType::kInteger:
            return "integer";
        case ParamType::kReal:
            return "real";
        case ParamType::kBoolean:
            return "boolean";
        case ParamType::kString:
            return "string";
        case ParamType::kChoice:
            return "choice";
        case ParamType::kSize:
            return "size";
        case ParamType::kTime:
            return "time";
        case ParamType::kFrequency:
            return "frequency";
        case ParamType::kBitRate:
            return "bit_rate";
        case ParamType::kByteRate:
            return "byte_rate";
        case ParamType::kIntegerList:
            return "integer_list";
        case ParamType::kStringList:
            return "string_list";
    }
    return "value";
}

// ---- Param -------------------------------------------------------------------------------

Param::Param(std::string key, ParamType type, std::string unit, std::string description)
    : m_key(std::move(key)),
      m_type(type),
      m_unit(std::move(unit)),
      m_description(std::move(description)) {}

Param Param::integer(std::string key, std::string unit, std::string description) {
    return Param(std::move(key), ParamType::kInteger, std::move(unit), std::move(description));
}
Param Param::real(std::string key, std::string unit, std::string description) {
    return Param(std::move(key), ParamType::kReal, std::move(unit), std::move(description));
}
Param Param::boolean(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kBoolean, "", std::move(description));
}
Param Param::string(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kString, "", std::move(description));
}
Param Param::choice(std::string key, std::vector<std::string> choices, std::string description) {
    Param p(std::move(key), ParamType::kChoice, "", std::move(description));
    p.m_choices = std::move(choices);
    return p;
}
Param Param::choice_of(std::string key, std::function<std::vector<std::string>()> names,
                       std::string description) {
    Param p(std::move(key), ParamType::kChoice, "", std::move(description));
    p.m_choice_source = std::move(names);
    return p;
}
Param Param::implementation(std::string key, const RegistryBase& registry,
                            std::string description) {
    Param p(std::move(key), ParamType::kChoice, "", std::move(description));
    p.m_registry = &registry;
    return p;
}
Param Param::size(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kSize, "B", std::move(description));
}
Param Param::time(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kTime, "s", std::move(description));
}
Param Param::frequency(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kFrequency, "Hz", std::move(description));
}
Param Param::bit_rate(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kBitRate, "bit/s", std::move(description));
}
Param Param::byte_rate(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kByteRate, "B/s", std::move(description));
}
Param Param::integer_list(std::string key, std::string unit, std::string description) {
    return Param(std::move(key), ParamType::kIntegerList, std::move(unit), std::move(description));
}
Param Param::string_list(std::string key, std::string description) {
    return Param(std::move(key), ParamType::kStringList, "", std::move(description));
}

Param& Param::dflt(std::string yaml_text) {
    m_default = std::move(yaml_text);
    return *this;
}
Param& Param::dflt_from(std::string what) {
    m_default_from = std::move(what);
    return *this;
}
Param& Param::optional() {
    m_optional = true;
    return *this;
}
Param& Param::range(double min, double max) {
    m_range = Range{min, max};
    return *this;
}
Param& Param::zero_allowed() {
    m_zero_allowed = true;
    return *this;
}
Param& Param::source(std::string text) {
    m_source = std::move(text);
    return *this;
}

std::vector<std::string> Param::choices() const {
    if (m_registry) return m_registry->names();
    if (m_choice_source) return m_choice_source();
    return m_choices;
}

namespace {

std::string format_number(double v) {
    if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", v);
    return buffer;
}

}  // namespace

std::string Param::range_text() const {
    if (m_type == ParamType::kChoice) {
        std::string s;
        for (const std::string& c : choices()) s += (s.empty() ? "" : ", ") + c;
        return s;
    }
    if (m_range)
        return "[" + format_number(m_range->min) + ", " + format_number(m_range->max) + "]";
    switch (m_type) {
        case ParamType::kSize:
        case ParamType::kFrequency:
        case ParamType::kBitRate:
        case ParamType::kByteRate:
            return m_zero_allowed ? ">= 0" : "> 0";
        case ParamType::kTime:
            return ">= 0";
        default:
            return "";
    }
}

std::string Param::default_display() const {
    if (m_default) return *m_default;
    if (!m_default_from.empty()) return "= " + m_default_from;
    return m_optional ? "(unset)" : "(required)";
}

// ---- ParamValues -------------------------------------------------------------------------

const ParamValue& ParamValues::at(const std::string& key) const {
    const auto it = m_values.find(key);
    if (it == m_values.end()) throw std::logic_error("parameter '" + key + "' was not read");
    return it->second;
}
int64_t ParamValues::integer(const std::string& key) const { return std::get<int64_t>(at(key)); }
double ParamValues::real(const std::string& key) const { return std::get<double>(at(key)); }
bool ParamValues::boolean(const std::string& key) const { return std::get<bool>(at(key)); }
const std::string& ParamValues::string(const std::string& key) const {
    return std::get<std::string>(at(key));
}
const std::vector<int64_t>& ParamValues::integer_list(const std::string& key) const {
    return std::get<std::vector<int64_t>>(at(key));
}

// ---- Reading -----------------------------------------------------------------------------

ParamValue default_value(const Param& param) {
    const std::string& text = *param.default_text();
    switch (param.type()) {
        case ParamType::kInteger:
            return static_cast<int64_t>(std::stoll(text));
        case ParamType::kReal:
            return std::stod(text);
        case ParamType::kBoolean:
            return text == "true";
        case ParamType::kString:
        case ParamType::kChoice:
            return text;
        case ParamType::kSize:
            return static_cast<int64_t>(units::bytes(text));
        case ParamType::kTime:
            return units::picoseconds(text);
        case ParamType::kFrequency:
            return units::hertz(text);
        case ParamType::kBitRate:
            return units::bits_per_second(text);
        case ParamType::kByteRate:
            return units::bytes_per_second(text);
        case ParamType::kIntegerList:
            return std::vector<int64_t>{};
        case ParamType::kStringList:
            return std::vector<std::string>{};
    }
    throw std::logic_error("unhandled parameter type");
}

namespace {

// A value that lets reading go on after a problem: the default, else the range's minimum, else
// the smallest legal value of the type.
ParamValue stand_in(const Param& param, const ParamValue* fallback) {
    if (fallback) return *fallback;
    if (param.default_text()) return default_value(param);
    const double min = param.value_range() ? param.value_range()->min : 1.0;
    switch (param.type()) {
        case ParamType::kInteger:
        case ParamType::kSize:
        case ParamType::kTime:
            return static_cast<int64_t>(min);
        case ParamType::kReal:
        case ParamType::kFrequency:
        case ParamType::kBitRate:
        case ParamType::kByteRate:
            return min;
        case ParamType::kBoolean:
            return false;
        case ParamType::kString:
            return std::string();
        case ParamType::kChoice: {
            const auto choices = param.choices();
            return choices.empty() ? std::string() : choices.front();
        }
        case ParamType::kIntegerList:
            return std::vector<int64_t>{};
        case ParamType::kStringList:
            return std::vector<std::string>{};
    }
    throw std::logic_error("unhandled parameter type");
}

constexpr Range kAnyInteger{-9.2e18, 9.2e18};
constexpr Range kAnyReal{-1e300, 1e300};

// The value as written (the key is present).
ParamValue read_present(const ConfigNode& node, const Param& param) {
    const std::string& key = param.key();
    const Range range =
        param.value_range().value_or(param.type() == ParamType::kReal ? kAnyReal : kAnyInteger);
    switch (param.type()) {
        case ParamType::kInteger:
            return node.integer(key, range);
        case ParamType::kReal:
            return node.real(key, range);
        case ParamType::kBoolean:
            return node.boolean(key);
        case ParamType::kString:
            return node.string(key);
        case ParamType::kChoice: {
            const std::string value = node.string(key);
            const auto choices = param.choices();
            if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
            if (param.registry()) node.fail(key, param.registry()->unknown_message(value));
            std::string list;
            for (const std::string& c : choices)
                list += (list.empty() ? "" : ", ") + ("'" + c + "'");
            const std::string near = closest_match(value, choices);
            node.fail(key, "expected one of " + list + ", got '" + value + "'" +
                               (near.empty() ? "" : "; did you mean '" + near + "'?"));
        }
        case ParamType::kSize: {
            const uint64_t v =
                param.allows_zero() ? node.size_bytes_or_zero(key, 0) : node.size_bytes(key);
            if (param.value_range() &&
                (v < param.value_range()->min || v > param.value_range()->max)) {
                node.fail(key, units::format_bytes(v) + " is out of range [" +
                                   format_number(param.value_range()->min) + " B, " +
                                   format_number(param.value_range()->max) + " B]");
            }
            return static_cast<int64_t>(v);
        }
        case ParamType::kTime:
            return node.time_ps(key);
        case ParamType::kFrequency:
            return node.frequency_hz(key);
        case ParamType::kBitRate:
            return node.bit_rate(key);
        case ParamType::kByteRate:
            return node.byte_rate(key);
        case ParamType::kIntegerList:
            return node.integer_list(key, range);
        case ParamType::kStringList:
            return node.string_list(key, {});
    }
    throw std::logic_error("unhandled parameter type");
}

}  // namespace

std::optional<ParamValue> read_param(const ConfigNode& node, const Param& param,
                                     const ParamValue* fallback) {
    if (!node.has(param.key())) {
        if (fallback) return *fallback;  // a computed default (dflt_from), or the caller's
        if (param.default_text()) return default_value(param);
        if (param.is_optional()) return std::nullopt;
        node.report(param.key(), "missing required key (" + param.description() + ")");
        return stand_in(param, fallback);
    }
    try {
        return read_present(node, param);
    } catch (const ConfigError& e) {
        node.report(e);
        return stand_in(param, fallback);
    }
}

// ---- ParamTable --------------------------------------------------------------------------

namespace {
std::vector<const ParamTable*>& table_catalog() {
    static std::vector<const ParamTable*> tables;
    return tables;
}
}  // namespace

ParamTable::ParamTable(std::vector<std::string> paths, std::string title, std::vector<Param> params,
                       const RegistryBase* keyed_by)
    : m_paths(std::move(paths)),
      m_title(std::move(title)),
      m_params(std::move(params)),
      m_keyed_by(keyed_by) {
    table_catalog().push_back(this);
}

const Param& ParamTable::operator[](const std::string& key) const {
    for (const Param& p : m_params) {
        if (p.key() == key) return p;
    }
    throw std::logic_error("key '" + key + "' is not declared in the parameter table of " +
                           m_paths.front());
}

ParamValue ParamTable::read(const ConfigNode& node, const std::string& key, ParamType type,
                            const ParamValue* fallback) const {
    const Param& param = (*this)[key];
    if (param.type() != type &&
        !(type == ParamType::kString && param.type() == ParamType::kChoice)) {
        throw std::logic_error("key '" + key + "' of " + m_paths.front() + " is a " +
                               to_string(param.type()) + ", read as a " + to_string(type));
    }
    auto value = read_param(node, param, fallback);
    if (!value)
        throw std::logic_error("optional key '" + key + "' of " + m_paths.front() +
                               " read without a fallback");
    return *value;
}

int64_t ParamTable::integer(const ConfigNode& n, const std::string& k) const {
    return std::get<int64_t>(read(n, k, ParamType::kInteger, nullptr));
}
int64_t ParamTable::integer(const ConfigNode& n, const std::string& k, int64_t fallback) const {
    const ParamValue f(fallback);
    return std::get<int64_t>(read(n, k, ParamType::kInteger, &f));
}
double ParamTable::real(const ConfigNode& n, const std::string& k) const {
    return std::get<double>(read(n, k, ParamType::kReal, nullptr));
}
double ParamTable::real(const ConfigNode& n, const std::string& k, double fallback) const {
    const ParamValue f(fallback);
    return std::get<double>(read(n, k, ParamType::kReal, &f));
}
bool ParamTable::boolean(const ConfigNode& n, const std::string& k) const {
    return std::get<bool>(read(n, k, ParamType::kBoolean, nullptr));
}
std::string ParamTable::string(const ConfigNode& n, const std::string& k) const {
    return std::get<std::string>(read(n, k, ParamType::kString, nullptr));
}
std::string ParamTable::string(const ConfigNode& n, const std::string& k,
                               const std::string& fallback) const {
    const ParamValue f(fallback);
    return std::get<std::string>(read(n, k, ParamType::kString, &f));
}
uint64_t ParamTable::size(const ConfigNode& n, const std::string& k) const {
    return static_cast<uint64_t>(std::get<int64_t>(read(n, k, ParamType::kSize, nullptr)));
}
uint64_t ParamTable::size(const ConfigNode& n, const std::string& k, uint64_t fallback) const {
    const ParamValue f(static_cast<int64_t>(fallback));
    return static_cast<uint64_t>(std::get<int64_t>(read(n, k, ParamType::kSize, &f)));
}
int64_t ParamTable::time_ps(const ConfigNode& n, const std::string& k) const {
    return std::get<int64_t>(read(n, k, ParamType::kTime, nullptr));
}
int64_t ParamTable::time_ps(const ConfigNode& n, const std::string& k, int64_t fallback) const {
    const ParamValue f(fallback);
    return std::get<int64_t>(read(n, k, ParamType::kTime, &f));
}
double ParamTable::frequency_hz(const ConfigNode& n, const std::string& k) const {
    return std::get<double>(read(n, k, ParamType::kFrequency, nullptr));
}
double ParamTable::bit_rate(const ConfigNode& n, const std::string& k) const {
    return std::get<double>(read(n, k, ParamType::kBitRate, nullptr));
}
double ParamTable::bit_rate(const ConfigNode& n, const std::string& k, double fallback) const {
    const ParamValue f(fallback);
    return std::get<double>(read(n, k, ParamType::kBitRate, &f));
}
double ParamTable::byte_rate(const ConfigNode& n, const std::string& k) const {
    return std::get<double>(read(n, k, ParamType::kByteRate, nullptr));
}
double ParamTable::byte_rate(const ConfigNode& n, const std::string& k, double fallback) const {
    const ParamValue f(fallback);
    return std::get<double>(read(n, k, ParamType::kByteRate, &f));
}
std::vector<int64_t> ParamTable::integer_list(const ConfigNode& n, const std::string& k) const {
    return std::get<std::vector<int64_t>>(read(n, k, ParamType::kIntegerList, nullptr));
}
std::vector<std::string> ParamTable::string_list(const ConfigNode& n, const std::string& k) const {
    return std::get<std::vector<std::string>>(read(n, k, ParamType::kStringList, nullptr));
}

std::vector<const ParamTable*> param_tables() {
    std::vector<const ParamTable*> tables = table_catalog();
    std::stable_sort(tables.begin(), tables.end(), [](const ParamTable* a, const ParamTable* b) {
        return a->paths().front() < b->paths().front();
    });
    return tables;
}

// ---- Listing -----------------------------------------------------------------------------

namespace {

// The value at `path` in `config` as written, or nullopt. A path with "<name>" or "[]" has no
// single value.
std::optional<std::string> value_at(const Config& config, const std::string& path) {
    if (path.find('<') != std::string::npos || path.find("[]") != std::string::npos)
        return std::nullopt;
    return config.value_text(path);
}

}  // namespace

std::vector<ParamRow> param_rows(const Config* config) {
    std::vector<ParamRow> rows;
    for (const ParamTable* table : param_tables()) {
        for (const std::string& path : table->paths()) {
            for (const Param& param : table->params()) {
                ParamRow row{path + "." + param.key(), &param, "", table->title(), std::nullopt};
                if (config) row.value = value_at(*config, row.key);
                if (config && !row.value && param.default_text()) row.value = param.default_text();
                rows.push_back(row);
                if (!param.registry()) continue;
                for (const auto& impl : param.registry()->implementations()) {
                    const bool chosen = row.value && *row.value == impl.name;
                    for (const Param& own : *impl.params) {
                        ParamRow r{path + "." + own.key(), &own, impl.name, table->title(),
                                   std::nullopt};
                        if (config) r.value = value_at(*config, r.key);
                        if (chosen && !r.value && own.default_text()) r.value = own.default_text();
                        rows.push_back(r);
                    }
                }
            }
            if (!table->keyed_by()) continue;
            // A map keyed by implementation: each one's own keys, under the table's path.
            for (const auto& impl : table->keyed_by()->implementations()) {
                for (const Param& own : *impl.params) {
                    rows.push_back(
                        {path + "." + own.key(), &own, impl.name, table->title(), std::nullopt});
                }
            }
        }
    }
    return rows;
}

std::string effective_yaml(const Config& config) {
    // The maps the configuration has: the parents of its values, and theirs.
    std::set<std::string> maps;
    for (const std::string& leaf : config.leaf_paths()) {
        for (auto dot = leaf.rfind('.'); dot != std::string::npos; dot = leaf.rfind('.', dot - 1)) {
            if (!maps.insert(leaf.substr(0, dot)).second || dot == 0) break;
        }
    }
    Config effective = Config::from_string(config.to_yaml(), "config.yaml");
    for (const ParamRow& row : param_rows(&config)) {
        if (!row.value || row.key.find_first_of("<[") != std::string::npos) continue;
        if (config.value_text(row.key)) continue;  // written
        const auto dot = row.key.rfind('.');
        if (dot == std::string::npos || maps.count(row.key.substr(0, dot)) == 0) continue;
        effective.apply_override(row.key + "=" + *row.value);
    }
    return effective.to_yaml();
}

bool key_under(const std::string& key, const std::string& prefix) {
    return prefix.empty() || key == prefix ||
           (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
            (key[prefix.size()] == '.' || key[prefix.size()] == '['));
}

std::string param_markdown(const std::string& prefix) {
    auto cell = [](std::string text) {
        std::string out;
        for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
        return out;
    };
    std::string md = "| key | type | unit | default | range / choices | description | source |\n";
    md += "|---|---|---|---|---|---|---|\n";
    for (const ParamRow& row : param_rows()) {
        if (!key_under(row.key, prefix)) continue;
        const Param& p = *row.param;
        const std::string dflt = p.default_display();
        std::string description = p.description();
        if (!row.implementation.empty())
            description = "(" + row.implementation + ") " + description;
        const std::string key = row.key.size() > prefix.size() + 1 && row.key[prefix.size()] == '.'
                                    ? row.key.substr(prefix.size() + 1)
                                    : row.key;
        md += "| `" + key + "` | " + to_string(p.type()) + " | " + cell(p.unit()) + " | " +
              cell(dflt) + " | " + cell(p.range_text()) + " | " + cell(description) + " | " +
              cell(p.source_text()) + " |\n";
    }
    return md;
}

}  // namespace asim
