#include "testbenches/trace_gen/trace_stats.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_set>

#include "models/common/errors.h"
#include "models/common/trace.h"

namespace asim::tracegen {

namespace fs = std::filesystem;

namespace {

void add_file(const std::string& path, TraceTotals& t,
              std::unordered_set<std::string>& seen_weights) {
    trace::TraceReader reader(path);
    ++t.files;
    if (t.model.empty()) t.model = reader.header().model;
    trace::Op op;
    while (reader.next(op)) {
        ++t.ops;
        const std::string kind(trace::to_string(op.kind));
        ++t.ops_by_kind[kind];
        const double f = trace::op_flops(op);
        switch (op.kind) {
            case trace::OpKind::kMatmul:
                t.flops_gemm += f;
                break;
            case trace::OpKind::kFusedAttention:
                t.flops_attention += f;
                break;
            default:
                t.flops_other += f;
                break;
        }
        for (const auto& in : op.inputs) {
            t.bytes_read[std::string(to_string(in.stream))] += in.bytes;
            if (in.stream != StreamClass::kWeight) continue;
            // Unnamed weights are told apart by die and address.
            const std::string key =
                in.name.empty() ? "die" + std::to_string(op.die) + "@" + std::to_string(in.addr)
                                : in.name;
            if (seen_weights.insert(key).second) {
                t.parameters += in.bytes * 8 / dtype_bits(op.dtype);
                t.weight_bytes += in.bytes;
            }
        }
        for (const auto& out : op.outputs)
            t.bytes_written[std::string(to_string(out.stream))] += out.bytes;
        if (op.kind == trace::OpKind::kCollective) {
            t.collective_bytes[op.collective.kind] += op.collective.bytes;
            ++t.collective_count[op.collective.kind];
        }
    }
}

}  // namespace

TraceTotals trace_stats(const std::string& path) {
    TraceTotals t;
    std::unordered_set<std::string> seen;
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
        add_file(path, t, seen);
        t.dies = 1;
        return t;
    }
    const fs::path index = fs::path(path) / "index.json";
    std::ifstream in(index);
    if (!in) throw InputError("trace stats: '" + path + "' is a directory without an index.json");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
        if (!j.is_object() || !j.contains("format") || j["format"] != "ascend-sim-trace-index") {
            throw InputError(index.string() + ": not an ascend-sim trace index (field 'format')");
        }
        if (!j.contains("version") || j["version"] != 1) {
            throw InputError(index.string() + ": unsupported index version " +
                             (j.contains("version") ? j["version"].dump() : std::string("(none)")) +
                             "; this reader supports version 1");
        }
        // nlohmann converts any number to uint64_t: a negative one wraps, and one beyond 2^64
        // (a float) is undefined behaviour (found by fuzzing). Counts must be unsigned integers.
        auto count = [&](const char* key) {
            const nlohmann::json& v = j.at(key);
            if (!v.is_number_unsigned()) {
                throw InputError(index.string() + ": malformed index: \"" + key +
                                 "\" must be an unsigned integer, got " +
                                 (v.is_number() ? v.dump() : std::string(v.type_name())));
            }
            return v.get<uint64_t>();
        };
        // Tokens of the whole set: a set of several steps (`steps`, absent in older indexes:
        // one) processes its step's tokens once per step.
        const uint64_t tokens = count("tokens"), steps = j.contains("steps") ? count("steps") : 1;
        if (steps == 0 || tokens > ~uint64_t{0} / steps) {
            throw InputError(index.string() + ": malformed index: \"steps\" must be from 1 to " +
                             "2^64 / tokens, got " + std::to_string(steps));
        }
        t.tokens = tokens * steps;
        t.dies = count("dies");
        for (const auto& f : j.at("files"))
            add_file((fs::path(path) / f.at("file").get<std::string>()).string(), t, seen);
    } catch (const nlohmann::json::exception& e) {
        // nlohmann's text starts "[json.exception.type_error.302] "; the reason alone is ours.
        std::string what = e.what();
        const auto close = what.find("] ");
        if (!what.empty() && what[0] == '[' && close != std::string::npos) what.erase(0, close + 2);
        throw InputError(index.string() + ": malformed index: " + what);
    }
    return t;
}

nlohmann::ordered_json to_json(const TraceTotals& t) {
    nlohmann::ordered_json j;
    j["schema"] = "ascend-sim/trace-stats/1";
    j["model"] = t.model;
    j["files"] = t.files;
    j["dies"] = t.dies;
    j["ops"] = t.ops;
    j["parameters"] = t.parameters;
    j["weight_bytes"] = t.weight_bytes;
    j["tokens"] = t.tokens;
    j["flops_total"] = t.flops_total();
    j["flops_gemm"] = t.flops_gemm;
    j["flops_attention"] = t.flops_attention;
    j["flops_other"] = t.flops_other;
    j["ops_by_kind"] = t.ops_by_kind;
    j["bytes_read"] = t.bytes_read;
    j["bytes_written"] = t.bytes_written;
    j["collective_bytes"] = t.collective_bytes;
    j["collective_count"] = t.collective_count;
    return j;
}

std::string to_text(const TraceTotals& t) {
    std::ostringstream o;
    auto e = [](double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.4g", v);
        return std::string(b);
    };
    o << "  model                " << (t.model.empty() ? "-" : t.model) << "\n";
    o << "  files / dies         " << t.files << " / " << t.dies << "\n";
    o << "  ops                  " << t.ops << "\n";
    o << "  parameters           " << t.parameters << " (" << e(static_cast<double>(t.parameters))
      << ")\n";
    o << "  tokens               " << (t.tokens ? std::to_string(t.tokens) : std::string("unknown"))
      << "\n";
    o << "  FLOPs total          " << e(t.flops_total()) << "\n";
    o << "    GEMM               " << e(t.flops_gemm) << "\n";
    o << "    attention          " << e(t.flops_attention) << "\n";
    o << "    other              " << e(t.flops_other) << "\n";
    if (t.tokens && t.parameters) {
        o << "  FLOPs / (params x tokens)  "
          << e(t.flops_total() /
               (static_cast<double>(t.parameters) * static_cast<double>(t.tokens)))
          << "\n";
    }
    o << "  bytes read / written by stream class\n";
    std::set<std::string> streams;
    for (const auto& [k, v] : t.bytes_read) streams.insert(k);
    for (const auto& [k, v] : t.bytes_written) streams.insert(k);
    for (const auto& s : streams) {
        const auto r = t.bytes_read.count(s) ? t.bytes_read.at(s) : 0;
        const auto w = t.bytes_written.count(s) ? t.bytes_written.at(s) : 0;
        o << "    " << s << std::string(s.size() < 19 ? 19 - s.size() : 1, ' ')
          << e(static_cast<double>(r)) << " / " << e(static_cast<double>(w)) << "\n";
    }
    if (!t.collective_bytes.empty()) o << "  collective bytes (sum over dies of bytes per die)\n";
    for (const auto& [k, v] : t.collective_bytes) {
        o << "    " << k << std::string(k.size() < 19 ? 19 - k.size() : 1, ' ')
          << e(static_cast<double>(v)) << " in " << t.collective_count.at(k) << " ops\n";
    }
    o << "  ops by kind         ";
    for (const auto& [k, v] : t.ops_by_kind) o << " " << k << " " << v;
    o << "\n";
    return o.str();
}

}  // namespace asim::tracegen
