"""Load a softhat model file and run it in numpy or PyTorch.

The format and the forward pass are specified in docs/model-format.md; this
module re-implements them independently of the C++ engine (a plain, unblocked
softmax over the whole score matrix), so agreement between the two is a real
check. Run with the system interpreter (/usr/bin/python3) and Debian's
python3-numpy / python3-torch; the `safetensors` package is not needed.

Program models (compiled from S-RASP programs, config "program") are run as
the C++ engine runs them: the word w of length n is padded to w #^pad(n)
(numpy_forward, the torch module's run_word), the stream is that of the padded
word (N + 1 rows, beta(N)), and decide/transduce refuse a word whose run sets
a range flag (ValueError) before a transducer's pad symbols are dropped.
"""
import json
import math
import struct

import numpy as np

_DTYPES = {"F64": np.dtype("<f8"), "F32": np.dtype("<f4")}


def read_safetensors(path):
    """Returns ({name: float64 array}, metadata dict). Our own small reader."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    buf = data[8 + n:]
    tensors = {}
    for name, t in header.items():
        begin, end = t["data_offsets"]
        arr = np.frombuffer(buf[begin:end], dtype=_DTYPES[t["dtype"]]).astype(np.float64)
        tensors[name] = arr.reshape(t["shape"])
    return tensors, meta


FORMAT_VERSIONS = (1, 2)  # 2: UTF-8 alphabets, one code point per symbol; 1: ASCII alphabets


class Model:
    """A model file: configuration plus tensors."""

    def __init__(self, path):
        self.tensors, meta = read_safetensors(path)
        self.config = json.loads(meta["softhat.config"])
        if self.config["format_version"] not in FORMAT_VERSIONS:
            raise ValueError(f"{path}: format version {self.config['format_version']} is not one this reader "
                             f"knows ({', '.join(map(str, FORMAT_VERSIONS))})")
        self.alphabet = self.config["alphabet"]  # a str: symbol k is its k-th code point
        self.program = self.config.get("program")  # S-RASP program models only: pad, pad_symbol, range_flags

    def tokens(self, word):
        """Token ids of a word (a str; one code point per symbol): 0 for BOS, k + 1 for alphabet[k]."""
        return [0] + [self.alphabet.index(c) + 1 for c in word]

    def padded_length(self, n):
        """N = n + pad(n), pad(n) = sum_k pad[k] n^k, for a program model (n otherwise). Like the
        C++ (ProgramIo::padded_length): Horner's rule, ValueError if a step leaves 64 bits or pad(n) < 0."""
        if not self.program:
            return n
        limit = 2 ** 63 - 1
        v = 0
        for coefficient in reversed(self.program["pad"]):
            v = v * n + coefficient
            if v > limit or v < -limit:
                raise ValueError(f"the padding of a word of length {n} overflows")
        if v < 0:
            raise ValueError(f"the padding polynomial is negative at n = {n}")
        if v + n > limit:
            raise ValueError(f"the padded length of a word of length {n} overflows")
        return v + n

    def program_input(self, word):
        """The word the engine runs: a program model's word followed by pad(n) pad symbols; others as is."""
        if not self.program:
            return word
        at = word.find(self.program["pad_symbol"])
        if at >= 0:
            raise ValueError(f"symbol '{self.program['pad_symbol']}' at {at + 1} is the program's pad symbol, "
                             "not part of its input alphabet")
        return word + self.program["pad_symbol"] * (self.padded_length(len(word)) - len(word))

    def beta(self, n, schedule=None):
        """beta(n) = c (n+1)^a ln(n+1)^b (BetaSchedule::at), n the length of the word the engine runs
        (a program model's padded length N); schedule (a dict like config "beta") overrides the file's."""
        b = schedule or self.config["beta"]
        beta = b["c"]
        if b["a"] != 0:
            beta *= math.pow(n + 1, b["a"])
        if b["b"] != 0:
            beta *= math.pow(math.log(n + 1), b["b"])
        return beta


