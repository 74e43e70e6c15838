#!/usr/bin/python3
"""Exports small, randomly initialised PyTorch models to ONNX with dynamic axes, for checking
oxir's shape inference against real exporter output (issue #4 item 7).

Run with Debian's interpreter (torch 1.13 + onnx 1.12):

    /usr/bin/python3 tests/infer/real/export_models.py [CACHE_DIR]

CACHE_DIR defaults to ~/.cache/oxir/real-models. Next to each <name>.onnx it writes
<name>.json: the input dim_params, the bindings to check at and how to fill each input;
models.json lists the exported names in order (what verify_real.py checks).
Nothing here is committed: the models are regenerated on demand (fixed seed, so the files are
reproducible for a given torch version).
"""

import json
import math
import os
import sys
import warnings
from typing import List

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


class GRUModel(nn.Module):
    """Bidirectional 2-layer GRU and a unidirectional tanh RNN (sequence-first) on [batch, seq, 8];
    cumsum over time of the GRU output and the last step via a negative index."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 12, num_layers=2, batch_first=True, bidirectional=True)
        self.rnn = nn.RNN(8, 6, num_layers=1, batch_first=False)

    def forward(self, x):
        y, h = self.gru(x)                       # [B, T, 24], [4, B, 12]
        r, hr = self.rnn(x.transpose(0, 1))      # [T, B, 6], [1, B, 6]
        c = torch.cumsum(y, dim=1)
        return y, h, r, hr, c, y[:, -1]


class AudioConv1dModel(nn.Module):
    """Conv1d audio front end on [batch, 1, samples]: reflect padding, strided / dilated /
    padded convs, a ceil-mode max pool, an average pool, chunking into 3 along channels,
    replicate padding with explicit amounts and a transposed Conv1d."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 6, kernel_size=7, stride=3, padding=2)
        self.c2 = nn.Conv1d(6, 12, kernel_size=3, stride=1, dilation=2, padding=1)
        self.c3 = nn.Conv1d(12, 12, kernel_size=4, stride=2, padding=0)
        self.up = nn.ConvTranspose1d(12, 4, kernel_size=5, stride=3, padding=1, output_padding=2)

    def forward(self, x):
        p = F.pad(x, (5, 3), mode="reflect")                      # [B, 1, S+8]
        h1 = F.relu(self.c1(p))                                   # floor((S+8+4-7)/3)+1
        h2 = F.relu(self.c2(h1))                                  # L-2
        h3 = F.max_pool1d(self.c3(h2), kernel_size=3, stride=2, ceil_mode=True)
        a = F.avg_pool1d(h2, kernel_size=4, stride=3, padding=1)
        q1, q2, q3 = torch.chunk(h3, 3, dim=1)
        r = F.pad(q2, (2, 1), mode="replicate")
        return h1, h2, h3, a, q1 + q3, r, self.up(h3)


class ViTModel(nn.Module):
    """ViT-style: patch embedding (Conv stride = patch), flatten(2).transpose(1, 2), a class
    token concatenated in front, a positional embedding sliced to the token count, attention
    with torch.einsum, the class token's output and the token grid reshaped back."""

    def __init__(self):
        super().__init__()
        d = 24
        self.patch = nn.Conv2d(3, d, kernel_size=4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, 128, d))
        self.qkv = nn.Linear(d, 3 * d)
        self.ln = nn.LayerNorm(d)
        self.heads = 3

    def forward(self, img):
        p = self.patch(img)                                       # [B, d, H/4, W/4]
        gh, gw = p.shape[2], p.shape[3]
        t = p.flatten(2).transpose(1, 2)                          # [B, N, d]
        cls = self.cls.expand(t.shape[0], -1, -1)
        t = torch.cat([cls, t], dim=1)                            # [B, N+1, d]
        t = t + self.pos[:, : t.shape[1]]
        b, n, d = t.shape
        q, k, v = self.qkv(self.ln(t)).chunk(3, dim=-1)
        q = q.reshape(b, n, self.heads, -1)
        k = k.reshape(b, n, self.heads, -1)
        v = v.reshape(b, n, self.heads, -1)
        att = torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)
        o = torch.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, n, d)
        grid = o[:, 1:].transpose(1, 2).reshape(b, d, gh, gw)
        return o[:, 0], att, grid


class UpsampleModel(nn.Module):
    """Decoder on [batch, 8, H, W]: ConvTranspose2d stride 2 with output_padding, interpolate by
    a scale factor (nearest; bilinear with align_corners), to another tensor's size, and
    pixel_shuffle."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 4, kernel_size=3, stride=2, padding=1, output_padding=1)
        self.up2 = nn.ConvTranspose2d(8, 4, kernel_size=(4, 3), stride=(3, 2), padding=(1, 0),
                                      output_padding=(2, 1), dilation=(1, 2))
        self.c = nn.Conv2d(8, 16, 3, padding=1)

    def forward(self, x, ref):
        u = self.up(x)                                            # [B, 4, 2H, 2W]
        u2 = self.up2(x)
        n = F.interpolate(x, scale_factor=3.0, mode="nearest")
        b = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=True)
        s = F.interpolate(x, size=ref.shape[-2:], mode="bilinear", align_corners=False)
        s2 = F.interpolate(u, size=(ref.shape[2] // 2, ref.shape[3] + 1), mode="nearest")
        ps = F.pixel_shuffle(self.c(x), 2)                        # [B, 4, 2H, 2W]
        return u, u2, n, b, s, s2, ps


class PoolNormModel(nn.Module):
    """Pooling and normalisation on [batch, 6, H, W]: max/avg pool with ceil_mode (with and
    without padding), AdaptiveAvgPool2d, GroupNorm, InstanceNorm2d, F.pad with reflect
    amounts, flatten(start_dim=2) and reshape with -1."""

    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(3, 6)
        self.inorm = nn.InstanceNorm2d(6, affine=True)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))

    def forward(self, x):
        m = F.max_pool2d(x, kernel_size=3, stride=2, ceil_mode=True)
        m2 = F.max_pool2d(x, kernel_size=(2, 3), stride=(2, 2), padding=(1, 1), dilation=(1, 1), ceil_mode=True)
        a = F.avg_pool2d(x, kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        g = self.gap(self.gn(x))
        i = self.inorm(x)
        r = F.pad(i, (1, 2, 3, 0), mode="reflect")
        f = r.flatten(start_dim=2)
        z = f.reshape(f.shape[0], -1)
        return m, m2, a, g, r, f, z


class SlicingModel(nn.Module):
    """Indexing on [batch, seq, 10]: strided and negative-bound slices, narrow, split into
    unequal pieces, stack / cat along dynamic axes, repeat and expand, topk with k = seq // 2."""

    def forward(self, x):
        a = x[:, ::2]                                             # ceil(T/2)
        b = x[..., 1:-1]                                          # [B, T, 8]
        c = x[:, -3:, 2:7:2]                                      # [B, 3, 3]
        d = x[:, 1:-2:3]                                          # ceil((T-3)/3)
        p1, p2, p3 = torch.split(x, [2, 3, 5], dim=2)
        st = torch.stack([p1, p1 * 2], dim=1)                     # [B, 2, T, 2]
        ct = torch.cat([x, x[:, :2]], dim=1)                      # [B, T+2, 10]
        cb = torch.cat([x, x], dim=0)                             # [2B, T, 10]
        rp = p2.repeat(2, 1, 3)                                   # [2B, T, 9]
        ex = x[:, :1].expand(-1, x.shape[1], -1)                  # [B, T, 10]
        k = x.shape[1] // 2
        tv, ti = torch.topk(x.sum(-1), k, dim=1)                  # [B, T//2]
        nw = x.narrow(1, 1, x.shape[1] - 2)
        return a, b, c, d, p3, st, ct, cb, rp, ex, tv, ti, nw


