#!/usr/bin/env python3
"""Parity: the C++ engine, the numpy reference and the PyTorch module give the
same outputs on the same model files and words.

usage: parity.py --cli SOFTHAT --make-models TOOL --workdir DIR --backend numpy|torch
Compares, per word, the final residual vector at position n (C++ `run
--format jsonl --emit-state`) with the Python forward pass, in softmax and in
hard mode; fails if the max abs difference exceeds 1e-9 or a decision
differs. Words are Python strs over the model's alphabet (one code point per
symbol), sent as UTF-8; the random and compiled models include non-ASCII
alphabets. Exits 77 (skipped, with the reason printed) only when the backend's
package is not installed.
"""
import argparse
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

TOL = 1e-9
UTF8 = {"text": True, "encoding": "utf-8"}  # whatever the locale
UNICODE_FORMULAS = [("'á' S b", "aáb"), ("(a | 'ǎ') & Y 'é' | #'é' > #a", "aǎéè"), ("O 'ó' -> X '中'", "xó中")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--make-models", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--backend", choices=["numpy", "torch"], required=True)
    ap.add_argument("--models", type=int, default=24)
    ap.add_argument("--extra-model", action="append", default=[], help="also check these model files")
    args = ap.parse_args()
    try:
        import numpy as np  # noqa: F401
        if args.backend == "torch":
            import torch
            torch.set_num_threads(1)
    except ImportError as e:
        print(f"SKIP: {args.backend} backend not available ({e}); install python3-numpy / python3-torch")
        return 77
    import softhat_model as sm

    os.makedirs(args.workdir, exist_ok=True)
    subprocess.run([args.make_models, args.workdir, str(args.models), "7"], check=True)
    paths = [os.path.join(args.workdir, f"random_{k}.safetensors") for k in range(args.models)]
    paths += [os.path.join(args.workdir, f"unicode_{k}.safetensors") for k in range(3)]
    paths += args.extra_model
    # Every compilable catalogue language, in both position-embedding modes.
    catalogue = {}
    listing = subprocess.run([args.cli, "list"], capture_output=True, check=True, **UTF8).stdout.splitlines()[1:]
    for name in (line.split()[0] for line in listing):
        for pe in ("bounded", "unbounded"):
            path = os.path.join(args.workdir, f"{name}-{pe}.safetensors")
            c = subprocess.run([args.cli, "compile", name, "--pe", pe, "-o", path], capture_output=True, **UTF8)
            if c.returncode == 0:
                catalogue[path] = (name, pe)
    paths += list(catalogue)
    # Compiled formulas over non-ASCII alphabets (MLRegTest's vowels with accents).
    for k, (formula, alphabet) in enumerate(UNICODE_FORMULAS):
        path = os.path.join(args.workdir, f"unicode-formula-{k}.safetensors")
        subprocess.run([args.cli, "compile", "--formula", formula, "--alphabet", alphabet, "-o", path],
                       capture_output=True, check=True, **UTF8)
        paths.append(path)
    rng = random.Random(1234)
    passed = failed = 0
    worst = 0.0
    for path in paths:
        model = sm.Model(path)
        words = [""] + ["".join(rng.choice(model.alphabet) for _ in range(rng.choice([1, 2, 3, 5, 8, 13, 40, 120])))
                        for _ in range(12)]
        module = sm.torch_module(model) if args.backend == "torch" else None
        for mode in ("softmax", "hard"):
            out = subprocess.run([args.cli, "run", "--model", path, "--format", "jsonl", "--emit-state",
                                  "--mode", mode], input="\n".join(words) + "\n", capture_output=True, **UTF8)
            if out.returncode != 0:
                print(f"FAIL {path} {mode}: softhat run exited {out.returncode}: {out.stderr.strip()}")
                failed += 1
                continue
            records = [json.loads(line) for line in out.stdout.splitlines()]
            assert len(records) == len(words), (len(records), len(words))
            assert [r["word"] for r in records] == words, "run echoed other words"
            if path in catalogue and mode == "softmax":
                name, pe = catalogue[path]
                cls = subprocess.run([args.cli, "classify", name, "--pe", pe], input="\n".join(words) + "\n",
                                     capture_output=True, check=True, **UTF8)
                if "transducer" in model.config:
                    verdicts = [line.split("\t")[1] for line in cls.stdout.splitlines()]
                    expected = [r["output"] for r in records]
                else:
                    verdicts = [line.split("\t")[1] == "TRUE" for line in cls.stdout.splitlines()]
                    expected = [r["accepted"] for r in records]
                if verdicts != expected:
                    failed += 1
                    print(f"FAIL {name} ({pe}): classify and run --model disagree")
            for word, rec in zip(words, records):
                if args.backend == "numpy":
                    states = sm.numpy_forward(model, word, mode)
                else:
                    import torch
                    tokens = torch.tensor([model.tokens(word)])
                    with torch.no_grad():
                        states = module(tokens, len(word), mode)[0].numpy()
                if "transducer" in model.config:
                    accepted, wanted = sm.transduce(model, states), rec["output"]
                else:
                    accepted, wanted = sm.decide(model, states)[1], rec["accepted"]
                diff = float(np.max(np.abs(states[-1] - np.array(rec["state"]))))
                worst = max(worst, diff)
                if diff <= TOL and accepted == wanted:
                    passed += 1
                else:
                    failed += 1
                    print(f"FAIL {os.path.basename(path)} {mode} word={word!r}: max abs diff {diff:.3e}, "
                          f"verdict C++={wanted} {args.backend}={accepted}")
    print(f"{args.backend} parity: {len(paths)} models ({len(catalogue)} compiled catalogue models), worst max abs difference {worst:.3e} (tolerance {TOL})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