def position_features(config, n):
    """phi(j, n) for j = 0..n, as an (n+1) x F array (docs/model-format.md)."""
    j = np.arange(n + 1, dtype=np.float64)
    cols = []
    for name in config["position_features"]:
        if name == "one":
            cols.append(np.ones_like(j))
        elif name == "j/(n+1)":
            cols.append(j / (n + 1))
        elif name == "j":
            cols.append(j)
        elif name == "n":
            cols.append(np.full_like(j, n))
        elif name == "(j/(n+1))^2":
            cols.append((j / (n + 1)) ** 2)
        elif name == "j^2":
            cols.append(j * j)
        elif name == "1/(j+1)":
            cols.append(1.0 / (j + 1))
        elif name == "(-1)^j":
            cols.append(np.where(np.arange(n + 1) % 2 == 0, 1.0, -1.0))
        elif name.startswith("j mod "):
            m = int(name[len("j mod "):])
            for r in range(m):
                cols.append((np.arange(n + 1) % m == r).astype(np.float64))
        else:
            raise ValueError("unknown position feature " + name)
    return np.stack(cols, axis=1) if cols else np.zeros((n + 1, 0))


def visible(mask, n):
    """Boolean (n+1) x (n+1) matrix: may query i attend to key j? BOS always."""
    i = np.arange(n + 1)[:, None]
    j = np.arange(n + 1)[None, :]
    rule = {"none": np.ones((n + 1, n + 1), bool), "strict-future": j < i, "future": j <= i,
            "strict-past": j > i, "past": j >= i}[mask]
    return rule | (j == 0)


def numpy_forward(model, word, mode="softmax", beta=None):
    """The final residual stream, (n+1) x d; for a program model that of the padded word, (N+1) x d.
    beta: a schedule overriding the file's (like --beta), e.g. {"c": 16.0, "a": 0.0, "b": 0.0}."""
    c, t = model.config, model.tensors
    word = model.program_input(word)
    n = len(word)
    x = t["embed.weight"][model.tokens(word)] + position_features(c, n) @ t["pos_proj.weight"].T
    beta = model.beta(n, beta)
    for l, layer in enumerate(c["layers"]):
        delta = np.zeros_like(x)
        for h, head in enumerate(layer["heads"]):
            p = f"layers.{l}.attn.{h}."
            s = (x @ t[p + "q_proj.weight"].T) @ (x @ t[p + "k_proj.weight"].T).T
            v = x @ t[p + "v_proj.weight"].T
            vis = visible(head["mask"], n)
            s = np.where(vis, s, -np.inf)
            best = s.max(axis=1, keepdims=True)
            if mode == "softmax":
                w = np.exp(beta * s - beta * best)
                w /= w.sum(axis=1, keepdims=True)
            else:
                ties = s == best
                w = np.zeros_like(s)
                for i in range(n + 1):
                    idx = np.nonzero(ties[i])[0]
                    if head["hard"] == "rightmost":
                        w[i, idx[-1]] = 1.0
                    elif head["hard"] == "leftmost":
                        w[i, idx[0]] = 1.0
                    else:
                        w[i, idx] = 1.0 / len(idx)
            delta += (w @ v) @ t[p + "o_proj.weight"].T
        x = x + delta
        f = f"layers.{l}.ffn."
        hidden = np.maximum(x @ t[f + "fc1.weight"].T + t[f + "fc1.bias"], 0.0)
        x = x + hidden @ t[f + "fc2.weight"].T + t[f + "fc2.bias"]
    return x


def check_range_flags(model, states):
    """A program model's range flags (program_output in lib/model/forward.cc): ValueError, worded as
    the C++ error, if a flag coordinate is > 0.5 at a position t = 1..N (pad positions included; the
    first such t, then the first such flag, named as position t - 1). Nothing for other models."""
    if not model.program:
        return
    for t in range(1, states.shape[0]):
        for f in model.program["range_flags"]:
            if float(states[t, f["coordinate"]]) > 0.5:
                raise ValueError(f"position {t - 1}: {f['what']} (outside the range the compiled model is exact for)")


def decide(model, states):
    r = model.config["readout"]
    y = float(states[-1, r["coordinate"]])
    check_range_flags(model, states)
    return y, y >= r["threshold"]


