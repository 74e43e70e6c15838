#!/usr/bin/python3
"""Exports the weight-heavy models of oxir's codec benchmark (docs/io.md, "Benchmark").

Run with Debian's python (torch 1.13, onnx 1.12):  /usr/bin/python3 scripts/bench/make_models.py [DIR]
DIR defaults to ~/.cache/oxir/bench (not in git). Weights are random (seeded) and kept inline,
so each model is a single .onnx file of 40-100 MB. Existing files are kept unless --force.
"""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet34(nn.Module):
    """The ResNet-34 layout (3-4-6-3 basic blocks): about 21.8 M parameters, ~87 MB as float32."""

    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for cout, n, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
            for i in range(n):
                layers.append(BasicBlock(cin, cout, stride if i == 0 else 1))
                cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, mem):
        b, t, d = x.shape
        s = mem.shape[1]
        q = self.q(x).reshape(b, t, self.h, d // self.h).transpose(1, 2)
        k = self.k(mem).reshape(b, s, self.h, d // self.h).transpose(1, 2)
        v = self.v(mem).reshape(b, s, self.h, d // self.h).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(2, 3) / (d // self.h) ** 0.5, dim=-1)
        return self.o((a @ v).transpose(1, 2).reshape(b, t, d))


class Layer(nn.Module):
    def __init__(self, d, heads, ff, cross):
        super().__init__()
        self.self_attn, self.n1 = Attention(d, heads), nn.LayerNorm(d)
        self.cross = Attention(d, heads) if cross else None
        self.n2 = nn.LayerNorm(d) if cross else None
        self.ff1, self.ff2, self.n3 = nn.Linear(d, ff), nn.Linear(ff, d), nn.LayerNorm(d)

    def forward(self, x, mem=None):
        x = self.n1(x + self.self_attn(x, x))
        if self.cross is not None:
            x = self.n2(x + self.cross(x, mem))
        return self.n3(x + self.ff2(F.gelu(self.ff1(x))))


class Transformer(nn.Module):
    """Encoder-decoder transformer: d=512, 8 heads, ff 2048, 2+2 layers, 4k vocabulary (~76 MB)."""

    def __init__(self, vocab=4096, d=512, heads=8, ff=2048, n=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.enc = nn.ModuleList(Layer(d, heads, ff, False) for _ in range(n))
        self.dec = nn.ModuleList(Layer(d, heads, ff, True) for _ in range(n))
        self.out = nn.Linear(d, vocab)

    def forward(self, src, tgt):
        m = self.emb(src)
        for l in self.enc:
            m = l(m)
        y = self.emb(tgt)
        for l in self.dec:
            y = l(y, m)
        return self.out(y)


class LSTMLanguageModel(nn.Module):
    """Embedding 8k x 512, 2-layer LSTM with 1024 hidden units, 8k-way output (~95 MB)."""

    def __init__(self, vocab=8192, d=512, hidden=1024, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, layers, batch_first=True)
        self.proj = nn.Linear(hidden, d)
        self.out = nn.Linear(d, vocab)

    def forward(self, tokens):
        y, _ = self.lstm(self.emb(tokens))
        return self.out(self.proj(y))


def models():
    yield "resnet34", ResNet34(), (torch.randn(1, 3, 224, 224),), ["image"], {"image": {0: "N"}}
    yield ("transformer", Transformer(), (torch.randint(0, 4096, (1, 16)), torch.randint(0, 4096, (1, 12))),
           ["src", "tgt"], {"src": {0: "N", 1: "S"}, "tgt": {0: "N", 1: "T"}})
    yield "lstm_lm", LSTMLanguageModel(), (torch.randint(0, 8192, (1, 20)),), ["tokens"], {"tokens": {0: "N", 1: "T"}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=os.path.expanduser("~/.cache/oxir/bench"))
    ap.add_argument("--force", action="store_true", help="export again even if the file exists")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    for name, model, inputs, input_names, dynamic in models():
        path = os.path.join(args.dir, name + ".onnx")
        if os.path.exists(path) and not args.force:
            print(f"{path}: exists ({os.path.getsize(path) / 1e6:.1f} MB)")
            continue
        model.eval()
        with torch.no_grad():
            torch.onnx.export(model, inputs, path, input_names=input_names, output_names=["output"],
                              dynamic_axes=dynamic, opset_version=14, do_constant_folding=True)
        print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
