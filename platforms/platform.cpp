#include "platforms/platform.h"

#include <filesystem>

#include "models/common/errors.h"

namespace asim {

std::pair<std::string, std::string> PlatformResolver::resolve(const std::string& name,
                                                              const std::string& relative_to) const {
    const bool looks_like_path = name.find('/') != std::string::npos ||
                                 (name.size() > 5 && name.substr(name.size() - 5) == ".yaml") ||
                                 (name.size() > 4 && name.substr(name.size() - 4) == ".yml");
    std::error_code ec;
    if (looks_like_path || std::filesystem::exists(name, ec)) {
        return FilePresetResolver().resolve(name, relative_to);
    }
    std::vector<std::string> names;
    for (const auto& p : builtin_presets()) {
        if (name == p.name) return {p.yaml, p.display_name};
        names.emplace_back(p.name);
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    const std::string close = closest_match(name, names);
    throw ConfigError("unknown platform '" + name + "'" +
                      (close.empty() ? "" : "; did you mean '" + close + "'?") +
                      " (built-in presets: " + list + "; or give a path to a YAML file)");
}

Platform load_platform(const std::string& name_or_path, const std::vector<std::string>& overrides) {
    Platform p;
    p.config = Config::load(name_or_path, PlatformResolver());
    for (const auto& o : overrides) p.config.apply_override(o);
    const ConfigNode root = p.config.root();
    p.name = root.string("name");
    p.description = root.string("description", "");
    p.die = parse_die_params(root.child("die"));
    p.config.check_unused();
    return p;
}

}  // namespace asim
