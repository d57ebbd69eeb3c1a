#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/memory/tiers/tier_router.h"

#include <algorithm>

#include "models/common/errors.h"

namespace asim {

namespace {
// The ready time of a promoted block's copy until the migration engine has written it.
constexpr Picoseconds kNotCopied = ~Picoseconds{0};
}  // namespace

TierRouter::TierRouter(sc_core::sc_module_name name, const DsmParams& params, DsmPool& pool,
                       uint32_t die, uint64_t local_hbm_bytes, uint64_t region_top,
                       StatsRegistry& stats)
    : sc_module(name),
      l2_in("l2_in"),
      hbm_out("hbm_out"),
      m_params(params),
      m_pool(pool),
      m_die(die),
      m_local_bytes(local_hbm_bytes),
      m_port_read(&pool.clock(), params.port.read_bytes_per_s / kPoolClockHz),
      m_port_write(&pool.clock(), params.port.write_bytes_per_s / kPoolClockHz),
      m_port_serve(&pool.clock(), params.port.read_bytes_per_s / kPoolClockHz),
      m_staged(region_top - params.staging.capacity, params.staging.capacity, params.staging.block,
               false),
      m_promoted(region_top - params.staging.capacity -
                     (params.tiering.enable ? params.tiering.capacity : 0),
                 params.tiering.enable ? params.tiering.capacity : 0, params.tiering.block, true),
      m_migration_budget(&pool.clock(), params.tiering.migration_bytes_per_s / kPoolClockHz),
      m_stats{
          StatsGroup(stats, *this)
              .counter("staged_blocks", "blocks the H-JSD staged into local HBM"),
          StatsGroup(stats, *this).counter("staging_hits", "pool reads served from a staged copy"),
          StatsGroup(stats, *this)
              .counter("staging_unused", "staged blocks evicted before any demand read"),
          StatsGroup(stats, *this)
              .counter("promoted_hits", "pool reads served from a promoted copy"),
          StatsGroup(stats, *this)
              .counter("migrations_skipped",
                       "promotions skipped: the migration engine's backlog too long"),
          StatsGroup(stats, *this)
              .counter("port_read_bytes", "bytes into the die through its pool port", "B"),
          StatsGroup(stats, *this)
              .counter("port_write_bytes", "bytes out of the die through its pool port", "B"),
          StatsGroup(stats, *this)
              .histogram("pool_read_latency_ns",
                         "demand reads of a pool tier (no local copy): arrival to data", "ns")},
      m_registry(stats) {
    m_staging_base = region_top - params.staging.capacity;
    pool.attach_egress(die, m_port_serve);
    if (params.warm.enable) m_warm = pool.node_tiering(params.warm.from, die);
    l2_in.register_b_transport(this, &TierRouter::route);
    if (m_promoted.enabled())
        sc_core::sc_spawn(sc_bind(&TierRouter::migration_engine, this), "migration_engine");
}

TierRouter::Decoded TierRouter::decode(uint64_t addr, uint64_t bytes) const {
    Decoded d;
    if (bytes == 0 || addr > ~uint64_t{0} - bytes) return d;
    if (addr + bytes <= m_local_bytes) return {Tier::kHbm, m_die, addr, true};
    for (const TierParams& t : m_params.tiers) {
        if (addr < t.base) continue;
        const uint64_t rel = addr - t.base;
        if (t.kind.per_owner()) {
            const uint64_t owner = rel / kRemoteHbmOwnerStride, off = rel % kRemoteHbmOwnerStride;
            if (owner >= m_params.owners || off + bytes > t.capacity) continue;
            if (owner == m_die) return {Tier::kHbm, m_die, off, off + bytes <= m_local_bytes};
            return {t.tier, static_cast<uint32_t>(owner), off, true};
        }
        if (rel + bytes <= t.capacity) return {t.tier, 0, rel, true};
    }
    return d;
}

std::string TierRouter::refusal(uint64_t addr) const {
    for (const TierParams& t : m_params.tiers) {
        if (addr < t.base) continue;
        const uint64_t rel = addr - t.base;
        const std::string tier = to_string(t.tier);
        if (t.kind.per_owner()) {
            const uint64_t owner = rel / kRemoteHbmOwnerStride, off = rel % kRemoteHbmOwnerStride;
            if (owner >= m_params.owners) {
                if (owner >= kMaxOwners) continue;  // above any pool's window
                return "it is in the " + tier + " window of die " + std::to_string(owner) +
                       ", but the pool has " + std::to_string(m_params.owners) +
                       " owner dies (dsm.owners on a single-die platform)";
            }
            if (off < t.capacity) {
                return "it passes the end of die " + std::to_string(owner) + "'s window (" +
                       std::to_string(t.capacity) + " B, dsm.tiers." + tier + ".capacity)";
            }
        } else if (rel < t.capacity) {
            return "it passes the end of " + tier + " (" + std::to_string(t.capacity) +
                   " B, dsm.tiers." + tier + ".capacity)";
        }
    }
    return "";
}

Picoseconds TierRouter::hbm_access(tlm::tlm_fw_transport_if<>& hbm, uint64_t addr,
                                   Picoseconds arrival, uint64_t bytes, bool write,
                                   const TransactionInfo& info) {
    tlm::tlm_generic_payload* p = m_payloads.acquire();
    p->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p->set_address(addr);
    p->set_data_length(static_cast<unsigned>(bytes));
    p->set_streaming_width(static_cast<unsigned>(bytes));
    *info_of(*p) = info;
    info_of(*p)->engine = name();
    const Picoseconds now = kernel_now();
    sc_core::sc_time delay = ClockDomain::from_ps(arrival > now ? arrival - now : 0);
    hbm.b_transport(*p, delay);
    check_response(*p, name());
    p->release();
    return kernel_now() + ClockDomain::to_ps(delay);
}

Picoseconds TierRouter::local_access(uint64_t addr, Picoseconds arrival, uint64_t bytes, bool write,
                                     const TransactionInfo* info) {
    return hbm_access(*hbm_out.operator->(), addr, arrival, bytes, write,
                      info ? *info : TransactionInfo{});
}

Picoseconds TierRouter::await_idle_port(Picoseconds arrival) {
    // Only a thread can wait (the H-JSD's SDMA lanes are; a die with a pool always uses them).
    if (sc_core::sc_get_current_process_handle().proc_kind() != sc_core::SC_THREAD_PROC_)
        return arrival;
    for (Picoseconds free = m_port_read.free_at(); free > kernel_now();
         free = m_port_read.free_at()) {
        sc_core::wait(ClockDomain::from_ps(free - kernel_now()));
    }
    return std::max(arrival, kernel_now());
}

Picoseconds TierRouter::pool_access(const Decoded& d, Picoseconds arrival, uint64_t bytes,
                                    bool write, bool background, bool migration) {
    if (background && bytes > kPoolPieceBytes) {
        // Background transfers go in pieces: a demand access waits for one piece, not a block.
        Picoseconds done = arrival;
        for (uint64_t off = 0; off < bytes; off += kPoolPieceBytes) {
            Decoded piece = d;
            piece.offset += off;
            done =
                std::max(done, pool_access(piece, arrival, std::min(kPoolPieceBytes, bytes - off),
                                           write, true, migration));
        }
        return done;
    }
    // A node tier's warm block (dsm.warm) is served by its copy in the faster node tier once the
    // copy is complete: that tier's device and latency.
    Tier served = d.tier;
    if (NodeTiering* warm = d.tier == m_params.warm.from ? m_warm : nullptr) {
        if (warm->serves(d.offset, arrival, write, !background))
            served = m_params.warm.into;
        else if (!write && !migration)
            warm->count_read(d.offset, arrival, kernel_now());
    }
    const TierParams& tp = *m_params.find(served);
    const auto port = (write ? m_port_write : m_port_read).reserve(arrival, bytes, background);
    (write ? m_stats.port_write_bytes : m_stats.port_read_bytes) += bytes;
    Picoseconds device_done = port.end;
    const DsmPool::Owner owner = tp.kind.per_owner() ? m_pool.owner(d.owner) : DsmPool::Owner{};
    // A read of another die's HBM also leaves through that die's pool port.
    if (owner.egress && !write) {
        owner.egress->forget_before(kernel_now());
        device_done = std::max(device_done, owner.egress->reserve(arrival, bytes, background).end);
    }
    if (tlm::tlm_fw_transport_if<>* owner_hbm = owner.hbm) {
        // The owner die's HBM model serves it, in contention with that die's own traffic.
        TransactionInfo info;
        info.stream = background ? StreamClass::kPrefetch : StreamClass::kWeight;
        const Picoseconds hbm_done = hbm_access(*owner_hbm, d.offset, arrival, bytes, write, info);
        // The tier's latency is end to end: the owner's idle HBM latency is already in it.
        const auto hbm_latency = static_cast<Picoseconds>(owner.hbm_latency_ps);
        device_done = std::max(device_done, hbm_done - std::min(hbm_done - arrival, hbm_latency));
        // Its data crosses the supernode's links, beside the collectives and other dies' pool
        // traffic (the owner's port and the links are both on the way).
        if (PoolFabric* fabric = m_pool.fabric()) {
            device_done = std::max(device_done,
                                   write ? fabric->carry(m_die, d.owner, bytes, true, background)
                                         : fabric->carry(d.owner, m_die, bytes, false, background));
        }
    } else {
        DsmPool::Device& dev = *m_pool.device(served, m_die);
        CalendarServer& server = write ? dev.write : dev.read;
        server.forget_before(kernel_now());
        device_done = server.reserve(arrival, bytes, background).end;
    }
    const Picoseconds done =
        std::max(port.end, device_done) + (write ? tp.write_latency_ps : tp.read_latency_ps);
    TierTotals& tot = m_totals[static_cast<std::size_t>(served)];
    if (served != d.tier) ++m_totals[static_cast<std::size_t>(d.tier)].warm_hits;
    if (write) {
        ++tot.writes;
        tot.write_bytes += bytes;
        if (const uint64_t block = tp.kind.endurance_block) {
            const uint32_t n =
                ++m_counted_writes[static_cast<std::size_t>(d.tier)][d.offset / block];
            tot.max_block_writes = std::max<uint64_t>(tot.max_block_writes, n);
        }
    } else {
        ++tot.reads;
        tot.read_bytes += bytes;
    }
    return done;
}

void TierRouter::evict_staged(const LocalCopies::Copy& c) {
    if (!c.used) ++m_stats.staging_unused;
    if (c.credit && m_listener) m_listener->prefetch_released(m_staging_pool, c.credit);
}

void TierRouter::count_for_tiering(uint64_t addr, const Decoded& d, Picoseconds when) {
    if (!m_params.tiering.enable) return;
    const uint64_t block = m_promoted.block_of(addr);
    // A block being migrated is read from its tier meanwhile: those reads are not counted again
    // (a counter left behind would promote the block early after a demotion).
    if (m_promoted.find(block, false)) return;
    if (++m_block_reads[block] < m_params.tiering.promote_after) return;
    const uint64_t bytes = m_promoted.block_bytes();
    // The engine's backlog at its budget's rate: the bytes still to copy, from when the budget
    // lets it go on.
    const Picoseconds go_on = std::max(m_migration_budget.free_at(), when);
    const auto backlog =
        static_cast<Picoseconds>(static_cast<double>(m_migration_bytes_left) * kPoolClockHz /
                                 m_params.tiering.migration_bytes_per_s);
    if (go_on + backlog > when + kMigrationHorizonPs) {
        ++m_stats.migrations_skipped;
        return;
    }
    m_block_reads.erase(block);
    if (auto victim = m_promoted.make_room()) {
        const uint64_t victim_addr = victim->block * bytes;
        const Decoded vd = decode(victim_addr, bytes);
        ++m_totals[static_cast<std::size_t>(vd.tier)].migrations_out;
        if (victim->dirty && vd.valid && vd.tier != Tier::kHbm) {
            const Picoseconds read = local_access(victim->slot_addr, when, bytes, false, nullptr);
            pool_access(vd, read, bytes, true, true, true);
        }
    }
    const uint64_t block_addr = block * bytes;
    Decoded bd = decode(block_addr, bytes);
    if (!bd.valid || bd.tier == Tier::kHbm)
        bd = d;  // a block straddling a window edge: time it as the access's tier
    m_promoted.insert(block, kNotCopied);
    m_migrations.push_back({block, bd});
    m_migration_bytes_left += bytes;
    m_migration_queued.notify(sc_core::SC_ZERO_TIME);
    ++m_totals[static_cast<std::size_t>(d.tier)].migrations_in;
}

void TierRouter::migration_engine() {
    const uint64_t bytes = m_promoted.block_bytes();
    const bool share = m_params.tiering.share;
    for (;;) {
        while (m_migrations.empty()) sc_core::wait(m_migration_queued);
        const Migration m = m_migrations.front();
        m_migrations.pop_front();
        Picoseconds read_done = kernel_now();
        for (uint64_t off = 0; off < bytes; off += kPoolPieceBytes) {
            const uint64_t piece_bytes = std::min(kPoolPieceBytes, bytes - off);
            // At most the budget's rate; in the background only into a port with nothing booked,
            // as a share in turn with demand (the port's order of arrival).
            const Picoseconds slot = m_migration_budget.reserve(kernel_now(), piece_bytes).start;
            if (slot > kernel_now()) sc_core::wait(ClockDomain::from_ps(slot - kernel_now()));
            const Picoseconds at = share ? kernel_now() : await_idle_port(kernel_now());
            Decoded piece = m.source;
            piece.offset += off;
            read_done =
                std::max(read_done, pool_access(piece, at, piece_bytes, false, !share, true));
            m_migration_bytes_left -= piece_bytes;
        }
        // Demoted meanwhile (the region filled up with later promotions): nothing to complete.
        if (LocalCopies::Copy* c = m_promoted.find(m.block, false))
            c->ready = local_access(c->slot_addr, read_done, bytes, true, nullptr);
    }
}

Picoseconds TierRouter::remote_piece(uint64_t addr, const Decoded& d, Picoseconds arrival,
                                     uint64_t bytes, bool write, bool background,
                                     const TransactionInfo* info) {
    for (LocalCopies* copies : {&m_staged, &m_promoted}) {
        if (!copies->enabled()) continue;
        LocalCopies::Copy* c = copies->find(copies->block_of(addr), !background);
        if (!c) continue;
        // A block still being migrated is accessed where it is; its copy serves the accesses
        // from the moment it is complete. (A write meanwhile is taken to reach the copy with the
        // pieces copied after it.) A staged block is waited for: its copy is the prefetch the
        // read wants.
        if (copies == &m_promoted && c->ready > arrival) continue;
        const Picoseconds at = std::max(arrival, c->ready);
        const Picoseconds done =
            local_access(c->slot_addr + addr % copies->block_bytes(), at, bytes, write, info);
        if (write) c->dirty = true;
        ++m_totals[static_cast<std::size_t>(d.tier)].copy_hits;
        ++(copies == &m_staged ? m_stats.staging_hits : m_stats.promoted_hits);
        if (!background && !c->used) {
            c->used = true;
            if (c->credit && m_listener) m_listener->prefetch_released(m_staging_pool, c->credit);
            c->credit = 0;
        }
        return done;
    }
    if (!write && !background) count_for_tiering(addr, d, arrival);
    if (background && !write) arrival = await_idle_port(arrival);
    const Picoseconds done = pool_access(d, arrival, bytes, write, background, false);
    if (!write && !background) m_stats.pool_read_latency_ns.sample((done - arrival) / 1000);
    return done;
}

void TierRouter::route(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    // A router for the die's own HBM: the transaction goes on unchanged (the HBM, a TlmTarget,
    // checks it), so the common path costs one decode. Pool addresses are this module's to serve.
    const uint64_t addr = p.get_address();
    const Decoded d = decode(addr, p.get_data_length());
    if (d.valid && d.tier == Tier::kHbm) {
        if (d.offset == addr) return hbm_out->b_transport(p, delay);
        p.set_address(d.offset);  // the die's own window of a per-owner tier
        hbm_out->b_transport(p, delay);
        p.set_address(addr);
        return;
    }
    b_transport(p, delay);
}

Picoseconds TierRouter::serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int) {
    const uint64_t addr = p.get_address();
    const uint64_t bytes = p.get_data_length();
    const Decoded d = decode(addr, bytes);
    if (!d.valid || d.tier == Tier::kHbm) {  // (local HBM was routed before)
        p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return kNotServed;
    }
    const TransactionInfo* info = info_of(p);
    const bool background = info && info->stream == StreamClass::kPrefetch;
    const bool write = p.is_write();
    const Picoseconds arrival = kernel_now() + ClockDomain::to_ps(delay);
    // Pieces no larger than a copy block, so each looks up its own copy.
    uint64_t piece = ~uint64_t{0};
    if (m_staged.enabled()) piece = std::min(piece, m_staged.block_bytes());
    if (m_promoted.enabled()) piece = std::min(piece, m_promoted.block_bytes());
    Picoseconds done = arrival;
    for (uint64_t a = addr; a < addr + bytes;) {
        const uint64_t end =
            piece == ~uint64_t{0} ? addr + bytes : std::min(addr + bytes, (a / piece + 1) * piece);
        const Decoded pd = a == addr ? d : decode(a, end - a);
        done = std::max(done, remote_piece(a, pd, arrival, end - a, write, background, info));
        a = end;
    }
    return done;
}

