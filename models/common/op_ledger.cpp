#include "models/common/op_ledger.h"

#include "models/common/payload.h"

namespace asim {

void OpLedger::add(uint64_t seq, const trace::Op& op) {
    // Sequence numbers come in order from 0; anything else is ignored.
    if (seq != m_records.size()) return;
    OpRecord r;
    r.id = op.id;
    r.name = op.name;
    r.kind = op.kind;
    r.dtype = op.dtype;
    r.flops = trace::op_flops(op);
    m_seq[op.id] = m_records.size();
    m_records.push_back(std::move(r));
    if (m_keep_deps) {
        m_deps.resize(m_records.size());
        m_deps.back() = op.deps;
    }
}

const std::vector<uint64_t>& OpLedger::deps(std::size_t seq) const {
    static const std::vector<uint64_t> kNone;
    return seq < m_deps.size() ? m_deps[seq] : kNone;
}

std::size_t OpLedger::seq_of(uint64_t op_id) const {
    const auto it = m_seq.find(op_id);
    return it == m_seq.end() ? SIZE_MAX : it->second;
}

OpRecord* OpLedger::find_id(uint64_t op_id) {
    if (op_id == m_last_id) return &m_records[m_last_seq];
    const auto it = m_seq.find(op_id);
    if (it == m_seq.end()) return nullptr;
    m_last_id = op_id;
    m_last_seq = it->second;
    return &m_records[it->second];
}

void OpLedger::started(uint64_t op_id, Picoseconds when) {
    if (OpRecord* r = find_id(op_id)) {
        r->start = when;
        r->started = true;
    }
}

void OpLedger::finished(uint64_t op_id, Picoseconds when) {
    if (OpRecord* r = find_id(op_id)) {
        r->end = when;
        r->finished = true;
    }
}

void OpLedger::hbm(const TransactionInfo& info, uint64_t bytes, bool is_write) {
    OpRecord* r = find_id(info.op_id);
    if (!r) {
        m_unattributed_bytes += bytes;
        return;
    }
    (is_write ? r->hbm_write_bytes : r->hbm_read_bytes) += bytes;
}

void OpLedger::l2(const TransactionInfo& info, uint64_t hits, uint64_t misses) {
    if (OpRecord* r = find_id(info.op_id)) {
        r->l2_hits += hits;
        r->l2_misses += misses;
    }
}

}  // namespace asim
