// `ascend-sim figures hbm|l2|gemm|systolic|links|collectives|dsm`: tables for other tools. CSV on
// stdout; with --out DIR, DIR/<table>.csv, DIR/<table>.json and a PNG plot drawn by
// scripts/plot_figures.py (matplotlib), all written atomically.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "models/common/atomic_output.h"
#include "models/common/errors.h"
#include "models/interconnect/collectives/schedule.h"
#include "models/memory/tiers/pool_tier.h"
#include "platforms/platform.h"
#include "testbenches/command/command.h"
#include "testbenches/figures/collective_figures.h"
#include "testbenches/figures/dsm_figures.h"
#include "testbenches/figures/gemm_figures.h"
#include "testbenches/figures/hbm_figures.h"
#include "testbenches/figures/l2_figures.h"
#include "testbenches/figures/link_figures.h"
#include "testbenches/figures/systolic_figures.h"

namespace asim {

namespace {

constexpr const char* kFaultHelp =
    "take link LINK down for the whole run (e.g. die3->die4, the names of network.faults; "
    "repeatable)";

// The plotting script: beside an installed binary (`cmake --install`: bin/ascend-sim and
// share/ascend-sim/scripts/), else in the source tree the binary was built from.
std::string plot_script() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed =
            self.parent_path().parent_path() / "share/ascend-sim/scripts/plot_figures.py";
        if (fs::exists(installed, ec)) return installed.string();
    }
    return std::string(ASIM_SOURCE_DIR) + "/scripts/plot_figures.py";
}

// Draws `table` into a PNG through the plotting script; returns the bytes, or "" with a warning
// on stderr when Python or matplotlib is missing.
std::string plot(const FigureTable& table) {
    namespace fs = std::filesystem;
    // A fresh private folder (mkdtemp), never a guessable name another user could have placed.
    std::string templ = (fs::temp_directory_path() / "asim-fig-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) {
        std::cerr << "ascend-sim: warning: " << table.name
                  << ".png not drawn (no temporary folder)\n";
        return "";
    }
    const fs::path tmp(templ);
    const fs::path csv = tmp / (table.name + ".csv"), png = tmp / (table.name + ".png");
    std::ofstream(csv) << table.csv();
    const std::string script = plot_script();
    // Debian's interpreter first: python3-matplotlib installs there, whatever else is on PATH.
    const std::string python =
        ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    const std::string cmd =
        python + " '" + script + "' '" + csv.string() + "' '" + png.string() + "' >&2";
    std::string bytes;
    if (std::system(cmd.c_str()) == 0) {
        std::ifstream in(png, std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        bytes = s.str();
    } else {
        std::cerr << "ascend-sim: warning: " << table.name << ".png not drawn (" << script
                  << " needs python3-matplotlib: scripts/install-deps.sh)\n";
    }
    fs::remove_all(tmp);
    return bytes;
}

}  // namespace

