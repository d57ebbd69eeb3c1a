"""The memory tiers' address windows (traces/FORMAT.md "Memory tiers", models/memory/tiers/pool_tiers.cpp),
for the synthetic traces of bench/dsm: one definition for both scripts."""
TIB = 1 << 40
HOST_DDR = 16 * TIB
PMEM = 32 * TIB
REMOTE_HBM = 64 * TIB
OWNER_STRIDE = TIB


def remote_hbm_of(owner, offset=128 << 30):
    """Where trace gen places a die's remote_hbm tensors: owner's window, 128 GiB in."""
    return REMOTE_HBM + owner * OWNER_STRIDE + offset
