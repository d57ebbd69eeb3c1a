// Parameters that describe themselves. Each component declares each of its YAML keys once, in a
// ParamTable next to its parser: key, type, unit, default, range or choices, a one-line
// description and where the default comes from. The same declaration
//   - reads the key (ParamTable's typed readers use its default and range; nothing else does),
//   - validates it: a bad value is reported and reading goes on, so one run names every problem
//     (Config::throw_problems), each at its file:line:key or at the --set that caused it,
//   - lists it: `ascend-sim params` and the parameter tables of the component READMEs come from
//     the catalog of tables (param_tables()), never from a second list.
//
// Implementations chosen by name (registry.h) declare their own parameters the same way; a table
// names the registry behind a choice key (Param::implementation), and the listing shows each
// implementation's keys under it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "models/common/config.h"

namespace asim {

class RegistryBase;

enum class ParamType {
    kInteger,
    kReal,
    kBoolean,
    kString,
    kChoice,  // one of a fixed list, or of a registry's names
    kSize,    // bytes, written with a unit (64MiB)
    kTime,    // picoseconds, written with a unit (1.2ns)
    kFrequency,
    kBitRate,
    kByteRate,
    kIntegerList,
    kStringList,
};

// "integer", "size", ... (the `type` of `ascend-sim params --json`).
const char* to_string(ParamType type);

// The names of an enum's values, written once: a choice is declared from them
// (Param::choice(key, names, ...)) and read back as the value (ParamTable::choice).
//   const ChoiceNames<RefreshMode> kRefreshModes{{"all_bank", RefreshMode::kAllBank}, ...};
template <typename E>
class ChoiceNames {
public:
    ChoiceNames(std::initializer_list<std::pair<const char*, E>> entries) : m_entries(entries) {}
    std::vector<std::string> names() const {
        std::vector<std::string> n;
        for (const auto& [name, value] : m_entries) n.emplace_back(name);
        return n;
    }
    // The value named `name`; the reader has checked it is one of names() (a bad value stands in
    // as the declared default, which is).
    E of(const std::string& name) const {
        for (const auto& [n, value] : m_entries) {
            if (name == n) return value;
        }
        throw std::logic_error("'" + name + "' is not a declared choice");
    }

private:
    std::vector<std::pair<const char*, E>> m_entries;
};

// One key. Built with the named constructors and the chained setters:
//   Param::size("size", "capacity of the cache").source("W1 Table 3-1")
//   Param::integer("ways", "ways per set").range(1, 64).dflt("16")
class Param {
public:
    static Param integer(std::string key, std::string unit, std::string description);
    static Param real(std::string key, std::string unit, std::string description);
    static Param boolean(std::string key, std::string description);
    static Param string(std::string key, std::string description);
    static Param choice(std::string key, std::vector<std::string> choices, std::string description);
    template <typename E>
    static Param choice(std::string key, const ChoiceNames<E>& names, std::string description) {
        return choice(std::move(key), names.names(), std::move(description));
    }
    // A choice among names a function gives when asked (a list kept in another file: asked
    // after start-up, so the order of static initialisation does not matter).
    static Param choice_of(std::string key, std::function<std::vector<std::string>()> names,
                           std::string description);
    // A choice among the implementations registered in `registry` (registry.h).
    static Param implementation(std::string key, const RegistryBase& registry,
                                std::string description);
    static Param size(std::string key, std::string description);
    static Param time(std::string key, std::string description);
    static Param frequency(std::string key, std::string description);
    static Param bit_rate(std::string key, std::string description);
    static Param byte_rate(std::string key, std::string description);
    static Param integer_list(std::string key, std::string unit, std::string description);
    static Param string_list(std::string key, std::string description);

