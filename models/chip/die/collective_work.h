// A collective's work on one member die in a supernode run: the die reads what it sends from, and
// writes what it receives to, its HCCL buffer in HBM, and adds the bytes it reduces on its vector
// cores. The network bridge (testbenches/supernode) says how many bytes when the whole group has
// arrived and the collective starts; the dispatcher runs the ops below on the vector pipelines,
// beside whatever compute is in flight, and the collective op completes when both the network
// and this work are done. So collectives take L2 / HBM bandwidth and vector-core time from the
// compute that overlaps them, and a die busy computing delays its collectives.
//
// The HCCL buffer (HCCL_BUFFSIZE, default 200 MB; each communicator holds an input and an output
// buffer of that size: hiascend CANN envref_07_0080) sits at the top of the die's HBM: data
// movement is a copy from the input to the output buffer of (read + write) / 2 bytes (reads and
// writes exactly the bytes sent and received), reductions an element-wise add of the two buffers
// into the output one; a collective larger than the buffer goes through it in buffer-sized pieces.
//
// Approximated: the data movement runs on the vector cores' data movers (AIV-direct, CM384's MoE
// path) for every algorithm; SDMA, a separate engine on the real die, would put the same traffic
// on the L2 / HBM without occupying the vector pipelines. The pieces run together, not step by
// step with the network (the network's per-step reduction time stays in the collective engine,
// `reduce_bandwidth`); the copies between the user's buffers and the HCCL buffer are not made.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/trace.h"

namespace asim {

struct CollectiveDieWork {
    uint64_t read_bytes = 0;    // what the die sends
    uint64_t write_bytes = 0;   // what it receives
    uint64_t reduce_bytes = 0;  // of that, what it adds into its own (on the vector cores)
    uint64_t buffer_bytes = 200ull << 20;  // each of the HCCL input and output buffers
    bool empty() const { return read_bytes == 0 && write_bytes == 0 && reduce_bytes == 0; }
};

// The copy and add ops that do `work` for `collective` on a die with `hbm_bytes` of HBM (the
// buffers at its top; a buffer larger than a quarter of the HBM is cut to that). Ids and names
// are the collective's. Bytes they read and write in die memory: sum of `memory_bytes`.
std::vector<trace::Op> collective_die_ops(const trace::Op& collective,
                                          const CollectiveDieWork& work, uint64_t hbm_bytes);
uint64_t memory_bytes(const trace::Op& op);

}  // namespace asim
