// Properties of the H-JSD prefetch scheduler's contract (DESIGN §5 as refined in rtl/README.md),
// checked against the block by `bind` (prefetch_scheduler_bind.sv), never inside its logic.
// The same text is used by Verilator (--assert, in the co-simulation and in the chip) and by the
// yosys formal run (scripts/rtl_formal.sh).
//
// How: a reference model of the contract, built from the block's pins only (candidates accepted,
// op_start with its estimated start, credit returns, throttle, req_ready, registers), runs beside
// the block. The contract
// properties (a_*) compare the block's outputs and counters with it. The helper invariants (h_*)
// are the refinement map from the block's state to the model's (same queue, pointers, head
// offset, current op and credits) plus the model's own invariants; they are what lets induction
// close, and they are checked like the others. The assumptions (m_*) are the environment's side
// of the contract; Verilator checks them as assertions.
//
// Written in the subset both tools accept: yosys 0.23 has no concurrent assertions, no
// `else $error`, no packed multi-dimensional or unpacked-array ports, and parses `bind` without
// elaborating it. So: immediate assertions in one clocked block, each on one combinational bit,
// "past" values in registers of this module, flat ports. The block's unpacked arrays come in as
// concatenations of up to MAXP partitions and MAXQ queue entries (all of them when NPART <= 4
// and QUEUE_DEPTH <= 16, the chip's configuration included).
//
// Everything is checked only after a reset edge and not in reset cycles.
module prefetch_scheduler_checker #(
    parameter int MAX_DEPTH   = 63,
    parameter int QUEUE_DEPTH = 16,
    parameter int ADDR_W      = 64,
    parameter int LEN_W       = 40,
    parameter int SEQ_W       = 32,
    parameter int NPART       = 4,
    parameter int CREDIT_W    = 40,
    parameter int CNT_W       = 64,
    parameter int TIER_W      = 2,
    parameter int EST_W       = 32,
    localparam int DEPTH_W = $clog2(MAX_DEPTH + 1),
    localparam int PART_W  = NPART > 1 ? $clog2(NPART) : 1,
    localparam int QPTR_W  = QUEUE_DEPTH > 1 ? $clog2(QUEUE_DEPTH) : 1,
    localparam int QCNT_W  = $clog2(QUEUE_DEPTH + 1),
    localparam int MAXP    = 4,  // partitions the refinement map reaches
    localparam int MAXQ    = 16, // queue entries the refinement map reaches
    localparam int NP_MAP  = NPART < MAXP ? NPART : MAXP,
    localparam int NQ_MAP  = QUEUE_DEPTH < MAXQ ? QUEUE_DEPTH : MAXQ,
    localparam int CMP_W   = (LEN_W > CREDIT_W ? LEN_W : CREDIT_W) + 1
) (
    input logic                      clk,
    input logic                      rst,

    // the block's ports
    input logic                      cfg_enable,
    input logic [DEPTH_W-1:0]        cfg_depth,
    input logic [LEN_W-1:0]          cfg_chunk,
    input logic [NPART*CREDIT_W-1:0] cfg_credit_limit,
    input logic [EST_W-1:0]          cfg_horizon,
    input logic                      cand_valid,
    input logic                      cand_ready,
    input logic [SEQ_W-1:0]          cand_op_seq,
    input logic [ADDR_W-1:0]         cand_addr,
    input logic [LEN_W-1:0]          cand_bytes,
    input logic [PART_W-1:0]         cand_partition,
    input logic [TIER_W-1:0]         cand_tier,
    input logic [EST_W-1:0]          cand_est,
    input logic                      op_start_valid,
    input logic                      op_start_ready,
    input logic [SEQ_W-1:0]          op_start_seq,
    input logic [EST_W-1:0]          op_start_est,
    input logic                      credit_valid,
    input logic                      credit_ready,
    input logic [PART_W-1:0]         credit_partition,
    input logic [CREDIT_W-1:0]       credit_bytes,
    input logic                      throttle,
    input logic                      req_valid,
    input logic                      req_ready,
    input logic [ADDR_W-1:0]         req_addr,
    input logic [LEN_W-1:0]          req_bytes,
    input logic [PART_W-1:0]         req_partition,
    input logic [SEQ_W-1:0]          req_op_seq,
    input logic [TIER_W-1:0]         req_tier,
    input logic                      late_drop,
    input logic                      oversize_drop,
    input logic [QCNT_W-1:0]         queue_count,
    input logic [CNT_W-1:0]          cnt_issued_chunks,
    input logic [CNT_W-1:0]          cnt_issued_bytes,
    input logic [CNT_W-1:0]          cnt_late_drops,
    input logic [CNT_W-1:0]          cnt_oversize_drops,

    // the block's state (refinement map)
    input logic [QPTR_W-1:0]         rd_ptr,
    input logic [QPTR_W-1:0]         wr_ptr,
    input logic [LEN_W-1:0]          head_off,
    input logic                      has_cur,
    input logic [SEQ_W-1:0]          cur_seq,
    input logic [EST_W-1:0]          cur_est,
    input logic [MAXP*CREDIT_W-1:0]  blk_credit,   // partition p at [p*CREDIT_W +: CREDIT_W]
    input logic [MAXQ*SEQ_W-1:0]     blk_q_seq,    // entry i at [i*W +: W]
    input logic [MAXQ*ADDR_W-1:0]    blk_q_addr,
    input logic [MAXQ*LEN_W-1:0]     blk_q_bytes,
    input logic [MAXQ*PART_W-1:0]    blk_q_part,
    input logic [MAXQ*TIER_W-1:0]    blk_q_tier,
    input logic [MAXQ*EST_W-1:0]     blk_q_est
);

    // ---- the reference model's state ----
    logic                      seen_rst = 1'b0;  // a reset edge has been seen
    logic                      s_has_cur;  // an op_start was seen (current = -1 before)
    logic [SEQ_W-1:0]          s_cur;
    logic [EST_W-1:0]          s_cur_est;  // the current op's estimated start (0 before the first)
    logic [NPART*CREDIT_W-1:0] s_cr;       // credit per partition
    logic [SEQ_W-1:0]          s_seq  [QUEUE_DEPTH];
    logic [ADDR_W-1:0]         s_addr [QUEUE_DEPTH];
    logic [LEN_W-1:0]          s_bytes[QUEUE_DEPTH];
    logic [PART_W-1:0]         s_part [QUEUE_DEPTH];
    logic [TIER_W-1:0]         s_tier [QUEUE_DEPTH];
    logic [EST_W-1:0]          s_est  [QUEUE_DEPTH];
    logic [QPTR_W-1:0]         s_rd, s_wr;
    logic [QCNT_W-1:0]         s_count;
    logic [LEN_W-1:0]          s_off;      // bytes of the head already issued

    // ---- values at the previous edge ----
    logic                      p_rst, p_hs, p_late, p_over;
    logic [CNT_W-1:0]          p_issued_bytes;  // bytes the handshake moved, 0 without one
    logic [CNT_W-1:0]          p_cnt_chunks, p_cnt_bytes, p_cnt_late, p_cnt_over;
    logic [NPART*CREDIT_W-1:0] p_limit;

    // ---- the contract, from the model and this cycle's pins ----
    logic [CREDIT_W-1:0] lim [NPART];
    logic [CREDIT_W-1:0] eff [NPART];       // credit as the block may use it: min(credit, limit)
    always_comb begin
        for (int p = 0; p < NPART; p++) begin
            lim[p] = cfg_credit_limit[p*CREDIT_W +: CREDIT_W];
            eff[p] = s_cr[p*CREDIT_W +: CREDIT_W] < lim[p] ? s_cr[p*CREDIT_W +: CREDIT_W] : lim[p];
        end
    end

    logic              s_head, s_late, s_over, s_in_window, s_eligible, s_credit_ok, s_should_issue;
    logic              s_throttled;
    logic              s_issue, s_last, s_pop, s_push, hs;
    logic [SEQ_W-1:0]  sh_seq;
    logic [ADDR_W-1:0] sh_addr, s_at;
    logic [LEN_W-1:0]  sh_bytes, s_rem, s_to_boundary, s_chunk;
    logic [PART_W-1:0] sh_part;
    logic [TIER_W-1:0] sh_tier;
    logic [EST_W-1:0]  sh_est;
    logic [SEQ_W:0]    s_win_hi;
    logic              s_in_horizon;

    assign s_head   = s_count != '0;
    assign sh_seq   = s_seq[s_rd];
    assign sh_addr  = s_addr[s_rd];
    assign sh_bytes = s_bytes[s_rd];
    assign sh_part  = s_part[s_rd];
    assign sh_tier  = s_tier[s_rd];
    assign sh_est   = s_est[s_rd];

    // Late: its op already started. Oversize: not late, and more bytes than its partition can hold.
    assign s_late = s_head && s_has_cur && sh_seq <= s_cur;
    assign s_over = s_head && !s_late && CMP_W'(sh_bytes) > CMP_W'(lim[sh_part]);
    // The window current < op_seq <= current + depth (op_seq < depth before the first op_start).
    assign s_win_hi    = {1'b0, s_cur} + (SEQ_W + 1)'(cfg_depth);
    assign s_in_window = s_has_cur ? sh_seq > s_cur && {1'b0, sh_seq} <= s_win_hi
                                   : {1'b0, sh_seq} < (SEQ_W + 1)'(cfg_depth);
    // The time horizon: est - current_est <= horizon, wrapping at 2^EST_W (no bound when 0).
    assign s_in_horizon = cfg_horizon == '0 || EST_W'(sh_est - s_cur_est) <= cfg_horizon;
    assign s_eligible  = s_head && !s_late && !s_over && s_in_window && s_in_horizon;
    // The next chunk runs from head address + offset to the next multiple of cfg_chunk, or to the
    // end of the candidate.
    assign s_at          = sh_addr + ADDR_W'(s_off);
    assign s_rem         = sh_bytes - s_off;
    assign s_to_boundary = cfg_chunk - (s_at[LEN_W-1:0] & (cfg_chunk - 1'b1));
    assign s_chunk       = s_to_boundary < s_rem ? s_to_boundary : s_rem;
    assign s_credit_ok   = CMP_W'(eff[sh_part]) >= CMP_W'(s_chunk);
    assign s_throttled   = throttle && sh_tier == '0;  // throttle holds local-HBM heads only
    assign s_should_issue = cfg_enable && s_eligible && s_credit_ok && !s_throttled;
    assign s_issue       = s_should_issue && req_ready;
    assign s_last        = s_chunk == s_rem;
    assign s_pop         = (s_issue && s_last) || s_late || s_over;
    assign s_push        = cand_valid && s_count < QCNT_W'(QUEUE_DEPTH) && cand_bytes != '0;
    assign hs            = req_valid && req_ready;  // what the block issues

    logic [NPART*CREDIT_W-1:0] s_cr_next;
    always_comb begin
        for (int p = 0; p < NPART; p++) begin
            logic [CREDIT_W-1:0] base;
            logic [CREDIT_W:0]   sum;
            base = eff[p];
            if (s_issue && sh_part == PART_W'(p)) base = base - CREDIT_W'(s_chunk);
            sum = {1'b0, base} + {1'b0, credit_bytes};
            if (credit_valid && credit_partition == PART_W'(p) && sum > {1'b0, lim[p]})
                s_cr_next[p*CREDIT_W +: CREDIT_W] = lim[p];
            else if (credit_valid && credit_partition == PART_W'(p))
                s_cr_next[p*CREDIT_W +: CREDIT_W] = sum[CREDIT_W-1:0];
            else
                s_cr_next[p*CREDIT_W +: CREDIT_W] = base;
        end
    end

    always_ff @(posedge clk) begin
        seen_rst     <= seen_rst || rst;
        p_rst        <= rst;
        p_hs         <= hs;
        p_late       <= late_drop;
        p_over       <= oversize_drop;
        p_issued_bytes <= hs ? CNT_W'(req_bytes) : '0;
        p_cnt_chunks <= cnt_issued_chunks;
        p_cnt_bytes  <= cnt_issued_bytes;
        p_cnt_late   <= cnt_late_drops;
        p_cnt_over   <= cnt_oversize_drops;
        p_limit      <= cfg_credit_limit;
        if (rst) begin
            s_has_cur <= 1'b0;
            s_cur     <= '0;
            s_cur_est <= '0;
            s_cr      <= cfg_credit_limit;
            s_rd      <= '0;
            s_wr      <= '0;
            s_count   <= '0;
            s_off     <= '0;
        end else begin
            if (s_issue) s_off <= s_last ? '0 : s_off + s_chunk;
            else if (s_late || s_over) s_off <= '0;
            if (s_pop) s_rd <= s_rd == QPTR_W'(QUEUE_DEPTH - 1) ? '0 : s_rd + 1'b1;
            if (s_push) begin
                s_seq[s_wr]   <= cand_op_seq;
                s_addr[s_wr]  <= cand_addr;
                s_bytes[s_wr] <= cand_bytes;
                s_part[s_wr]  <= cand_partition;
                s_tier[s_wr]  <= cand_tier;
                s_est[s_wr]   <= cand_est;
                s_wr <= s_wr == QPTR_W'(QUEUE_DEPTH - 1) ? '0 : s_wr + 1'b1;
            end
            s_count <= s_count + QCNT_W'(s_push) - QCNT_W'(s_pop);
            if (op_start_valid) begin
                s_has_cur <= 1'b1;
                s_cur     <= op_start_seq;
                s_cur_est <= op_start_est;
            end
            s_cr <= s_cr_next;
        end
    end

    // ---- one bit per property ----
    logic chk;  // this edge is checked: after a reset, not in one
    assign chk = seen_rst && !rst;

    logic ok_issue_counted, ok_not_throttled, ok_not_disabled, ok_window, ok_program_order;
    logic ok_in_bytes, ok_contiguous, ok_chunked;
    logic ok_credit_covers, ok_credit_le_limit, ok_oversize_never_issues, ok_eligible_issues;
    logic ok_late_flag, ok_late_counted, ok_oversize_flag, ok_oversize_counted, ok_queue;
    logic ok_credit_map, ok_current_map, ok_pointer_map, ok_queue_map, ok_model;
    logic [LEN_W:0] req_end;

    assign ok_issue_counted =
        cnt_issued_chunks == (p_rst ? '0 : p_cnt_chunks + CNT_W'(p_hs)) &&
        cnt_issued_bytes  == (p_rst ? '0 : p_cnt_bytes + p_issued_bytes);
    assign ok_not_throttled = !(throttle && req_valid && req_tier == '0);
    assign ok_not_disabled  = !(!cfg_enable && req_valid);
    assign ok_window  = !req_valid ||
                        ((s_has_cur ? req_op_seq > s_cur && {1'b0, req_op_seq} <= s_win_hi
                                    : {1'b0, req_op_seq} < (SEQ_W + 1)'(cfg_depth)) &&
                         s_in_horizon);
    assign ok_program_order = !req_valid ||
                              (s_head && req_op_seq == sh_seq && req_partition == sh_part &&
                               req_tier == sh_tier);
    assign req_end     = {1'b0, s_off} + {1'b0, req_bytes};
    assign ok_in_bytes = !req_valid || (req_bytes != '0 && req_end <= {1'b0, sh_bytes});
    assign ok_contiguous = !req_valid || req_addr == s_at;
    assign ok_chunked    = !req_valid || req_bytes == s_chunk;
    assign ok_credit_covers = !hs || CMP_W'(eff[req_partition]) >= CMP_W'(req_bytes);
    assign ok_oversize_never_issues = !req_valid || CMP_W'(sh_bytes) <= CMP_W'(lim[req_partition]);
    assign ok_eligible_issues = !(s_should_issue && req_ready) || req_valid;
    assign ok_late_flag       = late_drop == s_late;
    assign ok_late_counted    = cnt_late_drops == (p_rst ? '0 : p_cnt_late + CNT_W'(p_late));
    assign ok_oversize_flag   = oversize_drop == s_over;
    assign ok_oversize_counted = cnt_oversize_drops == (p_rst ? '0 : p_cnt_over + CNT_W'(p_over));
    assign ok_queue = queue_count == s_count && cand_ready == (s_count < QCNT_W'(QUEUE_DEPTH)) &&
                      op_start_ready && credit_ready;
    assign ok_current_map = has_cur == s_has_cur && cur_seq == s_cur && cur_est == s_cur_est;
    assign ok_pointer_map = rd_ptr == s_rd && wr_ptr == s_wr && head_off == s_off;

    always_comb begin
        ok_credit_le_limit = 1'b1;
        ok_credit_map      = 1'b1;
        for (int p = 0; p < NP_MAP; p++) begin
            // Against the limit at the last edge (the block loaded or clamped its credit then).
            if (blk_credit[p*CREDIT_W +: CREDIT_W] > p_limit[p*CREDIT_W +: CREDIT_W])
                ok_credit_le_limit = 1'b0;
            if (blk_credit[p*CREDIT_W +: CREDIT_W] != s_cr[p*CREDIT_W +: CREDIT_W])
                ok_credit_map = 1'b0;
        end
    end

    // Queue entry i is live when it lies within s_count entries from the read pointer.
    always_comb begin
        ok_queue_map = 1'b1;
        for (int i = 0; i < NQ_MAP; i++) begin
            logic [QPTR_W:0] rel;
            rel = (QPTR_W + 1)'(i) >= {1'b0, s_rd} ? (QPTR_W + 1)'(i) - {1'b0, s_rd}
                                                   : (QPTR_W + 1)'(i + QUEUE_DEPTH) - {1'b0, s_rd};
            if ((QCNT_W + 1)'(rel) < (QCNT_W + 1)'(s_count) &&
                (blk_q_seq[i*SEQ_W +: SEQ_W] != s_seq[i] ||
                 blk_q_addr[i*ADDR_W +: ADDR_W] != s_addr[i] ||
                 blk_q_bytes[i*LEN_W +: LEN_W] != s_bytes[i] ||
                 blk_q_part[i*PART_W +: PART_W] != s_part[i] ||
                 blk_q_tier[i*TIER_W +: TIER_W] != s_tier[i] ||
                 blk_q_est[i*EST_W +: EST_W] != s_est[i]))
                ok_queue_map = 1'b0;
        end
    end

    // The model's own invariants: pointers in range and count consistent, the head offset short of
    // the head's bytes, every queued candidate non-empty and for an existing partition. (Some of
    // these comparisons are constant for some parameters: that is what they check.)
    /* verilator lint_off CMPCONST */
    always_comb begin
        logic [QPTR_W:0] wr_expect;
        wr_expect = {1'b0, s_rd} + (QPTR_W + 1)'(s_count);
        if (wr_expect >= (QPTR_W + 1)'(QUEUE_DEPTH))
            wr_expect = wr_expect - (QPTR_W + 1)'(QUEUE_DEPTH);
        ok_model = (QCNT_W + 1)'(s_count) <= (QCNT_W + 1)'(QUEUE_DEPTH) &&
                   (QPTR_W + 1)'(s_rd) < (QPTR_W + 1)'(QUEUE_DEPTH) &&
                   {1'b0, s_wr} == wr_expect && (s_head ? s_off < sh_bytes : s_off == '0);
        for (int i = 0; i < QUEUE_DEPTH; i++) begin
            logic [QPTR_W:0] rel;
            rel = (QPTR_W + 1)'(i) >= {1'b0, s_rd} ? (QPTR_W + 1)'(i) - {1'b0, s_rd}
                                                   : (QPTR_W + 1)'(i + QUEUE_DEPTH) - {1'b0, s_rd};
            if ((QCNT_W + 1)'(rel) < (QCNT_W + 1)'(s_count) &&
                (s_bytes[i] == '0 || (PART_W + 1)'(s_part[i]) >= (PART_W + 1)'(NPART)))
                ok_model = 1'b0;
        end
    end
    /* verilator lint_on CMPCONST */

    always @(posedge clk) begin
        if (chk) begin
            // The environment's side.
            m_chunk_pow2: assume (cfg_chunk != '0 && (cfg_chunk & (cfg_chunk - 1'b1)) == '0);
            /* verilator lint_off CMPCONST */  // always true when MAX_DEPTH + 1 is a power of two
            m_depth:      assume ((DEPTH_W + 1)'(cfg_depth) <= (DEPTH_W + 1)'(MAX_DEPTH));
            /* verilator lint_on CMPCONST */
            m_partitions: assume ((!cand_valid ||
                                   (PART_W + 1)'(cand_partition) < (PART_W + 1)'(NPART)) &&
                                  (!credit_valid ||
                                   (PART_W + 1)'(credit_partition) < (PART_W + 1)'(NPART)));

            // At most one request per cycle, and only on req_valid && req_ready: the issue counters
            // move by exactly the handshake (and the credit and the head by the model's rules).
            a_issue_is_handshake:     assert (ok_issue_counted);
            a_no_issue_throttled:     assert (ok_not_throttled);
            a_no_issue_disabled:      assert (ok_not_disabled);
            a_req_in_window:          assert (ok_window);
            // Every request belongs to the oldest candidate not yet issued or dropped (program
            // order), lies within its bytes, continues where the previous chunk ended and stops at
            // the next multiple of cfg_chunk.
            a_req_program_order:      assert (ok_program_order);
            a_req_in_bytes:           assert (ok_in_bytes);
            a_req_contiguous:         assert (ok_contiguous);
            a_req_chunked:            assert (ok_chunked);
            // Credit: a request's partition has credit for it before issue (never negative); the
            // credit never exceeds the limit; a head larger than its partition's limit never
            // issues.
            a_credit_covers_request:  assert (ok_credit_covers);
            a_credit_le_limit:        assert (ok_credit_le_limit);
            a_oversize_never_issues:  assert (ok_oversize_never_issues);
            // An eligible head with credit, port ready and not throttled (throttle high holds
            // only a head from tier 0, local HBM) issues in this cycle.
            a_eligible_issues:        assert (ok_eligible_issues);
            // Late and oversize heads are dropped (flagged) and counted, exactly.
            a_late_drop_flagged:      assert (ok_late_flag);
            a_late_drop_counted:      assert (ok_late_counted);
            a_oversize_drop_flagged:  assert (ok_oversize_flag);
            a_oversize_drop_counted:  assert (ok_oversize_counted);
            a_queue_handshake:        assert (ok_queue);

            // Helper invariants: the refinement map and the model's own.
            h_credit_map:             assert (ok_credit_map);
            h_current_map:            assert (ok_current_map);
            h_pointer_map:            assert (ok_pointer_map);
            h_queue_map:              assert (ok_queue_map);
            h_model:                  assert (ok_model);
        end
    end

endmodule
