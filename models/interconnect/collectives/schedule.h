// Collective algorithms as per-rank step programs. Step s of rank r first waits for the listed
// receives (and reduces those marked `reduce`, costed on the vector cores), then issues its sends;
// sends to one peer leave in order (one DMA queue per peer). Buffers are counted in bytes
// ("elements" of one byte; the functional mode holds one number per byte). Steps are generated on
// demand from (rank, step), so a 15,488-rank ring needs no table of 2(p-1) x p steps.
//
// Size conventions follow nccl-tests: `bytes` is the per-rank buffer; all-gather's is its output
// (each rank contributes bytes / p), reduce-scatter's its input (each rank keeps bytes / p),
// all-to-all's is what each rank sends in total (bytes / p to each peer). All-to-all-v takes a
// p x p matrix `counts` (counts[i * p + j]: bytes rank i sends to rank j); rank i's send buffer
// holds its blocks in peer order, rank j's receive buffer the blocks it gets in sender order.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/common/registry.h"
#include "models/common/small_vector.h"

namespace asim {

enum class CollectiveOp {
    allreduce,
    allgather,
    reducescatter,
    alltoall,
    alltoallv,
    broadcast,
    sendrecv
};
// A collective algorithm, by the name it is registered under (collective_algorithm_registry()
// below). The built-in ones have constants (CollectiveAlgo::ring, ...); one registered in a file
// of its own is reached by its name through parse_collective_algo(). Cheap to copy: it holds the
// registered name, which lives as long as the program.
class CollectiveAlgo {
public:
    constexpr CollectiveAlgo() = default;  // ring
    constexpr explicit CollectiveAlgo(const char* name) : m_name(name) {}
    const char* name() const { return m_name; }
    friend bool operator==(CollectiveAlgo a, CollectiveAlgo b) {
        return std::strcmp(a.m_name, b.m_name) == 0;
    }
    friend bool operator!=(CollectiveAlgo a, CollectiveAlgo b) { return !(a == b); }

    static const CollectiveAlgo ring, ring_pipelined, halving_doubling, mesh, double_ring,
        hierarchical, direct, pairwise;

private:
    const char* m_name = "ring";
};
inline constexpr CollectiveAlgo CollectiveAlgo::ring{"ring"};
inline constexpr CollectiveAlgo CollectiveAlgo::ring_pipelined{"ring_pipelined"};
inline constexpr CollectiveAlgo CollectiveAlgo::halving_doubling{"halving_doubling"};
inline constexpr CollectiveAlgo CollectiveAlgo::mesh{"mesh"};
inline constexpr CollectiveAlgo CollectiveAlgo::double_ring{"double_ring"};
inline constexpr CollectiveAlgo CollectiveAlgo::hierarchical{"hierarchical"};
inline constexpr CollectiveAlgo CollectiveAlgo::direct{"direct"};
inline constexpr CollectiveAlgo CollectiveAlgo::pairwise{"pairwise"};

const char* to_string(CollectiveOp op);
const char* to_string(CollectiveAlgo a);
// Throw InputError listing the choices.
CollectiveOp parse_collective_op(const std::string& s);
CollectiveAlgo parse_collective_algo(const std::string& s);
// The algorithms `op` accepts: its default first, then the other registered ones by name.
std::vector<CollectiveAlgo> algorithms_for(CollectiveOp op);
// Every op's name (the trace format's list) and every registered algorithm's, for --help.
std::vector<std::string> collective_op_names();
std::vector<std::string> collective_algo_names();

struct SendOp {
    uint32_t peer;  // rank in the group
    uint32_t tag;   // matches the receiver's RecvOp
    uint64_t src_offset;
    uint64_t dst_offset;
    uint64_t bytes;
    bool reduce;  // add into the receiver's buffer (else copy)
};

struct RecvOp {
    uint32_t peer;
    uint32_t tag;
    uint64_t bytes;
    bool reduce;  // costs a reduction of `bytes` before the step's sends
};

// Steps are made one at a time, per rank, millions of times in a large collective: most have one
// or two receives and sends, held inline (no allocation); all-to-all's and the mesh's spill.
struct Step {
    SmallVector<RecvOp, 2> waits;
    SmallVector<SendOp, 2> sends;
};

struct ScheduleShape {
    CollectiveOp op = CollectiveOp::allreduce;
    CollectiveAlgo algo = CollectiveAlgo::ring;
    uint32_t ranks = 1;
    uint64_t bytes = 0;
    uint64_t chunk_bytes = 0;      // ring_pipelined, broadcast: pieces forwarded as they arrive
    uint32_t ranks_per_node = 1;   // hierarchical: group ranks i*g .. i*g+g-1 share a node
    uint32_t root = 0;             // broadcast
    std::vector<uint64_t> counts;  // alltoallv: p x p bytes, row = sender
};

class Schedule {
public:
    virtual ~Schedule() = default;
    virtual uint32_t steps(uint32_t rank) const = 0;
    virtual Step step(uint32_t rank, uint32_t s) const = 0;
};

// Throws InputError when the algorithm does not apply to the op or the shape.
std::unique_ptr<Schedule> make_schedule(const ScheduleShape& shape);

// The algorithms by name. An algorithm is a file that registers its Schedule for the ops it
// applies to (schedule.cpp has the built-in ones):
//   ASIM_REGISTER(collective_algorithm_registry(), ring, "description", {CollectiveOp::allreduce},
//                 [](const ScheduleShape& s) { return std::make_unique<MySchedule>(s); });
// The factory may throw InputError for a shape it cannot take (make_schedule has checked the op,
// the group size and the byte counts).
class CollectiveAlgorithmRegistry final : public RegistryBase {
public:
    using Factory = std::function<std::unique_ptr<Schedule>(const ScheduleShape&)>;
    struct Entry {
        std::string name;
        std::string description;
        std::vector<CollectiveOp> ops;
        Factory make;
    };
    CollectiveAlgorithmRegistry() : RegistryBase("collective algorithm") {}
    bool add(Entry entry);
    const Entry* find(const std::string& name) const;
    std::vector<Implementation> implementations() const override;

private:
    std::map<std::string, Entry> m_entries;
};
CollectiveAlgorithmRegistry& collective_algorithm_registry();

// What one rank moves and reduces over a whole schedule: the bytes it sends (read from its
// memory), receives (written to it) and reduces (its received bytes that are added in).
struct RankTraffic {
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t reduced = 0;
};
RankTraffic rank_traffic(const Schedule& schedule, uint32_t rank);

}  // namespace asim
