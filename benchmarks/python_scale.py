#!/usr/bin/python3
"""Throughput of the Python runners of softhat model files on a word list.

For each model: the PyTorch module (python/softhat_model.py torch_module, float64
weights as in the file, torch.no_grad(), --torch-threads intra-op threads) on every
word of --words, batched as a PyTorch user would (words grouped by length, up to
--batch words of one length per forward call); only the forward calls are timed
(best of 2 runs if one run takes under 5 s; batches in a seeded random order,
and for wide models only as many as fit in --seconds, the rate from those).
Then the numpy reference (numpy_forward, one word at a time) on the first
--numpy-words words, or as many as fit in --seconds. Symbols are
input symbols (a program model's pad symbols are not counted, though they are run).
torch_agrees: the fraction of the numpy-timed words on which decide() gives the same
verdict for the torch and the numpy stream (null for transducers). Prints one JSON
object per model (JSONL). Run with /usr/bin/python3 (numpy and torch).
"""
import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import softhat_model as sm  # noqa: E402
import torch  # noqa: E402


def read_words(path):
    """One word per line; the first TAB-separated column of a TSV."""
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\r\n").split("\t")[0] for line in f if line.strip("\r\n")]


def verdict(model, states):
    """decide()'s verdict, or "refused" when a program model's range flag is set."""
    try:
        return sm.decide(model, states)[1]
    except ValueError:
        return "refused"


def bench(path, words, args):
    model = sm.Model(path)
    module = sm.torch_module(model)
    transducer = "transducer" in model.config
    check = set(range(min(args.numpy_words, len(words))))

    # Batches of up to --batch words of one (run) length, built before timing.
    by_length = defaultdict(list)
    for i, w in enumerate(words):
        by_length[len(model.program_input(w))].append(i)
    batches = []
    for n, idx in sorted(by_length.items()):
        for b in range(0, len(idx), args.batch):
            part = idx[b:b + args.batch]
            tokens = torch.tensor([model.tokens(model.program_input(words[i])) for i in part])
            batches.append((n, part, tokens))

    random.Random(0).shuffle(batches)  # a partial run then samples every length
    torch_verdicts, best, timed = {}, None, None
    with torch.no_grad():
        for run in range(2):
            elapsed, done = 0.0, []
            for n, part, tokens in batches:
                if elapsed >= args.seconds:
                    break
                start = time.perf_counter()
                out = module(tokens, n)
                elapsed += time.perf_counter() - start
                done.append(part)
                if run == 0 and not transducer:  # untimed: verdicts of the checked words
                    for row, i in enumerate(part):
                        if i in check:
                            torch_verdicts[i] = verdict(model, out[row].numpy())
            if best is None or elapsed < best:
                best, timed = elapsed, done
            if elapsed >= 5.0:
                break
    timed_words = [i for part in timed for i in part]
    if not transducer:
        check &= set(torch_verdicts)  # numpy checks words torch ran

    numpy_verdicts, numpy_symbols, numpy_done = {}, 0, []
    start = time.perf_counter()
    for i in sorted(check):
        if numpy_done and time.perf_counter() - start >= args.seconds:
            break
        states = sm.numpy_forward(model, words[i])
        numpy_symbols += len(words[i])
        numpy_done.append(i)
        if not transducer:
            numpy_verdicts[i] = verdict(model, states)
    numpy_seconds = time.perf_counter() - start  # includes the (cheap) readout

    symbols = sum(len(words[i]) for i in timed_words)
    agrees = None
    if not transducer and numpy_done:
        agrees = sum(torch_verdicts[i] == numpy_verdicts[i] for i in numpy_done) / len(numpy_done)
    return {
        "model": os.path.splitext(os.path.basename(path))[0],
        "torch_symbols_per_second": symbols / best,
        "torch_words_per_second": len(timed_words) / best,
        "torch_batch": args.batch,
        "torch_threads": torch.get_num_threads(),
        "numpy_symbols_per_second": numpy_symbols / numpy_seconds if numpy_seconds > 0 else None,
        "numpy_words": len(numpy_done),
        "words": len(timed_words),
        "symbols": symbols,
        "nonzero_weights": int(sum((t != 0).sum() for t in model.tensors.values())),
        "total_weights": int(sum(t.size for t in model.tensors.values())),
        "torch_agrees": agrees,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", metavar="MODEL.safetensors")
    ap.add_argument("--words", required=True,
                    help="one word per line (first column of a TSV); a folder: DIR/<model stem>.words per model")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--numpy-words", type=int, default=200)
    ap.add_argument("--torch-threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10.0, help="time budget per runner and model")
    args = ap.parse_args()
    torch.set_num_threads(args.torch_threads)
    for path in args.models:
        stem = os.path.splitext(os.path.basename(path))[0]
        words = read_words(os.path.join(args.words, stem + ".words") if os.path.isdir(args.words) else args.words)
        print(json.dumps(bench(path, words, args)), flush=True)


if __name__ == "__main__":
    main()
