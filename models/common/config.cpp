#include "models/common/config.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "models/common/errors.h"
#include "models/common/units.h"

namespace asim {
namespace detail {

enum class NodeType { kNull, kScalar, kList, kMap };

struct TreeNode;

struct MapEntry {
    std::string key;
    SourceLocation key_location;
    std::unique_ptr<TreeNode> value;
};

struct TreeNode {
    NodeType type = NodeType::kNull;
    SourceLocation location;
    std::string scalar;   // kScalar: the text as written ("64MiB"), so to_yaml can repeat it
    bool quoted = false;  // kScalar: written in quotes; kept so to_yaml does not turn "1" into 1
    std::vector<MapEntry> entries;                 // kMap, in file order
    std::vector<std::unique_ptr<TreeNode>> items;  // kList

    // Use marks for check_unused(). ConfigNode views are const, the marks are what they record.
    bool reached = false;            // a component took this map as a ConfigNode
    std::vector<std::string> asked;  // keys asked for here, present or not, in order of asking
    std::unordered_set<std::string> asked_set;  // the same, for lookups
    std::unordered_set<std::string> used;       // keys asked for and present

    // Key -> position in `entries`, so that reading a map of n keys costs n lookups, not n^2
    // comparisons (a file of a million keys is checked in about a second, not minutes).
    std::unordered_map<std::string, std::size_t> index;