def transduce(model, states):
    """A transducer's output (config "transducer"): per position 1..n the symbol
    of the largest listed coordinate (the first on a tie) if it is >= threshold,
    else the default. A program model's word is refused if a range flag is set
    (ValueError), and its output drops every pad symbol (the default included)."""
    t = model.config["transducer"]
    out = []
    for i in range(1, states.shape[0]):
        vals = [float(states[i, c]) for c in t["coordinates"]]
        best = max(range(len(vals)), key=lambda k: (vals[k], -k))
        outputs = t["strings"] if "strings" in t else t["symbols"]  # strings: program models with concat
        out.append(outputs[best] if vals[best] >= t["threshold"] else t["default"])
    out = "".join(out)
    if model.program:
        check_range_flags(model, states)
        out = out.replace(model.program["pad_symbol"], "")
    return out


def torch_module(model):
    """An nn.Module holding the weights under their file names (strict load)."""
    import torch
    from torch import nn

    c = model.config

    class Head(nn.Module):
        def __init__(self, d, hc):
            super().__init__()
            self.q_proj = nn.Linear(d, hc["d_head"], bias=False)
            self.k_proj = nn.Linear(d, hc["d_head"], bias=False)
            self.v_proj = nn.Linear(d, hc["d_value"], bias=False)
            self.o_proj = nn.Linear(hc["d_value"], d, bias=False)

    class Ffn(nn.Module):
        def __init__(self, d, hidden):
            super().__init__()
            self.fc1 = nn.Linear(d, hidden)
            self.fc2 = nn.Linear(hidden, d)

    class Layer(nn.Module):
        def __init__(self, d, lc):
            super().__init__()
            self.attn = nn.ModuleList([Head(d, hc) for hc in lc["heads"]])
            self.ffn = Ffn(d, lc["ffn_hidden"])

    class SofthatTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            d = c["d_model"]
            self.embed = nn.Embedding(len(c["alphabet"]) + 1, d)
            self.pos_proj = nn.Linear(sum(1 if not f.startswith("j mod ") else int(f[6:])
                                          for f in c["position_features"]), d, bias=False)
            self.layers = nn.ModuleList([Layer(d, lc) for lc in c["layers"]])

        def forward(self, tokens, n, mode="softmax", beta=None):
            """tokens: (B, n+1) long tensor, BOS first, of words as the engine runs them (a
            program model's padded: see run_word). Returns (B, n+1, d). beta: as numpy_forward's."""
            # In the module's dtype: module.float() runs a model in float32 (its
            # "float32" claim, model-format.md, says whether the verdicts survive).
            phi = torch.from_numpy(position_features(c, n)).to(self.pos_proj.weight.dtype)
            x = self.embed(tokens) + self.pos_proj(phi)[None]
            beta = model.beta(n, beta)
            for layer, lc in zip(self.layers, c["layers"]):
                delta = torch.zeros_like(x)
                for head, hc in zip(layer.attn, lc["heads"]):
                    s = head.q_proj(x) @ head.k_proj(x).transpose(1, 2)
                    vis = torch.from_numpy(visible(hc["mask"], n))[None]
                    s = s.masked_fill(~vis, float("-inf"))
                    if mode == "softmax":
                        w = torch.softmax(beta * s, dim=-1)
                    else:
                        best = s.max(dim=-1, keepdim=True).values
                        ties = (s == best).to(x.dtype)
                        if hc["hard"] == "average":
                            w = ties / ties.sum(dim=-1, keepdim=True)
                        else:
                            pos = torch.arange(n + 1, dtype=x.dtype)
                            key = ties * (pos if hc["hard"] == "rightmost" else (n + 1 - pos)) - (1 - ties)
                            w = torch.nn.functional.one_hot(key.argmax(dim=-1), n + 1).to(x.dtype)
                    delta = delta + head.o_proj(w @ head.v_proj(x))
                x = x + delta
                x = x + layer.ffn.fc2(torch.relu(layer.ffn.fc1(x)))
            return x

        def run_word(self, word, mode="softmax", beta=None):
            """One word's final residual stream, (n+1, d); a program model's word is padded first, (N+1, d)."""
            word = model.program_input(word)
            return self(torch.tensor([model.tokens(word)]), len(word), mode, beta)[0]

    module = SofthatTransformer().double()
    state = {k: torch.from_numpy(v.copy()) for k, v in model.tensors.items()}
    module.load_state_dict(state, strict=True)
    module.eval()
    return module
