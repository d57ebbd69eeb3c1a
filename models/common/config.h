// The configuration tree: YAML files with preset inheritance (`base:`), command-line overrides
// (`--set key=value`), unit-checked typed access, and strict keys.
//
// Every node remembers the file, line and column it came from and its dotted key path, so each
// error names all three ("platforms/ascend960.yaml:14:7: die.l2.size: ..."). yaml-cpp reports
// neither file nor path, which is why the tree is our own and yaml-cpp is only its parser.
//
// Strict keys work by use: components read their keys through ConfigNode; every key read (or
// asked for and found absent) is marked. After elaboration, Config::check_unused() reports the
// first key nobody read as unknown, with a "did you mean" drawn from the keys that were asked
// for at the same level. A misspelt key can therefore never be silently ignored.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asim {

struct SourceLocation {
    std::string file;         // YAML file, "--set" for overrides, "<built-in>" for defaults
    int line = 0;             // 1-based; 0 when unknown
    int column = 0;           // 1-based; 0 when unknown
    std::string str() const;  // "file:line:col", or "file" when line is 0
};

namespace detail {
struct ConfigTree;
struct TreeNode;
}  // namespace detail

class ConfigNode;
class ConfigError;

// Where `base:` names and `--platform` names are looked up.
class PresetResolver {
public:
    virtual ~PresetResolver() = default;
    // Returns the YAML text and a display name (e.g. "platforms/ascend960.yaml") for `name`,
    // which is a preset name (file stem) or a path; `relative_to` is the file that named it
    // (empty for the command line). Throws ConfigError when it cannot be found.
    virtual std::pair<std::string, std::string> resolve(const std::string& name,
                                                        const std::string& relative_to) const = 0;
};

// Resolves paths on disk only (absolute, or relative to the including file / working dir).
class FilePresetResolver : public PresetResolver {
public:
    std::pair<std::string, std::string> resolve(const std::string& name,
                                                const std::string& relative_to) const override;
};

// YAML texts built into the binary (platform presets, model configs), by name.
struct EmbeddedYaml {
    std::string name;          // file stem, e.g. "ascend960"
    std::string display_name;  // e.g. "platforms/ascend960.yaml", used in messages
    const char* yaml;
};

// Resolves a name to an embedded YAML, or to a file when the name looks like a path (contains
// a '/', ends in .yaml/.yml) or exists on disk. An unknown name is a ConfigError listing the
// embedded names, with "did you mean"; `kind` names them in it ("platform", "model").
class EmbeddedPresetResolver : public PresetResolver {
public:
    EmbeddedPresetResolver(std::string kind, std::vector<EmbeddedYaml> presets)
        : m_kind(std::move(kind)), m_presets(std::move(presets)) {}
    std::pair<std::string, std::string> resolve(const std::string& name,
                                                const std::string& relative_to) const override;

private:
    std::string m_kind;
    std::vector<EmbeddedYaml> m_presets;
};

class Config {
public:
    Config();
    ~Config();
    Config(Config&&) noexcept;
    Config& operator=(Config&&) noexcept;

    // Loads `name` through `resolver`, following `base:` chains (cycles are errors). The
    // derived file's keys override the base's recursively; lists and scalars are replaced.
    static Config load(const std::string& name, const PresetResolver& resolver);
    // Parses YAML text directly (tests, built-in defaults). `base:` is resolved through
    // `resolver` when given, and is an error otherwise.
    static Config from_string(const std::string& yaml_text, const std::string& display_name,
                              const PresetResolver* resolver = nullptr);

    // Applies "dotted.key=value". The value is read as YAML (a scalar, or a flow list/map).
    // Intermediate maps are created when absent; replacing a map by a scalar is an error.
    // Errors name the override ("--set die.l2.size=64MiB: ...").
    void apply_override(const std::string& assignment);

    ConfigNode root() const;

    // Throws ConfigError for the first key present in the tree that no component read, with a
    // "did you mean" suggestion when a key that was read at the same level is close.
    void check_unused() const;

    // Problems reported so far (ConfigNode::report, and the parameter tables' readers, which
    // report a bad value and go on so that one run names every problem). Each is a whole
    // message, located like a ConfigError's.
    const std::vector<std::string>& problems() const;
    // Throws one ConfigError naming every problem reported so far, if there is any.
    void throw_problems() const;
    // Whether ConfigNode::report records problems (on) or throws the first (off, the default:
    // a reader used on its own fails at once). The platform loader turns it on.
    void collect_problems(bool on);