    MapEntry* find(const std::string& key) {
        auto it = index.find(key);
        return it == index.end() ? nullptr : &entries[it->second];
    }
    const MapEntry* find(const std::string& key) const {
        auto it = index.find(key);
        return it == index.end() ? nullptr : &entries[it->second];
    }
    MapEntry& add(MapEntry entry) {
        index.emplace(entry.key, entries.size());
        entries.push_back(std::move(entry));
        return entries.back();
    }
    void erase(std::vector<MapEntry>::iterator it) {
        entries.erase(it);
        index.clear();
        for (std::size_t i = 0; i < entries.size(); ++i) index.emplace(entries[i].key, i);
    }
};

struct ConfigTree {
    std::unique_ptr<TreeNode> root;
    // Reported problems (ConfigNode::report): the views are const, the list is what they add to.
    mutable std::vector<std::string> problems;
    bool collect = false;
};

}  // namespace detail

namespace {

using detail::MapEntry;
using detail::NodeType;
using detail::TreeNode;

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

std::string join_path(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

std::string item_path(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

std::string trim(const std::string& text) {
    std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    std::size_t last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

const char* type_noun(NodeType type) {
    switch (type) {
        case NodeType::kNull:
            return "an empty value";
        case NodeType::kScalar:
            return "a scalar";
        case NodeType::kList:
            return "a list";
        case NodeType::kMap:
            return "a map";
    }
    return "a value";
}

[[noreturn]] void throw_at(const SourceLocation& location, const std::string& path,
                           const std::string& what) {
    std::string message = location.str() + ": ";
    if (!path.empty()) message += path + ": ";
    throw ConfigError(message + what);
}

// yaml-cpp marks are 0-based and -1 when unknown; ours are 1-based and 0 when unknown.
SourceLocation location_of(const YAML::Mark& mark, const std::string& file) {
    SourceLocation location;
    location.file = file;
    if (mark.line >= 0) {
        location.line = mark.line + 1;
        location.column = mark.column >= 0 ? mark.column + 1 : 0;
    }
    return location;
}

// yaml-cpp resolves an alias to the anchored node itself, so a file can describe a graph far
// larger than itself ("billion laughs": nine nested lists of ten aliases are 10^9 values in a few
// hundred bytes) or one that contains itself (`die: &a {l2: *a}`). Our tree is a copy, so both
// are bounded while converting: nesting by kMaxDepth, and the values made by a budget of the
// text's length plus kSpareValues. Without aliases a value takes at least one character, so an
// ordinary file never reaches the budget; aliases may repeat a block a few thousand times.
constexpr int kMaxDepth = 200;
constexpr std::size_t kSpareValues = 100000;

struct ConvertLimits {
    std::string file;
    std::size_t values_left;
};

// Builds our tree from a yaml-cpp node. Overrides pass use_marks = false: their "file" is the
// assignment itself and positions inside it would only distract.
std::unique_ptr<TreeNode> convert(const YAML::Node& yaml, const std::string& file,
                                  const std::string& path, bool use_marks, ConvertLimits& limits,
                                  int depth = 0) {
    const SourceLocation here =
        use_marks ? location_of(yaml.Mark(), file) : SourceLocation{file, 0, 0};
    if (depth > kMaxDepth) {
        const std::string shown = path.size() > 80 ? path.substr(0, 80) + "..." : path;
        throw_at(here, shown,
                 "values nest deeper than " + std::to_string(kMaxDepth) +
                     " levels (an alias that refers to a map or list containing it?)");
    }
    if (limits.values_left == 0) {
        throw_at(here, path,
                 "aliases expand to more values than " + limits.file +
                     " could hold written out; expand them by hand or remove the nesting");
    }
    --limits.values_left;
    auto node = std::make_unique<TreeNode>();
    node->location = here;
    switch (yaml.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            node->type = NodeType::kNull;
            break;
        case YAML::NodeType::Scalar:
            node->type = NodeType::kScalar;
            node->scalar = yaml.Scalar();
            // yaml-cpp tags plain scalars "?" and quoted ones "!".
            node->quoted = yaml.Tag() == "!";
            break;
        case YAML::NodeType::Sequence: {
            node->type = NodeType::kList;
            std::size_t index = 0;
            for (const YAML::Node& item : yaml) {
                node->items.push_back(
                    convert(item, file, item_path(path, index), use_marks, limits, depth + 1));
                ++index;
            }
            break;
        }
        case YAML::NodeType::Map:
            node->type = NodeType::kMap;
            for (auto it = yaml.begin(); it != yaml.end(); ++it) {
                SourceLocation key_location =
                    use_marks ? location_of(it->first.Mark(), file) : SourceLocation{file, 0, 0};
                if (!it->first.IsScalar()) {
                    throw_at(key_location, path,
                             "keys must be plain names, got " +
                                 std::string(it->first.IsMap() ? "a map" : "a list"));
                }
                std::string key = it->first.Scalar();
                std::string key_path = join_path(path, key);
                if (const MapEntry* previous = node->find(key)) {
                    throw_at(
                        key_location, key_path,
                        "duplicate key (first written at " + previous->key_location.str() + ")");
                }
                MapEntry entry{key, key_location,
                               convert(it->second, file, key_path, use_marks, limits, depth + 1)};
                // yaml-cpp places an empty value's mark on the next token, often the next line;
                // the key is where the reader should look.
                if (entry.value->type == NodeType::kNull) entry.value->location = key_location;
                node->add(std::move(entry));
            }
            break;
    }
    return node;
}

// Where the documents of a YAML stream start (a config file holds one). yaml-cpp 0.7's
// LoadAll() loops forever, adding a null document per turn until memory runs out, when its parser
// stops making progress, e.g. on a lone "," (jbeder/yaml-cpp#1040; fixed upstream after 0.8 by
// #1319). Found by fuzzing (fuzz/corpus/config). Here a document that does not start after the
// previous one is malformed input, so counting ends.
class DocumentStarts : public YAML::EventHandler {
public:
    std::vector<YAML::Mark> marks;  // each document's start (its "---", or its first node)
    std::vector<YAML::Mark> nodes;  // each document's first node, for messages
    void OnDocumentStart(const YAML::Mark& mark) override {
        marks.push_back(mark);
        m_first = true;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  const std::string&) override {
        node(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnMapEnd() override {}

private:
    void node(const YAML::Mark& mark) {
        if (m_first) nodes.push_back(mark);
        m_first = false;
    }
    bool m_first = false;
};

// The offset of the first byte of `text` that is not part of well-formed UTF-8, or npos. YAML text
// is Unicode; yaml-cpp reads invalid bytes as they come but writes each as U+FFFD, so two keys
// that differ only there came back from the effective config.yaml as one duplicate key, and values
// changed (found by fuzzing). Config text must therefore be UTF-8.
std::size_t invalid_utf8_at(const std::string& text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = p[i];
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range (RFC 3629 table)
        if (c < 0x80) {
            // YAML's printable set: no C0 control other than tab, LF, CR, and no DEL. yaml-cpp
            // reads a NUL inside a --set value as it comes and then wrote bytes that were not in
            // the input into the effective config.yaml (found by fuzzing).
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
            ++i;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;  // no surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return i;
        }
        if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
        for (std::size_t k = 2; k < len; ++k) {
            if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
        }
        i += len;
    }
    return std::string::npos;
}

// "not UTF-8 text (byte 0xFF)" or "a control character (byte 0x00)", for both entry points.
std::string invalid_utf8_message(const std::string& text, std::size_t at) {
    const auto c = static_cast<unsigned char>(text[at]);
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", c);
    if (c < 0x20 || c == 0x7F) return std::string("a control character (byte ") + byte + ")";
    return std::string("not UTF-8 text (byte ") + byte + ")";
}

std::unique_ptr<TreeNode> parse_yaml(const std::string& text, const std::string& file) {
    if (const std::size_t bad = invalid_utf8_at(text); bad != std::string::npos) {
        const auto end = text.begin() + static_cast<std::ptrdiff_t>(bad);
        const auto line = 1 + std::count(text.begin(), end, '\n');
        const std::size_t nl = bad == 0 ? std::string::npos : text.rfind('\n', bad - 1);
        const std::size_t column = nl == std::string::npos ? bad + 1 : bad - nl;
        throw ConfigError(
            SourceLocation{file, static_cast<int>(line), static_cast<int>(column)}.str() + ": " +
            invalid_utf8_message(text, bad));
    }
    YAML::Node document;
    try {
        std::istringstream in(text);
        YAML::Parser parser(in);
        DocumentStarts starts;
        while (parser.HandleNextDocument(starts)) {
            const std::size_t n = starts.marks.size();
            if (n >= 2 && starts.marks[n - 1].pos <= starts.marks[n - 2].pos) {
                throw_at(location_of(starts.marks[n - 1], file), "",
                         "malformed YAML: unexpected text where a document should start");
            }
        }
        if (starts.marks.size() > 1) {
            throw_at(location_of(starts.nodes.size() > 1 ? starts.nodes[1] : starts.marks[1], file),
                     "",
                     "a config file holds one YAML document, found " +
                         std::to_string(starts.marks.size()));
        }
        document = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw ConfigError(location_of(e.mark, file).str() + ": malformed YAML: " + e.msg);
    }
    const std::vector<YAML::Node> documents{document};
    if (documents[0].IsNull()) {
        auto empty = std::make_unique<TreeNode>();
        empty->type = NodeType::kMap;
        empty->location = SourceLocation{file, 0, 0};
        return empty;
    }
    if (!documents[0].IsMap()) {
        throw_at(location_of(documents[0].Mark(), file), "",
                 "the top level must be a map of keys, got " +
                     std::string(documents[0].IsSequence() ? "a list" : "a scalar"));
    }
    ConvertLimits limits{file, text.size() + kSpareValues};
    return convert(documents[0], file, "", true, limits);
}

// Derived values override base values; maps merge key by key, everything else is replaced.
// Keys keep the base's order so that a derived file reads as a patch of its base.
void merge_into(TreeNode& base, std::unique_ptr<TreeNode> derived) {
    if (base.type != NodeType::kMap || derived->type != NodeType::kMap) {
        base = std::move(*derived);
        return;
    }
    base.location = derived->location;
    for (MapEntry& entry : derived->entries) {
        MapEntry* existing = base.find(entry.key);
        if (!existing) {
            base.add(std::move(entry));
            continue;
        }
        existing->key_location = entry.key_location;
        merge_into(*existing->value, std::move(entry.value));
    }
}

std::unique_ptr<TreeNode> load_chain(const std::string& text, const std::string& display,
                                     const PresetResolver* resolver,
                                     std::vector<std::string>& chain) {
    chain.push_back(display);
    std::unique_ptr<TreeNode> tree = parse_yaml(text, display);
    auto base_it = std::find_if(tree->entries.begin(), tree->entries.end(),
                                [](const MapEntry& e) { return e.key == "base"; });
    if (base_it != tree->entries.end()) {
        MapEntry base_entry = std::move(*base_it);
        tree->erase(base_it);
        const TreeNode& value = *base_entry.value;
        if (value.type != NodeType::kScalar || value.scalar.empty()) {
            throw_at(
                value.location, "base",
                "expected the name of a preset or file, got " + std::string(type_noun(value.type)));
        }
        const std::string& name = value.scalar;
        if (!resolver) {
            const std::string why =
                ": this config was given as text, with no preset resolver to look names up";
            throw_at(value.location, "base", "cannot load " + in_quotes(name) + why);
        }
        std::pair<std::string, std::string> resolved;
        try {
            resolved = resolver->resolve(name, display);
        } catch (const ConfigError& e) {
            throw_at(value.location, "base", e.what());
        }
        const std::string& base_display = resolved.second;
        if (std::find(chain.begin(), chain.end(), base_display) != chain.end()) {
            std::string cycle;
            for (const std::string& link : chain) cycle += link + " -> ";
            throw_at(value.location, "base", "base cycle: " + cycle + base_display);
        }
        std::unique_ptr<TreeNode> merged =
            load_chain(resolved.first, base_display, resolver, chain);
        merge_into(*merged, std::move(tree));
        tree = std::move(merged);
    }
    chain.pop_back();
    return tree;
}

// Looks `key` up in `map` and records the question (and the answer, when present).
MapEntry* lookup(TreeNode* map, const std::string& key) {
    if (map->asked_set.insert(key).second) map->asked.push_back(key);
    MapEntry* entry = map->find(key);
    if (entry) map->used.insert(key);
    return entry;
}

// The scalar under `key`, or nullptr when it is absent and `required` is false. `expected`
// describes the wanted value for the type-mismatch message.
const MapEntry* scalar_entry(TreeNode* map, const std::string& map_path, const std::string& key,
                             bool required, const std::string& expected) {
    const MapEntry* entry = lookup(map, key);
    if (!entry) {
        if (required) throw_at(map->location, join_path(map_path, key), "missing required key");
        return nullptr;
    }
    if (entry->value->type != NodeType::kScalar) {
        throw_at(entry->value->location, join_path(map_path, key),
                 "expected " + expected + ", got " + type_noun(entry->value->type));
    }
    return entry;
}

std::string format_number(double value) {
    char buffer[64];
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
        std::snprintf(buffer, sizeof(buffer), "%.0f", value);
    } else {
        std::snprintf(buffer, sizeof(buffer), "%g", value);
    }
    return buffer;
}

std::string range_text(Range range) {
    return "[" + format_number(range.min) + ", " + format_number(range.max) + "]";
}

int64_t parse_integer(const TreeNode& value, const std::string& path, Range range) {
    std::string text = trim(value.scalar);
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    int64_t result = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result);
    bool complete = ptr == digits.data() + digits.size() && !digits.empty();
    if (ec == std::errc::result_out_of_range && complete) {
        throw_at(value.location, path,
                 in_quotes(value.scalar) + " is out of range " + range_text(range));
    }
    if (ec != std::errc() || !complete) {
        throw_at(value.location, path, "expected an integer, got " + in_quotes(value.scalar));
    }
    if (static_cast<double>(result) < range.min || static_cast<double>(result) > range.max) {
        throw_at(value.location, path,
                 in_quotes(value.scalar) + " is out of range " + range_text(range));
    }
    return result;
}

double parse_real(const TreeNode& value, const std::string& path, Range range) {
    std::string text = trim(value.scalar);
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    double result = 0.0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result);
    // from_chars reads "inf" and "nan"; a config value must be an ordinary number.
    if (ec != std::errc() || ptr != digits.data() + digits.size() || digits.empty() ||
        !std::isfinite(result)) {
        throw_at(value.location, path, "expected a number, got " + in_quotes(value.scalar));
    }
    if (result < range.min || result > range.max) {
        throw_at(value.location, path,
                 in_quotes(value.scalar) + " is out of range " + range_text(range));
    }
    return result;
}

bool parse_boolean(const TreeNode& value, const std::string& path) {
    // YAML 1.2: only true and false. "yes", "on" and friends are YAML 1.1 and read ambiguously.
    if (value.scalar == "true") return true;
    if (value.scalar == "false") return false;
    throw_at(value.location, path, "expected true or false, got " + in_quotes(value.scalar));
}

std::string parse_choice(const TreeNode& value, const std::string& path,
                         std::initializer_list<const char*> choices) {
    std::vector<std::string> names(choices.begin(), choices.end());
    if (std::find(names.begin(), names.end(), value.scalar) != names.end()) return value.scalar;
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + in_quotes(name);
    std::string message = "expected one of " + list + ", got " + in_quotes(value.scalar);
    std::string suggestion = closest_match(value.scalar, names);
    if (!suggestion.empty()) message += "; did you mean " + in_quotes(suggestion) + "?";
    throw_at(value.location, path, message);
}

std::string describe_choices(std::initializer_list<const char*> choices) {
    std::string list;
    for (const char* name : choices) list += (list.empty() ? "" : ", ") + in_quotes(name);
    return "one of " + list;
}

// Runs a units:: parser and turns its UnitError into a located ConfigError.
template <typename Parse>
auto parse_unit(const TreeNode& value, const std::string& path, Parse parse) {
    try {
        return parse(value.scalar);
    } catch (const units::UnitError& e) {
        throw_at(value.location, path, e.what());
    }
}

void require_positive(double value, const TreeNode& node, const std::string& path) {
    if (!(value > 0.0)) {
        throw_at(node.location, path, "must be greater than zero, got " + in_quotes(node.scalar));
    }
}

uint64_t read_size(const MapEntry& entry, const std::string& path, bool allow_zero = false) {
    uint64_t value =
        parse_unit(*entry.value, path, [](const std::string& text) { return units::bytes(text); });
    if (!allow_zero) require_positive(static_cast<double>(value), *entry.value, path);
    return value;
}

int64_t read_time(const MapEntry& entry, const std::string& path) {
    return parse_unit(*entry.value, path,
                      [](const std::string& text) { return units::picoseconds(text); });
}

// Upper bounds of what the model can represent. Time is counted in integer picoseconds, so a clock
// above 1 THz has a period of zero and every latency computed from it collapses to nothing; a
// rate above 1 EB/s moves a byte in less than 10^-6 ps. Such values are typos (1e30GHz, a
// unit too many), and a silent "0.00 Hz" or a zero-time transfer would be a wrong result.
// Clocks are whole hertz, so below 1 Hz there is no clock at all.
struct Ceiling {
    double max;
    const char* why;
    double min = 0.0;
};
constexpr Ceiling kMaxFrequency{1e12, "1THz (time is counted in whole picoseconds)", 1.0};
constexpr Ceiling kMaxBitRate{8e18, "8Ebps"};
constexpr Ceiling kMaxByteRate{1e18, "1EB/s"};

template <typename Parse>
double read_positive(const MapEntry& entry, const std::string& path, Parse parse, Ceiling ceiling) {
    double value = parse_unit(*entry.value, path, parse);
    require_positive(value, *entry.value, path);
    if (!(value <= ceiling.max)) {
        throw_at(entry.value->location, path,
                 in_quotes(entry.value->scalar) +
                     " is more than the largest value the model represents, " + ceiling.why);
    }
    if (value < ceiling.min) {
        throw_at(entry.value->location, path, in_quotes(entry.value->scalar) + " is below 1Hz");
    }
    return value;
}

double parse_hz(const std::string& text) { return units::hertz(text); }
double parse_bps(const std::string& text) { return units::bits_per_second(text); }
double parse_byte_rate(const std::string& text) { return units::bytes_per_second(text); }

void emit(YAML::Emitter& out, const TreeNode& node) {
    switch (node.type) {
        case NodeType::kNull:
            out << YAML::Null;
            break;
        case NodeType::kScalar:
            if (node.quoted) {
                out << YAML::DoubleQuoted << node.scalar;
            } else {
                out << node.scalar;
            }
            break;
        case NodeType::kList:
            out << YAML::BeginSeq;
            for (const auto& item : node.items) emit(out, *item);
            out << YAML::EndSeq;
            break;
        case NodeType::kMap:
            out << YAML::BeginMap;
            for (const MapEntry& entry : node.entries) {
                out << YAML::Key << entry.key << YAML::Value;
                emit(out, *entry.value);
            }
            out << YAML::EndMap;
            break;
    }
}

void check_map(const TreeNode& map, const std::string& path) {
    for (const MapEntry& entry : map.entries) {
        std::string key_path = join_path(path, entry.key);
        if (map.used.count(entry.key) == 0) {
            std::string message = "unknown key";
            std::string suggestion = closest_match(entry.key, map.asked);
            if (!suggestion.empty()) message += "; did you mean " + in_quotes(suggestion) + "?";
            throw_at(entry.key_location, key_path, message);
        }
        const TreeNode& value = *entry.value;
        if (value.type == NodeType::kMap && value.reached) {
            check_map(value, key_path);
        } else if (value.type == NodeType::kList) {
            for (std::size_t i = 0; i < value.items.size(); ++i) {
                const TreeNode& item = *value.items[i];
                if (item.type == NodeType::kMap && item.reached) {
                    check_map(item, item_path(key_path, i));
                }
            }
        }
    }
}

// The --set assignments that wrote keys in `map` or below it, in tree order, each once.
void collect_overrides(const TreeNode& map, std::vector<std::string>& out, int depth = 0) {
    if (depth > kMaxDepth) return;
    auto note = [&out](const std::string& file) {
        if (file.rfind("--set ", 0) == 0 && std::find(out.begin(), out.end(), file) == out.end()) {
            out.push_back(file);
        }
    };
    for (const MapEntry& entry : map.entries) {
        note(entry.key_location.file);
        note(entry.value->location.file);
        if (entry.value->type == NodeType::kMap) collect_overrides(*entry.value, out, depth + 1);
    }
}

std::string lower(const std::string& text) {
    std::string out = text;
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace

// ---- SourceLocation ----------------------------------------------------------------------

std::string SourceLocation::str() const {
    if (line == 0) return file;
    std::string out = file + ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
    return out;
}

// ---- FilePresetResolver ------------------------------------------------------------------

std::pair<std::string, std::string> FilePresetResolver::resolve(
    const std::string& name, const std::string& relative_to) const {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    fs::path path(name);
    if (path.is_relative() && !relative_to.empty()) {
        candidates.push_back((fs::path(relative_to).parent_path() / path).lexically_normal());
    }
    if (std::find(candidates.begin(), candidates.end(), path) == candidates.end()) {
        candidates.push_back(path);
    }
    std::string tried;
    for (const fs::path& candidate : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) {
            std::ifstream in(candidate, std::ios::binary);
            if (in) {
                std::ostringstream text;
                text << in.rdbuf();
                return {text.str(), candidate.string()};
            }
        }
        tried += (tried.empty() ? "" : ", ") + in_quotes(candidate.string());
    }
    throw ConfigError("cannot open platform " + in_quotes(name) + ": no such file (tried " + tried +
                      ")");
}

// ---- Config ------------------------------------------------------------------------------

Config::Config() : m_tree(std::make_unique<detail::ConfigTree>()) {
    m_tree->root = std::make_unique<TreeNode>();
    m_tree->root->type = NodeType::kMap;
    m_tree->root->location = SourceLocation{"<built-in>", 0, 0};
}

Config::~Config() = default;
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(Config&&) noexcept = default;

Config Config::load(const std::string& name, const PresetResolver& resolver) {
    std::pair<std::string, std::string> resolved = resolver.resolve(name, "");
    std::vector<std::string> chain;
    Config config;
    config.m_tree->root = load_chain(resolved.first, resolved.second, &resolver, chain);
    return config;
}

Config Config::from_string(const std::string& yaml_text, const std::string& display_name,
                           const PresetResolver* resolver) {
    std::vector<std::string> chain;
    Config config;
    config.m_tree->root = load_chain(yaml_text, display_name, resolver, chain);
    return config;
}

void Config::apply_override(const std::string& assignment) {
    // The assignment is the "file" of everything it sets, so later errors about these values
    // read "--set die.l2.size=1GHz: die.l2.size: ...".
    const std::string origin = "--set " + assignment;
    auto fail = [&origin](const std::string& what) { throw ConfigError(origin + ": " + what); };
    if (const std::size_t bad = invalid_utf8_at(assignment); bad != std::string::npos) {
        fail(invalid_utf8_message(assignment, bad));
    }
    std::size_t equals = assignment.find('=');
    if (equals == std::string::npos) fail("expected key=value, e.g. die.l2.size=64MiB");
    std::string key = trim(assignment.substr(0, equals));
    std::string value_text = trim(assignment.substr(equals + 1));
    if (key.empty()) fail("the key before '=' is empty");
    if (value_text.empty()) fail("the value after '=' is empty");
    std::vector<std::string> segments;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = key.find('.', start);
        segments.push_back(key.substr(start, dot == std::string::npos ? dot : dot - start));
        if (segments.back().empty()) fail("empty segment in key " + in_quotes(key));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    // Also "base.x=...": a map under `base` would be written to the effective config, which
    // then names no preset and does not load (found by fuzzing).
    if (segments[0] == "base") {
        fail("'base' selects a preset file and cannot be overridden; choose the platform instead");
    }
    YAML::Node parsed;
    try {
        parsed = YAML::Load(value_text);
    } catch (const YAML::Exception& e) {
        fail("malformed YAML value: " + e.msg);
    }
    const SourceLocation here{origin, 0, 0};
    ConvertLimits limits{"the --set value", value_text.size() + kSpareValues};
    std::unique_ptr<TreeNode> value = convert(parsed, origin, key, false, limits);

    TreeNode* map = m_tree->root.get();
    std::string path;
    for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
        path = join_path(path, segments[i]);
        MapEntry* entry = map->find(segments[i]);
        if (!entry) {
            auto created = std::make_unique<TreeNode>();
            created->type = NodeType::kMap;
            created->location = here;
            entry = &map->add(MapEntry{segments[i], here, std::move(created)});
        } else if (entry->value->type != NodeType::kMap) {
            fail(path + " is " + type_noun(entry->value->type) + " (" +
                 entry->value->location.str() + "), not a map");
        }
        map = entry->value.get();
    }
    MapEntry* entry = map->find(segments.back());
    if (!entry) {
        map->add(MapEntry{segments.back(), here, std::move(value)});
        return;
    }
    if (entry->value->type == NodeType::kMap && value->type != NodeType::kMap) {
        fail(key + " is a map (" + entry->value->location.str() + "); set its keys one by one, " +
             "e.g. --set " + key + ".<key>=...");
    }
    entry->key_location = here;
    merge_into(*entry->value, std::move(value));
}

ConfigNode Config::root() const {
    m_tree->root->reached = true;
    return ConfigNode(m_tree.get(), m_tree->root.get(), "");
}

void Config::check_unused() const { check_map(*m_tree->root, ""); }

std::optional<std::string> Config::value_text(const std::string& dotted_path) const {
    const TreeNode* node = m_tree->root.get();
    std::size_t start = 0;
    while (node) {
        const std::size_t dot = dotted_path.find('.', start);
        const std::string key =
            dotted_path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (node->type != NodeType::kMap) return std::nullopt;
        const MapEntry* entry = node->find(key);
        if (!entry) return std::nullopt;
        node = entry->value.get();
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    if (!node) return std::nullopt;
    if (node->type == NodeType::kScalar) return node->scalar;
    if (node->type != NodeType::kList) return std::nullopt;
    std::string text = "[";
    for (const auto& item : node->items) {
        if (item->type != NodeType::kScalar) return std::nullopt;
        text += (text.size() > 1 ? ", " : "") + item->scalar;
    }
    return text + "]";
}

void Config::collect_problems(bool on) { m_tree->collect = on; }

namespace {
void collect_leaves(const TreeNode& node, const std::string& path, std::vector<std::string>& out) {
    if (node.type == NodeType::kMap) {
        for (const MapEntry& e : node.entries)
            collect_leaves(*e.value, path.empty() ? e.key : path + "." + e.key, out);
        return;
    }
    if (node.type == NodeType::kList && !node.items.empty() &&
        node.items.front()->type == NodeType::kMap) {
        std::set<std::string> seen;
        for (const auto& item : node.items) {
            std::vector<std::string> inner;
            collect_leaves(*item, path + "[]", inner);
            for (auto& leaf : inner) {
                if (seen.insert(leaf).second) out.push_back(std::move(leaf));
            }
        }
        return;
    }
    out.push_back(path);
}
}  // namespace

std::vector<std::string> Config::leaf_paths() const {
    std::vector<std::string> out;
    collect_leaves(*m_tree->root, "", out);
    return out;
}

const std::vector<std::string>& Config::problems() const { return m_tree->problems; }

void Config::throw_problems() const {
    const auto& problems = m_tree->problems;
    if (problems.empty()) return;
    if (problems.size() == 1) throw ConfigError(problems.front());
    std::string message = std::to_string(problems.size()) + " problems in the configuration:";
    for (const std::string& p : problems) message += "\n  " + p;
    throw ConfigError(message);
}

std::string Config::to_yaml() const {
    YAML::Emitter out;
    out << YAML::Block;
    emit(out, *m_tree->root);
    return std::string(out.c_str()) + "\n";
}

// ---- ConfigNode --------------------------------------------------------------------------

ConfigNode::ConfigNode(const detail::ConfigTree* tree, detail::TreeNode* node, std::string path)
    : m_tree(tree), m_node(node), m_path(std::move(path)) {}

const std::string& ConfigNode::path() const { return m_path; }

SourceLocation ConfigNode::location() const { return m_node->location; }

std::string ConfigNode::key_path(const std::string& key) const { return join_path(m_path, key); }

bool ConfigNode::has(const std::string& key) const {
    // Testing for a key counts as reading it: presence can be the setting itself. A sub-map
    // found this way is only checked for unknown keys once child() opens it.
    return lookup(m_node, key) != nullptr;
}

std::vector<std::string> ConfigNode::keys() const {
    std::vector<std::string> out;
    out.reserve(m_node->entries.size());
    for (const MapEntry& entry : m_node->entries) out.push_back(entry.key);
    return out;
}

ConfigNode ConfigNode::child(const std::string& key) const {
    std::optional<ConfigNode> found = optional_child(key);
    if (!found) throw_at(m_node->location, key_path(key), "missing required key");
    return *found;
}

std::optional<ConfigNode> ConfigNode::optional_child(const std::string& key) const {
    MapEntry* entry = lookup(m_node, key);
    if (!entry) return std::nullopt;
    TreeNode* value = entry->value.get();
    if (value->type != NodeType::kMap) {
        throw_at(value->location, key_path(key),
                 std::string("expected a map of keys, got ") + type_noun(value->type));
    }
    value->reached = true;
    return ConfigNode(m_tree, value, key_path(key));
}

std::vector<ConfigNode> ConfigNode::child_list(const std::string& key) const {
    std::vector<ConfigNode> out;
    MapEntry* entry = lookup(m_node, key);
    if (!entry) return out;
    TreeNode* value = entry->value.get();
    if (value->type != NodeType::kList) {
        throw_at(value->location, key_path(key),
                 std::string("expected a list of maps, got ") + type_noun(value->type));
    }
    for (std::size_t i = 0; i < value->items.size(); ++i) {
        TreeNode* item = value->items[i].get();
        std::string path = item_path(key_path(key), i);
        if (item->type != NodeType::kMap) {
            throw_at(item->location, path,
                     std::string("expected a map of keys, got ") + type_noun(item->type));
        }
        item->reached = true;
        out.push_back(ConfigNode(m_tree, item, path));
    }
    return out;
}

uint64_t ConfigNode::size_bytes(const std::string& key) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, true, units::describe(units::Kind::kSize));
    return read_size(*entry, key_path(key));
}

uint64_t ConfigNode::size_bytes(const std::string& key, uint64_t dflt) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, false, units::describe(units::Kind::kSize));
    return entry ? read_size(*entry, key_path(key)) : dflt;
}

