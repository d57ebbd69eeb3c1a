#!/usr/bin/python3
"""Makes the PyTorch execution-trace fixture for `ascend-sim trace import --from pytorch-et`.

Runs one forward pass of a small Transformer encoder layer (PyTorch's own
nn.TransformerEncoderLayer plus a linear head) on the CPU under
torch.profiler.ExecutionGraphObserver (Debian's python3-torch 1.13), and, for the same
forward pass, the profiler with with_flops=True. Writes:

  traces/fixtures/pytorch_et_small_transformer.json        the execution trace
  traces/fixtures/pytorch_et_small_transformer.flops.json  the profiler's FLOPs per op name

The test compares the importer's GEMM FLOPs with the profiler's for aten::mm, aten::addmm and
aten::bmm. Usage: /usr/bin/python3 scripts/make_pytorch_et_fixture.py [OUTDIR]
"""
import json
import os
import sys

import torch
from torch.profiler import ExecutionGraphObserver, ProfilerActivity, profile

D_MODEL, HEADS, FFN, SEQ, BATCH, VOCAB = 64, 4, 256, 16, 2, 100


def model():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.0, batch_first=True,
                                             activation="gelu")
    head = torch.nn.Linear(D_MODEL, VOCAB)
    return torch.nn.Sequential(layer, head).eval()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "traces", "fixtures")
    os.makedirs(out, exist_ok=True)
    net = model()
    x = torch.randn(BATCH, SEQ, D_MODEL)
    # The fast path of nn.TransformerEncoderLayer fuses the whole layer into one native op in
    # inference mode; gradients enabled keep the op-by-op path the trace should show.
    trace_path = os.path.join(out, "pytorch_et_small_transformer.json")
    eg = ExecutionGraphObserver()
    eg.register_callback(trace_path)
    eg.start()
    net(x)
    eg.stop()
    eg.unregister_callback()

    with profile(activities=[ProfilerActivity.CPU], with_flops=True, record_shapes=True) as prof:
        net(x)
    flops = {}
    for e in prof.key_averages():
        if e.flops:
            flops[e.key] = flops.get(e.key, 0) + int(e.flops)
    with open(os.path.join(out, "pytorch_et_small_transformer.flops.json"), "w") as f:
        json.dump({"torch": torch.__version__, "model": "TransformerEncoderLayer(d_model=%d, nhead=%d, "
                   "dim_feedforward=%d, gelu) + Linear(%d, %d), input %dx%dx%d" %
                   (D_MODEL, HEADS, FFN, D_MODEL, VOCAB, BATCH, SEQ, D_MODEL),
                   "flops": flops}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
