// `ascend-sim trace gen|stats|import|export`.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "models/common/atomic_output.h"
#include "models/common/errors.h"
#include "models/common/units.h"
#include "models/memory/tiers/pool_tier.h"
#include "testbenches/command/command.h"
#include "testbenches/trace_gen/et_import.h"
#include "testbenches/trace_gen/generator.h"
#include "testbenches/trace_gen/op_table.h"
#include "testbenches/trace_gen/trace_stats.h"

namespace asim {

namespace fs = std::filesystem;

namespace {

std::string model_help() {
    std::string list;
    for (const auto& m : tracegen::builtin_models())
        list += (list.empty() ? "" : ", ") + std::string(m.name);
    return "model: a built-in name (" + list + ") or a path to a model YAML file";
}

void add_gen(CLI::App& trace, std::vector<std::pair<CLI::App*, std::function<int()>>>& subs) {
    struct State {
        std::string model, phase = "prefill", dtype = "bf16", routing = "uniform", out;
        tracegen::GenOptions o;
        bool no_collectives = false, no_embedding = false;
        std::string hbm_capacity = "288GiB";
    };
    auto s = std::make_shared<State>();
    CLI::App* c = trace.add_subcommand(
        "gen",
        "generate one op trace per die (DIR/die<N>.jsonl) and DIR/index.json for a model step");
    c->add_option("--model,-m", s->model, model_help())->required();
    c->add_option("--phase", s->phase, "prefill, decode or train (forward + backward + optimizer)")
        ->check(CLI::IsMember({"prefill", "decode", "train"}))
        ->capture_default_str();
    c->add_option("--batch,-b", s->o.batch, "sequences per step over all DP replicas")
        ->capture_default_str();
    c->add_option("--seq,-s", s->o.seq, "tokens per sequence (decode: the context length so far)")
        ->required();
    c->add_option("--kv-len", s->o.kv_len, "key/value positions attended to (default: --seq)");
    c->add_option("--tp", s->o.tp, "tensor-parallel size")->capture_default_str();
    c->add_option("--pp", s->o.pp, "pipeline-parallel size (1F1B schedule)")->capture_default_str();
    c->add_option("--dp", s->o.dp, "data-parallel size")->capture_default_str();
    c->add_option("--ep", s->o.ep, "expert-parallel size (MoE; divides TP x DP)")
        ->capture_default_str();
    c->add_option("--microbatches", s->o.microbatches, "microbatches per DP replica")
        ->capture_default_str();
    c->add_option("--layers", s->o.layers,
                  "decoder layers to generate (default: all of the model's)");
    c->add_option("--dtype", s->dtype, "GEMM dtype: bf16, fp8 or fp4")
        ->check(CLI::IsMember({"bf16", "fp8", "fp4"}))
        ->capture_default_str();
    c->add_flag(
        "--sequence-parallel", s->o.sequence_parallel,
        "TP collectives as reduce-scatter + all-gather, norms and residuals on 1/TP of the tokens");
    c->add_flag("--distributed-optimizer", s->o.distributed_optimizer,
                "train: reduce-scatter DP gradients, update 1/DP of the weights, all-gather them");
    c->add_option("--grad-buckets", s->o.grad_buckets,
                  "train: DP gradient buckets over the layers (0: one per layer, each synchronised "
                  "as soon as its "
                  "backward is done; N: N buckets of consecutive layers; 1: one all-reduce after "
                  "the backward)")
        ->capture_default_str();
    c->add_option("--steps", s->o.steps,
                  "steps one after another in each die's trace (train: each step's forward waits "
                  "for the weights the step before updated)")
        ->capture_default_str();
    c->add_flag("--no-collectives", s->no_collectives,
                "leave every collective out (for single-die replay)");
    c->add_flag("--no-embedding", s->no_embedding,
                "leave the embedding, final norm and LM head out");
    c->add_option("--routing", s->routing,
                  "MoE expert load: uniform or skewed (Zipf, see --skew, --seed)")
        ->check(CLI::IsMember({"uniform", "skewed"}))
        ->capture_default_str();
    c->add_option("--skew", s->o.skew, "Zipf exponent of expert popularity for --routing skewed")
        ->capture_default_str();
    c->add_option("--seed", s->o.seed, "seed of the skewed routing")->capture_default_str();
    c->add_option("--die", s->o.only_dies, "generate only this die (repeatable)");
    const std::string tiers = tier_name_list() +
                              " (pool tiers by kind, remote_hbm the previous die's HBM: "
                              "traces/FORMAT.md, Memory tiers)";
    c->add_option("--weights", s->o.weights_tier, "memory tier of the weights: " + tiers)
        ->capture_default_str();
    c->add_option("--expert-weights", s->o.expert_weights_tier,
                  "memory tier of MoE expert weights (default: --weights)");
    c->add_option("--kv", s->o.kv_tier, "memory tier of the KV cache")->capture_default_str();
    c->add_option(
         "--hbm-capacity", s->hbm_capacity,
         "HBM per die that tensors placed in hbm must fit (e.g. 288GiB, the ascend960 preset's)")
        ->capture_default_str();
    c->add_option("--out,-o", s->out, "output directory")->required();
    subs.emplace_back(c, [s] {
        tracegen::GenOptions o = s->o;
        o.phase = s->phase == "train"    ? tracegen::Phase::kTrain
                  : s->phase == "decode" ? tracegen::Phase::kDecode
                                         : tracegen::Phase::kPrefill;
        o.dtype = *dtype_from_string(s->dtype);
        o.routing =
            s->routing == "skewed" ? tracegen::Routing::kSkewed : tracegen::Routing::kUniform;
        o.collectives = !s->no_collectives;
        o.embedding = !s->no_embedding;
        try {
            o.hbm_capacity = units::bytes(s->hbm_capacity);
        } catch (const std::exception& e) {
            throw InputError("--hbm-capacity '" + s->hbm_capacity + "': " + e.what());
        }
        tracegen::ModelConfig model = tracegen::load_model(s->model);
        if (o.name.empty()) {
            o.name = model.name + " " + s->phase + " batch " + std::to_string(o.batch) + " seq " +
                     std::to_string(o.seq) + " tp" + std::to_string(o.tp) + " pp" +
                     std::to_string(o.pp) + " dp" + std::to_string(o.dp) + " ep" +
                     std::to_string(o.ep) + " " + s->dtype;
        }
        const tracegen::Generator gen(model, o);
        AtomicOutputDir files(s->out);
        uint64_t written = 0;
        for (uint64_t d = 0; d < gen.dies(); ++d) {
            if (!o.only_dies.empty() && std::find(o.only_dies.begin(), o.only_dies.end(),
                                                  static_cast<int>(d)) == o.only_dies.end())
                continue;
            std::ofstream out = files.open("die" + std::to_string(d) + ".jsonl");
            gen.write_die(d, out);
            out.close();
            if (!out)
                throw InputError("cannot write the trace of die " + std::to_string(d) + " in '" +
                                 s->out + "'");
            ++written;
        }
        std::ofstream idx = files.open("index.json");
        idx << gen.index("die{die}.jsonl").dump(1) << "\n";
        idx.close();
        if (!idx) throw std::runtime_error("cannot write index.json in '" + s->out + "'");
        files.commit();
        std::cout << "wrote " << written << " die trace(s) and index.json to " << s->out << "/ ("
                  << gen.dies() << " dies, " << gen.step_tokens() << " tokens per step)\n";
        return kExitOk;
    });
}

void add_stats(CLI::App& trace, std::vector<std::pair<CLI::App*, std::function<int()>>>& subs) {
    struct State {
        std::string path;
        bool json = false;
    };
    auto s = std::make_shared<State>();
    CLI::App* c = trace.add_subcommand("stats",
                                       "total up a trace file or a generated directory: FLOPs, "
                                       "parameters, bytes per stream class, collective bytes");
    c->add_option("path", s->path, "trace file (.jsonl, .jsonl.gz) or directory with index.json")
        ->required();
    c->add_flag("--json", s->json,
                "print JSON (keys: parameters, tokens, flops_total, flops_gemm, ...)");
    subs.emplace_back(c, [s] {
        const tracegen::TraceTotals t = tracegen::trace_stats(s->path);
        if (s->json) {
            std::cout << tracegen::to_json(t).dump(1) << "\n";
        } else {
            std::cout << tracegen::to_text(t);
        }
        return kExitOk;
    });
}

void add_import(CLI::App& trace, std::vector<std::pair<CLI::App*, std::function<int()>>>& subs) {
    struct State {
        std::string from, file, out;
    };
    auto s = std::make_shared<State>();
    CLI::App* c =
        trace.add_subcommand("import",
                             "convert a PyTorch execution trace "
                             "(torch.profiler.ExecutionGraphObserver JSON) to an op trace");
    c->add_option("--from", s->from, "source format: pytorch-et")
        ->required()
        ->check(CLI::IsMember({"pytorch-et"}));
    c->add_option("file", s->file, "execution trace JSON")->required();
    c->add_option("--out,-o", s->out, "output trace file (.jsonl)")->required();
    subs.emplace_back(c, [s] {
        AtomicOutputFile out(s->out, "--out");
        const tracegen::ImportReport r = tracegen::import_pytorch_et(
            s->file, out.stream(), "imported from " + fs::path(s->file).filename().string());
        out.commit();
        std::cout << r.text() << "wrote " << s->out << "\n";
        return kExitOk;
    });
}

void add_export(CLI::App& trace, std::vector<std::pair<CLI::App*, std::function<int()>>>& subs) {
    struct State {
        std::string to, run, trace, out;
    };
    auto s = std::make_shared<State>();
    CLI::App* c = trace.add_subcommand(
        "export",
        "export what a finished run measured: --to op-table writes each distinct op's "
        "times keyed by its signature (docs/outputs.md)");
    c->add_option("--to", s->to, "what to write: op-table (one CSV row per op signature)")
        ->required()
        ->check(CLI::IsMember({"op-table"}));
    c->add_option("--run", s->run,
                  "the --out directory of a finished `ascend-sim run` (its ops.csv)")
        ->required();
    c->add_option("--trace", s->trace,
                  "the trace that run replayed: a file, or a trace set's directory or index.json "
                  "(default: the one its stats.json names)");
    c->add_option("--out,-o", s->out, "output CSV file")->required();
    subs.emplace_back(c, [s] {
        // Checked before the work, built whole, then written in one rename: a bad input leaves
        // nothing behind.
        AtomicOutputFile out(s->out, "--out");
        const tracegen::OpTable t = tracegen::build_op_table(s->run, s->trace);
        out.stream() << t.csv;
        out.commit();
        std::cout << "op table of " << t.ops << " ops (" << t.dies << " die"
                  << (t.dies == 1 ? "" : "s") << "), trace " << t.trace << ": " << t.rows
                  << " signatures\nwrote " << s->out << "\n";
        return kExitOk;
    });
}

}  // namespace

static Command add_trace_command(CLI::App& app) {
    CLI::App* trace = app.add_subcommand(
        "trace", "make, import, total up and export op traces (traces/FORMAT.md)");
    trace->require_subcommand(1);
    auto subs = std::make_shared<std::vector<std::pair<CLI::App*, std::function<int()>>>>();
    add_gen(*trace, *subs);
    add_stats(*trace, *subs);
    add_import(*trace, *subs);
    add_export(*trace, *subs);
    return {trace, [subs] {
                for (const auto& [cmd, action] : *subs) {
                    if (cmd->parsed()) return action();
                }
                return kExitBadInput;
            }};
}

ASIM_REGISTER_COMMAND("trace", add_trace_command);

}  // namespace asim
