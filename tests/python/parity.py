#!/usr/bin/env python3
"""Parity: the C++ engine, the numpy reference and the PyTorch module give the
same outputs on the same model files and words.

usage: parity.py --cli SOFTHAT --make-models TOOL --workdir DIR --backend numpy|torch
Compares, per word, the final residual vector at position n (C++ `run
--format jsonl --emit-state`) with the Python forward pass, in softmax and in
hard mode; fails if the max abs difference exceeds 1e-9 or a decision
differs. Words are Python strs over the model's alphabet (one code point per
symbol), sent as UTF-8; the random and compiled models include non-ASCII
alphabets.

Program models (`softhat rasp compile` of examples/srasp/PROGRAMS) are checked
on every word of length <= 3 over the program's input alphabet and a few
longer random words: the final vector at position N (the padded length), the
output (pad symbols dropped) and beta(N) against `run --model`, and in hard
mode the output against the exact AHAT too (`transduce --program --mode
hard`). One range-flag refusal (square at a constant --beta 16, whose softmax
noise sets the isSt key flag; no example program sets a flag at its own
schedule or in hard mode) must be refused with the C++ error message.
Exits 77 (skipped, with the reason printed) only when the backend's package
is not installed.
"""
import argparse
import itertools
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

TOL = 1e-9
UTF8 = {"text": True, "encoding": "utf-8"}  # whatever the locale
UNICODE_FORMULAS = [("'á' S b", "aáb"), ("(a | 'ǎ') & Y 'é' | #'é' > #a", "aǎéè"), ("O 'ó' -> X '中'", "xó中")]
SRASP_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "srasp")
# Example programs and words of their own beyond the exhaustive and random ones.
PROGRAMS = {"rotate": [], "reverse": [], "compact": ["aaaa", "bacaab"], "square": ["abcab"],
            "mapdup": ["ab|cde", "|a||bc|", "abcde"],  # concat: the readout lists strings
            "dyck2": ["([])[]", "(([]))[]()", "([)]", "[[[]]]("]}
# A word set the compiled model refuses: (program, constant beta, words).
REFUSAL = ("square", 16.0, ["aaa", "abc", "ab", "cab"])


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
                states = forward(sm, model, module, word, mode)
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
    if args.backend == "torch":
        f_passed, f_failed, f_models = check_float32(args, sm, catalogue, random.Random(77))
        print(f"torch float32: {f_models} catalogue models compiled with a float32 claim, module.float() verdicts: "
              f"{f_passed} equal the engine's double verdicts, {f_failed} differ")
        passed, failed = passed + f_passed, failed + f_failed
    p_passed, p_failed, p_worst = check_programs(args, sm, random.Random(2121))
    print(f"{args.backend} parity: {len(PROGRAMS)} program models, worst max abs difference {p_worst:.3e}, "
          f"{p_passed} passed, {p_failed} failed")
    passed, failed = passed + p_passed, failed + p_failed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def check_float32(args, sm, catalogue, rng):
    """compile --float32: every catalogue model that claims float32 gives, as a float32 PyTorch
    module, the engine's double verdict (transducers: output) on words up to the claimed length."""
    import torch
    passed = failed = models = 0
    for name in sorted({name for name, _ in catalogue.values()}):
        path = os.path.join(args.workdir, f"{name}-float32.safetensors")
        c = subprocess.run([args.cli, "compile", name, "--float32", "-o", path], capture_output=True, **UTF8)
        if c.returncode != 0:
            failed += 1
            print(f"FAIL {name}: compile --float32 exited {c.returncode}: {c.stderr.strip()}")
            continue
        model = sm.Model(path)
        claim = model.config.get("float32")
        if claim is None:
            failed += 1
            print(f"FAIL {name}: compile --float32 succeeded but the file has no float32 claim")
            continue
        models += 1
        module = sm.torch_module(model).float()
        words = [""] + ["".join(rng.choice(model.alphabet) for _ in range(rng.choice([1, 3, 8, 20, 64, claim["max_length"]])))
                        for _ in range(10)]
        records = run_jsonl([args.cli, "run", "--model", path, "--format", "jsonl"], words)
        for word, rec in zip(words, records):
            with torch.no_grad():
                states = module.run_word(word).double().numpy()
            if "transducer" in model.config:
                got, wanted = sm.transduce(model, states), rec["output"]
            else:
                got, wanted = sm.decide(model, states)[1], rec["accepted"]
            if got == wanted:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {name} float32 word={word!r}: engine (double) {wanted!r}, torch float32 {got!r}")
    return passed, failed, models