void TierRouter::stage_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t addr = p.get_address();
    const uint64_t bytes = p.get_data_length();
    const Decoded d = decode(addr, bytes);
    if (!d.valid || !m_staged.enabled()) {
        p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const Picoseconds arrival = kernel_now() + ClockDomain::to_ps(delay);
    const uint64_t block_bytes = m_staged.block_bytes();
    Picoseconds done = arrival;
    for (uint64_t a = addr; a < addr + bytes;) {
        const uint64_t end = std::min(addr + bytes, (a / block_bytes + 1) * block_bytes);
        const uint64_t block = m_staged.block_of(a);
        if (LocalCopies::Copy* c = m_staged.find(block, false)) {
            // Already staged: nothing moves, and the credit comes back at once.
            if (m_listener) m_listener->prefetch_released(m_staging_pool, end - a);
            done = std::max(done, c->ready);
        } else {
            if (auto victim = m_staged.make_room()) evict_staged(*victim);
            const Decoded pd = a == addr ? d : decode(a, end - a);
            Picoseconds ready;
            if (pd.tier == Tier::kHbm) {  // local already: a copy would gain nothing
                ready = arrival;
            } else {
                const Picoseconds read_done =
                    pool_access(pd, await_idle_port(arrival), end - a, false, true, false);
                LocalCopies::Copy& copy = m_staged.insert(block, 0);
                copy.ready = local_access(copy.slot_addr + a % block_bytes, read_done, end - a,
                                          true, info_of(p));
                copy.credit = end - a;
                ready = copy.ready;
                ++m_stats.staged_blocks;
            }
            if (pd.tier == Tier::kHbm && m_listener)
                m_listener->prefetch_released(m_staging_pool, end - a);
            done = std::max(done, ready);
        }
        a = end;
    }
    delay = ClockDomain::from_ps(done - kernel_now());
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void TierRouter::finalize_stats() {
    StatsGroup(m_registry, *this)
        .counter("egress_overlap_ps",
                 "demand time on the port out of the die (other dies' reads of its HBM) that ran "
                 "over background transfers already granted (calendar_server.h)",
                 "ps")
        .set(m_port_serve.overlap_ps());
    StatsGroup(m_registry, *this)
        .counter("port_overlap_bytes",
                 "bytes' worth of demand time on the die's pool port, both directions, that ran "
                 "over background transfers already granted (priority_bandwidth_server.h)",
                 "B")
        .set(m_port_read.overlap_bytes() + m_port_write.overlap_bytes());
    for (const TierParams& t : m_params.tiers) {
        const TierTotals& tot = totals(t.tier);
        const StatsGroup g = StatsGroup(m_registry, *this).group(to_string(t.tier));
        g.counter("read_bytes",
                  "bytes read from the tier (pool reads, migrations and staging included)", "B")
            .set(tot.read_bytes);
        g.counter("write_bytes", "bytes written to the tier", "B").set(tot.write_bytes);
        g.counter("reads", "read transactions at the tier").set(tot.reads);
        g.counter("writes", "write transactions at the tier").set(tot.writes);
        g.counter("hits", "accesses to the tier's addresses served from a local copy")
            .set(tot.copy_hits);
        g.counter("migrations_in", "blocks promoted from the tier into local HBM")
            .set(tot.migrations_in);
        g.counter("migrations_out", "promoted blocks of the tier demoted from local HBM")
            .set(tot.migrations_out);
        if (m_params.warm.enable && t.tier == m_params.warm.from) {
            g.counter("warm_hits",
                      "accesses to the tier's addresses served by the node's warm "
                      "copy in dsm.warm.into (counted there in bytes)")
                .set(tot.warm_hits);
        }
        if (t.kind.endurance_block) {
            g.counter("max_block_writes", "writes to the most written endurance block")
                .set(tot.max_block_writes);
        }
    }
}

}  // namespace asim