static Command add_figures_command(CLI::App& app) {
    struct State {
        HbmFiguresOptions hbm;
        L2FiguresOptions l2;
        GemmFiguresOptions gemm;
        SystolicFiguresOptions systolic;
        LinkFiguresOptions links;
        CollectiveFiguresOptions collectives;
        DsmFiguresOptions dsm;
        std::string out_dir;
    };
    auto s = std::make_shared<State>();
    s->hbm.platform = kDefaultPlatform;
    s->l2.platform = kDefaultPlatform;
    s->gemm.platform = kDefaultPlatform;
    CLI::App* cmd = app.add_subcommand("figures",
                                       "latency/bandwidth tables for other tools: CSV on stdout; "
                                       "with --out DIR also DIR/<table>.csv, .json and a PNG plot");
    cmd->require_subcommand(1);
    CLI::App* hbm =
        cmd->add_subcommand("hbm",
                            "HBM load-latency curves (sequential and random reads) and peak "
                            "sustained bandwidth, from the JEDEC timing model");
    hbm->add_option("--platform,-p", s->hbm.platform, platform_help())->capture_default_str();
    hbm->add_option("--set", s->hbm.overrides, "override a config key: KEY=VALUE (repeatable)");
    hbm->add_option("--requests", s->hbm.requests_per_point,
                    "requests per load point (default 0: as many as arrive in 8192 cycles of tCK "
                    "at the point's "
                    "offered rate, at least 20,000)")
        ->capture_default_str();
    hbm->add_option("--out,-o", s->out_dir, "output directory");
    CLI::App* l2 =
        cmd->add_subcommand("l2",
                            "L2 unloaded hit and miss latency, and load-latency curves of an "
                            "L2-resident and a miss-dominated sequential stream, from the die's L2 "
                            "and HBM");
    l2->add_option("--platform,-p", s->l2.platform, platform_help())->capture_default_str();
    l2->add_option("--set", s->l2.overrides, "override a config key: KEY=VALUE (repeatable)");
    l2->add_option("--requests", s->l2.requests_per_point, "requests per load point")
        ->capture_default_str();
    l2->add_option("--out,-o", s->out_dir, "output directory");
    CLI::App* gemm =
        cmd->add_subcommand("gemm",
                            "each GEMM run as a one-op trace through the full die model (as "
                            "`run` does): cycles, time, TFLOPS and utilisation against the "
                            "die's peak for the dtype");
    gemm->add_option("--shapes", s->gemm.shapes, "GEMMs as M,N,K;M,N,K;... (positive integers)")
        ->required();
    gemm->add_option("--dtype", s->gemm.dtype, "operand dtype: bf16, fp8 or fp4")
        ->capture_default_str();
    gemm->add_option("--platform,-p", s->gemm.platform, platform_help())->capture_default_str();
    gemm->add_option("--set", s->gemm.overrides, "override a config key: KEY=VALUE (repeatable)");
    gemm->add_option("--out,-o", s->out_dir, "output directory");
    CLI::App* systolic =
        cmd->add_subcommand("systolic",
                            "GEMM cycles of one R x C systolic array with ideal memory "
                            "(folds not overlapped: each preloads, fills, streams and "
                            "drains); utilisation against the array's peak");
    systolic->add_option("--rows", s->systolic.rows, "array rows R")->capture_default_str();
    systolic->add_option("--cols", s->systolic.cols, "array columns C")->capture_default_str();
    systolic
        ->add_option("--dataflow", s->systolic.dataflow,
                     "os (output), ws (weight) or is (input) stationary")
        ->capture_default_str();
    systolic
        ->add_option("--shapes", s->systolic.shapes, "GEMMs as M,N,K;M,N,K;... (positive integers)")
        ->required();
    systolic->add_option("--dtype", s->systolic.dtype, "operand dtype named in the rows")
        ->capture_default_str();
    systolic
        ->add_option("--macs-per-cell", s->systolic.macs_per_cell,
                     "MACs per cell and cycle along K in that dtype")
        ->capture_default_str();
    systolic->add_option("--clock", s->systolic.clock, "array clock, for time_ns and tflops")
        ->capture_default_str();
    systolic->add_option("--out,-o", s->out_dir, "output directory");
    CLI::App* links =
        cmd->add_subcommand("links",
                            "die-to-die remote read and write latency and bandwidth against "
                            "message size, within a node and across nodes, from the packet-level "
                            "link model on the platform's routes");
    links->add_option("--platform,-p", s->links.platform, platform_help())->required();
    links->add_option("--set", s->links.overrides, "override a config key: KEY=VALUE (repeatable)");
    links->add_option("--sizes", s->links.sizes, "message sizes: A..B (powers of two) or A,B,C")
        ->capture_default_str();
    links->add_option("--fault", s->links.faults, kFaultHelp);
    links->add_option("--out,-o", s->out_dir, "output directory");
    CLI::App* colls =
        cmd->add_subcommand("collectives",
                            "nccl-tests-style time, algbw and busbw of a collective "
                            "against size on the platform's network (flow-level model)");
    colls->add_option("--platform,-p", s->collectives.platform, platform_help())->required();
    colls->add_option("--set", s->collectives.overrides,
                      "override a config key: KEY=VALUE (repeatable)");
    colls->add_option("--fault", s->collectives.faults, kFaultHelp);
    auto joined = [](const std::vector<std::string>& names) {
        std::string text;
        for (std::size_t i = 0; i < names.size(); ++i)
            text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
        return text;
    };
    colls->add_option("--op", s->collectives.op, joined(collective_op_names()))
        ->capture_default_str();
    const char* sizes_help =
        "per-rank buffer sizes: A..B (powers of two) or A,B,C (alltoall, alltoallv: what each "
        "rank sends in total)";
    CLI::Option* sizes = colls->add_option("--sizes", s->collectives.sizes, sizes_help);
    sizes->capture_default_str();
    colls
        ->add_option("--skew", s->collectives.skew,
                     "alltoallv: Zipf exponent F >= 0 of the per-pair sizes; each rank sends the "
                     "--sizes value, rank j receiving a share proportional to 1/(j+1)^F from "
                     "every sender (0: uniform, the default; 1: classic Zipf; hot receivers as "
                     "hot MoE experts)")
        ->type_name("F");
    colls
        ->add_option("--counts", s->collectives.counts,
                     "alltoallv: CSV file of p rows of p byte counts, row i = bytes rank i sends "
                     "to ranks 0..p-1 (p = --dies); instead of --sizes and --skew; the table's "
                     "size is the mean a rank sends")
        ->type_name("FILE");
    colls->add_option("--dies", s->collectives.dies,
                      "group size: dies 0..N-1 (default: every die)");
    colls->add_option("--algo", s->collectives.algo,
                      joined(collective_algo_names()) +
                          " (default: network.collectives.allreduce_algorithm for allreduce, ring "
                          "when that is hierarchical "
                          "and the group is not whole nodes; else the op's first)");
    colls->add_option("--out,-o", s->out_dir, "output directory");
    CLI::App* dsm = cmd->add_subcommand(
        "dsm",
        "memory pool bandwidth test (dsmbandwidth -t read): N dies each stream-read SIZE bytes "
        "from a "
        "pool tier at once, through each die's pool port (TierRouter), the platform's network "
        "links for remote_hbm (when it has a network:) and the tier's device (the owner die's "
        "HBM model for remote_hbm; reader k reads owner (k+offset) mod owners); table dsm: "
        "tier,readers,size_bytes,latency_us (one 512 B read alone),aggregate_GBps (readers x size "
        "/ "
        "the slowest reader's time),per_reader_GBps (aggregate / readers)");
    dsm->add_option("--platform,-p", s->dsm.platform, platform_help())->required();
    dsm->add_option("--set", s->dsm.overrides, "override a config key: KEY=VALUE (repeatable)");
    dsm->add_option("--tier,-t", s->dsm.tiers,
                    "pool tier(s) to read: " + pool_tier_registry().names_text() +
                        ", or a list T,T (default: every pool tier in the platform's dsm: section)")
        ->type_name("T");
    dsm->add_option("--readers", s->dsm.readers,
                    "dies reading at the same time, N or a list like 1,2,4,8, each from 1 to the "
                    "pool's dies (remote_hbm owners; dsm.owners, 8 by default, on a single-die "
                    "platform) (default: the "
                    "platform's die count with a network: section, else 1)")
        ->type_name("N");
    dsm->add_option("--sizes,-s", s->dsm.sizes,
                    "bytes each reader reads, A,B,... or A..B (powers of two), with units (64MiB, "
                    "128GB); at most the tier's capacity (remote_hbm: the owner's HBM)")
        ->capture_default_str();
    dsm->add_option("--chunk", s->dsm.chunk, "bytes per demand read (1B to 1GiB)")
        ->capture_default_str();
    dsm->add_option(
           "--outstanding", s->dsm.outstanding,
           "demand reads each reader keeps in flight (the next is issued when the earliest "
           "completes)")
        ->capture_default_str();
    dsm->add_option("--owner-offset", s->dsm.owner_offset,
                    "remote_hbm: reader k reads owner (k + offset) mod owners (1: the next die; "
                    "owners - 1: the previous one)")
        ->capture_default_str();
    dsm->add_option("--out,-o", s->out_dir, "output directory: dsm.csv, dsm.json and dsm.png");
    return {cmd, [s, hbm, l2, gemm, systolic, links, colls, sizes, dsm] {
                s->collectives.sizes_given = sizes->count() > 0;
                std::optional<AtomicOutputDir> out;  // checked before any table is computed
                if (!s->out_dir.empty()) out.emplace(s->out_dir);
                std::vector<FigureTable> tables;
                if (hbm->parsed()) {
                    tables = hbm_figures(s->hbm);
                } else if (l2->parsed()) {
                    tables = l2_figures(s->l2);
                } else if (gemm->parsed()) {
                    tables = {gemm_figures(s->gemm)};
                } else if (systolic->parsed()) {
                    tables = {systolic_figures(s->systolic)};
                } else if (links->parsed()) {
                    tables = link_figures(s->links);
                } else if (colls->parsed()) {
                    tables = collective_figures(s->collectives);
                } else if (dsm->parsed()) {
                    tables = dsm_figures(s->dsm);
                } else {
                    throw InputError(
                        "figures: name a table set (hbm, l2, gemm, systolic, links, collectives or "
                        "dsm)");
                }
                for (const auto& t : tables) std::cout << "# " << t.name << "\n" << t.csv() << "\n";
                if (out) {
                    for (const auto& t : tables) {
                        out->write(t.name + ".csv", t.csv());
                        out->write(t.name + ".json", t.json());
                        const std::string png = plot(t);
                        if (!png.empty()) out->write(t.name + ".png", png);
                    }
                    out->commit();
                }
                return kExitOk;
            }};
}

ASIM_REGISTER_COMMAND("figures", add_figures_command);

}  // namespace asim
