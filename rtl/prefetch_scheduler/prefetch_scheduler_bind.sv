// Binds the contract's checker (prefetch_scheduler_checker.sv) into every prefetch_scheduler:
// its ports, and its state for the refinement map (the unpacked arrays as concatenations of the
// first 4 partitions and 16 queue entries; indices wrap when there are fewer).
// The Verilated models elaborate this; yosys 0.23 parses `bind` but drops it, so
// scripts/rtl_formal.sh places this same instance at the end of the block's text (what bind means).
bind prefetch_scheduler prefetch_scheduler_checker #(
    .MAX_DEPTH(MAX_DEPTH), .QUEUE_DEPTH(QUEUE_DEPTH), .ADDR_W(ADDR_W), .LEN_W(LEN_W), .SEQ_W(SEQ_W),
    .NPART(NPART), .CREDIT_W(CREDIT_W), .CNT_W(CNT_W), .TIER_W(TIER_W), .EST_W(EST_W)
) u_checker (
    .*,
    .blk_credit({credit[3 % NPART], credit[2 % NPART], credit[1 % NPART], credit[0]}),
    .blk_q_seq({
        q_seq[15 % QUEUE_DEPTH], q_seq[14 % QUEUE_DEPTH], q_seq[13 % QUEUE_DEPTH],
        q_seq[12 % QUEUE_DEPTH], q_seq[11 % QUEUE_DEPTH], q_seq[10 % QUEUE_DEPTH],
        q_seq[9 % QUEUE_DEPTH], q_seq[8 % QUEUE_DEPTH], q_seq[7 % QUEUE_DEPTH],
        q_seq[6 % QUEUE_DEPTH], q_seq[5 % QUEUE_DEPTH], q_seq[4 % QUEUE_DEPTH],
        q_seq[3 % QUEUE_DEPTH], q_seq[2 % QUEUE_DEPTH], q_seq[1 % QUEUE_DEPTH],
        q_seq[0]}),
    .blk_q_addr({
        q_addr[15 % QUEUE_DEPTH], q_addr[14 % QUEUE_DEPTH], q_addr[13 % QUEUE_DEPTH],
        q_addr[12 % QUEUE_DEPTH], q_addr[11 % QUEUE_DEPTH], q_addr[10 % QUEUE_DEPTH],
        q_addr[9 % QUEUE_DEPTH], q_addr[8 % QUEUE_DEPTH], q_addr[7 % QUEUE_DEPTH],
        q_addr[6 % QUEUE_DEPTH], q_addr[5 % QUEUE_DEPTH], q_addr[4 % QUEUE_DEPTH],
        q_addr[3 % QUEUE_DEPTH], q_addr[2 % QUEUE_DEPTH], q_addr[1 % QUEUE_DEPTH],
        q_addr[0]}),
    .blk_q_bytes({
        q_bytes[15 % QUEUE_DEPTH], q_bytes[14 % QUEUE_DEPTH], q_bytes[13 % QUEUE_DEPTH],
        q_bytes[12 % QUEUE_DEPTH], q_bytes[11 % QUEUE_DEPTH], q_bytes[10 % QUEUE_DEPTH],
        q_bytes[9 % QUEUE_DEPTH], q_bytes[8 % QUEUE_DEPTH], q_bytes[7 % QUEUE_DEPTH],
        q_bytes[6 % QUEUE_DEPTH], q_bytes[5 % QUEUE_DEPTH], q_bytes[4 % QUEUE_DEPTH],
        q_bytes[3 % QUEUE_DEPTH], q_bytes[2 % QUEUE_DEPTH], q_bytes[1 % QUEUE_DEPTH],
        q_bytes[0]}),
    .blk_q_part({
        q_part[15 % QUEUE_DEPTH], q_part[14 % QUEUE_DEPTH], q_part[13 % QUEUE_DEPTH],
        q_part[12 % QUEUE_DEPTH], q_part[11 % QUEUE_DEPTH], q_part[10 % QUEUE_DEPTH],
        q_part[9 % QUEUE_DEPTH], q_part[8 % QUEUE_DEPTH], q_part[7 % QUEUE_DEPTH],
        q_part[6 % QUEUE_DEPTH], q_part[5 % QUEUE_DEPTH], q_part[4 % QUEUE_DEPTH],
        q_part[3 % QUEUE_DEPTH], q_part[2 % QUEUE_DEPTH], q_part[1 % QUEUE_DEPTH],
        q_part[0]}),
    .blk_q_tier({
        q_tier[15 % QUEUE_DEPTH], q_tier[14 % QUEUE_DEPTH], q_tier[13 % QUEUE_DEPTH],
        q_tier[12 % QUEUE_DEPTH], q_tier[11 % QUEUE_DEPTH], q_tier[10 % QUEUE_DEPTH],
        q_tier[9 % QUEUE_DEPTH], q_tier[8 % QUEUE_DEPTH], q_tier[7 % QUEUE_DEPTH],
        q_tier[6 % QUEUE_DEPTH], q_tier[5 % QUEUE_DEPTH], q_tier[4 % QUEUE_DEPTH],
        q_tier[3 % QUEUE_DEPTH], q_tier[2 % QUEUE_DEPTH], q_tier[1 % QUEUE_DEPTH],
        q_tier[0]}),
    .blk_q_est({
        q_est[15 % QUEUE_DEPTH], q_est[14 % QUEUE_DEPTH], q_est[13 % QUEUE_DEPTH],
        q_est[12 % QUEUE_DEPTH], q_est[11 % QUEUE_DEPTH], q_est[10 % QUEUE_DEPTH],
        q_est[9 % QUEUE_DEPTH], q_est[8 % QUEUE_DEPTH], q_est[7 % QUEUE_DEPTH],
        q_est[6 % QUEUE_DEPTH], q_est[5 % QUEUE_DEPTH], q_est[4 % QUEUE_DEPTH],
        q_est[3 % QUEUE_DEPTH], q_est[2 % QUEUE_DEPTH], q_est[1 % QUEUE_DEPTH],
        q_est[0]})
);