uint64_t ConfigNode::size_bytes_or_zero(const std::string& key, uint64_t dflt) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, false, units::describe(units::Kind::kSize));
    return entry ? read_size(*entry, key_path(key), true) : dflt;
}

int64_t ConfigNode::time_ps(const std::string& key) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, true, units::describe(units::Kind::kTime));
    return read_time(*entry, key_path(key));
}

int64_t ConfigNode::time_ps(const std::string& key, int64_t dflt) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, false, units::describe(units::Kind::kTime));
    return entry ? read_time(*entry, key_path(key)) : dflt;
}

double ConfigNode::frequency_hz(const std::string& key) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, true, units::describe(units::Kind::kFrequency));
    return read_positive(*entry, key_path(key), parse_hz, kMaxFrequency);
}

double ConfigNode::frequency_hz(const std::string& key, double dflt) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, false, units::describe(units::Kind::kFrequency));
    return entry ? read_positive(*entry, key_path(key), parse_hz, kMaxFrequency) : dflt;
}

double ConfigNode::bit_rate(const std::string& key) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, true, units::describe(units::Kind::kBitRate));
    return read_positive(*entry, key_path(key), parse_bps, kMaxBitRate);
}

double ConfigNode::bit_rate(const std::string& key, double dflt) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, false, units::describe(units::Kind::kBitRate));
    return entry ? read_positive(*entry, key_path(key), parse_bps, kMaxBitRate) : dflt;
}