class MaskedAttentionModel(nn.Module):
    """Attention on [batch, seq, 16] with a causal mask from torch.triu(torch.ones(t, t)) and
    masked_fill, a rank-3 by rank-4 matmul broadcast, a key padding mask from a second input
    [batch, mem] and cross attention to a memory of another length."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.kv = nn.Linear(12, 32)
        self.w = nn.Parameter(torch.randn(2, 16, 8))

    def forward(self, x, mem):
        b, t, _ = x.shape
        causal = torch.triu(torch.ones(t, t), diagonal=1) == 1
        s = x @ x.transpose(1, 2)                                 # [B, T, T]
        s = s.masked_fill(causal, float("-inf")).softmax(-1)
        h = s @ x                                                 # [B, T, 16]
        bw = h[:, None] @ self.w[None]                            # [B, 2, T, 8] (rank 4 @ rank 4)
        r34 = h @ torch.stack([h, 2 * h]).transpose(2, 3)        # [B, T, 16] @ [2, B, 16, T] -> [2, B, T, T]
        k, v = self.kv(mem).chunk(2, dim=-1)                      # [B, M, 16]
        q = self.q(h).view(b, t, 4, 4).permute(0, 2, 1, 3)        # [B, 4, T, 4]
        kk = k.view(b, -1, 4, 4).permute(0, 2, 3, 1)              # [B, 4, 4, M]
        cross = (q @ kk).softmax(-1) @ v.view(b, -1, 4, 4).transpose(1, 2)   # [B, 4, T, 4]
        out = cross.transpose(1, 2).reshape(b, t, -1)             # [B, T, 16]
        m3 = x[0] @ self.w                                        # rank 2 @ rank 3 -> [2, T, 8]
        return s, bw, r34, out, m3


class EmbedSeqModel(nn.Module):
    """Token ids [batch, seq] plus a past length given by a tensor past [batch, past, 8]:
    embedding with arange positions starting at past, concatenation of past and new states,
    cumsum, argmax, gather of the top-k ids and a sliding window of the last 4 steps."""

    VOCAB = 50

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(self.VOCAB, 8)
        self.pos = nn.Embedding(128, 8)
        self.ln = nn.LayerNorm(8)

    def forward(self, ids, past):
        p = past.shape[1]
        t = ids.shape[1]
        pos = torch.arange(p, p + t, device=ids.device)
        x = self.ln(self.tok(ids) + self.pos(pos).unsqueeze(0))   # [B, T, 8]
        full = torch.cat([past, x], dim=1)                        # [B, P+T, 8]
        cs = torch.cumsum(full, dim=1)
        am = full.sum(-1).argmax(dim=1, keepdim=True)             # [B, 1]
        k = (t + 1) // 2
        _, top = torch.topk(ids.float(), k, dim=1)                # [B, ceil(T/2)]
        g = torch.gather(ids, 1, top)
        win = full[:, -4:]
        # causal mask of the full length with an offset
        mask = torch.ones(t, p + t).triu(p + 1)                   # [T, P+T]
        return full, cs, am, g, win, mask


class ReshapeOpset11Model(nn.Module):
    """Opset-11 forms (Unsqueeze/Squeeze/Split with attributes) on [batch, ch, len]: view with
    -1, unsqueeze/squeeze, split, flatten(1), repeat_interleave and a transpose chain."""

    def forward(self, x):
        b, c, l = x.shape
        v = x.view(b, -1)                                         # [B, C*L]
        u = x.unsqueeze(1).unsqueeze(-1)                          # [B, 1, C, L, 1]
        s = u.squeeze(-1).squeeze(1)                              # [B, C, L]
        p, q = torch.split(s, [1, 3], dim=1)                      # C == 4
        f = torch.flatten(q.permute(2, 0, 1), 1)                  # [L, B*3]
        e = x.unsqueeze(2).expand(b, c, 2, l).reshape(b, c * 2, l)
        m = x.mean(dim=(1, 2), keepdim=True)
        return v, u, p * q, f, e, m


class GroupedConvModel(nn.Module):
    """Depthwise and grouped Conv2d with asymmetric stride/dilation on [batch, 4, H, W], an
    AdaptiveAvgPool2d to a fixed grid (the exporter's Pad/Reshape handling), instance norm
    statistics and a squeeze-excitation gate broadcast back over H x W."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 4, kernel_size=3, stride=(1, 2), padding=(2, 1), dilation=(2, 1), groups=4)
        self.gc = nn.Conv2d(4, 8, kernel_size=(3, 5), stride=(2, 3), padding=(0, 2), groups=2)
        self.fc1 = nn.Conv2d(8, 2, 1)
        self.fc2 = nn.Conv2d(2, 8, 1)

    def forward(self, x):
        d = self.dw(x)
        g = self.gc(d)
        se = torch.sigmoid(self.fc2(F.relu(self.fc1(g.mean((2, 3), keepdim=True)))))
        y = g * se
        mx = torch.amax(y, dim=(2, 3))
        return d, g, y, mx


class CircularModel(nn.Module):
    """Wrap-around and resampling on [batch, 3, H, W]: Conv2d with padding_mode="circular"
    (exported as Concat of Slices), torch.roll and torch.flip along dynamic axes, a
    non-integer scale_factor, a ceil-mode average pool with padding, and asymmetric constant
    padding before an even, dilated kernel ("same" output size)."""

    def __init__(self):
        super().__init__()
        self.circ = nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular")
        self.same = nn.Conv2d(3, 4, (4, 2), dilation=(1, 3))

    def forward(self, x):
        c = self.circ(x)                                          # [B, 4, H, W]
        r = torch.roll(x, shifts=(2, -1), dims=(2, 3))
        f = torch.flip(x, dims=[3])
        up = F.interpolate(x, scale_factor=1.5, mode="nearest")   # floor(1.5 H)
        ap = F.avg_pool2d(x, kernel_size=3, stride=2, padding=1, ceil_mode=True)
        return c, r, f, up, ap, self.same(F.pad(x, (1, 2, 1, 2), value=0.5))


@torch.jit.script
def running_max(x: torch.Tensor) -> torch.Tensor:
    # x: [T, B, D]; a Python loop over time, exported as an ONNX Loop.
    out = [x[0]]
    for t in range(1, x.shape[0]):
        out.append(torch.maximum(out[-1], x[t]))
    return torch.stack(out, dim=0)


@torch.jit.script
def prefix_means(x: torch.Tensor) -> torch.Tensor:
    # x: [T, B, D]; a list appended to in a loop over range(T) (Loop with M = T, starting from
    # SequenceEmpty), stacked at the end.
    out: List[torch.Tensor] = []
    acc = torch.zeros_like(x[0])
    for t in range(x.shape[0]):
        acc = acc + x[t]
        out.append(acc / float(t + 1))
    return torch.stack(out, dim=0)


class ScriptedLoopModel(nn.Module):
    """Scripted loops over the time axis of [batch, seq, 6] (ONNX Loop with a sequence of
    per-step tensors stacked at the end) and the model's linear layers around them. The loop
    over range(1, T) gets its trip count through float arithmetic (Cast, Div, Ceil)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 5)

    def forward(self, x):
        h = self.lin(x).transpose(0, 1)                           # [T, B, 5]
        m = running_max(h)                                        # [T, B, 5] (rank unknown to the exporter)
        p = prefix_means(h)                                       # [T, B, 5]
        return m, m[-1], p


class ScriptedShapesModel(nn.Module):
    """Shape computations inside control flow, scripted, on x [batch, seq, 8]: a loop over the
    sequence whose body reshapes the step to [batch, 2, x.size(2) // 2], slices by a length
    computed from sizes, and branches on x.size(2) > 4 (static: the If folds away); after the
    loop a branch on seq > 3 (dynamic: it stays)."""

    def forward(self, x):
        out = torch.zeros(x.size(0), x.size(2) * 2)
        for t in range(x.size(1)):
            h = x[:, t].reshape(x.size(0), 2, x.size(2) // 2)
            k = h.size(2) * 2 + x.size(2)
            out = out + h.sum(1).repeat(1, 4)[:, :k]
            if x.size(2) > 4:
                out = out * 0.5
            else:
                out = out - 1
        if x.size(1) > 3:
            out = out + 1
        return out


class SeqMiscModel(nn.Module):
    """Sequence odds and ends on x [seq, batch, 8] (sequence-first) and ids [batch, seq]:
    nn.MultiheadAttention with kdim/vdim and a key padding mask over a memory [mem, batch, 6],
    a bias-free LSTM (proj_size has no export), one_hot, arange with a step, new_zeros sized from shapes,
    and index_select with arange indices (Tensor.unfold on a dynamic axis has no export)."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, kdim=6, vdim=6)
        self.lstm = nn.LSTM(8, 10, num_layers=1, bias=False)

    def forward(self, x, mem, ids):
        s, b = x.shape[0], x.shape[1]
        pad = torch.zeros(b, mem.shape[0], dtype=torch.bool)
        att, w = self.mha(x, mem, mem, key_padding_mask=pad)      # [S, B, 8], [B, S, M]
        y, (h, c) = self.lstm(x)                                  # [S, B, 10], [1, B, 10], [1, B, 10]
        oh = F.one_hot(ids, num_classes=7)                        # [B, S, 7]
        ev = torch.arange(1, s, 2)                                # ceil((S-1)/2)
        z = x.new_zeros(b, s * 2 + 1)
        sel = torch.index_select(x, 0, torch.arange(0, s, 3))     # [ceil(S/3), B, 8]
        return att, w, y, h, c, oh, ev, z, sel


class VolumetricModel(nn.Module):
    """3-D data [batch, 2, D, H, W]: Conv3d with stride/padding, MaxPool3d with ceil_mode,
    AvgPool3d, F.unfold (im2col) of one slice, GridSample on a grid [batch, gh, gw, 2], and
    nearest trilinear-style upsampling with a scale factor."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv3d(2, 4, kernel_size=(3, 3, 2), stride=(1, 2, 2), padding=(1, 0, 1))

    def forward(self, v, grid):
        c = self.c(v)
        mp = F.max_pool3d(c, kernel_size=2, stride=2, ceil_mode=True)
        ap = F.avg_pool3d(v, kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
        sl = v[:, :, 0]                                           # [B, 2, H, W]
        cols = F.unfold(sl, kernel_size=(2, 3), stride=(1, 2), padding=(0, 1))
        gs = F.grid_sample(sl, grid, mode="bilinear", align_corners=False)  # [B, 2, gh, gw]
        up = F.interpolate(v, scale_factor=(1.0, 2.0, 2.0), mode="nearest")
        return c, mp, ap, cols, gs, up


class Seq2SeqModel(nn.Module):
    """nn.Transformer encoder-decoder on token ids src [batch, S] and tgt [batch, T]: a causal
    target mask built from T (torch.triu of a full T x T), key-padding masks from src == 0 used
    by both the encoder and the cross attention, and a vocabulary head."""

    VOCAB = 50

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(self.VOCAB, 16)
        self.t = nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                dim_feedforward=32, batch_first=True)
        self.out = nn.Linear(16, self.VOCAB)

    def forward(self, src, tgt):
        t = tgt.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        pad = src == 0
        y = self.t(self.emb(src), self.emb(tgt), tgt_mask=mask, src_key_padding_mask=pad,
                   memory_key_padding_mask=pad)
        return self.out(y)


# ------------------------------------------------------------------------------------------------
# Export


class HFConv1D(nn.Module):
    """HuggingFace GPT-2's Conv1D: x.view(-1, nx) -> addmm -> view(x.size()[:-1] + (nf,))."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.1)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class GPT2CacheModel(nn.Module):
    """One decoding step of a GPT-2-style decoder written the way HuggingFace's GPT-2 is:
    past keys/values [batch, heads, past, 8] concatenated with the new ones, a registered causal
    buffer sliced bias[:, :, past : past + new, : past + new], an attention mask [batch, past + new]
    turned into (1 - mask) * -1e4, position ids arange(past, past + new), heads split and merged
    with view/permute and x.size()[:-1] + (n,) shapes, and a tanh GELU."""

    MAX_POS, VOCAB, HEADS, HD = 64, 40, 2, 8

    def __init__(self):
        super().__init__()
        e = self.HEADS * self.HD
        self.wte = nn.Embedding(self.VOCAB, e)
        self.wpe = nn.Embedding(self.MAX_POS, e)
        self.ln1, self.ln2, self.lnf = nn.LayerNorm(e), nn.LayerNorm(e), nn.LayerNorm(e)
        self.c_attn, self.c_proj = HFConv1D(3 * e, e), HFConv1D(e, e)
        self.c_fc, self.c_out = HFConv1D(4 * e, e), HFConv1D(e, 4 * e)
        self.register_buffer("bias", torch.tril(torch.ones(self.MAX_POS, self.MAX_POS)).view(1, 1, self.MAX_POS,
                                                                                            self.MAX_POS))

    def split_heads(self, x):
        return x.view(x.size()[:-1] + (self.HEADS, self.HD)).permute(0, 2, 1, 3)

    def forward(self, ids, past_k, past_v, attention_mask):
        past = past_k.size(-2)
        pos = torch.arange(past, ids.size(-1) + past, dtype=torch.long).unsqueeze(0).view(-1, ids.size(-1))
        h = self.wte(ids) + self.wpe(pos)
        q, k, v = self.c_attn(self.ln1(h)).split(self.HEADS * self.HD, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        k = torch.cat((past_k, k), dim=-2)
        v = torch.cat((past_v, v), dim=-2)
        w = torch.matmul(q, k.transpose(-1, -2)) / float(self.HD) ** 0.5
        ql, kl = q.size(-2), k.size(-2)
        causal = self.bias[:, :, kl - ql: kl, :kl].bool()
        w = torch.where(causal, w, torch.tensor(-1e4, dtype=w.dtype))
        m = attention_mask.view(attention_mask.size(0), -1)[:, None, None, :].to(w.dtype)
        w = nn.functional.softmax(w + (1.0 - m) * -1e4, dim=-1)
        a = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size()[:-2] + (self.HEADS * self.HD,))
        h = h + self.c_proj(a)
        h = h + self.c_out(nn.functional.gelu(self.c_fc(self.ln2(h)), approximate="tanh"))
        logits = self.lnf(h) @ self.wte.weight.t()
        return logits, k, v, w


class NanoGPTModel(nn.Module):
    """A nanoGPT-style decoder (Karpathy's nanoGPT): positions arange(T) into a 32-row table, a
    registered causal buffer sliced bias[:, :, :T, :T] and applied with masked_fill, fused qkv
    split, heads by view/transpose, a weight-tied head. The slice has min(T, 32) rows unless the
    position Gather's bound T <= 32 is used."""

    BLOCK, VOCAB, HEADS, HD = 32, 40, 2, 8

    def __init__(self):
        super().__init__()
        e = self.HEADS * self.HD
        self.wte, self.wpe = nn.Embedding(self.VOCAB, e), nn.Embedding(self.BLOCK, e)
        self.ln1, self.lnf = nn.LayerNorm(e), nn.LayerNorm(e)
        self.qkv, self.proj = nn.Linear(e, 3 * e), nn.Linear(e, e)
        self.register_buffer("bias", torch.tril(torch.ones(self.BLOCK, self.BLOCK)).view(1, 1, self.BLOCK, self.BLOCK))

    def forward(self, idx):
        b, t = idx.size()
        x = self.wte(idx) + self.wpe(torch.arange(0, t, dtype=torch.long))
        q, k, v = self.qkv(self.ln1(x)).split(self.HEADS * self.HD, dim=2)
        q, k, v = (z.view(b, t, self.HEADS, self.HD).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / self.HD ** 0.5)
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, self.HEADS * self.HD)
        x = x + self.proj(y)
        return self.lnf(x) @ self.wte.weight.t(), att


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps), scaled."""

    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))


def rotate_half(x):
    """Llama's rotation: the halves of the last axis swapped, the first negated."""
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class LlamaCacheModel(nn.Module):
    """One decoding step of a LLaMA-style decoder written as HuggingFace's Llama (<= 4.35) is: RMSNorm,
    rotary embeddings from cos/sin buffers sliced to past + new rows and gathered at positions
    arange(past, past + new), rotate_half by slicing halves, grouped-query attention (2 key/value
    heads repeated by expand + reshape), a causal mask built with masked_fill and concatenated with
    zeros for the cached positions, a SiLU-gated MLP."""

    MAXP, VOCAB, H, KVH, HD = 48, 40, 4, 2, 8

    def __init__(self):
        super().__init__()
        e, kv = self.H * self.HD, self.KVH * self.HD
        self.emb = nn.Embedding(self.VOCAB, e)
        self.q, self.k = nn.Linear(e, e, bias=False), nn.Linear(e, kv, bias=False)
        self.v, self.o = nn.Linear(e, kv, bias=False), nn.Linear(e, e, bias=False)
        self.gate, self.up, self.down = nn.Linear(e, 64, bias=False), nn.Linear(e, 64, bias=False), nn.Linear(64, e,
                                                                                                         bias=False)
        self.n1, self.n2 = RMSNorm(e), RMSNorm(e)
        inv = 1.0 / (10000 ** (torch.arange(0, self.HD, 2).float() / self.HD))
        f = torch.einsum("i,j->ij", torch.arange(self.MAXP).float(), inv)
        f = torch.cat((f, f), dim=-1)
        self.register_buffer("cos_cached", f.cos()[None, None, :, :])
        self.register_buffer("sin_cached", f.sin()[None, None, :, :])

    def forward(self, ids, past_k, past_v):
        b, n = ids.shape
        past = past_k.shape[2]
        pos = torch.arange(past, n + past, dtype=torch.long).unsqueeze(0).view(-1, n)
        h = self.emb(ids)
        x = self.n1(h)
        q = self.q(x).view(b, n, self.H, self.HD).transpose(1, 2)
        k = self.k(x).view(b, n, self.KVH, self.HD).transpose(1, 2)
        v = self.v(x).view(b, n, self.KVH, self.HD).transpose(1, 2)
        kv = n + past
        cos = self.cos_cached[:, :, :kv, ...].squeeze(1).squeeze(0)[pos].unsqueeze(1)
        sin = self.sin_cached[:, :, :kv, ...].squeeze(1).squeeze(0)[pos].unsqueeze(1)
        q = q * cos + rotate_half(q) * sin
        k = torch.cat([past_k, k * cos + rotate_half(k) * sin], dim=2)
        v = torch.cat([past_v, v], dim=2)
        rep = self.H // self.KVH
        kr = k[:, :, None, :, :].expand(b, self.KVH, rep, kv, self.HD).reshape(b, self.H, kv, self.HD)
        vr = v[:, :, None, :, :].expand(b, self.KVH, rep, kv, self.HD).reshape(b, self.H, kv, self.HD)
        w = torch.matmul(q, kr.transpose(2, 3)) / (self.HD ** 0.5)
        cond = torch.arange(n)
        mask = torch.full((n, n), torch.finfo(torch.float32).min).masked_fill(cond < (cond + 1).view(n, 1), 0)
        mask = torch.cat([torch.zeros(n, past), mask], dim=-1)
        w = torch.softmax(w + mask[None, None, :, :].expand(b, 1, n, kv), dim=-1)
        a = torch.matmul(w, vr).transpose(1, 2).reshape(b, n, self.H * self.HD)
        h = h + self.o(a)
        x = self.n2(h)
        h = h + self.down(nn.functional.silu(self.gate(x)) * self.up(x))
        return h @ self.emb.weight.t(), k, v