def forward(sm, model, module, word, mode, beta=None):
    """The final residual stream of the word as the engine runs it (a program model's padded)."""
    if module is None:
        return sm.numpy_forward(model, word, mode, beta)
    import torch
    with torch.no_grad():
        return module.run_word(word, mode, beta).numpy()


def program_result(sm, model, module, word, mode, beta=None):
    """(states, output) or (None, the refusal's message), as the C++ JSONL line has them."""
    states = forward(sm, model, module, word, mode, beta)
    try:
        return states, sm.transduce(model, states)
    except ValueError as e:
        return None, str(e)


def run_jsonl(command, words):
    out = subprocess.run(command, input="\n".join(words) + "\n", capture_output=True, **UTF8)
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(records) == len(words) and [r["word"] for r in records] == words, (command, out.stderr)
    return records


def check_programs(args, sm, rng):
    """The program models: compiled S-RASP examples, padded and post-processed like the engine."""
    import numpy as np
    passed = failed = 0
    worst = 0.0
    models = {}
    for name in dict.fromkeys(list(PROGRAMS) + [REFUSAL[0]]):
        source = os.path.join(SRASP_DIR, name + ".srasp")
        path = os.path.join(args.workdir, f"program-{name}.safetensors")
        subprocess.run([args.cli, "rasp", "compile", source, "-o", path], capture_output=True, check=True, **UTF8)
        model = sm.Model(path)
        models[name] = (source, path, model, sm.torch_module(model) if args.backend == "torch" else None)
    for name, extra in PROGRAMS.items():
        source, path, model, module = models[name]
        alphabet = model.alphabet.replace(model.program["pad_symbol"], "")  # the program's input alphabet
        lengths = [3, 4, 5, 6] if any(model.program["pad"]) else [4, 5, 8, 13, 20, 40]  # square: N = n^2
        words = ["".join(t) for n in range(4) for t in itertools.product(alphabet, repeat=n)] + extra
        words += ["".join(rng.choice(alphabet) for _ in range(rng.choice(lengths))) for _ in range(8)]
        for mode in ("softmax", "hard"):
            records = run_jsonl([args.cli, "run", "--model", path, "--format", "jsonl", "--emit-state", "--mode", mode],
                                words)
            exact = run_jsonl([args.cli, "transduce", "--program", source, "--mode", "hard", "--format", "jsonl"],
                              words) if mode == "hard" else [None] * len(words)
            for word, rec, ahat in zip(words, records, exact):
                states, output = program_result(sm, model, module, word, mode)
                wanted = rec.get("output", rec.get("error"))
                beta = model.beta(model.padded_length(len(word)))
                problems = []
                if output != wanted:
                    problems.append(f"output C++={wanted!r} {args.backend}={output!r}")
                diff = 0.0
                if states is None or "state" not in rec:
                    problems.append("refused")  # no example program refuses a word at its own schedule
                else:
                    diff = float(np.max(np.abs(states[-1] - np.array(rec["state"]))))
                    if diff > TOL:
                        problems.append(f"max abs diff {diff:.3e}")
                if "beta" in rec and abs(beta - rec["beta"]) > 1e-12 * max(1.0, abs(beta)):
                    problems.append(f"beta(N) C++={rec['beta']!r} {args.backend}={beta!r}")
                if ahat is not None and ahat.get("output", ahat.get("error")) != output:
                    problems.append(f"exact AHAT output {ahat.get('output', ahat.get('error'))!r}")
                worst = max(worst, diff)
                if problems:
                    failed += 1
                    print(f"FAIL program {name} {mode} word={word!r}: {'; '.join(problems)}")
                else:
                    passed += 1
    # A refusal: softmax at a constant beta far below the schedule sets a range flag.
    name, c, words = REFUSAL
    source, path, model, module = models[name]
    records = run_jsonl([args.cli, "transduce", "--program", source, "--beta", repr(c), "--format", "jsonl"], words)
    refused = 0
    for word, rec in zip(words, records):
        states, output = program_result(sm, model, module, word, "softmax", {"c": c, "a": 0.0, "b": 0.0})
        wanted = rec.get("output", rec.get("error"))
        refused += "error" in rec
        if output == wanted and (states is None) == ("error" in rec):
            passed += 1
        else:
            failed += 1
            print(f"FAIL program {name} --beta {c} word={word!r}: C++={wanted!r} {args.backend}={output!r}")
    if not refused:
        failed += 1
        print(f"FAIL program {name} --beta {c}: C++ refuses none of {words}; the refusal case needs another word")
    return passed, failed, worst


if __name__ == "__main__":
    sys.exit(main())
