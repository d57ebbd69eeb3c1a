#include "models/chip/die/collective_work.h"

#include <algorithm>

#include "models/common/dtype.h"

namespace asim {

std::vector<trace::Op> collective_die_ops(const trace::Op& collective,
                                          const CollectiveDieWork& work, uint64_t hbm_bytes) {
    std::vector<trace::Op> ops;
    const uint64_t buffer = std::min(work.buffer_bytes, hbm_bytes / 4);
    if (buffer == 0 || work.empty()) return ops;
    const uint64_t in_base = hbm_bytes - 2 * buffer, out_base = hbm_bytes - buffer;
    auto op_like = [&](trace::OpKind kind) {
        trace::Op op;
        op.id = collective.id;
        op.kind = kind;
        op.name = collective.name;
        op.dtype = collective.dtype;
        op.line = collective.line;
        return op;
    };
    // Data movement: (read + write) / 2 bytes copied, in buffer-sized pieces.
    const uint64_t moved = (work.read_bytes + work.write_bytes + 1) / 2;
    for (uint64_t done = 0; done < moved; done += buffer) {
        const uint64_t n = std::min(buffer, moved - done);
        trace::Op op = op_like(trace::OpKind::kMemcpy);
        op.copy_bytes = n;
        op.inputs.push_back({"hccl_in", in_base, n});
        op.outputs.push_back({"hccl_out", out_base, n});
        ops.push_back(std::move(op));
    }
    // Reductions: out += in, element by element in the collective's dtype.
    const uint64_t element = std::max<uint64_t>(1, dtype_bits(collective.dtype) / 8);
    const uint64_t piece = buffer / element * element;
    for (uint64_t done = 0; done < work.reduce_bytes && piece > 0; done += piece) {
        const uint64_t n =
            std::max(element, std::min(piece, work.reduce_bytes - done) / element * element);
        trace::Op op = op_like(trace::OpKind::kElementwise);
        op.vector.func = "add";
        op.vector.rows = 1;
        op.vector.cols = n / element;
        op.inputs.push_back({"hccl_in", in_base, n});
        op.inputs.push_back({"hccl_out", out_base, n});
        op.outputs.push_back({"hccl_out", out_base, n});
        ops.push_back(std::move(op));
    }
    return ops;
}

uint64_t memory_bytes(const trace::Op& op) {
    uint64_t b = 0;
    for (const auto& t : op.inputs) b += t.bytes;
    for (const auto& t : op.outputs) b += t.bytes;
    return b;
}

}  // namespace asim