    // The default, as it would be written in YAML ("64MiB", "4", "lru"). Without one the key is
    // required, unless optional() or dflt_from() says otherwise.
    Param& dflt(std::string yaml_text);
    // The default is computed from other keys ("the line size"); the reader passes it.
    Param& dflt_from(std::string what);
    // Absent means "not set" (the component has no default and does without).
    Param& optional();
    Param& range(double min, double max);
    // Sizes and rates must be > 0 unless zero is allowed (a switched-off partition, no header).
    Param& zero_allowed();
    // Where the default comes from: a citation, or "estimate: ..." with the reasoning.
    Param& source(std::string text);

    const std::string& key() const { return m_key; }
    ParamType type() const { return m_type; }
    const std::string& unit() const { return m_unit; }
    const std::string& description() const { return m_description; }
    const std::string& source_text() const { return m_source; }
    const std::optional<std::string>& default_text() const { return m_default; }
    const std::string& default_from() const { return m_default_from; }
    bool required() const { return !m_default && m_default_from.empty() && !m_optional; }
    bool is_optional() const { return m_optional; }
    const std::optional<Range>& value_range() const { return m_range; }
    bool allows_zero() const { return m_zero_allowed; }
    // The allowed values of a choice (a registry's names when it is an implementation choice).
    std::vector<std::string> choices() const;
    const RegistryBase* registry() const { return m_registry; }
    // "64 MiB", "[1, 64]", as `params` shows them.
    std::string range_text() const;
    // The default as `params` and the README tables show it: the YAML text, "= what it is
    // computed from", "(unset)" or "(required)".
    std::string default_display() const;

private:
    Param(std::string key, ParamType type, std::string unit, std::string description);

    std::string m_key;
    ParamType m_type;
    std::string m_unit;
    std::string m_description;
    std::string m_source;
    std::optional<std::string> m_default;
    std::string m_default_from;
    bool m_optional = false;
    bool m_zero_allowed = false;
    std::optional<Range> m_range;
    std::vector<std::string> m_choices;
    const RegistryBase* m_registry = nullptr;
    std::function<std::vector<std::string>()> m_choice_source;
};

// A value read through a Param: sizes and times as integers (bytes, ps), rates and frequencies
// as reals (B/s, bit/s, Hz), choices as strings.
using ParamValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                                std::vector<std::string>>;

// The values of one implementation's parameters (registry.h), by key.
class ParamValues {
public:
    void set(const std::string& key, ParamValue value) { m_values[key] = std::move(value); }
    bool has(const std::string& key) const { return m_values.count(key) != 0; }
    int64_t integer(const std::string& key) const;
    double real(const std::string& key) const;
    bool boolean(const std::string& key) const;
    const std::string& string(const std::string& key) const;
    const std::vector<int64_t>& integer_list(const std::string& key) const;
    // Every value, by key (listings: `info --json`).
    const std::map<std::string, ParamValue>& all() const { return m_values; }

private:
    const ParamValue& at(const std::string& key) const;
    std::map<std::string, ParamValue> m_values;
};

// The declared default of `param` as a value (it must have one).
ParamValue default_value(const Param& param);

// Reads `param` from `node`: its value, its default when absent (nullopt for an optional key
// without one; `fallback` when the default is computed, dflt_from). A bad value is reported on
// the node's tree (ConfigNode::report) and the default, or the nearest value in range, stands in
// so that reading can go on.
std::optional<ParamValue> read_param(const ConfigNode& node, const Param& param,
                                     const ParamValue* fallback = nullptr);

// The parameters of one YAML map of the platform. `paths` are the dotted paths the map appears
// at ("die.l2"; a table may serve several, e.g. every link of the network); "<name>" stands for a
// key the user chooses, "[]" for the items of a list. Tables are registered in the catalog
// (param_tables()) when constructed: declare them as namespace-scope statics.
class ParamTable {
public:
    // `keyed_by`: for a map whose key names an implementation of that registry (the pool tiers
    // under dsm.tiers), whose own keys are listed under the table's path with their names.
    ParamTable(std::vector<std::string> paths, std::string title, std::vector<Param> params,
               const RegistryBase* keyed_by = nullptr);
    ParamTable(const ParamTable&) = delete;
    ParamTable& operator=(const ParamTable&) = delete;

