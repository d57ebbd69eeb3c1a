#include "testbenches/supernode/op_time_table.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "testbenches/command/progress.h"
#include "testbenches/trace_replay/child_run.h"
#include "testbenches/trace_replay/run_job.h"

namespace asim {

namespace fs = std::filesystem;

std::vector<SetOp> load_set_ops(const std::string& path) {
    trace::TraceReader reader(path);
    std::ifstream raw(path);
    std::string line;
    uint64_t line_no = 0;
    std::vector<SetOp> ops;
    trace::Op op;
    trace::IdGaps gaps;
    while (reader.next(op)) {
        gaps.check(op, path);
        while (line_no < op.line && std::getline(raw, line)) ++line_no;
        nlohmann::json j = nlohmann::json::parse(line);
        j.erase("deps");
        j["id"] = 0;
        SetOp s{op, "", j.dump()};
        j.erase("id");
        j.erase("name");
        for (const char* list : {"inputs", "outputs"}) {
            if (!j.contains(list)) continue;
            for (auto& t : j[list]) {
                t.erase("name");
                t.erase("addr");
            }
        }
        s.signature = j.dump();
        ops.push_back(std::move(s));
    }
    return ops;
}

std::string OpTimeTable::key(const std::vector<std::string>& overrides,
                             const std::string& signature) {
    std::string k;
    for (const std::string& o : overrides) k += o + '\n';  // a value holds no line break
    return k + signature;
}

std::size_t OpTimeTable::count_unmeasured(const std::vector<SetOp>& ops,
                                          const std::vector<std::string>& overrides,
                                          std::set<std::string>& seen) const {
    std::size_t n = 0;
    for (const SetOp& s : ops) {
        const std::string k = key(overrides, s.signature);
        if (s.op.kind == trace::OpKind::kCollective || m_time.count(k)) continue;
        if (seen.insert(k).second) ++n;
    }
    return n;
}

void OpTimeTable::calibrate(const std::vector<SetOp>& ops, const std::string& platform,
                            const std::vector<std::string>& overrides, const std::string& scratch,
                            ProgressLine* progress) {
    const auto start = std::chrono::steady_clock::now();
    for (const SetOp& s : ops) {
        const std::string k = key(overrides, s.signature);
        if (s.op.kind == trace::OpKind::kCollective || m_time.count(k)) continue;
        const fs::path dir = fs::path(scratch) / ("op" + std::to_string(m_time.size()));
        fs::create_directories(dir);
        std::ofstream(dir / "op.jsonl")
            << R"({"format":"ascend-sim-trace","version":1,"name":"calibration"})"
            << "\n"
            << s.json << "\n";
        RunOptions run;
        run.platform = platform;
        run.overrides = overrides;
        run.trace = (dir / "op.jsonl").string();
        run.out_dir = (dir / "out").string();
        const nlohmann::json stats =
            run_in_child([&run] { run_job(run); }, run.out_dir,
                         fmt::format("fast-fidelity calibration of op '{}'", s.op.name));
        const nlohmann::json& summary = stats.at("summary");
        m_time[k] = static_cast<Picoseconds>(summary.at("sim_time_ns").get<double>() * 1e3 + 0.5);
        Traffic& t = m_traffic[k];
        t.read = summary.at("hbm_read_bytes").get<uint64_t>();
        t.write = summary.at("hbm_write_bytes").get<uint64_t>();
        for (const auto& [name, part] : summary.at("l2_partitions").items()) {
            t.hits += part.at("hits").get<uint64_t>();
            t.misses += part.at("misses").get<uint64_t>();
        }
        if (progress) progress->update(++m_measured, "op '" + s.op.name + "'");
    }
    m_wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

FastOp OpTimeTable::fast_op(const SetOp& s, const std::vector<std::string>& overrides) const {
    FastOp f{s.op};
    if (s.op.kind == trace::OpKind::kCollective) return f;
    const std::string k = key(overrides, s.signature);
    const auto it = m_time.find(k);
    if (it == m_time.end())
        throw SimulationError("fast fidelity: no calibrated time for op " + s.signature);
    f.duration = it->second;
    const Traffic& t = m_traffic.at(k);
    f.hbm_read_bytes = t.read;
    f.hbm_write_bytes = t.write;
    f.l2_hits = t.hits;
    f.l2_misses = t.misses;
    return f;
}

}  // namespace asim
