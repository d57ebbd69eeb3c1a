#include "models/common/trace_set_index.h"

#include <fstream>
#include <map>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/trace.h"

namespace asim {

namespace fs = std::filesystem;

TraceSet read_trace_set_index(const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path.string() + ": cannot open the trace set's index");
    nlohmann::json j;
    try {
        in >> j;
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(fmt::format("{}: not JSON: malformed at byte {}", path.string(), e.byte));
    } catch (const nlohmann::json::exception&) {
        throw InputError(path.string() + ": not JSON: a number is out of range");
    }
    const std::string where = path.string() + ": ";
    auto string_field = [&](const char* key) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    if (!j.is_object() || string_field("format") != "ascend-sim-trace-index") {
        throw InputError(
            where + "not an ascend-sim trace index (format must be \"ascend-sim-trace-index\")");
    }
    if (!j.contains("version") || !j["version"].is_number_unsigned() ||
        j["version"].get<uint64_t>() != 1) {
        throw InputError(where + "unsupported index version " +
                         (j.contains("version") ? j["version"].dump() : "(none)") +
                         "; this reader supports version 1");
    }
    TraceSet set;
    set.name = string_field("name");
    if (!j.contains("dies") || !j["dies"].is_number_unsigned() || !j.contains("files") ||
        !j["files"].is_array()) {
        throw InputError(where + "needs \"dies\" and \"files\"");
    }
    if (j["dies"].get<uint64_t>() == 0 || j["dies"].get<uint64_t>() > (1u << 20)) {
        throw InputError(where + "\"dies\" is " + j["dies"].dump() + "; expected 1 to 2^20");
    }
    set.dies = j["dies"].get<uint32_t>();
    std::map<uint32_t, std::size_t> die_entry;
    std::map<fs::path, uint32_t> file_die;
    for (std::size_t i = 0; i < j["files"].size(); ++i) {
        const auto& f = j["files"][i];
        const std::string entry = where + "files[" + std::to_string(i) + "]: ";
        if (!f.is_object() || !f.contains("die") || !f["die"].is_number_unsigned() ||
            !f.contains("file") || !f["file"].is_string()) {
            throw InputError(
                entry +
                "every entry of \"files\" needs \"die\" (an unsigned integer) and \"file\"");
        }
        if (f["die"].get<uint64_t>() >= set.dies) {
            throw InputError(entry + "die " + f["die"].dump() + " is outside the set's " +
                             std::to_string(set.dies) + " dies");
        }
        const auto die = f["die"].get<uint32_t>();
        const fs::path file = path.parent_path() / f["file"].get<std::string>();
        if (!die_entry.emplace(die, i).second) {
            throw InputError(entry + "die " + std::to_string(die) +
                             " is listed twice (also files[" + std::to_string(die_entry[die]) +
                             "])");
        }
        // One file cannot hold two dies' ops: the same path twice (however it is spelt) is an
        // error.
        std::error_code ec;
        fs::path key = fs::weakly_canonical(file, ec);
        if (ec) key = file.lexically_normal();
        if (!file_die.emplace(key, die).second) {
            throw InputError(entry + "'" + file.string() + "' is also the file of die " +
                             std::to_string(file_die[key]) + "; each die needs its own trace");
        }
        set.files.emplace_back(die, file);
    }
    if (set.files.empty()) throw InputError(where + "the set lists no file");
    // Each file's header must say it is that die's trace in a set of this size.
    for (const auto& [die, file] : set.files) {
        const trace::TraceReader reader(file.string());
        const trace::Header& h = reader.header();
        if (h.die != static_cast<int>(die) || h.dies != static_cast<int>(set.dies)) {
            throw InputError(fmt::format(
                "{}:1: the header says die {} of {}, but {} lists this file as die {} of {}",
                file.string(), h.die, h.dies, path.string(), die, set.dies));
        }
    }
    return set;
}

}  // namespace asim