    const std::vector<std::string>& paths() const { return m_paths; }
    const std::string& title() const { return m_title; }
    const std::vector<Param>& params() const { return m_params; }
    const RegistryBase* keyed_by() const { return m_keyed_by; }
    // The declaration of `key`; a key that was never declared is a programming error.
    const Param& operator[](const std::string& key) const;

    // Typed readers. The forms with `fallback` are for keys whose default is computed
    // (dflt_from) or optional; the others use the declared default.
    int64_t integer(const ConfigNode& node, const std::string& key) const;
    int64_t integer(const ConfigNode& node, const std::string& key, int64_t fallback) const;
    double real(const ConfigNode& node, const std::string& key) const;
    double real(const ConfigNode& node, const std::string& key, double fallback) const;
    bool boolean(const ConfigNode& node, const std::string& key) const;
    std::string string(const ConfigNode& node, const std::string& key) const;
    std::string string(const ConfigNode& node, const std::string& key,
                       const std::string& fallback) const;
    uint64_t size(const ConfigNode& node, const std::string& key) const;
    uint64_t size(const ConfigNode& node, const std::string& key, uint64_t fallback) const;
    int64_t time_ps(const ConfigNode& node, const std::string& key) const;
    int64_t time_ps(const ConfigNode& node, const std::string& key, int64_t fallback) const;
    double frequency_hz(const ConfigNode& node, const std::string& key) const;
    double bit_rate(const ConfigNode& node, const std::string& key) const;
    double bit_rate(const ConfigNode& node, const std::string& key, double fallback) const;
    double byte_rate(const ConfigNode& node, const std::string& key) const;
    double byte_rate(const ConfigNode& node, const std::string& key, double fallback) const;
    std::vector<int64_t> integer_list(const ConfigNode& node, const std::string& key) const;
    std::vector<std::string> string_list(const ConfigNode& node, const std::string& key) const;
    // A choice declared from `names`, as its value.
    template <typename E>
    E choice(const ConfigNode& node, const std::string& key, const ChoiceNames<E>& names) const {
        return names.of(string(node, key));
    }

private:
    // `fallback`: nullptr for none (a pointer, not an optional of the variant: GCC 12's
    // maybe-uninitialized analysis misreads the latter under the sanitizers).
    ParamValue read(const ConfigNode& node, const std::string& key, ParamType type,
                    const ParamValue* fallback) const;

    std::vector<std::string> m_paths;
    std::string m_title;
    std::vector<Param> m_params;
    const RegistryBase* m_keyed_by = nullptr;
};

// Every table of the binary, ordered by their first path.
std::vector<const ParamTable*> param_tables();

// One row of `ascend-sim params`: a key with its declaration, the implementation it belongs to
// ("" for the component's own keys) and its value on a platform (empty when not asked or not set).
struct ParamRow {
    std::string key;  // full dotted path
    const Param* param = nullptr;
    std::string implementation;  // "frfcfs" for a scheduler's own key
    std::string title;           // the table's
    std::optional<std::string> value;
};

// Every declared key, the tables' own followed by their implementations', in the catalog's order.
// With a configuration, each row's value is read from it (as written, or the default).
std::vector<ParamRow> param_rows(const Config* config = nullptr);

// The effective configuration as YAML: `config` (presets merged, overrides applied) with every
// declared key it leaves out written in at its default, in the maps it has (a section the
// configuration does not have stays out, as does a key whose default is computed from others,
// dflt_from, or that is optional). Loads back to the same platform.
std::string effective_yaml(const Config& config);

// Whether dotted `key` is `prefix` or lies under it (whole segments: die.l2 is not under die.l).
bool key_under(const std::string& key, const std::string& prefix);

// The README table of the keys under `prefix` (a Markdown table: key, type, unit, default,
// range or choices, description and source), as `ascend-sim params --markdown PREFIX` prints it.
std::string param_markdown(const std::string& prefix);

}  // namespace asim
