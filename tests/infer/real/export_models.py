#!/usr/bin/python3
"""Exports small, randomly initialised PyTorch models to ONNX with dynamic axes, for checking
oxir's shape inference against real exporter output (issue #4 item 7).

Run with Debian's interpreter (torch 1.13 + onnx 1.12):

    /usr/bin/python3 tests/infer/real/export_models.py [CACHE_DIR]

CACHE_DIR defaults to ~/.cache/oxir/real-models. Next to each <name>.onnx it writes
<name>.json: the input dim_params, the bindings to check at and how to fill each input.
Nothing here is committed: the models are regenerated on demand (fixed seed, so the files are
reproducible for a given torch version).
"""

import json
import math
import os
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")


# ------------------------------------------------------------------------------------------------
# Models


class TransformerEncoderModel(nn.Module):
    """Linear projection -> nn.TransformerEncoder (2 layers) -> Linear head; input [batch, seq, 16]."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 32)
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        h = self.encoder(self.proj(x))
        return self.head(h), h.mean(dim=1)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        hd = d // self.heads
        q = q.view(b, t, self.heads, hd).transpose(1, 2)
        k = k.view(b, t, self.heads, hd).transpose(1, 2)
        v = v.view(b, t, self.heads, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.out(y)
        return x + self.mlp(self.ln2(x))


class GPTModel(nn.Module):
    """Token + position embeddings (position ids = torch.arange(seq) -> Range), a causal mask
    (triu -> Trilu), two pre-norm blocks, LM head; input ids int64 [batch, seq]."""

    VOCAB = 96

    def __init__(self):
        super().__init__()
        d = 32
        self.tok = nn.Embedding(self.VOCAB, d)
        self.pos = nn.Embedding(64, d)
        self.blocks = nn.ModuleList([Block(d, 4) for _ in range(2)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, self.VOCAB, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device)
        x = self.tok(ids) + self.pos(pos)[None]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=ids.device), diagonal=1)
        for blk in self.blocks:
            x = blk(x, mask)
        logits = self.head(self.ln(x))
        # Last position's logits, as a generation step would use them.
        return logits, logits[:, -1, :]


class CNNModel(nn.Module):
    """Encoder/decoder with skip connections on [batch, 3, H, W]: conv stride 2 + padding, max
    pooling, upsampling to a skip's size (Resize with sizes from Shape) and by a scale factor,
    Concat of skips, and a global-pool classifier head."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.c3 = nn.Conv2d(16, 16, 3, padding=1)
        self.c4 = nn.Conv2d(32, 8, 3, padding=1)
        self.c5 = nn.Conv2d(16, 4, 1)
        self.bn = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        s1 = F.relu(self.c1(x))                   # [B, 8, H, W]
        s2 = F.relu(self.bn(self.c2(s1)))         # [B, 16, ceil(H/2), ceil(W/2)]
        b = F.relu(self.c3(self.pool(s2)))        # [B, 16, floor(ceil(H/2)/2), ...]
        u2 = F.interpolate(b, size=s2.shape[-2:], mode="nearest")
        d2 = F.relu(self.c4(torch.cat([u2, s2], dim=1)))  # [B, 8, ceil(H/2), ceil(W/2)]
        u1 = F.interpolate(d2, size=s1.shape[-2:], mode="bilinear", align_corners=False)
        seg = self.c5(torch.cat([u1, s1], dim=1))          # [B, 4, H, W]
        aux = F.interpolate(b, scale_factor=2.0, mode="nearest")  # [B, 16, 2*floor(..), ...]
        avg = F.avg_pool2d(s1, kernel_size=3, stride=2, padding=1, ceil_mode=False)
        cls = self.fc(torch.flatten(F.adaptive_avg_pool2d(b, 1), 1))  # [B, 10]
        return seg, aux, avg, cls


class LSTMModel(nn.Module):
    """2-layer bidirectional LSTM on [batch, seq, 8] with a Linear head."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.head(y), h, c


# ------------------------------------------------------------------------------------------------
# Export


def export(model, name, args, input_names, output_names, dynamic_axes, opset, bindings, fills, out_dir):
    model.eval()
    path = os.path.join(out_dir, name + ".onnx")
    # Not under torch.no_grad(): with grad enabled, nn.TransformerEncoderLayer skips its fused
    # "fast path" (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    torch.onnx.export(model, args, path, opset_version=opset, input_names=input_names,
                      output_names=output_names, dynamic_axes=dynamic_axes, do_constant_folding=True)
    size = os.path.getsize(path)
    if size >= 2 * 1024 * 1024:
        raise SystemExit(f"{name}: {size} bytes, over the 2 MB budget")
    meta = {
        "model": name + ".onnx",
        "opset": opset,
        "source": "torch " + torch.__version__,
        # input name -> per-axis dim_param ("" = fixed)
        "bindings": bindings,  # list of {dim_param: size}
        "fills": fills,        # input name -> how run_ort.js fills it
    }
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"  {name}.onnx  opset {opset}  {size} bytes")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/oxir/real-models")
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    print(f"exporting to {out_dir} (torch {torch.__version__})")

    export(TransformerEncoderModel(), "transformer_encoder", (torch.randn(2, 7, 16),), ["x"], ["logits", "pooled"],
           {"x": {0: "batch", 1: "seq"}}, 14,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 11}], {}, out_dir)

    export(GPTModel(), "gpt_decoder", (torch.randint(0, GPTModel.VOCAB, (2, 7)),), ["ids"], ["logits", "last"],
           {"ids": {0: "batch", 1: "seq"}}, 15,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 11}],
           {"ids": {"int_range": [0, GPTModel.VOCAB]}}, out_dir)

    export(CNNModel(), "cnn_unet", (torch.randn(2, 3, 32, 40),), ["image"], ["seg", "aux", "avg", "cls"],
           {"image": {0: "batch", 2: "H", 3: "W"}}, 16,
           [{"batch": 1, "H": 32, "W": 40}, {"batch": 2, "H": 33, "W": 47}, {"batch": 3, "H": 50, "W": 29}],
           {}, out_dir)

    export(LSTMModel(), "lstm", (torch.randn(2, 7, 8),), ["x"], ["y", "h_n", "c_n"],
           {"x": {0: "batch", 1: "seq"}}, 17,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 11}], {}, out_dir)


if __name__ == "__main__":
    main()
