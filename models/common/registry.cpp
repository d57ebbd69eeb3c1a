#include "models/common/registry.h"

#include <set>

namespace asim {

namespace {
std::vector<const RegistryBase*>& registry_catalog() {
    static std::vector<const RegistryBase*> list;
    return list;
}
}  // namespace

void detail::add_registry(const RegistryBase* registry) { registry_catalog().push_back(registry); }

std::vector<const RegistryBase*> registries() {
    std::vector<const RegistryBase*> list = registry_catalog();
    std::sort(list.begin(), list.end(),
              [](const RegistryBase* a, const RegistryBase* b) { return a->kind() < b->kind(); });
    return list;
}

RegistryBase::RegistryBase(std::string kind) : m_kind(std::move(kind)) {
    detail::add_registry(this);
}

std::vector<std::string> RegistryBase::names() const {
    std::vector<std::string> out;
    for (const auto& impl : implementations()) out.push_back(impl.name);
    return out;
}

bool RegistryBase::contains(const std::string& name) const {
    const auto all = names();
    return std::find(all.begin(), all.end(), name) != all.end();
}

std::string RegistryBase::names_text() const {
    std::string s;
    for (const std::string& n : names()) s += (s.empty() ? "" : ", ") + n;
    return s;
}

std::string RegistryBase::unknown_message(const std::string& name) const {
    const std::string near = closest_match(name, names());
    return "unknown " + m_kind + " '" + name + "' (registered: " + names_text() +
           (near.empty() ? "" : "; did you mean " + near + "?") + ")";
}

ParamValues RegistryBase::read_params(const ConfigNode& node, const std::string& chosen) const {
    ParamValues values;
    const auto all = implementations();
    const Implementation* mine = nullptr;
    for (const auto& impl : all) {
        if (impl.name == chosen) mine = &impl;
    }
    if (!mine) return values;  // the choice itself was reported
    for (const Param& p : *mine->params) {
        if (auto v = read_param(node, p)) values.set(p.key(), std::move(*v));
    }
    std::set<std::string> reported;  // a key two other implementations declare: named once
    for (const auto& other : all) {
        if (other.name == chosen) continue;
        for (const Param& p : *other.params) {
            const bool declared_by_mine =
                std::any_of(mine->params->begin(), mine->params->end(),
                            [&](const Param& q) { return q.key() == p.key(); });
            if (declared_by_mine || !node.has(p.key())) continue;
            if (!reported.insert(p.key()).second) continue;
            node.report(p.key(), "is a parameter of the " + m_kind + " '" + other.name +
                                     "', not of the chosen '" + chosen + "'");
        }
    }
    return values;
}

}  // namespace asim
