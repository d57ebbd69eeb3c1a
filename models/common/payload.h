// TLM side data and payload pooling, defined once for every component.
//
// TransactionInfo rides on every generic payload: the stream class (the L2 partitions by it),
// the op that caused the access, the issuing engine and the time it was issued. Timing-only
// transactions (the default: moving gigabytes of real bytes would prove nothing about timing)
// carry no data buffer; they say so explicitly, and targets reject a null data pointer on any
// transaction that does not.
//
// PayloadPool is a tlm_mm_interface: payloads that outlive a call come from it and return to it
// when their reference count drops to zero, so a long run allocates a bounded number of them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "models/common/clock_domain.h"
#include "models/common/stream_class.h"

namespace asim {

class OpLedger;

// The on-die network's distances from a request's port to each L2 slice (one way) and their mean
// (models/interconnect/noc/on_die_network.h).
struct SliceDistances {
    std::vector<Picoseconds> one_way;  // by slice
    Picoseconds mean = 0;
};

class TransactionInfo : public tlm::tlm_extension<TransactionInfo> {
public:
    StreamClass stream = StreamClass::kGeneral;
    uint64_t op_id = 0;
    // Where the traffic this transaction causes is counted per op (op_ledger.h), under op_id (a
    // prefetch's is the op it fetches for); null: nowhere.
    OpLedger* ledger = nullptr;
    const char* engine = "";      // issuing engine's hierarchical name (owned by the engine)
    sc_core::sc_time issue_time;  // when the initiator issued it
    bool timing_only = true;      // no data buffer: targets compute timing only
    // L2 hints. no_allocate: a miss streams through without taking a line (W1 §4.3.2 L2 hints).
    // A transaction of stream class kPrefetch is a CMO prefetch: the L2 fills the lines into the
    // partition of `prefetch_target` and returns no data.
    bool no_allocate = false;
    // A write that adds its 32-bit values to those in memory (FixPipe atomic add; the L2 slice
    // reads, adds and writes the line, fetching it first on a miss).
    bool atomic_add = false;
    StreamClass prefetch_target = StreamClass::kWeight;
    // Set by the on-die network while the L2 serves the request: its distances to the slices.
    // Null: no network (every slice at distance 0).
    const SliceDistances* noc_route = nullptr;

    tlm::tlm_extension_base* clone() const override;
    void copy_from(const tlm::tlm_extension_base& other) override;
};

// Returns the payload's TransactionInfo, or nullptr.
inline TransactionInfo* info_of(const tlm::tlm_generic_payload& p) {
    return p.get_extension<TransactionInfo>();
}

// Checks a payload arriving at a target: command, length, byte enables, streaming width, data
// pointer (unless timing-only), and `addr + length <= capacity`. Sets the proper TLM error
// response and returns false when anything is wrong; on success leaves the response untouched.
bool validate_payload(tlm::tlm_generic_payload& p, uint64_t capacity_bytes);

// Initiators call this on the way back: a non-OK response is a simulation failure.
void check_response(const tlm::tlm_generic_payload& p, const char* initiator);

class PayloadPool final : public tlm::tlm_mm_interface {
public:
    PayloadPool() = default;
    ~PayloadPool() override;
    PayloadPool(const PayloadPool&) = delete;
    PayloadPool& operator=(const PayloadPool&) = delete;

    // A payload with reference count 1 and a TransactionInfo extension attached (reset).
    // Release with payload->release().
    tlm::tlm_generic_payload* acquire();
    void free(tlm::tlm_generic_payload* p) override;

    std::size_t allocated() const { return m_all.size(); }
    std::size_t available() const { return m_free.size(); }

private:
    std::vector<std::unique_ptr<tlm::tlm_generic_payload>> m_all;
    std::vector<tlm::tlm_generic_payload*> m_free;
};

}  // namespace asim