double ConfigNode::byte_rate(const std::string& key) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, true, units::describe(units::Kind::kByteRate));
    return read_positive(*entry, key_path(key), parse_byte_rate, kMaxByteRate);
}

double ConfigNode::byte_rate(const std::string& key, double dflt) const {
    const MapEntry* entry =
        scalar_entry(m_node, m_path, key, false, units::describe(units::Kind::kByteRate));
    return entry ? read_positive(*entry, key_path(key), parse_byte_rate, kMaxByteRate) : dflt;
}

int64_t ConfigNode::integer(const std::string& key, Range range) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, true, "an integer");
    return parse_integer(*entry->value, key_path(key), range);
}

int64_t ConfigNode::integer(const std::string& key, int64_t dflt, Range range) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, false, "an integer");
    return entry ? parse_integer(*entry->value, key_path(key), range) : dflt;
}

double ConfigNode::real(const std::string& key, Range range) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, true, "a number");
    return parse_real(*entry->value, key_path(key), range);
}

double ConfigNode::real(const std::string& key, double dflt, Range range) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, false, "a number");
    return entry ? parse_real(*entry->value, key_path(key), range) : dflt;
}

bool ConfigNode::boolean(const std::string& key) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, true, "true or false");
    return parse_boolean(*entry->value, key_path(key));
}

