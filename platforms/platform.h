// Platforms: YAML presets built into the binary (platforms/*.yaml) or files on disk, loaded with
// `base:` inheritance and `--set` overrides, and elaborated into model parameters. Unknown keys
// are caught once every parameter has been read (Config::check_unused).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/chip/die/die.h"
#include "models/common/config.h"
#include "models/interconnect/network_params.h"

namespace asim {

struct BuiltinPreset {
    const char* name;          // file stem, e.g. "ascend960"
    const char* display_name;  // "platforms/ascend960.yaml", used in messages
    const char* yaml;
};

const std::vector<BuiltinPreset>& builtin_presets();

// Resolves a platform name to a built-in preset or a YAML file (EmbeddedPresetResolver).
EmbeddedPresetResolver platform_resolver();

constexpr const char* kDefaultPlatform = "ascend960";

struct Platform {
    Config config;  // effective configuration (bases merged, overrides applied)
    std::string name;
    std::string description;
    DieParams die;
    std::optional<NetworkParams> network;  // the `network:` section of supernode presets
};

// Loads, overrides, parses and checks a platform. Throws ConfigError (exit 2) on any problem.
Platform load_platform(const std::string& name_or_path, const std::vector<std::string>& overrides);

}  // namespace asim
