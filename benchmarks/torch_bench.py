#!/usr/bin/env python3
"""The PyTorch module on a softhat model file: words/second at n = 64 and
n = 1024 (batched as a PyTorch user would: 64 words of one length per
forward call) and the time for one word of length --long. Attention for the
long word is computed in query chunks, since the full (n+1)^2 score matrix of
n = 100,000 does not fit in memory. Prints one JSON object."""
import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import softhat_model as sm  # noqa: E402
import torch  # noqa: E402


def chunked_forward(model, module, tokens, n, chunk):
    """The module's forward pass with attention computed `chunk` query rows at a time."""
    c = model.config
    phi = torch.from_numpy(sm.position_features(c, n))
    x = module.embed(tokens) + module.pos_proj(phi)[None]
    beta = model.beta(n)
    pos = torch.arange(n + 1)
    for layer, lc in zip(module.layers, c["layers"]):
        delta = torch.zeros_like(x)
        for head, hc in zip(layer.attn, lc["heads"]):
            q, k, v = head.q_proj(x), head.k_proj(x), head.v_proj(x)
            out = torch.empty(x.shape[0], n + 1, v.shape[-1], dtype=x.dtype)
            for i0 in range(0, n + 1, chunk):
                i = pos[i0:i0 + chunk, None]
                j = pos[None, :]
                vis = {"none": torch.ones_like(j - i, dtype=torch.bool), "strict-future": j < i,
                       "future": j <= i, "strict-past": j > i, "past": j >= i}[hc["mask"]] | (j == 0)
                s = (q[:, i0:i0 + chunk] @ k.transpose(1, 2)).masked_fill(~vis[None], float("-inf"))
                out[:, i0:i0 + chunk] = torch.softmax(beta * s, dim=-1) @ v
            delta = delta + head.o_proj(out)
        x = x + delta
        x = x + layer.ffn.fc2(torch.relu(layer.ffn.fc1(x)))
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--long", type=int, default=100000)
    ap.add_argument("--chunk", type=int, default=512)
    args = ap.parse_args()
    model = sm.Model(args.model)
    module = sm.torch_module(model)
    rng = random.Random(1)
    result = {"torch_threads": torch.get_num_threads()}
    with torch.no_grad():
        for n in (64, 1024):
            batch = torch.tensor([model.tokens("".join(rng.choice(model.alphabet) for _ in range(n)))
                                  for _ in range(64)])
            done, start = 0, time.perf_counter()
            while time.perf_counter() - start < 1.0:
                module(batch, n)
                done += batch.shape[0]
            result[f"words_per_second_n{n}"] = done / (time.perf_counter() - start)
        word = "".join(rng.choice(model.alphabet) for _ in range(args.long))
        start = time.perf_counter()
        chunked_forward(model, module, torch.tensor([model.tokens(word)]), args.long, args.chunk)
        result["long_n"] = args.long
        result["long_seconds"] = time.perf_counter() - start
    print(json.dumps(result))


if __name__ == "__main__":
    main()