bool ConfigNode::boolean(const std::string& key, bool dflt) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, false, "true or false");
    return entry ? parse_boolean(*entry->value, key_path(key)) : dflt;
}

std::string ConfigNode::string(const std::string& key) const {
    return scalar_entry(m_node, m_path, key, true, "a string")->value->scalar;
}

std::string ConfigNode::string(const std::string& key, const std::string& dflt) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, false, "a string");
    return entry ? entry->value->scalar : dflt;
}

std::string ConfigNode::choice(const std::string& key,
                               std::initializer_list<const char*> choices) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, true, describe_choices(choices));
    return parse_choice(*entry->value, key_path(key), choices);
}

std::string ConfigNode::choice(const std::string& key, std::initializer_list<const char*> choices,
                               const std::string& dflt) const {
    const MapEntry* entry = scalar_entry(m_node, m_path, key, false, describe_choices(choices));
    return entry ? parse_choice(*entry->value, key_path(key), choices) : dflt;
}

std::vector<int64_t> ConfigNode::integer_list(const std::string& key, Range range) const {
    const MapEntry* entry = lookup(m_node, key);
    if (!entry) throw_at(m_node->location, key_path(key), "missing required key");
    const TreeNode& value = *entry->value;
    if (value.type != NodeType::kList) {
        throw_at(value.location, key_path(key),
                 std::string("expected a list of integers, got ") + type_noun(value.type));
    }
    std::vector<int64_t> out;
    out.reserve(value.items.size());
    for (std::size_t i = 0; i < value.items.size(); ++i) {
        const TreeNode& item = *value.items[i];
        std::string path = item_path(key_path(key), i);
        if (item.type != NodeType::kScalar) {
            throw_at(item.location, path,
                     std::string("expected an integer, got ") + type_noun(item.type));
        }
        out.push_back(parse_integer(item, path, range));
    }
    return out;
}

