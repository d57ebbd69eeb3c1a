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

With --chakra (no torch needed) it re-expresses that trace in the layout PyTorch >= 2.1's
torch.profiler.ExecutionTraceObserver writes, schema "1.0.3-chakra.0.0.4", as
traces/fixtures/pytorch_et_small_transformer_chakra.json: the same nodes, ids and tensors, with
`parent` as `ctrl_deps`, `inputs` / `outputs` as {"values", "shapes", "types"} objects and rf_id,
fw_parent, seq_id, scope, tid, fw_tid and op_schema as `attrs` [{name, type, value}], and the root
and thread nodes named "[pytorch|profiler|execution_trace|...]". Debian's python3-torch (1.13)
cannot write that layout; the mapping follows writeJsonNode() in pytorch/pytorch
torch/csrc/profiler/standalone/execution_trace_observer.cpp and the node reader of MLCommons
Chakra (src/converter/pytorch_node.py). Usage:
/usr/bin/python3 scripts/make_pytorch_et_fixture.py --chakra [OUTDIR]
"""
import json
import os
import sys

D_MODEL, HEADS, FFN, SEQ, BATCH, VOCAB = 64, 4, 256, 16, 2, 100


def model():
    import torch
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.0, batch_first=True,
                                             activation="gelu")
    head = torch.nn.Linear(D_MODEL, VOCAB)
    return torch.nn.Sequential(layer, head).eval()


ATTRS = (("rf_id", "uint64"), ("fw_parent", "uint64"), ("seq_id", "int64"), ("scope", "uint64"),
         ("tid", "uint64"), ("fw_tid", "uint64"), ("op_schema", "string"))


def chakra_node(n):
    """One schema-1.0.1 node in the schema 1.0.3-chakra.0.0.4 layout."""
    return {
        "id": n["id"],
        "name": n["name"].replace("|execution_graph|", "|execution_trace|"),
        "ctrl_deps": n["parent"],
        "inputs": {"values": n["inputs"], "shapes": n["input_shapes"], "types": n["input_types"]},
        "outputs": {"values": n["outputs"], "shapes": n["output_shapes"], "types": n["output_types"]},
        "attrs": [{"name": k, "type": t, "value": n.get(k, "" if t == "string" else 0)} for k, t in ATTRS],
    }


def write_chakra(out):
    with open(os.path.join(out, "pytorch_et_small_transformer.json")) as f:
        et = json.load(f)
    doc = {k: v for k, v in et.items() if k != "nodes"}
    doc["schema"] = "1.0.3-chakra.0.0.4"
    nodes = [chakra_node(n) for n in et["nodes"]]
    # One node per line, as the observer writes them (diffable, and small enough to read).
    head = json.dumps(doc)[:-1]
    with open(os.path.join(out, "pytorch_et_small_transformer_chakra.json"), "w") as f:
        f.write(head + ', "nodes": [\n')
        f.write(",\n".join("  " + json.dumps(n, separators=(",", ":")) for n in nodes))
        f.write("\n]}\n")


def main():
    args = [a for a in sys.argv[1:] if a != "--chakra"]
    out = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "traces", "fixtures")
    os.makedirs(out, exist_ok=True)
    if "--chakra" in sys.argv[1:]:
        write_chakra(out)
        return
    import torch
    from torch.profiler import ExecutionGraphObserver, ProfilerActivity, profile
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
