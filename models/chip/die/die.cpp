#include "models/chip/die/die.h"

#include <map>

#include "models/memory/memory_system.h"

namespace asim {

double DieParams::peak_flops(DType dtype) const {
    return 2.0 * static_cast<double>(make_matrix_engine(core)->peak_macs_per_cycle(dtype)) *
           ai_cores * static_cast<double>(clock_hz);
}

double DieParams::vector_peak_ops(uint32_t elem_bytes) const {
    return static_cast<double>(core.vector_bytes_per_cycle) * core.vector_issue_width / elem_bytes *
           core.vector_cores * ai_cores * static_cast<double>(clock_hz);
}

Die::Die(sc_core::sc_module_name name, const DieParams& params, StatsRegistry& stats,
         FailureSink& failures, DsmPool* pool, uint32_t index)
    : sc_module(name),
      m_params(params),
      m_clock(std::string(this->name()) + ".clock", params.clock_hz) {
    // The K split's 32-bit accumulators: one L0C's worth per core at the top of HBM; the pool's
    // staging and tiering regions below them.
    const uint64_t workspace = uint64_t{params.ai_cores} * params.core.l0c_bytes;
    const uint64_t capacity = params.hbm.capacity_bytes();
    const uint64_t workspace_base = capacity > workspace ? capacity - workspace : 0;
    if (params.dsm.enabled() && !pool) {
        m_own_pool = std::make_unique<DsmPool>(params.dsm, stats);
        pool = m_own_pool.get();
    }
    L2AndHbm memory = make_l2_and_hbm(params.l2, params.hbm, stats,
                                      PoolAccess{&params.dsm, pool, index, workspace_base});
    m_hbm = std::move(memory.hbm);
    m_l2 = std::move(memory.l2);
    m_tiers = std::move(memory.tiers);

    // The H-JSD prefetches weights into the L2 through its own SDMA port; the L2 returns its
    // credits, and the die's HBM feeds the load monitor that throttles it.
    m_hbm_monitor =
        std::make_unique<HbmLoadMonitor>(params.hbm.bandwidth_bytes_per_s(),
                                         static_cast<Picoseconds>(params.hjsd.throttle_window_ps));
    m_hbm->set_load_monitor(m_hbm_monitor.get());
    // With a staging region the H-JSD has one more credit pool, after the L2's partitions.
    const auto l2_partitions = static_cast<uint32_t>(m_l2->partition_count());
    const bool staging = m_tiers && params.dsm.staging.capacity > 0;
    m_hjsd = std::make_unique<Hjsd>("hjsd", params.hjsd, l2_partitions + (staging ? 1 : 0), m_clock,
                                    *m_hbm_monitor, stats, failures);
    // The engines' ports, in binding order: the H-JSD's SDMA port, then per core its Cube and
    // vector pipelines. With a NoC they bind to the network, which forwards to the L2.
    if (params.noc) connect_network(*params.noc, stats);
    using L2Side = tlm::tlm_base_target_socket_b<>;
    L2Side& l2_side =
        m_noc ? static_cast<L2Side&>(m_noc->from_engines) : static_cast<L2Side&>(m_l2->core_in);
    m_hjsd->l2_out.bind(l2_side);
    if (staging) {
        m_hjsd->set_staging_target(*m_tiers, l2_partitions);
        m_tiers->set_staging_listener(m_hjsd.get(), l2_partitions);
    }
    // Lanes when a target may wait: the JEDEC HBM, or a pool whose port grants a prefetch only
    // when demand has left it (TierRouter::await_idle_port).
    if (m_hbm->waits() || m_tiers) m_hjsd->issue_from_lanes();
    m_l2->set_prefetch_listener(m_hjsd.get());

    const TilePipelineParams aic{params.core.aic_gm_read, params.core.aic_gm_write, m_hbm->waits()};
    const TilePipelineParams aiv{params.core.aiv_gm_read, params.core.aiv_gm_write, m_hbm->waits()};
    std::vector<TilePipeline*> cube, vector;
    for (uint32_t c = 0; c < params.ai_cores; ++c) {
        const std::string core = "core" + std::to_string(c);
        m_cube_pipes.push_back(
            std::make_unique<TilePipeline>((core + "_aic").c_str(), m_clock, aic, stats, failures));
        m_cube_pipes.back()->l2_out.bind(l2_side);
        cube.push_back(m_cube_pipes.back().get());
        m_cube_pipes.back()->set_cube_windows(&m_cube_windows);
        for (uint32_t v = 0; v < params.core.vector_cores; ++v) {
            m_vector_pipes.push_back(std::make_unique<TilePipeline>(
                (core + "_aiv" + std::to_string(v)).c_str(), m_clock, aiv, stats, failures));
            m_vector_pipes.back()->l2_out.bind(l2_side);
            vector.push_back(m_vector_pipes.back().get());
        }
    }
    m_tiler = std::make_unique<Tiler>(m_params.core, params.ai_cores,
                                      Workspace{workspace_base, std::min(workspace, capacity)});
    m_dispatcher =
        std::make_unique<OpDispatcher>("dispatcher", *m_tiler, cube, vector, stats, failures);
    m_dispatcher->set_address_space(params.hbm.capacity_bytes(), m_tiers.get());
    const auto weight_partition = static_cast<uint32_t>(m_l2->partition_of(StreamClass::kWeight));
    m_dispatcher->set_prefetcher(m_hjsd.get(), weight_partition, params.hjsd.pool_sources_only);
    if (params.hjsd.horizon_ps > 0) m_dispatcher->set_cost_estimate(roofline_cycles());
    // Per-op results (ops.csv): every engine's and the H-JSD's transactions name the op's ledger.
    OpLedger* ledger = &m_dispatcher->ledger();
    m_hjsd->set_ledger(ledger);
    for (auto& pipe : m_cube_pipes) pipe->set_ledger(ledger);
    for (auto& pipe : m_vector_pipes) pipe->set_ledger(ledger);
    if (staging) {
        // A candidate in the pool larger than the weight partition's credit goes to staging.
        m_dispatcher->set_staging(l2_partitions,
                                  params.hjsd.registers.credit_limit[weight_partition],
                                  params.dsm.staging.all);
    }
}

// An op's roofline time on this die in cycles, for the H-JSD's time horizon: its FLOPs at the
// matrix engine's peak (matmul, attention) or the vector cores' (the rest), or its tensors' bytes
// at the HBM's bandwidth, whichever is longer. A collective counts its bytes only.
std::function<uint64_t(const trace::Op&)> Die::roofline_cycles() const {
    const DieParams& p = m_params;
    const double hbm_bytes_per_cycle =
        p.hbm.bandwidth_bytes_per_s() / static_cast<double>(p.clock_hz);
    // Peak per dtype, looked up once (peak_flops builds a matrix engine to ask it).
    std::map<DType, double> cube_peak;
    return [p, hbm_bytes_per_cycle, cube_peak](const trace::Op& op) mutable -> uint64_t {
        double bytes = 0;
        for (const auto* list : {&op.inputs, &op.outputs})
            for (const trace::Tensor& t : *list) bytes += static_cast<double>(t.bytes);
        double cycles = bytes / hbm_bytes_per_cycle;
        const bool cube =
            op.kind == trace::OpKind::kMatmul || op.kind == trace::OpKind::kFusedAttention;
        double peak = p.vector_peak_ops(std::max(1u, dtype_bits(op.dtype) / 8));
        if (cube) {
            auto it = cube_peak.find(op.dtype);
            if (it == cube_peak.end())
                it = cube_peak.emplace(op.dtype, p.peak_flops(op.dtype)).first;
            peak = it->second;
        }
        if (op.kind != trace::OpKind::kCollective && peak > 0)
            cycles = std::max(cycles, trace::op_flops(op) / peak * static_cast<double>(p.clock_hz));
        return static_cast<uint64_t>(cycles + 0.5);
    };
}

// The network between the engines and the L2: the SDMA engine sits at the middle router; HBM
// controllers: one per stack. Port order as the constructor binds them.
void Die::connect_network(const NocParams& noc, StatsRegistry& stats) {
    NocPlacement placement;
    placement.cores = m_params.ai_cores;
    placement.l2_slices = static_cast<uint32_t>(m_l2->slice_count());
    placement.hbm_controllers = m_params.hbm.device.org.stacks;
    placement.port_core.push_back(NocPlacement::kCentre);
    for (uint32_t c = 0; c < m_params.ai_cores; ++c)
        placement.port_core.insert(placement.port_core.end(), 1 + m_params.core.vector_cores, c);
    m_noc = std::make_unique<OnDieNetwork>("noc", noc, placement, m_clock, stats);
    m_noc->to_l2.bind(m_l2->core_in);
    m_l2->set_hbm_distance(m_noc->slice_to_hbm());
}

Cycles Die::cube_busy_cycles() const {
    Cycles n = 0;
    for (const auto& p : m_cube_pipes) n += p->cube_busy_cycles();
    return n;
}

void Die::record_to(Timeline* timeline, const std::string& counter_group) {
    const std::string die = name();
    for (uint32_t c = 0; c < m_params.ai_cores; ++c) {
        if (!timeline->core_selected(c)) continue;
        const std::string group = die + ".core" + std::to_string(c);
        PipelineTracks aic;
        aic.mte2 = timeline->slice_track(group, "AIC MTE2");
        aic.mte1 = timeline->slice_track(group, "AIC MTE1");
        aic.cube = timeline->slice_track(group, "AIC Cube");
        aic.c2v = timeline->slice_track(group, "AIC C2V (L0C->UB->L1, fused attention)");
        // Fused attention's softmax runs on the core's vector units within the Cube pipeline.
        aic.vector = timeline->slice_track(group, "AIV Vector (fused attention)");
        aic.store = timeline->slice_track(group, "AIC FixPipe");
        m_cube_pipes[c]->record_to(timeline, aic);
        for (uint32_t v = 0; v < m_params.core.vector_cores; ++v) {
            const std::string aiv = "AIV" + std::to_string(v) + " ";
            PipelineTracks tracks;
            tracks.mte2 = timeline->slice_track(group, aiv + "MTE2");
            tracks.vector = timeline->slice_track(group, aiv + "Vector");
            tracks.store = timeline->slice_track(group, aiv + "MTE3");
            m_vector_pipes[c * m_params.core.vector_cores + v]->record_to(timeline, tracks);
        }
    }
    m_l2->record_to(timeline, counter_group.empty() ? die + ".l2" : counter_group,
                    counter_group.empty() ? die + ".hbm" : counter_group);
    m_dispatcher->set_timeline(timeline);
}

void Die::set_functional_memory(FunctionalMemory* memory) {
    for (auto& p : m_cube_pipes) p->set_functional_memory(memory);
    for (auto& p : m_vector_pipes) p->set_functional_memory(memory);
}

void Die::finalize_stats() {
    m_dispatcher->finalize_stats();
    m_hjsd->finalize_stats();
    m_l2->finalize_stats();
    if (m_tiers) m_tiers->finalize_stats();
    if (m_own_pool) m_own_pool->finalize_stats();
    m_hbm->finalize_stats();
}

}  // namespace asim
