// H-JSD prefetch scheduler (DESIGN §5, cycle semantics in models/chip/hjsd/README.md and
// rtl/README.md). One clock, synchronous active-high reset, no latches.
//
// Candidates {op_seq, addr, bytes, partition, tier, est} queue in program order; the head is served
// strictly in order, cut into chunk-aligned pieces, and issued as one request per cycle when it
// lies in the window current < op_seq <= current + depth and (cfg_horizon non-zero) within the
// time horizon est - current_est <= cfg_horizon (estimated start times, wrapping at 2^EST_W),
// its partition has credit for the chunk, the head is not throttled (throttle, the local HBM's
// load, holds back only heads whose source tier is 0, local HBM) and the request port is ready.
// Credit is taken at issue and given back by credit returns. A head whose op already started
// (op_seq <= current) is dropped (late); else a head larger than its partition's credit limit,
// which the partition can never hold, is dropped (oversize), whatever the enable and the window.
// The source tier is carried to the requests and decides whether throttle applies.
// Configuration inputs are used combinationally (a write counts from the next edge); credits are
// clamped to the limits as read.
module prefetch_scheduler #(
    parameter int MAX_DEPTH   = 63,  // largest prefetch_depth
    parameter int QUEUE_DEPTH = 16,  // candidate queue entries
    parameter int ADDR_W      = 64,  // byte address
    parameter int LEN_W       = 40,  // candidate bytes and chunk size
    parameter int SEQ_W       = 32,  // op sequence number
    parameter int NPART       = 4,   // L2 partitions with credit
    parameter int CREDIT_W    = 40,  // credit and credit-return bytes
    parameter int CNT_W       = 64,  // event counters
    parameter int TIER_W      = 2,   // source tier (0 = local HBM)
    parameter int EST_W       = 32,  // estimated start times and the horizon, cycles
    localparam int DEPTH_W = $clog2(MAX_DEPTH + 1),
    localparam int PART_W  = NPART > 1 ? $clog2(NPART) : 1,
    localparam int QPTR_W  = QUEUE_DEPTH > 1 ? $clog2(QUEUE_DEPTH) : 1,
    localparam int QCNT_W  = $clog2(QUEUE_DEPTH + 1)
) (
    input  logic                      clk,
    input  logic                      rst,

    // configuration (quasi-static)
    input  logic                      cfg_enable,
    input  logic [DEPTH_W-1:0]        cfg_depth,
    input  logic [LEN_W-1:0]          cfg_chunk,         // power of two
    input  logic [NPART*CREDIT_W-1:0] cfg_credit_limit,  // partition p at [p*CREDIT_W +: CREDIT_W]
    input  logic [EST_W-1:0]          cfg_horizon,       // cycles of estimated time; 0 = no bound

    // prefetch candidates, program order
    input  logic                      cand_valid,
    output logic                      cand_ready,
    input  logic [SEQ_W-1:0]          cand_op_seq,
    input  logic [ADDR_W-1:0]         cand_addr,
    input  logic [LEN_W-1:0]          cand_bytes,
    input  logic [PART_W-1:0]         cand_partition,
    input  logic [TIER_W-1:0]         cand_tier,
    input  logic [EST_W-1:0]          cand_est,          // estimated start of its op

    // the compute side began op op_start_seq
    input  logic                      op_start_valid,
    output logic                      op_start_ready,
    input  logic [SEQ_W-1:0]          op_start_seq,
    input  logic [EST_W-1:0]          op_start_est,      // estimated start of that op

    // prefetched L2 space consumed or evicted
    input  logic                      credit_valid,
    output logic                      credit_ready,
    input  logic [PART_W-1:0]         credit_partition,
    input  logic [CREDIT_W-1:0]       credit_bytes,

    // HBM load above threshold
    input  logic                      throttle,

    // prefetch requests
    output logic                      req_valid,
    input  logic                      req_ready,
    output logic [ADDR_W-1:0]         req_addr,
    output logic [LEN_W-1:0]          req_bytes,
    output logic [PART_W-1:0]         req_partition,
    output logic [SEQ_W-1:0]          req_op_seq,
    output logic [TIER_W-1:0]         req_tier,

    // status: the head is dropped at this edge, late or (not late and) oversize
    output logic                      late_drop,
    output logic                      oversize_drop,
    output logic [QCNT_W-1:0]         queue_count,

    // counters
    output logic [CNT_W-1:0]          cnt_issued_chunks,
    output logic [CNT_W-1:0]          cnt_issued_bytes,
    output logic [CNT_W-1:0]          cnt_late_drops,
    output logic [CNT_W-1:0]          cnt_credit_stalls,
    output logic [CNT_W-1:0]          cnt_throttle_stalls,
    output logic [CNT_W-1:0]          cnt_port_stalls,
    output logic [CNT_W-1:0]          cnt_window_waits,
    output logic [CNT_W-1:0]          cnt_candidates,
    output logic [CNT_W-1:0]          cnt_oversize_drops
);

    // ---- state ----
    logic [SEQ_W-1:0]    q_seq  [QUEUE_DEPTH];
    logic [ADDR_W-1:0]   q_addr [QUEUE_DEPTH];
    logic [LEN_W-1:0]    q_bytes[QUEUE_DEPTH];
    logic [PART_W-1:0]   q_part [QUEUE_DEPTH];
    logic [TIER_W-1:0]   q_tier [QUEUE_DEPTH];
    logic [EST_W-1:0]    q_est  [QUEUE_DEPTH];
    logic [QPTR_W-1:0]   rd_ptr, wr_ptr;
    logic [QCNT_W-1:0]   count;
    logic [LEN_W-1:0]    head_off;   // bytes of the head already issued
    logic                has_cur;    // an op_start was seen ("current = -1" before)
    logic [SEQ_W-1:0]    cur_seq;
    logic [EST_W-1:0]    cur_est;    // the current op's estimated start (0 before the first)
    logic [CREDIT_W-1:0] credit[NPART];

    // ---- head decode ----
    logic              head_valid, head_late, head_oversize, head_in_window, head_eligible;
    logic              head_in_horizon;
    logic [EST_W-1:0]  h_est, est_ahead;
    logic [SEQ_W-1:0]  h_seq;
    logic [ADDR_W-1:0] h_addr, at;
    logic [LEN_W-1:0]  h_bytes, remaining, to_boundary, chunk_len;
    logic [PART_W-1:0] h_part;
    logic [TIER_W-1:0] h_tier;
    logic [SEQ_W:0]    window_hi;
    logic [CREDIT_W-1:0] limit[NPART];
    logic [CREDIT_W-1:0] eff_credit[NPART];
    logic              credit_ok, issue, drop, push, head_done, head_throttled;

    always_comb begin
        for (int p = 0; p < NPART; p++) begin
            limit[p] = cfg_credit_limit[p*CREDIT_W +: CREDIT_W];
            eff_credit[p] = credit[p] < limit[p] ? credit[p] : limit[p];
        end
    end

    assign head_valid = count != '0;
    assign h_seq   = q_seq[rd_ptr];
    assign h_addr  = q_addr[rd_ptr];
    assign h_bytes = q_bytes[rd_ptr];
    assign h_part  = q_part[rd_ptr];
    assign h_tier  = q_tier[rd_ptr];
    assign h_est   = q_est[rd_ptr];

    assign head_late = head_valid && has_cur && h_seq <= cur_seq;
    // Bytes-bounded lookahead: a head larger than its partition's (current) credit limit can never
    // be held there; it is dropped like a late one (late first).
    assign head_oversize = head_valid && !head_late &&
                           {{(LEN_W > CREDIT_W ? 1 : CREDIT_W - LEN_W + 1){1'b0}}, h_bytes}
                           > {{(CREDIT_W > LEN_W ? 1 : LEN_W - CREDIT_W + 1){1'b0}}, limit[h_part]};
    assign window_hi = {1'b0, cur_seq} + {{(SEQ_W + 1 - DEPTH_W){1'b0}}, cfg_depth};
`ifdef ASIM_HJSD_INJECT_BUG
    // Injected bug (CMake ASIM_RTL_BUG_VARIANT): the window's upper end is exclusive, so the
    // last op of the window is never prefetched early. The co-simulation must catch this.
    assign head_in_window = has_cur ? {1'b0, h_seq} < window_hi
                                    : {1'b0, h_seq} < {{(SEQ_W + 1 - DEPTH_W){1'b0}}, cfg_depth};
`else
    assign head_in_window = has_cur ? {1'b0, h_seq} <= window_hi
                                    : {1'b0, h_seq} < {{(SEQ_W + 1 - DEPTH_W){1'b0}}, cfg_depth};
`endif
    // The time horizon: the head's op estimated to start at most cfg_horizon cycles after the
    // current op (the subtraction wraps like the estimates).
    assign est_ahead       = h_est - cur_est;
    assign head_in_horizon = cfg_horizon == '0 || est_ahead <= cfg_horizon;
    assign head_eligible = head_valid && !head_late && !head_oversize && head_in_window &&
                           head_in_horizon;

    // The head chunk runs to the next multiple of cfg_chunk or to the end of the region.
    assign at          = h_addr + {{(ADDR_W - LEN_W){1'b0}}, head_off};
    assign remaining   = h_bytes - head_off;
    assign to_boundary = cfg_chunk - (at[LEN_W-1:0] & (cfg_chunk - 1'b1));
    assign chunk_len   = to_boundary < remaining ? to_boundary : remaining;
    assign credit_ok   = {{(CREDIT_W > LEN_W ? 1 : LEN_W - CREDIT_W + 1){1'b0}}, eff_credit[h_part]}
                         >= {{(LEN_W > CREDIT_W ? 1 : CREDIT_W - LEN_W + 1){1'b0}}, chunk_len};

    // The throttle reports local HBM load: it holds back only prefetches that read local HBM.
    assign head_throttled = throttle && h_tier == '0;
    assign req_valid     = cfg_enable && head_eligible && credit_ok && !head_throttled;
    assign req_addr      = at;
    assign req_bytes     = chunk_len;
    assign req_partition = h_part;
    assign req_op_seq    = h_seq;
    assign req_tier      = h_tier;
    assign issue         = req_valid && req_ready;
    assign drop          = head_late || head_oversize;
    assign head_done     = issue && chunk_len == remaining;

    assign cand_ready     = count < QCNT_W'(QUEUE_DEPTH);
    assign op_start_ready = 1'b1;
    assign credit_ready   = 1'b1;
    assign push           = cand_valid && cand_ready && cand_bytes != '0;
    assign late_drop      = head_late;
    assign oversize_drop  = head_oversize;
    assign queue_count    = count;

    // ---- credit next state ----
    logic [CREDIT_W-1:0] credit_next[NPART];
    always_comb begin
        for (int p = 0; p < NPART; p++) begin
            logic [CREDIT_W-1:0] base;
            logic [CREDIT_W:0]   sum;
            base = eff_credit[p];
            if (issue && h_part == PART_W'(p)) base = base - CREDIT_W'(chunk_len);
            sum = {1'b0, base} + {1'b0, credit_bytes};
            if (credit_valid && credit_partition == PART_W'(p))
                credit_next[p] = sum > {1'b0, limit[p]} ? limit[p] : sum[CREDIT_W-1:0];
            else
                credit_next[p] = base;
        end
    end

    // ---- sequential ----
    always_ff @(posedge clk) begin
        if (rst) begin
            rd_ptr   <= '0;
            wr_ptr   <= '0;
            count    <= '0;
            head_off <= '0;
            has_cur  <= 1'b0;
            cur_seq  <= '0;
            cur_est  <= '0;
            for (int p = 0; p < NPART; p++) credit[p] <= limit[p];
            cnt_issued_chunks   <= '0;
            cnt_issued_bytes    <= '0;
            cnt_late_drops      <= '0;
            cnt_credit_stalls   <= '0;
            cnt_throttle_stalls <= '0;
            cnt_port_stalls     <= '0;
            cnt_window_waits    <= '0;
            cnt_candidates      <= '0;
            cnt_oversize_drops  <= '0;
        end else begin
            // head: issue a chunk, or drop a late head, or count why not
            if (issue) begin
                cnt_issued_chunks <= cnt_issued_chunks + 1'b1;
                cnt_issued_bytes  <= cnt_issued_bytes + CNT_W'(chunk_len);
                head_off          <= head_done ? '0 : head_off + chunk_len;
            end else if (drop) begin
                if (head_late) cnt_late_drops     <= cnt_late_drops + 1'b1;
                else           cnt_oversize_drops <= cnt_oversize_drops + 1'b1;
                head_off <= '0;
            end else if (head_eligible && cfg_enable) begin
                if (head_throttled)  cnt_throttle_stalls <= cnt_throttle_stalls + 1'b1;
                else if (!credit_ok) cnt_credit_stalls   <= cnt_credit_stalls + 1'b1;
                else                 cnt_port_stalls     <= cnt_port_stalls + 1'b1;
            end else if (head_valid && !(head_in_window && head_in_horizon)) begin  // neither late nor oversize
                cnt_window_waits <= cnt_window_waits + 1'b1;
            end

            // queue
            if (head_done || drop) rd_ptr <= rd_ptr == QPTR_W'(QUEUE_DEPTH - 1) ? '0 : rd_ptr + 1'b1;
            if (push) begin
                q_seq[wr_ptr]   <= cand_op_seq;
                q_addr[wr_ptr]  <= cand_addr;
                q_bytes[wr_ptr] <= cand_bytes;
                q_part[wr_ptr]  <= cand_partition;
                q_tier[wr_ptr]  <= cand_tier;
                q_est[wr_ptr]   <= cand_est;
                wr_ptr <= wr_ptr == QPTR_W'(QUEUE_DEPTH - 1) ? '0 : wr_ptr + 1'b1;
            end
            count <= count + QCNT_W'(push) - QCNT_W'(head_done || drop);
            if (cand_valid && cand_ready) cnt_candidates <= cnt_candidates + 1'b1;

            if (op_start_valid) begin
                has_cur <= 1'b1;
                cur_seq <= op_start_seq;
                cur_est <= op_start_est;
            end
            for (int p = 0; p < NPART; p++) credit[p] <= credit_next[p];
        end
    end

endmodule