std::vector<std::string> ConfigNode::string_list(const std::string& key,
                                                 const std::vector<std::string>& dflt) const {
    const MapEntry* entry = lookup(m_node, key);
    if (!entry) return dflt;
    const TreeNode& value = *entry->value;
    if (value.type != NodeType::kList) {
        throw_at(value.location, key_path(key),
                 std::string("expected a list of strings, got ") + type_noun(value.type));
    }
    std::vector<std::string> out;
    out.reserve(value.items.size());
    for (std::size_t i = 0; i < value.items.size(); ++i) {
        const TreeNode& item = *value.items[i];
        if (item.type != NodeType::kScalar) {
            throw_at(item.location, item_path(key_path(key), i),
                     std::string("expected a string, got ") + type_noun(item.type));
        }
        out.push_back(item.scalar);
    }
    return out;
}

void ConfigNode::fail(const std::string& key, const std::string& message) const {
    throw ConfigError(failure_message(key, message));
}

void ConfigNode::report(const std::string& key, const std::string& message) const {
    if (!m_tree->collect) fail(key, message);
    m_tree->problems.push_back(failure_message(key, message));
}

void ConfigNode::report(const ConfigError& error) const {
    if (!m_tree->collect) throw error;
    m_tree->problems.emplace_back(error.what());
}