    // The effective configuration (all bases merged, overrides applied) as YAML.
    std::string to_yaml() const;

    // The value at a dotted path as written ("64MiB"; a list as "[a, b]"), or nullopt when the
    // path is absent or names a map. Marks nothing.
    std::optional<std::string> value_text(const std::string& dotted_path) const;
    // The dotted path of every value in the tree (maps are walked; the items of a list of maps
    // add "[]" to the list's key, e.g. "network.faults[].link"). Marks nothing.
    std::vector<std::string> leaf_paths() const;

private:
    std::unique_ptr<detail::ConfigTree> m_tree;
};

// Range check for integer and real values: [min, max].
struct Range {
    double min;
    double max;
};

// A view of one map in the tree. Cheap to copy; valid while its Config lives.
class ConfigNode {
public:
    const std::string& path() const;  // dotted key path from the root ("" for the root)
    SourceLocation location() const;  // where this map was written
    std::string key_path(const std::string& key) const;  // path() + "." + key

    bool has(const std::string& key) const;  // marks `key` as known even when absent
    std::vector<std::string> keys() const;   // keys present, in file order (marks none)

    // Sub-maps. child() throws when missing or not a map.
    ConfigNode child(const std::string& key) const;
    std::optional<ConfigNode> optional_child(const std::string& key) const;
    // Items of a list of maps.
    std::vector<ConfigNode> child_list(const std::string& key) const;

    // Scalars. The one-argument forms throw "missing required key"; the forms with a default
    // return it when the key is absent. Sizes, times, frequencies and rates need a unit of the
    // right kind; sizes, frequencies and rates must be > 0 (zero-sized hardware is an error).
    uint64_t size_bytes(const std::string& key) const;
    uint64_t size_bytes(const std::string& key, uint64_t dflt) const;
    // A size that may be zero (e.g. a partition that is switched off).
    uint64_t size_bytes_or_zero(const std::string& key, uint64_t dflt) const;
    int64_t time_ps(const std::string& key) const;  // >= 0
    int64_t time_ps(const std::string& key, int64_t dflt) const;
    double frequency_hz(const std::string& key) const;
    double frequency_hz(const std::string& key, double dflt) const;
    double bit_rate(const std::string& key) const;  // bit/s
    double bit_rate(const std::string& key, double dflt) const;
    double byte_rate(const std::string& key) const;  // B/s
    double byte_rate(const std::string& key, double dflt) const;

    int64_t integer(const std::string& key, Range range) const;
    int64_t integer(const std::string& key, int64_t dflt, Range range) const;
    double real(const std::string& key, Range range) const;
    double real(const std::string& key, double dflt, Range range) const;
    bool boolean(const std::string& key) const;
    bool boolean(const std::string& key, bool dflt) const;
    std::string string(const std::string& key) const;
    std::string string(const std::string& key, const std::string& dflt) const;
    // One of `choices`; an error lists them (with "did you mean" when one is close).
    std::string choice(const std::string& key, std::initializer_list<const char*> choices) const;
    std::string choice(const std::string& key, std::initializer_list<const char*> choices,
                       const std::string& dflt) const;
    std::vector<int64_t> integer_list(const std::string& key, Range range) const;
    // A list of strings; `dflt` when the key is absent.
    std::vector<std::string> string_list(const std::string& key,
                                         const std::vector<std::string>& dflt) const;

    // Throws ConfigError located at `key` (or at this map when `key` is absent from it).
    [[noreturn]] void fail(const std::string& key, const std::string& message) const;
    // The same message, recorded with the tree's problems when the tree collects them
    // (Config::collect_problems; Config::throw_problems names them all at once), else thrown.
    void report(const std::string& key, const std::string& message) const;
    // The same for a ConfigError a reader of this tree threw (its message is already located).
    void report(const ConfigError& error) const;
    // Whether any problem was recorded so far (checks across keys are skipped then).
    bool problems_reported() const;

private:
    friend class Config;
    std::string failure_message(const std::string& key, const std::string& message) const;
    ConfigNode(const detail::ConfigTree* tree, detail::TreeNode* node, std::string path);
    const detail::ConfigTree* m_tree = nullptr;
    detail::TreeNode* m_node = nullptr;
    std::string m_path;
};

// Edit distance used for "did you mean" (exposed for tests and for other name lookups).
std::size_t edit_distance(const std::string& a, const std::string& b);
// The closest candidate within a distance that scales with the word, or "" if none is close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace asim