class Wav2Vec2Model(nn.Module):
    """wav2vec2-style: conv feature encoder (kernel 10 stride 5, then kernel 3 stride 2 twice, kernel 2
    stride 2), GroupNorm on the first layer, transpose, LayerNorm, projection, positional conv (kernel
    16, padding 8, groups 4) whose last frame is dropped ([:, :, :-1]), GELU, residual. Dropping the
    last of the positional conv's L+1 frames leaves max(0, L), which is the encoder's L =
    floor((samples+20)/40)-1 frames only because L, a tensor's size, is >= 0."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(1, 8, 10, 5, bias=False), nn.Conv1d(8, 8, 3, 2, bias=False),
                                    nn.Conv1d(8, 8, 3, 2, bias=False), nn.Conv1d(8, 8, 2, 2, bias=False)])
        self.gn = nn.GroupNorm(8, 8)
        self.ln, self.proj = nn.LayerNorm(8), nn.Linear(8, 16)
        self.pos = nn.Conv1d(16, 16, 16, padding=8, groups=4)

    def forward(self, wav):
        x = wav[:, None]
        for i, c in enumerate(self.convs):
            x = c(x)
            if i == 0:
                x = self.gn(x)
            x = nn.functional.gelu(x)
        x = self.proj(self.ln(x.transpose(1, 2)))
        p = self.pos(x.transpose(1, 2))[:, :, :-1]
        return x + nn.functional.gelu(p).transpose(1, 2)


class T5BiasModel(nn.Module):
    """T5-style relative position bias: bucketed (log-spaced beyond half the buckets) relative
    positions of arange(q)[:, None] and arange(k)[None, :], an Embedding of buckets, permuted to
    [1, heads, q, k] and added to scores of q against k."""

    NB, MAXD, H = 8, 20, 2

    def __init__(self):
        super().__init__()
        self.emb, self.q, self.k = nn.Embedding(self.NB, self.H), nn.Linear(8, 16), nn.Linear(8, 16)

    def bucket(self, rel):
        n = self.NB // 2
        ret = (rel > 0).to(torch.long) * n
        rel = torch.abs(rel)
        exact = n // 2
        small = rel < exact
        large = exact + (torch.log(rel.float() / exact) / math.log(self.MAXD / exact) * (n - exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, n - 1))
        return ret + torch.where(small, rel, large)

    def forward(self, x, mem):
        b, ql, _ = x.shape
        kl = mem.shape[1]
        ctx = torch.arange(ql, dtype=torch.long)[:, None]
        memp = torch.arange(kl, dtype=torch.long)[None, :]
        bias = self.emb(self.bucket(memp - ctx)).permute([2, 0, 1]).unsqueeze(0)
        q = self.q(x).view(b, ql, self.H, 8).transpose(1, 2)
        k = self.k(mem).view(b, kl, self.H, 8).transpose(1, 2)
        return torch.softmax(q @ k.transpose(-1, -2) + bias, dim=-1)


class YoloHeadModel(nn.Module):
    """A YOLOv5-style detector on [batch, 3, H, W]: a stride-8/16/32 backbone (Conv stride 2 with
    padding, SiLU), an upsample-and-concat neck, and the Detect head: each scale's map viewed as
    [bs, anchors, outputs, ny, nx] and permuted, a grid from meshgrid(arange(ny), arange(nx))
    stacked and expanded, boxes decoded and viewed as [bs, -1, outputs], the three scales
    concatenated (anchors * (ny8*nx8 + ny16*nx16 + ny32*nx32) rows)."""

    NA, NO = 3, 7

    def __init__(self):
        super().__init__()

        def conv(ci, co, s):
            return nn.Sequential(nn.Conv2d(ci, co, 3, s, 1), nn.SiLU())

        self.s8 = nn.Sequential(conv(3, 8, 2), conv(8, 8, 2), conv(8, 8, 2))
        self.s16, self.s32 = conv(8, 8, 2), conv(8, 8, 2)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.merge = conv(16, 8, 1)
        self.heads = nn.ModuleList(nn.Conv2d(8, self.NA * self.NO, 1) for _ in range(3))
        self.strides = (8, 16, 32)

    def forward(self, x):
        p8 = self.s8(x)
        p16 = self.s16(p8)
        p32 = self.s32(p16)
        p16 = self.merge(torch.cat([self.up(p32)[..., : p16.shape[2], : p16.shape[3]], p16], 1))
        z = []
        for i, p in enumerate((p8, p16, p32)):
            y = self.heads[i](p)
            bs, _, ny, nx = y.shape
            y = y.view(bs, self.NA, self.NO, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
            grid = torch.stack((xv, yv), 2).expand(1, self.NA, ny, nx, 2).float()
            y = y.sigmoid()
            xy = (y[..., 0:2] * 2 + grid - 0.5) * self.strides[i]
            y = torch.cat((xy, y[..., 2:]), -1)
            z.append(y.view(bs, -1, self.NO))
        return torch.cat(z, 1), p16


class BertModel(nn.Module):
    """A HuggingFace-BERT-style encoder layer on ids, attention_mask and token_type_ids [batch, seq]:
    position ids sliced from a registered arange buffer (position_ids[:, 0:seq]), the extended
    mask (1 - mask[:, None, None, :]) * -10000 added to the scores, heads split by
    view(size()[:-1] + (heads, 8)), and the pooler on the first token."""

    H = 2

    def __init__(self):
        super().__init__()
        self.word, self.pos, self.tt = nn.Embedding(50, 16), nn.Embedding(64, 16), nn.Embedding(2, 16)
        self.register_buffer("position_ids", torch.arange(64).expand((1, -1)))
        self.ln, self.qkv, self.o, self.pool = nn.LayerNorm(16), nn.Linear(16, 48), nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, ids, mask, tt):
        s = ids.shape[1]
        x = self.ln(self.word(ids) + self.pos(self.position_ids[:, 0:s]) + self.tt(tt))
        ext = (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0

        def heads(t):
            return t.view(t.size()[:-1] + (self.H, 8)).permute(0, 2, 1, 3)

        q, k, v = (heads(t) for t in self.qkv(x).split(16, dim=2))
        p = (torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(8) + ext).softmax(-1)
        c = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        h = self.o(c.view(c.size()[:-2] + (16,))) + x
        return h, torch.tanh(self.pool(h[:, 0])), p


class SwinWindowModel(nn.Module):
    """Swin-style shifted-window attention on [batch, 3, H, W]: patch embedding (stride 2),
    padding to a multiple of the window ((ws - W % ws) % ws), roll, window partition by
    view/permute into [-1, ws*ws, C], the reverse, the crop back to H x W, and patch merging
    (odd sizes padded, the four strided neighbours concatenated)."""

    WS = 4

    def __init__(self):
        super().__init__()
        self.embed, self.qkv, self.merge = nn.Conv2d(3, 8, 2, 2), nn.Linear(8, 24), nn.Linear(32, 16)

    def forward(self, x):
        x = self.embed(x).permute(0, 2, 3, 1)
        b, h, w, c = x.shape
        ws = self.WS
        x = F.pad(x, (0, 0, 0, (ws - w % ws) % ws, 0, (ws - h % ws) % ws))
        hp, wp = x.shape[1], x.shape[2]
        x = torch.roll(x, shifts=(-2, -2), dims=(1, 2))
        win = x.view(b, hp // ws, ws, wp // ws, ws, c).permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws * ws, c)
        q, k, v = self.qkv(win).chunk(3, -1)
        a = (q @ k.transpose(-2, -1)).softmax(-1) @ v
        a = a.view(b, hp // ws, wp // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).contiguous().view(b, hp, wp, c)
        a = torch.roll(a, shifts=(2, 2), dims=(1, 2))[:, :h, :w, :].contiguous()
        m = F.pad(a, (0, 0, 0, w % 2, 0, h % 2))
        m = torch.cat([m[:, 0::2, 0::2], m[:, 1::2, 0::2], m[:, 0::2, 1::2], m[:, 1::2, 1::2]], -1)
        return a, win, self.merge(m.view(b, -1, 4 * c))


class DetrPositionModel(nn.Module):
    """DETR's sine position embedding on a padding mask [batch, h, w]: cumulative sums of the
    unmasked pixels, normalised, divided by 10000^(2*floor(i/2)/8), sin/cos of the even/odd
    channels stacked and flattened, permuted to [batch, 16, h, w], added to a feature map and
    flattened to the transformer's [h*w, batch, 16]."""

    def forward(self, img, mask):
        not_mask = ~mask
        y = not_mask.cumsum(1, dtype=torch.float32)
        x = not_mask.cumsum(2, dtype=torch.float32)
        y = y / (y[:, -1:, :] + 1e-6) * 2 * math.pi
        x = x / (x[:, :, -1:] + 1e-6) * 2 * math.pi
        dim_t = torch.arange(8, dtype=torch.float32)
        dim_t = 10000 ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / 8)
        px, py = x[:, :, :, None] / dim_t, y[:, :, :, None] / dim_t
        px = torch.stack((px[:, :, :, 0::2].sin(), px[:, :, :, 1::2].cos()), dim=4).flatten(3)
        py = torch.stack((py[:, :, :, 0::2].sin(), py[:, :, :, 1::2].cos()), dim=4).flatten(3)
        pos = torch.cat((py, px), dim=3).permute(0, 3, 1, 2)
        return pos, (img.flatten(2) + pos.flatten(2)).permute(2, 0, 1)


