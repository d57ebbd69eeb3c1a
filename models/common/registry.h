// Registries of pluggable parts: HBM schedulers and page policies, L2 replacement policies,
// matrix engines, matmul schedulers, H-JSD engines, topologies, collective algorithms, memory
// tiers. An implementation is one file that registers itself under a name, with a one-line
// description, its own parameters (params.h) and a factory:
//
//   ASIM_REGISTER(hbm_scheduler_registry(), frfcfs, "first-ready FCFS: row hits first, then age",
//                 {Param::integer("row_hit_cap", "hits", "...").dflt("4")},
//                 [](const ParamValues& v) { return
//                 std::make_unique<FrFcfs>(v.integer("row_hit_cap")); })
//
// plus one line in its library's CMakeLists.txt. The libraries that hold registrations are linked
// whole (asim_add_registering_library in the top-level CMakeLists.txt), so a file nothing calls
// still registers. YAML names the implementation (`scheduler: frfcfs`); validation, `--help`,
// `info`, `params` and the docs take the names from here, never from a second list. An unknown
// name lists the registered ones; a key of another implementation than the chosen one is an
// error naming both.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/common/params.h"

namespace asim {

// What every registry shows to listings (params, info, messages).
class RegistryBase {
public:
    struct Implementation {
        std::string name;
        std::string description;
        const std::vector<Param>* params;
    };

    // `kind`: what is registered, for messages ("HBM scheduler").
    explicit RegistryBase(std::string kind);
    virtual ~RegistryBase() = default;
    RegistryBase(const RegistryBase&) = delete;
    RegistryBase& operator=(const RegistryBase&) = delete;

    const std::string& kind() const { return m_kind; }
    virtual std::vector<Implementation> implementations() const = 0;  // by name
    std::vector<std::string> names() const;
    bool contains(const std::string& name) const;
    // "frfcfs, fcfs" for messages and --help.
    std::string names_text() const;

    // The unknown-name error: "unknown HBM scheduler 'x' (registered: a, b; did you mean a?)".
    std::string unknown_message(const std::string& name) const;

    // Reads the parameters `chosen` declares from `node` (the map holding the choice key). A key
    // another implementation declares and `chosen` does not is reported, naming both; bad values
    // are reported like any parameter's (params.h).
    ParamValues read_params(const ConfigNode& node, const std::string& chosen) const;

private:
    std::string m_kind;
};

// Every registry of the binary, by kind.
std::vector<const RegistryBase*> registries();

template <class Interface, class... Args>
class Registry final : public RegistryBase {
public:
    using Factory = std::function<std::unique_ptr<Interface>(const ParamValues&, Args...)>;
    // Problems (key, message) that keep these arguments off the implementation, found before
    // anything is built (the RTL engine's port widths, say). Optional.
    using Check = std::function<std::vector<std::pair<std::string, std::string>>(Args...)>;
    struct Entry {
        std::string name;
        std::string description;
        std::vector<Param> params;
        Factory make;
        Check check = nullptr;
    };

    using RegistryBase::RegistryBase;

    // Registration (ASIM_REGISTER); a name registered twice is a programming error.
    bool add(Entry entry) {
        const std::string name = entry.name;
        if (!m_entries.emplace(name, std::move(entry)).second) {
            throw std::logic_error(kind() + " '" + name + "' registered twice");
        }
        return true;
    }

    std::vector<Implementation> implementations() const override {
        std::vector<Implementation> out;
        for (const auto& [name, e] : m_entries) out.push_back({name, e.description, &e.params});
        return out;
    }

    // The implementation registered as `name`; an unknown name is an InputError listing the
    // registered ones (validation reports it earlier with the key's location).
    const Entry& at(const std::string& name) const {
        const auto it = m_entries.find(name);
        if (it == m_entries.end()) throw InputError(unknown_message(name));
        return it->second;
    }

    // The implementation's check of `args` (none when it has no check).
    std::vector<std::pair<std::string, std::string>> check(const std::string& name,
                                                           Args... args) const {
        const Entry& entry = at(name);
        if (!entry.check) return {};
        return entry.check(std::forward<Args>(args)...);
    }

    // Builds `name` with `values`; a parameter missing from them takes its declared default.
    std::unique_ptr<Interface> make(const std::string& name, const ParamValues& values,
                                    Args... args) const {
        const Entry& entry = at(name);
        ParamValues complete = values;
        for (const Param& p : entry.params) {
            if (!complete.has(p.key()) && p.default_text()) complete.set(p.key(), default_value(p));
        }
        return entry.make(complete, std::forward<Args>(args)...);
    }

private:
    std::map<std::string, Entry> m_entries;
};

namespace detail {
void add_registry(const RegistryBase* registry);
}  // namespace detail

}  // namespace asim

#define ASIM_REGISTRY_CONCAT_(a, b) a##b
#define ASIM_REGISTRY_CONCAT(a, b) ASIM_REGISTRY_CONCAT_(a, b)

// Registers an implementation at start-up, at namespace scope:
//   ASIM_REGISTER(registry_function(), name, "description", {params...}, factory[, check]);
// `name` is written as an identifier and registered as its spelling; the rest is the Entry's
// description, parameters, factory and optional check.
#define ASIM_REGISTER(registry, name, ...)                                                   \
    [[maybe_unused]] static const bool ASIM_REGISTRY_CONCAT(asim_registered_, __COUNTER__) = \
        (registry).add({#name, __VA_ARGS__})
