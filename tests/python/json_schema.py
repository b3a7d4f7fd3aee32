#!/usr/bin/env python3
"""Every command's --json validates against docs/json-schema.json.

Runs list, show, check, analyze, explain, verify (also --model, shards and
merge), simulate, sweep and score with --json on stdout and with --json FILE,
on catalogue languages, formulas, star-free and non-star-free automata and
model files. Checks, for each document:
  - it validates against the schema, under the definition its "command" names;
  - on stdout it is the whole of stdout (one JSON document, no table);
  - with FILE, stdout holds the table and FILE the same document;
  - the exit status is the same as without --json.
Also checks a few values against the table they mirror, and that the schema
rejects documents with a wrong shape (so validation is not vacuous).

Needs Debian's python3-jsonschema; exits 77 (skipped) without it.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipped")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from failures import exit_status, fail  # noqa: E402


def run(cli, args, stdin=""):
    p = subprocess.run([cli] + args, input=stdin.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--mlregtest", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    with open(a.schema) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    commands = set()

    def validate(doc, what, command):
        if doc.get("command") != command:
            fail(f"{what}: command is {doc.get('command')!r}, expected {command!r}")
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            fail(f"{what}: does not validate: {errors[0].message[:300]} at {list(errors[0].path)}")
        # Validate against the command's own definition too: a oneOf that
        # matched another definition would hide a mistake.
        sub = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{command}"}
        own = list(jsonschema.Draft202012Validator(sub).iter_errors(doc))
        if own:
            fail(f"{what}: not a valid {command} document: {own[0].message[:300]}")
        commands.add(command)

    def check(args, command, expect_rc=0, stdin=""):
        """Runs `args` plain, with --json (stdout) and with --json FILE."""
        what = "softhat " + " ".join(args)
        rc_plain, table, _ = run(a.cli, args, stdin)
        if rc_plain != expect_rc:
            fail(f"{what}: exit {rc_plain}, expected {expect_rc}")
        rc, out, err = run(a.cli, args + ["--json"], stdin)
        if rc != rc_plain:
            fail(f"{what} --json: exit {rc}, without --json {rc_plain}: {err[:300]}")
        try:
            doc = json.loads(out)
        except json.JSONDecodeError as e:
            fail(f"{what} --json: stdout is not one JSON document ({e}): {out[:200]!r}")
            return None
        validate(doc, what + " --json", command)
        path = os.path.join(a.workdir, f"doc{len(commands)}_{command}.json")
        rc, out2, err = run(a.cli, args + [f"--json={path}"], stdin)
        if rc != rc_plain:
            fail(f"{what} --json=FILE: exit {rc}: {err[:300]}")
        if out2 != table:
            fail(f"{what} --json=FILE: stdout is not the table")
        with open(path) as f:
            doc2 = json.load(f)
        if command not in ("explain",) and doc2 != doc:
            fail(f"{what}: --json=FILE and --json on stdout differ")
        return doc

    cli = a.cli
    mlr = a.mlregtest
    star_free = os.path.join(mlr, "04.04.SF.0.0.3.att")
    not_star_free = os.path.join(mlr, "04.04.Zp.2.1.1.att")

    # list
    doc = check(["list"], "list")
    if doc:
        names = [l["name"] for l in doc["languages"]]
        _, table, _ = run(cli, ["list"])
        if len(names) != len(table.strip().splitlines()) - 1:
            fail(f"list --json has {len(names)} languages, the table {len(table.strip().splitlines()) - 1}")
        if "a-since-b" not in names:
            fail("list --json lacks a-since-b")

    # show: formula, checker, automaton (derived formula), not star-free
    doc = check(["show", "a-since-b", "dyck-2"], "show")
    if doc and doc["languages"][0]["formula"] is None:
        fail("show a-since-b --json: no formula")
    doc = check(["show", "--att", star_free], "show")
    if doc and "cascade" not in doc["languages"][0].get("derived", {}):
        fail("show --att (star-free) --json: no derived cascade")
    doc = check(["show", "--att", not_star_free], "show")
    if doc and "not_star_free" not in doc["languages"][0].get("derived", {}):
        fail("show --att (not star-free) --json: not said")

    # check
    doc = check(["check", "a-since-b", "no-aa", "--exhaustive", "6", "--lengths", "20", "--per-length", "10"], "check")
    if doc:
        total = sum(l["words"] for l in doc["languages"])
        if total != doc["words"] or not doc["ok"] or doc["disagreements"] != 0:
            fail(f"check --json totals: {doc['words']} words, ok {doc['ok']}")
    check(["check", "--formula", "a S b", "--alphabet", "ab", "--regex", "(a|b)*b", "--exhaustive", "4",
           "--lengths", "8", "--per-length", "5"], "check", expect_rc=1)

    # analyze: formula plan, automaton (cascade), not star-free, construction (no formula), counting
    doc = check(["analyze", "a-since-b"], "analyze")
    if doc:
        _, table, _ = run(cli, ["analyze", "a-since-b"])
        size = [l for l in table.splitlines() if l.startswith("size")][0]
        t = doc["transformer"]
        if f"{t['layers']} layers, {t['heads']} heads, width {t['width']}, {t['ffn_units']} FFN units" not in size:
            fail(f"analyze --json sizes {t['layers']}/{t['heads']}/{t['width']}/{t['ffn_units']} vs table '{size}'")
        if sum(len(l["heads"]) for l in t["plan"]) != t["heads"]:
            fail("analyze --json: the plan's heads do not add up")
    doc = check(["analyze", "--att", star_free], "analyze")
    if doc and not (doc.get("star_free") is True and doc["transformer"] and doc["dfa"]["star_free"]):
        fail("analyze --att (star-free) --json: not reported star-free with a plan")
    doc = check(["analyze", "--att", not_star_free], "analyze")
    if doc and not (doc.get("star_free") is False and doc["transformer"] is None and "witness" in doc["dfa"]):
        fail("analyze --att (not star-free) --json: no witness")
    check(["analyze", "dyck-2"], "analyze")
    check(["analyze", "majority"], "analyze")

    # explain
    doc = check(["explain", "a-since-b", "abba"], "explain")
    if doc:
        if doc["n"] != 4 or not doc["heads"] or len(doc["heads"][0]["weights"]) != 5:
            fail("explain --json: expected 5x5 weight matrices for n = 4")
        for h in doc["heads"]:
            for row in h["weights"]:
                if abs(sum(row) - 1) > 1e-9 and sum(row) != 0:
                    fail(f"explain --json: a row of weights sums to {sum(row)}")
                    break

    # verify, verify --model, shards and merge
    base = ["--exhaustive", "5", "--lengths", "20", "--per-length", "8"]
    doc = check(["verify", "a-since-b"] + base, "verify")
    model = os.path.join(a.workdir, "wrong.safetensors")
    rc, _, err = run(cli, ["compile", "--formula", "a S (b & Y a)", "--alphabet", "abc", "-o", model])
    if rc != 0:
        fail(f"compile: {err}")
    doc = check(["verify", "a-since-b", "--model", model] + base, "verify", expect_rc=1)
    if doc:
        l = doc["languages"][0]
        if doc.get("model") != model or l["disagreements"] == 0 or "shortest_disagreement" not in l:
            fail("verify --model (a wrong model) --json: no disagreement recorded")
    shards = []
    for k in range(2):
        path = os.path.join(a.workdir, f"shard{k}.json")
        rc, _, err = run(cli, ["verify", "a-since-b", "no-aa", "--shard", f"{k}/2", f"--json={path}"] + base)
        if rc != 0:
            fail(f"verify --shard: {err}")
        with open(path) as f:
            validate(json.load(f), f"verify --shard {k}/2", "verify")
        shards.append(path)
    rc, out, err = run(cli, ["merge"] + shards + ["--json"])
    if rc != 0:
        fail(f"merge --json: {err}")
    else:
        validate(json.loads(out), "merge --json", "verify")

    # simulate, sweep
    check(["simulate", "a-since-b", "--lengths", "0-4,8", "--per-length", "5"], "simulate")
    check(["simulate", "--model", model, "--lengths", "0-3"], "simulate")
    check(["sweep", "a-since-b", "--lengths", "8,16", "--per-length", "4"], "sweep")

    # score: a generated corpus, scored with a wrong model and with predictions
    corpus = os.path.join(a.workdir, "corpus")
    rc, _, err = run(cli, ["generate", "a-since-b", "--split", "train:2-6", "--split", "test:8-10",
                           "--per-length", "6", "--out", corpus])
    if rc != 0:
        fail(f"generate: {err}")
    doc = check(["score", corpus, "--model", model], "score")
    if doc:
        s = sum(v["words"] for v in doc["splits"].values())
        if s != doc["overall"]["words"] or doc["overall"]["words"] != 5 * 6 + 3 * 6:
            fail(f"score --json: {doc['overall']['words']} words overall, splits sum to {s}")
        if set(doc["splits"]) != {"train", "test"}:
            fail(f"score --json: splits {sorted(doc['splits'])}")

    # The schema is not vacuous: wrong shapes are rejected.
    for bad in ({"command": "score", "overall": {"words": 1, "correct": 2, "accuracy": 2.0}, "macro_accuracy": 1,
                 "splits": {}},
                {"command": "list", "languages": [{"name": "x"}]},
                {"command": "verify", "seed": 1, "pe": "bounded", "mode": "softmax", "precision": "double",
                 "languages": [{"language": "x", "words": 3}]},
                {"command": "nonsense"}):
        if validator.is_valid(bad):
            fail(f"the schema accepts a wrong document: {bad}")

    missing = {"list", "show", "check", "analyze", "explain", "verify", "simulate", "sweep", "score"} - commands
    if missing:
        fail(f"commands never validated: {sorted(missing)}")
    return exit_status(f"every --json document validates ({len(commands)} commands)")


if __name__ == "__main__":
    sys.exit(main())