class ConformerModel(nn.Module):
    """A conformer front end on features [batch, T, 15]: two Conv2d stride-2 subsampling layers
    (t = floor((T+1)/4) - 1 frames), relative-position scores against 2t - 1 positions shifted
    by the Transformer-XL rel_shift (zero column, view as [b, h, 2t, t], drop a row, view back,
    keep the first (2t-1) // 2 + 1 = t columns), and the convolution module (pointwise conv,
    GLU, depthwise conv)."""

    def __init__(self):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv2d(1, 4, 3, 2), nn.ReLU(), nn.Conv2d(4, 4, 3, 2), nn.ReLU())
        self.lin, self.q = nn.Linear(12, 16), nn.Linear(16, 16)
        self.pw, self.dw = nn.Conv1d(16, 32, 1), nn.Conv1d(16, 16, 5, padding=2, groups=16)

    @staticmethod
    def rel_shift(x):
        b, h, t1, t2 = x.size()
        padded = torch.cat([x.new_zeros((b, h, t1, 1)), x], dim=-1).view(b, h, t2 + 1, t1)
        return padded[:, :, 1:].view_as(x)[:, :, :, : t2 // 2 + 1]

    def forward(self, feats):
        x = self.sub(feats.unsqueeze(1))
        b, c, t, f = x.size()
        x = self.lin(x.transpose(1, 2).contiguous().view(b, t, c * f))
        q = self.q(x).view(b, t, 2, 8).transpose(1, 2)
        p = self.q(x.new_ones(1, 2 * t - 1, 16)).view(1, -1, 2, 8).transpose(1, 2)
        bd = self.rel_shift(torch.matmul(q, p.transpose(-2, -1)))
        return bd, self.dw(F.glu(self.pw(x.transpose(1, 2)), dim=1))


class WhisperModel(nn.Module):
    """Whisper-style: the audio encoder's two Conv1d (the second stride 2) with a positional table
    sliced to the frames (pe[:frames]), and a decoding step whose token positions are
    dpe[offset : offset + n] with offset the cached length, a causal mask from triu, and cross
    attention scores against the audio frames."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv1d(8, 16, 3, padding=1), nn.Conv1d(16, 16, 3, stride=2, padding=1)
        self.register_buffer("pe", torch.randn(40, 16))
        self.tok, self.dpe = nn.Embedding(30, 16), nn.Parameter(torch.randn(24, 16))

    def forward(self, mel, tokens, kv):
        x = F.gelu(self.c2(F.gelu(self.c1(mel)))).permute(0, 2, 1)
        x = x + self.pe[: x.shape[1]]
        offset = kv.shape[1]
        t = self.tok(tokens) + self.dpe[offset: offset + tokens.shape[-1]]
        n = t.shape[1]
        mask = torch.empty(n, n).fill_(-float("inf")).triu_(1)
        return x, t @ t.transpose(1, 2) + mask, t @ x.transpose(1, 2)


class DiffusionBlockModel(nn.Module):
    """A Stable-Diffusion-style UNet block on latents [batch, 4, H, W], timesteps [batch] and
    context [batch, L, 16]: sinusoidal timestep embedding (exp(-log(10000) * arange / half)),
    GroupNorm + SiLU, stride-2 conv, attention over the H'*W' positions and the context, back to
    [b, c, H', W'], interpolate to the skip's size (size=h.shape[-2:]) and by scale 2, concat."""

    def __init__(self):
        super().__init__()
        self.conv_in, self.gn, self.t = nn.Conv2d(4, 16, 3, padding=1), nn.GroupNorm(4, 16), nn.Linear(16, 16)
        self.down, self.up = nn.Conv2d(16, 16, 3, 2, 1), nn.Conv2d(32, 16, 3, padding=1)
        self.qkv = nn.Linear(16, 48)

    def forward(self, x, ts, ctx):
        freqs = torch.exp(-math.log(10000) * torch.arange(0, 8, dtype=torch.float32) / 8)
        args = ts[:, None].float() * freqs[None]
        temb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        h = F.silu(self.gn(self.conv_in(x))) + self.t(temb)[:, :, None, None]
        d = self.down(h)
        b, c, hh, ww = d.shape
        q, k, v = self.qkv(d.reshape(b, c, hh * ww).transpose(1, 2)).chunk(3, dim=-1)
        k, v = torch.cat([k, ctx], 1), torch.cat([v, ctx], 1)
        d = (F.softmax(q @ k.transpose(1, 2) / 4.0, -1) @ v).transpose(1, 2).reshape(b, c, hh, ww)
        u = F.interpolate(d, size=h.shape[-2:], mode="nearest")
        return self.up(torch.cat([u, h], 1)), F.interpolate(d, scale_factor=2.0, mode="nearest")


class MoEModel(nn.Module):
    """Top-2 mixture of experts on [batch, seq, 8]: the tokens routed to each expert found with
    nonzero (data-dependent counts), gathered with index_select and scattered back with
    index_add."""

    def __init__(self):
        super().__init__()
        self.gate, self.experts = nn.Linear(8, 4), nn.ModuleList(nn.Linear(8, 8) for _ in range(4))

    def forward(self, x):
        b, s, d = x.shape
        flat = x.view(-1, d)
        w, idx = torch.topk(self.gate(flat).softmax(-1), 2, dim=-1)
        out = torch.zeros_like(flat)
        for e in range(4):
            sel = (idx == e).any(-1).nonzero().squeeze(-1)
            out = out.index_add(0, sel, self.experts[e](flat.index_select(0, sel)))
        return out.view(b, s, d), w


class MultiScaleModel(nn.Module):
    """Deformable-DETR-style multi-scale flattening on [batch, 3, H, W]: three stride-2 levels
    flattened and concatenated (sum of h_i*w_i tokens), the level start indices from a tensor of
    the spatial shapes (prod, cumsum), and the middle level split back out with split sizes
    h_i*w_i and reshaped to its map."""

    def __init__(self):
        super().__init__()
        self.levels = nn.ModuleList([nn.Conv2d(3, 8, 3, 2, 1), nn.Conv2d(8, 8, 3, 2, 1), nn.Conv2d(8, 8, 3, 2, 1)])

    def forward(self, x):
        srcs, shapes = [], []
        for conv in self.levels:
            x = conv(x)
            b, c, h, w = x.shape
            shapes.append((h, w))
            srcs.append(x.flatten(2).transpose(1, 2))
        flat = torch.cat(srcs, 1)
        spatial = torch.as_tensor(shapes, dtype=torch.long)
        start = torch.cat((spatial.new_zeros((1,)), spatial.prod(1).cumsum(0)[:-1]))
        parts = flat.split([h * w for h, w in shapes], dim=1)
        return flat, start, parts[1].transpose(1, 2).reshape(b, c, shapes[1][0], shapes[1][1])


class EinsumModel(nn.Module):
    """torch.einsum (ONNX Einsum) on q [batch, 2, tq, 4] and k [batch, 2, tk, 4]: attention
    scores, a contraction with an output permutation, an ellipsis reduction, an outer product."""

    def forward(self, q, k):
        s = torch.einsum("bhqd,bhkd->bhqk", q, k)
        o = torch.einsum("bhqk,bhkd->bqhd", s.softmax(-1), k)
        t = torch.einsum("...d,...d->...", q, q)
        return s, o, t, torch.einsum("bhqd,e->bhqde", q, torch.ones(3))


class ReshapeMiscModel(nn.Module):
    """Odd exporter forms on x [batch, 3, L] and img [batch, 3, H, W]: a strided slice from 1,
    F.unfold (im2col with padding and stride), negative padding (a crop), repeat_interleave,
    uneven chunk, interpolate with recompute_scale_factor (float arithmetic on sizes: the
    resized H and W are left undetermined), tril and cumsum."""

    def forward(self, x, img):
        cols = F.unfold(img, kernel_size=(3, 2), stride=(2, 1), padding=1)
        ch = torch.chunk(x, 3, dim=-1)
        down = F.interpolate(img, scale_factor=0.5, mode="bilinear", recompute_scale_factor=True)
        return (x[:, :, 1::3], cols, F.pad(img, (-1, -2, 1, -1)), torch.repeat_interleave(x, 3, dim=1), ch[0], ch[2],
                down, torch.tril(x[0]) + x[0].cumsum(-1))


class RotaryPositionIdsModel(nn.Module):
    """Rotary embedding indexed by a position_ids input [batch, seq] (GPT-NeoX / Llama >= 4.36
    style): cos/sin tables sliced to seq_len and gathered at the (data-dependent) ids."""

    def __init__(self):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
        f = torch.einsum("i,j->ij", torch.arange(48).float(), inv)
        emb = torch.cat((f, f), -1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())
        self.q = nn.Linear(8, 8)

    def forward(self, x, position_ids):
        seq_len = x.shape[1]
        cos = self.cos[:seq_len][position_ids].unsqueeze(1)
        sin = self.sin[:seq_len][position_ids].unsqueeze(1)
        q = self.q(x).unsqueeze(1)
        return q * cos + torch.cat((-q[..., 4:], q[..., :4]), -1) * sin


class QDQModel(nn.Module):
    """A fake-quantized CNN as quantization-aware training exports it: QuantizeLinear /
    DequantizeLinear pairs (per-tensor int8 activations, per-channel conv weights), a stride-2
    conv, a grouped conv, nearest 2x upsampling back to the input grid joined to a skip path,
    and a pooled head."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1, groups=2)
        self.skip = nn.Conv2d(3, 4, 1)
        self.fuse = nn.Conv2d(20, 6, 3, padding=1)
        self.fc = nn.Linear(16, 5)
        self.register_buffer("ws", torch.full((8,), 0.02))
        self.register_buffer("wz", torch.zeros(8, dtype=torch.int32))

    @staticmethod
    def fq(x, scale=0.05):
        return torch.fake_quantize_per_tensor_affine(x, scale, 0, -128, 127)

    def forward(self, x):
        x = self.fq(x)
        w1 = torch.fake_quantize_per_channel_affine(self.c1.weight, self.ws, self.wz, 0, -128, 127)
        h = self.fq(F.relu(F.conv2d(x, w1, self.c1.bias, stride=2, padding=1)))
        h = self.fq(self.c2(h), 0.1)
        up = F.interpolate(h, scale_factor=2.0, mode="nearest")[:, :, : x.shape[2], : x.shape[3]]
        seg = self.fuse(self.fq(torch.cat((up, self.fq(self.skip(x))), 1)))
        return self.fc(self.fq(h.mean((2, 3)))), h, seg


class SpatialTransformerModel(nn.Module):
    """A spatial transformer: a sampling grid built from linspace/meshgrid over the input's own
    H and W (Range on float bounds), transformed by a predicted affine matrix, GridSample, then
    RoiAlign of K boxes given as [batch_index, x1, y1, x2, y2] rows."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Conv2d(3, 6, 3, stride=2, padding=1)
        self.fc = nn.Linear(6, 6)
        import torchvision.ops  # here, not in forward: importing torchvision while tracing fails
        self.roi_align = torchvision.ops.roi_align

    def forward(self, x, boxes):
        n, _, h, w = x.shape
        theta = self.fc(self.loc(x).mean((2, 3))).view(-1, 2, 3)
        gy, gx = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
        base = torch.stack((gx, gy, torch.ones_like(gx)), -1).reshape(1, h * w, 3)
        grid = (base @ theta.transpose(1, 2)).view(n, h, w, 2)
        y = F.grid_sample(x, grid, align_corners=False)
        r = self.roi_align(y, boxes, output_size=(4, 5), spatial_scale=0.5, sampling_ratio=2, aligned=True)
        return y, r


# Models exported a second time at an old opset (the oldest torch 1.13 can export each at).
OLD_OPSETS = {"transformer_encoder": 7, "lstm": 9, "grouped_conv": 7, "cnn_unet": 9, "reshape_opset11": 9,
              "seq_misc": 9, "wav2vec2_features": 9, "diffusion_block": 9, "moe_top2": 9,
              "audio_conv1d": 10, "pool_norm": 10, "circular": 10, "gpt2_kv_cache": 10,
              "llama_kv_cache": 10, "yolo_head": 10, "bert_layer": 10, "conformer": 10, "rotary_position_ids": 10,
              "partial_shapes": 9}

EXPORTED = []  # names in export order, written to models.json for verify_real.py


class PartialShapesModel(nn.Module):
    """Shapes built from a size the model computes from data (the longest of `lengths` [batch],
    as padding code does) next to sizes of x [batch, seq, 8]: zeros and expand to
    [batch, max_len, 4] (ConstantOfShape; Expand of a target torch passes through Equal/Where),
    a reshape and a repeat by a computed factor, and a padding mask. The dims taken from x stay
    exact; only those the data sets are undetermined."""

    def forward(self, x, lengths):
        m = lengths.max()
        k = lengths.min() * 0 + 2
        z = x.new_zeros(x.size(0), m, 4)
        e = x[:, :1, :4].expand(x.size(0), m, 4)
        r = x.reshape(x.size(0), x.size(1), k, -1)
        t = x.repeat(1, k, 1)
        mask = torch.arange(m)[None, :] < lengths[:, None]
        return z, e, r, t, mask


class PadToLongestModel(nn.Module):
    """F.pad of x [batch, seq, 8] to the longest of `lengths` [batch] along the sequence, and
    of its features by that length: the pads torch builds (Reshape to [-1, 2], Slice, Transpose,
    Reshape back) are known except the one entry the data sets, so the other dims stay exact."""

    def forward(self, x, lengths):
        m = lengths.max()
        return F.pad(x, (0, 0, 0, m - x.size(1))), F.pad(x, (1, m))


class AdvancedIndexingModel(nn.Module):
    """Indexing with tensors on x [batch, seq, 6], ids [batch, seq] and index vectors idx [K] and
    idx2 [P, Q]: CLIP-style pooling x[arange(B), ids.argmax(-1)], x[:, idx], x[idx, idx], x[idx2],
    torch.gather along the sequence, an index_put of zeros, narrow by a computed length, a view
    splitting the last axis, and stack + flatten interleaving two copies."""

    def forward(self, x, ids, idx, idx2):
        b = x.shape[0]
        pooled = x[torch.arange(b), ids.argmax(-1)]
        g = torch.gather(x, 1, ids.unsqueeze(-1).expand(-1, -1, x.shape[2]))
        y = x.clone()
        y[:, idx] = 0.0
        return (pooled, x[:, idx], x[idx, idx], x[idx2], g, y, x.narrow(1, 1, x.shape[1] - 2),
                x.view(x.shape[0], x.shape[1], 2, -1), torch.stack([x, x], dim=2).flatten(1, 2))


class NormSortModel(nn.Module):
    """On x [N, 3, H, W] and b [K] (bucket boundaries): GroupNorm, InstanceNorm and PReLU of a
    convolution, F.unfold into 2x2 patches (a Reshape of an im2col the exporter builds from
    Gathers over computed index ranges), hardswish, argsort and sort along both axes of a
    flattened row, bucketize against b, and torch.unique with inverse and counts
    (data-dependent length)."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, padding=1)
        self.gn = nn.GroupNorm(2, 8)
        self.inn = nn.InstanceNorm2d(8, affine=True)
        self.pr = nn.PReLU(8)

    def forward(self, x, b):
        h = self.c(x)
        rows = h.mean(1).flatten(1)  # [N, H*W]
        v, j = torch.sort(rows, dim=0)
        u, inv, cnt = torch.unique(torch.bucketize(rows, b), sorted=True, return_inverse=True, return_counts=True)
        return (self.gn(h) + self.inn(h), self.pr(h), F.unfold(h, 2, stride=2), F.hardswish(h),
                torch.argsort(rows, dim=1, descending=True), v, j, torch.bucketize(rows, b), u, inv, cnt)


class MiscOpsModel(nn.Module):
    """Assorted torch functions on x [batch, seq, 6] and y [batch, S, 6], and an EmbeddingBag on
    ids [L] with offsets [NB] (exported as a Loop over the bags): glu over the sequence, diagonal,
    cdist, std, logsumexp, normalize, cosine_similarity, baddbmm, tril with an offset, new_ones of
    a size, pixel_unshuffle and scatter_add."""

    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 4, mode="sum")

    def forward(self, x, y, ids, offs):
        return (F.glu(x, dim=1), torch.diagonal(x, dim1=1, dim2=2), torch.cdist(x, y), x.std(1),
                torch.logsumexp(x, -1), F.normalize(x, dim=-1), F.cosine_similarity(x[:, :1], x, dim=-1),
                x.transpose(1, 2).flip(2), torch.baddbmm(x[:, :, :1], x, x.transpose(1, 2)[:, :, :1]),
                torch.tril(x, diagonal=-1), x.new_ones(x.shape[-1]),
                F.pixel_unshuffle(x.unsqueeze(1).repeat(1, 1, 2, 2), 2), self.bag(ids, offs),
                torch.scatter_add(x, 1, torch.zeros_like(x, dtype=torch.long), x))


def export(model, name, args, input_names, output_names, dynamic_axes, opset, bindings, fills, out_dir,
           max_bytes=2 * 1024 * 1024, functions=None):
    model.eval()
    path = os.path.join(out_dir, name + ".onnx")
    # Not under torch.no_grad(): with grad enabled, nn.TransformerEncoderLayer skips its fused
    # "fast path" (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    torch.onnx.export(model, args, path, opset_version=opset, input_names=input_names,
                      output_names=output_names, dynamic_axes=dynamic_axes, do_constant_folding=True,
                      **({"export_modules_as_functions": functions} if functions else {}))
    size = os.path.getsize(path)
    if size >= max_bytes:
        raise SystemExit(f"{name}: {size} bytes, over its {max_bytes} bytes budget")
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
    EXPORTED.append(name)
    print(f"  {name}.onnx  opset {opset}  {size} bytes")
    if name in OLD_OPSETS:
        # The same model again at the oldest opset torch 1.13 exports it at: older operator
        # versions (Slice-1 and -10, Upsample-9, Resize-10, Pad-2, Split-2, Unsqueeze-1, TopK-1,
        # ...) as a real exporter writes them.
        old_opset = OLD_OPSETS[name]
        export(model, f"{name}_opset{old_opset}", args, input_names, output_names, dynamic_axes, old_opset,
               bindings, fills, out_dir, max_bytes, functions)


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

    export(GRUModel(), "gru_rnn", (torch.randn(2, 7, 8),), ["x"], ["y", "h_n", "r", "hr_n", "cum", "last"],
           {"x": {0: "batch", 1: "seq"}}, 11,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 8}, {"batch": 3, "seq": 13}], {}, out_dir)

    export(AudioConv1dModel(), "audio_conv1d", (torch.randn(2, 1, 400),), ["wave"],
           ["h1", "h2", "h3", "avg", "q13", "rep", "up"],
           {"wave": {0: "batch", 2: "samples"}}, 13,
           [{"batch": 1, "samples": 160}, {"batch": 2, "samples": 401}, {"batch": 3, "samples": 257}], {}, out_dir)

    export(ViTModel(), "vit_patch", (torch.randn(2, 3, 32, 24),), ["img"], ["cls", "att", "grid"],
           {"img": {0: "batch", 2: "height", 3: "width"}}, 14,
           [{"batch": 1, "height": 32, "width": 24}, {"batch": 2, "height": 35, "width": 17},
            {"batch": 3, "height": 18, "width": 43}], {}, out_dir)

    export(UpsampleModel(), "upsample", (torch.randn(2, 8, 6, 5), torch.randn(1, 1, 13, 9)), ["x", "ref"],
           ["convt", "convt2", "nearest3", "bilinear_ac", "to_ref", "to_expr", "shuffle"],
           {"x": {0: "batch", 2: "h", 3: "w"}, "ref": {2: "rh", 3: "rw"}}, 11,
           [{"batch": 1, "h": 6, "w": 5, "rh": 13, "rw": 9}, {"batch": 2, "h": 7, "w": 4, "rh": 10, "rw": 15},
            {"batch": 3, "h": 3, "w": 9, "rh": 21, "rw": 6}], {}, out_dir)

    export(PoolNormModel(), "pool_norm", (torch.randn(2, 6, 12, 10),), ["x"],
           ["maxc", "maxc_pad", "avgc", "gap", "refl", "flat", "flat1"],
           {"x": {0: "batch", 2: "H", 3: "W"}}, 17,
           [{"batch": 1, "H": 12, "W": 10}, {"batch": 2, "H": 13, "W": 9}, {"batch": 3, "H": 8, "W": 15}],
           {}, out_dir)

    export(SlicingModel(), "slicing", (torch.randn(2, 9, 10),), ["x"],
           ["even", "inner", "tail", "step3", "piece", "stacked", "cat_t", "cat_b", "rep", "expd",
            "top_v", "top_i", "narrow"],
           {"x": {0: "batch", 1: "seq"}}, 13,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 8}, {"batch": 3, "seq": 13}], {}, out_dir)

    export(MaskedAttentionModel(), "masked_attention", (torch.randn(2, 7, 16), torch.randn(2, 5, 12)),
           ["x", "mem"], ["scores", "bmm4", "r34", "cross", "m3"],
           {"x": {0: "batch", 1: "tgt"}, "mem": {0: "batch", 1: "src"}}, 14,
           [{"batch": 1, "tgt": 5, "src": 3}, {"batch": 2, "tgt": 7, "src": 9}, {"batch": 3, "tgt": 11, "src": 4}],
           {}, out_dir)

    export(EmbedSeqModel(), "embed_seq",
           (torch.randint(0, EmbedSeqModel.VOCAB, (2, 7)), torch.randn(2, 3, 8)), ["ids", "past"],
           ["full", "cum", "argmax", "gathered", "window", "mask"],
           {"ids": {0: "batch", 1: "new"}, "past": {0: "batch", 1: "past_len"}}, 17,
           [{"batch": 1, "new": 5, "past_len": 4}, {"batch": 2, "new": 7, "past_len": 9},
            {"batch": 3, "new": 6, "past_len": 11}],
           {"ids": {"int_range": [0, EmbedSeqModel.VOCAB]}}, out_dir)

    export(ReshapeOpset11Model(), "reshape_opset11", (torch.randn(2, 4, 7),), ["x"],
           ["view", "unsq", "split_mul", "flat", "expanded", "mean"],
           {"x": {0: "batch", 2: "len"}}, 11,
           [{"batch": 1, "len": 5}, {"batch": 2, "len": 8}, {"batch": 3, "len": 13}], {}, out_dir)

    export(GroupedConvModel(), "grouped_conv", (torch.randn(2, 4, 16, 15),), ["x"], ["dw", "grouped", "gated", "amax"],
           {"x": {0: "batch", 2: "H", 3: "W"}}, 13,
           [{"batch": 1, "H": 16, "W": 15}, {"batch": 2, "H": 21, "W": 10}, {"batch": 3, "H": 11, "W": 29}],
           {}, out_dir)

    export(CircularModel(), "circular", (torch.randn(2, 3, 10, 9),), ["x"], ["circ", "roll", "flip", "up15", "avgc", "same"],
           {"x": {0: "batch", 2: "H", 3: "W"}}, 13,
           [{"batch": 1, "H": 10, "W": 9}, {"batch": 2, "H": 7, "W": 12}, {"batch": 3, "H": 13, "W": 5}],
           {}, out_dir)

    export(ScriptedLoopModel(), "scripted_loop", (torch.randn(2, 7, 6),), ["x"], ["running_tbd", "final", "prefix_tbd"],
           {"x": {0: "batch", 1: "seq"}}, 14,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 8}, {"batch": 3, "seq": 13}], {}, out_dir)

    export(torch.jit.script(ScriptedShapesModel()), "scripted_shapes", (torch.randn(2, 5, 8),), ["x"], ["y"],
           {"x": {0: "batch", 1: "seq"}}, 16,
           [{"batch": 1, "seq": 2}, {"batch": 2, "seq": 5}, {"batch": 3, "seq": 9}], {}, out_dir)

    export(SeqMiscModel(), "seq_misc",
           (torch.randn(7, 2, 8), torch.randn(5, 2, 6), torch.randint(0, 7, (2, 7))), ["x", "mem", "ids"],
           ["att", "att_w", "y", "h_n", "c_n", "onehot", "evens", "zeros", "selected"],
           {"x": {0: "seq", 1: "batch"}, "mem": {0: "mem", 1: "batch"}, "ids": {0: "batch", 1: "seq"}}, 16,
           [{"seq": 5, "batch": 1, "mem": 3}, {"seq": 8, "batch": 2, "mem": 9}, {"seq": 13, "batch": 3, "mem": 4}],
           {"ids": {"int_range": [0, 7]}}, out_dir)

    export(VolumetricModel(), "volumetric", (torch.randn(2, 2, 5, 9, 8), torch.rand(2, 4, 6, 2) * 2 - 1),
           ["vol", "grid"], ["conv3d", "maxc3d", "avg3d", "cols", "sampled", "up3d"],
           {"vol": {0: "batch", 2: "D", 3: "H", 4: "W"}, "grid": {0: "batch", 1: "gh", 2: "gw"}}, 16,
           [{"batch": 1, "D": 5, "H": 9, "W": 8, "gh": 4, "gw": 6}, {"batch": 2, "D": 4, "H": 7, "W": 11, "gh": 3, "gw": 5},
            {"batch": 3, "D": 7, "H": 12, "W": 5, "gh": 6, "gw": 2}], {}, out_dir)

    export(Seq2SeqModel(), "seq2seq", (torch.randint(1, Seq2SeqModel.VOCAB, (2, 7)),
                                       torch.randint(1, Seq2SeqModel.VOCAB, (2, 5))), ["src", "tgt"], ["y"],
           {"src": {0: "batch", 1: "S"}, "tgt": {0: "batch", 1: "T"}, "y": {0: "batch", 1: "T"}}, 14,
           [{"batch": 1, "S": 5, "T": 3}, {"batch": 2, "S": 9, "T": 4}, {"batch": 3, "S": 4, "T": 11}],
           {"src": {"int_range": [1, Seq2SeqModel.VOCAB - 1]}, "tgt": {"int_range": [1, Seq2SeqModel.VOCAB - 1]}},
           out_dir)

    export(GPT2CacheModel(), "gpt2_kv_cache",
           (torch.randint(0, GPT2CacheModel.VOCAB, (2, 3)), torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8),
            torch.ones(2, 8, dtype=torch.long)),
           ["ids", "past_k", "past_v", "attention_mask"], ["logits", "present_k", "present_v", "attn"],
           {"ids": {0: "batch", 1: "new"}, "past_k": {0: "batch", 2: "past"}, "past_v": {0: "batch", 2: "past"},
            "attention_mask": {0: "batch", 1: "total"}}, 14,
           [{"batch": 1, "new": 1, "past": 9, "total": 10}, {"batch": 2, "new": 3, "past": 5, "total": 8},
            {"batch": 3, "new": 7, "past": 0, "total": 7}],
           {"ids": {"int_range": [0, GPT2CacheModel.VOCAB]}, "attention_mask": {"int_range": [1, 2]}}, out_dir)

    export(NanoGPTModel(), "nanogpt", (torch.randint(0, NanoGPTModel.VOCAB, (2, 5)),), ["idx"], ["logits", "att"],
           {"idx": {0: "batch", 1: "T"}}, 14,
           [{"batch": 1, "T": 1}, {"batch": 2, "T": 7}, {"batch": 3, "T": 32}],
           {"idx": {"int_range": [0, NanoGPTModel.VOCAB]}}, out_dir)

    export(LlamaCacheModel(), "llama_kv_cache",
           (torch.randint(0, LlamaCacheModel.VOCAB, (2, 3)), torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8)),
           ["ids", "past_k", "past_v"], ["logits", "present_k", "present_v"],
           {"ids": {0: "batch", 1: "new"}, "past_k": {0: "batch", 2: "past"}, "past_v": {0: "batch", 2: "past"}}, 14,
           [{"batch": 1, "new": 1, "past": 9}, {"batch": 2, "new": 3, "past": 5}, {"batch": 3, "new": 7, "past": 41}],
           {"ids": {"int_range": [0, LlamaCacheModel.VOCAB]}}, out_dir)

    export(Wav2Vec2Model(), "wav2vec2_features", (torch.randn(2, 1600),), ["wav"], ["y"],
           {"wav": {0: "batch", 1: "samples"}}, 14,
           [{"batch": 1, "samples": 1600}, {"batch": 2, "samples": 2001}, {"batch": 3, "samples": 3333}], {}, out_dir)

    export(T5BiasModel(), "t5_relative_bias", (torch.randn(2, 5, 8), torch.randn(2, 7, 8)), ["x", "mem"], ["att"],
           {"x": {0: "batch", 1: "q"}, "mem": {0: "batch", 1: "k"}}, 14,
           [{"batch": 1, "q": 1, "k": 9}, {"batch": 2, "q": 5, "k": 7}, {"batch": 3, "q": 30, "k": 2}], {}, out_dir)

    export(YoloHeadModel(), "yolo_head", (torch.randn(1, 3, 64, 96),), ["images"], ["pred", "p16"],
           {"images": {0: "batch", 2: "H", 3: "W"}}, 12,
           [{"batch": 1, "H": 64, "W": 96}, {"batch": 2, "H": 70, "W": 45}, {"batch": 3, "H": 129, "W": 160}],
           {}, out_dir)

    export(BertModel(), "bert_layer",
           (torch.randint(0, 50, (2, 7)), torch.ones(2, 7, dtype=torch.long), torch.zeros(2, 7, dtype=torch.long)),
           ["ids", "mask", "tt"], ["h", "pooled", "p"],
           {"ids": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}, "tt": {0: "batch", 1: "seq"}}, 14,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 33}],
           {"ids": {"int_range": [0, 50]}, "mask": {"int_range": [0, 2]}, "tt": {"int_range": [0, 2]}}, out_dir)

    export(SwinWindowModel(), "swin_window", (torch.randn(2, 3, 18, 22),), ["x"], ["a", "win", "merged"],
           {"x": {0: "batch", 2: "H", 3: "W"}}, 14,
           [{"batch": 1, "H": 16, "W": 16}, {"batch": 2, "H": 18, "W": 22}, {"batch": 3, "H": 30, "W": 10}], {}, out_dir)

    export(DetrPositionModel(), "detr_position", (torch.randn(2, 16, 5, 6), torch.zeros(2, 5, 6, dtype=torch.bool)),
           ["img", "mask"], ["pos", "src"], {"img": {0: "batch", 2: "h", 3: "w"}, "mask": {0: "batch", 1: "h", 2: "w"}},
           14, [{"batch": 1, "h": 5, "w": 6}, {"batch": 2, "h": 7, "w": 3}, {"batch": 3, "h": 2, "w": 9}],
           {"mask": {"int_range": [0, 1]}}, out_dir)

    export(ConformerModel(), "conformer", (torch.randn(2, 40, 15),), ["feats"], ["bd", "y"],
           {"feats": {0: "batch", 1: "T"}}, 14,
           [{"batch": 1, "T": 40}, {"batch": 2, "T": 23}, {"batch": 3, "T": 61}], {}, out_dir)

    export(WhisperModel(), "whisper_step", (torch.randn(2, 8, 30), torch.randint(0, 30, (2, 3)), torch.randn(2, 4, 16)),
           ["mel", "tokens", "kv"], ["x", "s", "cross"],
           {"mel": {0: "batch", 2: "frames"}, "tokens": {0: "batch", 1: "n"}, "kv": {0: "batch", 1: "offset"}}, 14,
           [{"batch": 1, "frames": 30, "n": 3, "offset": 4}, {"batch": 2, "frames": 61, "n": 1, "offset": 10},
            {"batch": 3, "frames": 79, "n": 7, "offset": 0}], {"tokens": {"int_range": [0, 30]}}, out_dir)

    export(DiffusionBlockModel(), "diffusion_block", (torch.randn(2, 4, 8, 10), torch.tensor([3, 500]), torch.randn(2, 5, 16)),
           ["x", "ts", "ctx"], ["y", "u2"], {"x": {0: "batch", 2: "H", 3: "W"}, "ts": {0: "batch"}, "ctx": {0: "batch", 1: "L"}},
           14, [{"batch": 1, "H": 8, "W": 10, "L": 5}, {"batch": 2, "H": 9, "W": 7, "L": 1},
                {"batch": 3, "H": 16, "W": 13, "L": 12}], {"ts": {"int_range": [0, 1000]}}, out_dir)

    export(MoEModel(), "moe_top2", (torch.randn(2, 7, 8),), ["x"], ["y", "w"], {"x": {0: "batch", 1: "seq"}}, 14,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 11}], {}, out_dir)

    export(MultiScaleModel(), "multiscale_flatten", (torch.randn(2, 3, 32, 24),), ["x"], ["flat", "start", "mid"],
           {"x": {0: "batch", 2: "H", 3: "W"}}, 14,
           [{"batch": 1, "H": 32, "W": 24}, {"batch": 2, "H": 17, "W": 9}, {"batch": 1, "H": 40, "W": 63}], {}, out_dir)

    export(EinsumModel(), "einsum", (torch.randn(2, 2, 5, 4), torch.randn(2, 2, 7, 4)), ["q", "k"], ["s", "o", "t", "outer"],
           {"q": {0: "batch", 2: "tq"}, "k": {0: "batch", 2: "tk"}}, 14,
           [{"batch": 1, "tq": 5, "tk": 7}, {"batch": 2, "tq": 1, "tk": 3}, {"batch": 3, "tq": 9, "tk": 2}], {}, out_dir)

    export(ReshapeMiscModel(), "reshape_misc", (torch.randn(2, 3, 20), torch.randn(2, 3, 9, 10)), ["x", "img"],
           ["strided", "cols", "crop", "rep", "ch0", "ch2", "down", "tri"],
           {"x": {0: "batch", 2: "L"}, "img": {0: "batch", 2: "H", 3: "W"}}, 14,
           [{"batch": 1, "L": 20, "H": 9, "W": 10}, {"batch": 2, "L": 31, "H": 6, "W": 7},
            {"batch": 3, "L": 8, "H": 13, "W": 5}], {}, out_dir)

    export(RotaryPositionIdsModel(), "rotary_position_ids", (torch.randn(2, 7, 8), torch.arange(7).expand(2, 7)),
           ["x", "position_ids"], ["y"], {"x": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"}}, 14,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 1}],
           {"position_ids": {"int_range": [0, 1]}}, out_dir)

    export(QDQModel(), "qdq_cnn", (torch.randn(2, 3, 32, 40),), ["x"], ["y", "feat", "seg"],
           {"x": {0: "batch", 2: "H", 3: "W"}}, 13,
           [{"batch": 1, "H": 32, "W": 40}, {"batch": 2, "H": 17, "W": 9}, {"batch": 3, "H": 50, "W": 33}], {}, out_dir)

    boxes = torch.tensor([[0, 1.0, 1.0, 8.0, 8.0], [1, 2.0, 0.0, 6.0, 9.0], [0, 0.0, 0.0, 4.0, 4.0]])
    export(SpatialTransformerModel(), "spatial_transformer", (torch.randn(2, 3, 16, 20), boxes), ["x", "boxes"],
           ["y", "rois"], {"x": {0: "batch", 2: "H", 3: "W"}, "boxes": {0: "K"}, "rois": {0: "K"}}, 16,
           [{"batch": 1, "H": 16, "W": 20, "K": 3}, {"batch": 2, "H": 7, "W": 30, "K": 1},
            {"batch": 3, "H": 25, "W": 9, "K": 6}], {"boxes": {"value": [0, 1.0, 1.0, 6.0, 6.0]}}, out_dir)

    export(PartialShapesModel(), "partial_shapes", (torch.randn(2, 7, 8), torch.tensor([3, 5])), ["x", "lengths"],
           ["z", "e", "r", "t", "mask"], {"x": {0: "batch", 1: "seq"}, "lengths": {0: "batch"}}, 14,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 2}],
           {"lengths": {"int_range": [1, 6]}}, out_dir)

    export(PadToLongestModel(), "pad_to_longest", (torch.randn(2, 7, 8), torch.tensor([3, 5])), ["x", "lengths"],
           ["seq_padded", "feat_padded"], {"x": {0: "batch", 1: "seq"}, "lengths": {0: "batch"}}, 14,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 2}],
           {"lengths": {"int_range": [1, 6]}}, out_dir)

    export(AdvancedIndexingModel(), "advanced_indexing",
           (torch.randn(2, 7, 6), torch.randint(0, 5, (2, 7)), torch.tensor([0, 1, 1]),
            torch.tensor([[0, 1], [1, 0], [0, 0]])),
           ["x", "ids", "idx", "idx2"], ["pooled", "cols", "pair", "grid", "g", "y", "nar", "split", "inter"],
           {"x": {0: "batch", 1: "seq"}, "ids": {0: "batch", 1: "seq"}, "idx": {0: "K"}, "idx2": {0: "P", 1: "Q"}},
           14,
           [{"batch": 2, "seq": 5, "K": 1, "P": 1, "Q": 2}, {"batch": 3, "seq": 8, "K": 2, "P": 3, "Q": 1},
            {"batch": 4, "seq": 11, "K": 3, "P": 2, "Q": 2}],
           {"ids": {"int_range": [0, 5]}, "idx": {"int_range": [0, 2]}, "idx2": {"int_range": [0, 2]}}, out_dir)

    export(MiscOpsModel(), "misc_ops",
           (torch.randn(2, 8, 6), torch.randn(2, 5, 6), torch.randint(0, 10, (9,)), torch.tensor([0, 3, 5])),
           ["x", "y", "ids", "offs"], [f"o{i}" for i in range(14)],
           {"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "S"}, "ids": {0: "L"}, "offs": {0: "NB"}}, 14,
           [{"batch": 1, "seq": 6, "S": 3, "L": 9, "NB": 1}, {"batch": 2, "seq": 8, "S": 7, "L": 12, "NB": 1},
            {"batch": 3, "seq": 12, "S": 2, "L": 5, "NB": 1}],
           {"ids": {"int_range": [0, 10]}, "offs": {"int_range": [0, 1]}}, out_dir)

    export(NormSortModel(), "norm_sort", (torch.randn(2, 3, 16, 20), torch.linspace(-0.5, 0.5, 5)), ["x", "b"],
           ["norms", "prelu", "patches", "hswish", "order", "sorted", "sort_idx", "buckets", "uniq", "inverse",
            "counts"], {"x": {0: "N", 2: "H", 3: "W"}, "b": {0: "K"}}, 17,
           [{"N": 1, "H": 16, "W": 20, "K": 5}, {"N": 2, "H": 9, "W": 13, "K": 3}, {"N": 3, "H": 30, "W": 7, "K": 8}],
           {}, out_dir)

    export_torchvision(out_dir)

    # torch's export_modules_as_functions: the modules become model-local functions (IR 8), their
    # hyperparameters function attributes, some used through ref_attr_name ("inferred::Conv_pads"),
    # tensor-valued ones (Linear.weight) bound per call site. With True the whole model is one
    # function called from the main graph, so every output comes out of a function body.
    export(TransformerEncoderModel(), "transformer_encoder_functions", (torch.randn(2, 7, 16),), ["x"],
           ["logits", "pooled"], {"x": {0: "batch", 1: "seq"}}, 15,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 11}], {}, out_dir, functions=True)
    export(GPTModel(), "gpt_decoder_functions", (torch.randint(0, GPTModel.VOCAB, (2, 7)),), ["ids"],
           ["logits", "last"], {"ids": {0: "batch", 1: "seq"}}, 15,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 11}],
           {"ids": {"int_range": [0, GPTModel.VOCAB]}}, out_dir, functions={Block, nn.LayerNorm, nn.Linear})
    export(CNNModel(), "cnn_unet_functions", (torch.randn(2, 3, 32, 40),), ["image"], ["seg", "aux", "avg", "cls"],
           {"image": {0: "batch", 2: "H", 3: "W"}}, 16,
           [{"batch": 1, "H": 32, "W": 40}, {"batch": 2, "H": 33, "W": 47}, {"batch": 3, "H": 50, "W": 29}],
           {}, out_dir, functions=True)
    export(LSTMModel(), "lstm_functions", (torch.randn(2, 7, 8),), ["x"], ["y", "h_n", "c_n"],
           {"x": {0: "batch", 1: "seq"}}, 17,
           [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 11}], {}, out_dir, functions=True)

    with open(os.path.join(out_dir, "models.json"), "w") as f:
        json.dump(EXPORTED, f, indent=1)


def export_torchvision(out_dir):
    """torchvision 0.14 architectures (Debian python3-torchvision), randomly initialised and
    shrunk where the architecture allows (no weights are downloaded). Skipped without it."""
    try:
        import torchvision
        from torchvision.models import detection, mobilenetv3, swin_transformer
        from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3
    except Exception as e:  # ImportError, or a broken install
        print(f"note: torchvision unavailable ({e.__class__.__name__}: {e}); its models skipped")
        return
    print(f"torchvision {torchvision.__version__}")
    img = {"x": {0: "N", 2: "H", 3: "W"}}
    sizes = [{"N": 1, "H": 224, "W": 224}, {"N": 2, "H": 97, "W": 131}, {"N": 1, "H": 64, "W": 300}]
    # Swin: windows padded to multiples of 7 ((7 - W % 7) % 7), shifted windows rolled with
    # Slice+Concat, window counts dividing N*windows, patch merging padded to even sizes.
    swin = swin_transformer.SwinTransformer(patch_size=[4, 4], embed_dim=12, depths=[2, 2, 2, 2],
                                            num_heads=[1, 1, 2, 2], window_size=[7, 7], num_classes=10).eval()
    export(swin, "tv_swin", (torch.randn(1, 3, 224, 224),), ["x"], ["y"], {**img, "y": {0: "N"}}, 14,
           sizes, {}, out_dir, max_bytes=4 << 20)  # 2.2 MB: mostly relative-position tables
    mnet = mobilenetv3.mobilenet_v3_small(num_classes=10, width_mult=0.25).eval()
    export(mnet, "tv_mobilenet_v3", (torch.randn(1, 3, 224, 224),), ["x"], ["y"], {**img, "y": {0: "N"}}, 15,
           sizes, {}, out_dir)
    # LR-ASPP: segmentation upsampled back to the input's H and W.
    seg = _lraspp_mobilenetv3(mobilenetv3.mobilenet_v3_large(width_mult=0.25, dilated=True), 3).eval()
    export(seg, "tv_lraspp", (torch.randn(1, 3, 224, 224),), ["x"], ["y"], {**img, "y": {0: "N", 2: "H", 3: "W"}},
           16, sizes, {}, out_dir)
    # Classification backbones (stock sizes; random weights): channel shuffle, fire modules,
    # squeeze-excitation with SiLU and stochastic depth, inception branches, dense concats,
    # RegNet groups, MnasNet.
    for name, make, opset, mb in (("tv_shufflenet", lambda: torchvision.models.shufflenet_v2_x0_5(), 13, 8),
                                  ("tv_squeezenet", lambda: torchvision.models.squeezenet1_1(), 13, 8),
                                  ("tv_efficientnet", lambda: torchvision.models.efficientnet_b0(), 13, 24),
                                  ("tv_googlenet", lambda: torchvision.models.googlenet(init_weights=True,
                                                                                         aux_logits=False), 13, 32),
                                  ("tv_densenet", lambda: torchvision.models.densenet121(), 13, 36),
                                  ("tv_regnet", lambda: torchvision.models.regnet_y_400mf(), 13, 20),
                                  ("tv_mnasnet", lambda: torchvision.models.mnasnet0_5(), 13, 12)):
        export(make().eval(), name, (torch.randn(1, 3, 224, 224),), ["x"], ["y"], {**img, "y": {0: "N"}}, opset,
               sizes, {}, out_dir, max_bytes=mb << 20)
    # MaxViT: MBConv, block and grid attention over 7x7 partitions with relative-position bias.
    # Its partition grid is fixed by input_size, so only the batch size varies.
    maxvit = torchvision.models.MaxVit(input_size=(224, 224), stem_channels=16, partition_size=7,
                                       block_channels=[16, 32], block_layers=[1, 1], head_dim=8,
                                       stochastic_depth_prob=0.0, num_classes=10).eval()
    export(maxvit, "tv_maxvit", (torch.randn(1, 3, 224, 224),), ["x"], ["y"], {**img, "y": {0: "N"}}, 16,
           [{"N": 1, "H": 224, "W": 224}, {"N": 2, "H": 224, "W": 224}, {"N": 3, "H": 224, "W": 224}], {}, out_dir)
    # ConvNeXt: depthwise 7x7 convs, channels-last LayerNorm (Transpose around it), layer scale.
    from torchvision.models.convnext import ConvNeXt, CNBlockConfig
    cnx = ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, 64, 1), CNBlockConfig(64, None, 1)],
                   num_classes=10).eval()
    export(cnx, "tv_convnext", (torch.randn(1, 3, 224, 224),), ["x"], ["y"], {**img, "y": {0: "N"}}, 17,
           sizes, {}, out_dir)
    # torchvision's VisionTransformer: class token expanded to the batch, fixed 14x14 patches.
    vit = torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=2, num_heads=2,
                                               hidden_dim=32, mlp_dim=64, num_classes=10).eval()
    export(vit, "tv_vit", (torch.randn(1, 3, 224, 224),), ["x"], ["y"], {"x": {0: "N"}, "y": {0: "N"}}, 14,
           [{"N": 1}, {"N": 2}, {"N": 5}], {}, out_dir)
    # DeepLabV3 (MobileNetV3 backbone): dilated convs, ASPP with a global-pool branch upsampled
    # back to the feature map, the logits interpolated to the input's H and W.
    from torchvision.models import segmentation

    class DeepLabOut(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3)

        def forward(self, x):
            return self.m(x)["out"]

    export(DeepLabOut().eval(), "tv_deeplab", (torch.randn(1, 3, 224, 224),), ["x"], ["y"],
           {**img, "y": {0: "N", 2: "H", 3: "W"}}, 13, sizes, {}, out_dir, max_bytes=48 << 20)
    # SSDlite: anchors per feature map, per-class score thresholds and NMS (data-dependent count).
    ssd = detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5).eval()
    export(ssd, "tv_ssdlite", ([torch.rand(3, 320, 320)],), ["images"], ["boxes", "labels", "scores"],
           {"images": {1: "H", 2: "W"}}, 11,
           [{"H": 320, "W": 320}, {"H": 256, "W": 400}, {"H": 333, "W": 301}], {}, out_dir, max_bytes=12 << 20)
    # Faster R-CNN: transform resizes to 320, anchors, RoI heads, NMS in Loop/If: the number of
    # detections is data-dependent (undetermined), everything else follows H and W. The stock
    # architecture (76 MB of random weights: its box head alone is 12,544 x 1,024).
    det = detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, num_classes=5).eval()
    export(det, "tv_fasterrcnn", ([torch.rand(3, 320, 320)],), ["images"], ["boxes", "labels", "scores"],
           {"images": {1: "H", 2: "W"}}, 11,
           [{"H": 320, "W": 320}, {"H": 256, "W": 400}, {"H": 333, "W": 301}], {}, out_dir, max_bytes=96 << 20)


if __name__ == "__main__":
    main()