bool ConfigNode::problems_reported() const { return !m_tree->problems.empty(); }

std::string ConfigNode::failure_message(const std::string& key, const std::string& message) const {
    const MapEntry* entry = key.empty() ? nullptr : m_node->find(key);
    const SourceLocation& where = entry ? entry->value->location : m_node->location;
    const std::string path = key.empty() ? m_path : key_path(key);
    // A check of several keys together (partitions that must fit the size, say) fails at one of
    // them; when another was set on the command line, that --set is what made it fail, so the
    // message starts with it rather than with a preset line the user never touched.
    if (where.file.rfind("--set ", 0) != 0) {
        std::vector<std::string> overrides;
        collect_overrides(*m_node, overrides);
        if (!overrides.empty()) {
            std::string origin;
            for (const std::string& o : overrides) origin += (origin.empty() ? "" : ", ") + o;
            return origin + ": " + path + " (" + where.str() + "): " + message;
        }
    }
    std::string located = where.str() + ": ";
    if (!path.empty()) located += path + ": ";
    return located + message;
}

// ---- Suggestions -------------------------------------------------------------------------

std::size_t edit_distance(const std::string& a, const std::string& b) {
    // Levenshtein with two rows: insertions, deletions and substitutions cost one each.
    std::vector<std::size_t> previous(b.size() + 1);
    std::vector<std::size_t> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
    // A third of the word: "sise" finds "size", but "bw" does not find "id".
    const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
    const std::string lowered = lower(word);
    std::string best;
    std::size_t best_distance = limit + 1;
    for (const std::string& candidate : candidates) {
        std::size_t distance = edit_distance(lowered, lower(candidate));
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best;
}

std::pair<std::string, std::string> EmbeddedPresetResolver::resolve(
    const std::string& name, const std::string& relative_to) const {
    auto ends_with = [&](const char* suffix) {
        const std::string sfx(suffix);
        return name.size() > sfx.size() &&
               name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0;
    };
    std::error_code ec;
    if (name.find('/') != std::string::npos || ends_with(".yaml") || ends_with(".yml") ||
        std::filesystem::exists(name, ec)) {
        return FilePresetResolver().resolve(name, relative_to);
    }
    std::vector<std::string> names;
    for (const auto& p : m_presets) {
        if (name == p.name) return {p.yaml, p.display_name};
        names.push_back(p.name);
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    const std::string close = closest_match(name, names);
    throw ConfigError("unknown " + m_kind + " '" + name + "'" +
                      (close.empty() ? "" : "; did you mean '" + close + "'?") + " (built-in " +
                      m_kind + "s: " + list + "; or give a path to a YAML file)");
}

}  // namespace asim
