#!/usr/bin/env python3
"""The bad-input matrix (issue 10; docs/errors.md lists every case).

Runs the softhat binary on malformed, pathological and hostile input and
checks, per case: the exit status, a clear message naming what and where,
that no partial output file is left, and for streams that every good line
is still processed in order. Then checks that docs/errors.md lists exactly
these cases with the messages observed (so the page stays true).

  matrix.py SOFTHAT DOCS_ERRORS_MD [--update]
"""
import hashlib
import os
import re
import signal
import shutil
import struct
import subprocess
import sys
import tempfile
import time

SOFTHAT, DOCS = sys.argv[1], sys.argv[2]
UPDATE = "--update" in sys.argv
TMP = tempfile.mkdtemp(prefix="softhat-matrix-")
results = []  # (id, area, case, command, status, message)
failures = []


def run(args, stdin=b"", timeout=600):
    p = subprocess.run([SOFTHAT] + args, input=stdin, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def shown(args):
    out = []
    for a in args:
        a = a.replace(TMP, "$TMP")
        if len(a) > 40:
            a = a[:24] + f"...({len(a)} bytes)"
        out.append(a if re.fullmatch(r"[\w./$=:,+*-]+", a) else "'" + a + "'")
    return "softhat " + " ".join(out)


def case(cid, area, title, args, status, message, stdin=b"", out_lines=None, no_files=(), command=None, record=None):
    """Run one case. `message`: a regex the stderr (or the error record) must match."""
    code, out, err = run(args, stdin)
    text = err if record is None else record(out)
    ok = True
    why = []
    if code != status:
        ok = False
        why.append(f"exit {code}, expected {status}")
    if not re.search(message, text):
        ok = False
        why.append(f"message {text!r} does not match {message!r}")
    if out_lines is not None:
        got = out.decode("utf-8", "replace").splitlines()
        if got != out_lines:
            ok = False
            why.append(f"stdout lines {[l[:80] for l in got]} != {[l[:80] for l in out_lines]}")
    for f in no_files:
        if os.path.exists(f):
            ok = False
            why.append(f"{f} exists (partial output)")
    leftovers = [n for n in os.listdir(TMP) if ".tmp." in n]
    if leftovers:
        ok = False
        why.append(f"temporary files left: {leftovers}")
    first = text.strip().splitlines()[0] if text.strip() else "(none)"
    results.append((cid, area, title, command or shown(args), code, first.replace(TMP, "$TMP")))
    if not ok:
        failures.append((cid, title, why))
    print(("ok   " if ok else "FAIL ") + f"{cid:>2} {title}" + ("" if ok else f": {'; '.join(why)}"), flush=True)


def path(name):
    return os.path.join(TMP, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path(name)


def catalog(name, text):
    d = path(name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "lang.toml"), "w", encoding="utf-8") as f:
        f.write(text)
    return d


def tsv_error(out):
    for line in out.decode("utf-8", "replace").splitlines():
        if "\tERROR\t" in line:
            return line.split("\tERROR\t", 1)[1]
    return ""


# ---------------------------------------------------------------- formulas
A = ["analyze", "--alphabet", "ab", "--formula"]
case(1, "formula", "unbalanced parenthesis", A + ["(a & b"], 2, r"expected '\)' at 6 to close the '\(' at 0")
case(2, "formula", "10^5 nested Y (nesting limit)", A + ["Y" * 100000 + "a"], 2, r"nests deeper than 1000 levels at 1000",
     command="softhat analyze --alphabet ab --formula 'YYYY…Ya' (100,000 Y)")
deep = catalog("deep", 'name = "deep"\nalphabet = "ab"\nclass = "star-free"\ndescription = "x"\nreference = "x"\n'
               'formula = "' + "(" * 100000 + "a" + ")" * 100000 + '"\n')
case(3, "formula", "10^5 nested parentheses in a catalogue file", ["--catalog", deep, "analyze", "deep"], 2,
     r"lang\.toml.*nests deeper than 1000 levels")
big = catalog("big", 'name = "big"\nalphabet = "ab"\nclass = "star-free"\ndescription = "x"\nreference = "x"\n'
              'formula = "' + "a|" * (5 * 1024 * 1024) + 'a"\n')
case(4, "formula", "a 10 MB formula (size limit)", ["--catalog", big, "analyze", "big"], 2,
     r"the formula has 10485761 bytes, more than the limit of 1048576 bytes")
case(5, "formula", "symbol outside the alphabet", A + ["a & z"], 2, r"symbol 'z' at 4 is not in the alphabet \{a,b\}")
case(6, "formula", "digit as a letter not in the alphabet", ["analyze", "--alphabet", "01", "--formula", "#1 > 1 & 2"], 2,
     r"symbol '2' at 9 is not in the alphabet \{0,1\}")
case(7, "formula", "integer too large for a count", A + ["#a > 99999999999"], 2, r"integer 99999999999 at 5 is too large")
case(8, "formula", "empty formula", A + [""], 2, r"empty formula, expected a formula")
case(9, "formula", "a multi-letter word", A + ["ab"], 2, r"ab at 0: did you mean a & b\?")
case(10, "formula", "operator without operand", A + ["a S"], 2, r"unexpected end of input at 3, expected a formula")
case(11, "formula", "alphabet with a repeated symbol", ["analyze", "--alphabet", "aab", "--formula", "a"], 2,
     r"alphabet repeats 'a' at 1")
case(12, "formula", "DFA over the state limit", ["--max-states", "100", "generate", "--alphabet", "ab", "--formula",
                                                  "Y Y Y Y Y Y Y Y Y Y a", "--lengths", "1-2"], 2,
     r"the DFA exceeds 100 states; raise --max-states")
case(47, "formula", "a 11,110-state cycle: the monoid budget (analyze goes on)", A + ["mod(11110,21)"], 0,
     r"monoid       not computed: the transition monoid needs more than 200000000 state steps",
     record=lambda out: next((l for l in out.decode().splitlines() if l.startswith("monoid")), ""))
case(50, "formula", "a bare non-ASCII symbol (write it quoted)", ["analyze", "--alphabet", "a\u00e1b", "--formula",
     "\u00e1 S b"], 2, r"unexpected '\u00e1' at 0: symbols other than lowercase ASCII letters and digits are written "
     r"quoted, as '\u00e1'")
case(51, "formula", "invalid UTF-8 in a formula", A + ["a & \udcff"], 2, r"invalid UTF-8 at 4 \(byte 0xff\)",
     command="softhat analyze --alphabet ab --formula $'a & \\xff'")
case(52, "formula", "a combining mark in the alphabet (no normalization)",
     ["analyze", "--alphabet", "ba\u0301", "--formula", "b"], 2,
     r"alphabet symbol U\+0301 at 2 is a combining mark, not a printable symbol")
case(53, "formula", "an alphabet that is not UTF-8", ["analyze", "--alphabet", "a\udcff", "--formula", "a"], 2,
     r"alphabet has invalid UTF-8 at byte 1 \(0xff\)", command="softhat analyze --alphabet $'a\\xff' --formula a")
# ---------------------------------------------------------------- regexes
case(13, "regex", "invalid RE2 regex", ["verify", "--formula", "O a", "--alphabet", "ab", "--regex", "[ab"], 2,
     r"regex.*missing \]")
# ---------------------------------------------------------------- automata (--att) and regex-only languages
def att(name, data):
    return write(name, data)


V = ["verify", "--att"]
case(70, "automata", "nondeterministic .att (two arcs on one label)", V + [att("nd.att", "0\t1\ta\ta\n0\t2\ta\ta\n1\n2\n")], 2,
     r"nd\.att:2: nondeterministic: state 0 has two arcs on 'a', to 1 \(line 1\) and to 2")
case(71, "automata", "an epsilon arc", V + [att("eps.att", "0\t1\t<eps>\t<eps>\n1\n")], 2,
     r"eps\.att:1: an epsilon arc \('<eps>'\)")
case(72, "automata", "a transducer (in != out)", V + [att("fst.att", "0\t1\ta\tb\n1\n")], 2,
     r"fst\.att:1: input 'a' and output 'b' differ: a transducer, not an acceptor")
case(73, "automata", "a weight that is not a number", V + [att("w.att", "0\t1\ta\ta\n1\tone\n")], 2,
     r"w\.att:2: weight 'one' is not a \(finite\) number")
case(74, "automata", "an empty file", V + [att("empty.att", "")], 2,
     r"empty\.att: an empty automaton \(no arcs and no final states\)")
case(75, "automata", "more states than --max-states", ["--max-states", "2"] + V + [att("big.att", "0\t1\ta\ta\n1\t2\ta\ta\n2\n")],
     2, r"big\.att:2: the automaton has more than 2 states; raise --max-states")
case(76, "automata", "a symbol outside --alphabet", V + [att("c.att", "0\t1\tc\tc\n1\n"), "--alphabet", "ab"], 2,
     r"c\.att:1: symbol 'c' is not in the alphabet \{a,b\}")
case(77, "automata", "a symbol of two code points", V + [att("two.att", "0\t1\tab\tab\n1\n")], 2,
     r"two\.att:1: symbol 'ab' is more than one code point")
case(78, "automata", "a line with six fields", V + [att("six.att", "0\t1\ta\ta\t0\t0\n1\n")], 2,
     r"six\.att:1: 6 fields; expected 'src dst in out \[weight\]', 'src dst label' or 'state \[weight\]'")
case(79, "automata", "a state that is not an integer", V + [att("q.att", "0\t1\ta\ta\nq1\n")], 2,
     r"q\.att:2: 'q1' is not a state number \(a non-negative integer\)")
case(80, "automata", "a symbol that is not UTF-8", V + [att("utf.att", b"0\t1\t\xff\t\xff\n1\n")], 2,
     r"utf\.att:1: symbol bytes 0xff are not valid UTF-8")
case(81, "automata", "final states and no arcs, no --alphabet", V + [att("finals.att", "0\n")], 2,
     r"finals\.att: language 'finals': the automaton has no arcs, so no alphabet to read from it")
case(82, "automata", "--att names a missing file", V + [path("none.att")], 2, r"--att .*none\.att: no such file or folder")
os.makedirs(path("no-att"), exist_ok=True)
case(83, "automata", "--att names a folder without *.att files", V + [path("no-att")], 2,
     r"--att .*no-att: the folder has no \*\.att files")
case(84, "automata", "a file name that is not a language name", V + [att("my fsa.att", "0\t1\ta\ta\n1\n")], 2,
     r"my fsa\.att: name 'my fsa' may only use letters, digits, '-', '_' and '\.'")
case(85, "regex", "regex-only: an unsupported feature (anchor)", ["verify", "--regex", "^a*", "--alphabet", "ab"], 2,
     r"command line: language 'command-line': regex '\^a\*': the anchor '\^' at byte 0 is not supported")
case(86, "regex", "regex-only: a literal outside the alphabet", ["verify", "--regex", "a*c", "--alphabet", "ab"], 2,
     r"command line: language 'command-line': regex 'a\*c': the regex uses .*c.* at byte 2, which is not in the alphabet")
case(87, "regex", "regex-only without --alphabet", ["verify", "--regex", "a*b"], 2, r"--regex alone needs --alphabet")
# ---------------------------------------------------------------- catalogue
HEAD = 'name = "x"\nclass = "star-free"\ndescription = "x"\nreference = "x"\n'
case(14, "catalogue", "missing field (alphabet)", ["--catalog", catalog("c1", HEAD + 'formula = "a"\n'), "list"], 2,
     r"lang\.toml.*alphabet")
case(15, "catalogue", "wrong-typed field (alphabet = 3)",
     ["--catalog", catalog("c2", HEAD + 'alphabet = 3\nformula = "a"\n'), "list"], 2, r"lang\.toml.*alphabet.*string")
case(16, "catalogue", "unknown key (a typo)",
     ["--catalog", catalog("c3", HEAD + 'alphabet = "ab"\nfromula = "a"\n'), "list"], 2, r"lang\.toml.*fromula")
case(17, "catalogue", "TOML syntax error",
     ["--catalog", catalog("c4", HEAD + 'alphabet = "ab\nformula = "a"\n'), "list"], 2, r"lang\.toml:5:\d+: Error while parsing string")
case(18, "catalogue", "missing catalogue folder", ["--catalog", path("nowhere"), "list"], 2, r"Directory does not exist")
case(19, "catalogue", "unknown language", ["verify", "no-such-language"], 2, r"no-such-language")
case(54, "catalogue", "a non-ASCII symbol repeated in the alphabet",
     ["--catalog", catalog("c5", HEAD + 'alphabet = "\u00e1\u00e9\u00e1"\nformula = "\'\u00e1\'"\nregex = "\u00e1"\n'),
      "list"], 2, r"lang\.toml: language 'x': alphabet repeats '\u00e1' at 2")
case(88, "catalogue", "an automaton file that does not exist",
     ["--catalog", catalog("c6", HEAD + 'alphabet = "ab"\nautomaton = "none.att"\n'), "list"], 2,
     r"lang\.toml:6: automaton: cannot read .*none\.att: No such file or directory")
case(89, "catalogue", "an inline automaton names the TOML line",
     ["--catalog", catalog("c7", HEAD + 'alphabet = "ab"\nautomaton = """\n0 1 a\n1 2 c\n2\n"""\n'), "list"], 2,
     r"lang\.toml:8: symbol 'c' is not in the alphabet \{a,b\}")
# ---------------------------------------------------------------- flags
case(20, "flags", "reversed length range", ["generate", "contains-ab", "--lengths", "5-3"], 2, r"5-3")
case(21, "flags", "malformed beta expression", ["classify", "contains-ab", "--beta", "3*(n+"], 2, r"beta")
case(22, "flags", "shard out of range", ["verify", "contains-ab", "--shard", "5/4"], 2, r"shard")
# ---------------------------------------------------------------- word streams
C = ["classify", "contains-ab"]
case(23, "words", "symbol outside the alphabet (stream goes on)", C, 2, r"symbol 'c' at 3 is not in the alphabet \{a,b\}",
     stdin=b"ab\nabc\nba\n", out_lines=["ab\tTRUE", "abc\tERROR\tsymbol 'c' at 3 is not in the alphabet {a,b}", "ba\tFALSE"],
     record=tsv_error)
case(24, "words", "NUL byte in a word", C, 2, r"symbol byte 0x00 at 2", stdin=b"ab\na\x00b\nab\n", record=tsv_error)
case(25, "words", "invalid UTF-8 (jsonl stays valid JSON)", C + ["--format", "jsonl"], 2,
     r"invalid UTF-8 at byte 1 \(0xff\)", stdin=b"\xff\xfe\nab\n",
     record=lambda out: out.decode("utf-8").splitlines()[0])
case(26, "words", "CRLF line ends (accepted, \\r dropped)", C, 0, r"^$", stdin=b"ab\r\nba\r\n",
     out_lines=["ab\tTRUE", "ba\tFALSE"])
case(27, "words", "a 100 MB line (length limit; later lines processed)", C, 2,
     r"the word has 104857600 symbols, more than the limit of 100000000; raise --max-length",
     stdin=b"ab\n" + b"a" * (100 * 1024 * 1024) + b"\nba\n", record=tsv_error,
     command="softhat classify contains-ab < (ab, 100 MB of a, ba)")
case(28, "words", "empty input", C, 0, r"^$", stdin=b"", out_lines=[])
case(29, "words", "a word over the memory limit", ["--max-memory", "1MB"] + C, 2,
     r"a word of 100000 symbols in the engine needs about [\d.]+ MiB, over the limit of 1\.0 MiB; raise --max-memory",
     stdin=b"a" * 100000 + b"\nab\n", record=tsv_error)
U = ["classify", "--formula", "'\u00e1' S b", "--alphabet", "a\u00e1b"]
case(48, "words", "a non-ASCII symbol outside the alphabet (stream goes on)", U, 2,
     r"symbol '\u01ce' \(U\+01CE\) at 2 is not in the alphabet \{a,\u00e1,b\}",
     stdin="b\u01ce\nb\u00e1\n".encode(), record=tsv_error, command="softhat classify --formula \"'\u00e1' S b\" --alphabet a\u00e1b",
     out_lines=["b\u01ce\tERROR\tsymbol '\u01ce' (U+01CE) at 2 is not in the alphabet {a,\u00e1,b}", "b\u00e1\tTRUE"])
case(49, "words", "a truncated UTF-8 sequence (echoed as \\xNN)", U, 2, r"invalid UTF-8 at byte 2 \(0xc3\)",
     stdin=b"b\xc3\nb\xc3\xa1\n", record=tsv_error, command="softhat classify --formula \"'\u00e1' S b\" --alphabet a\u00e1b",
     out_lines=["b\\xc3\tERROR\tinvalid UTF-8 at byte 2 (0xc3)", "b\u00e1\tTRUE"])
# ---------------------------------------------------------------- model files
model = path("m.safetensors")
assert run(["compile", "contains-ab", "-o", model])[0] == 0
good = open(model, "rb").read()
hlen = struct.unpack("<Q", good[:8])[0]
header = good[8:8 + hlen].decode()
case(30, "model", "missing model file", ["run", "--model", path("none.safetensors")], 2,
     r"cannot read .*none\.safetensors: No such file or directory")
case(31, "model", "not a model file (text)", ["run", "--model", write("text.safetensors", "this is not a model file\n")], 2,
     r"header length .* exceeds the limit")
# Truncated at every 1 KiB boundary (and 8 bytes short of whole): each refused, none crashes.
cuts = list(range(0, len(good), 1024)) + [len(good) - 8]
bad_cut = []
for k in cuts:
    code, _, err = run(["run", "--model", write("cut.safetensors", good[:k])], b"ab\n")
    if code != 2 or "softhat:" not in err or "internal" in err:
        bad_cut.append((k, code, err))
case(32, "model", f"truncated at every 1 KiB boundary ({len(cuts)} cuts)", ["run", "--model",
     write("cut.safetensors", good[:len(good) - 8])], 2, r"truncated or padded",
     command=f"softhat run --model (the file cut at 0, 1024, ... {len(good) - 8} bytes)")
if bad_cut:
    failures.append((32, "truncation", [f"cut at {k}: exit {c}: {e.strip()}" for k, c, e in bad_cut[:5]]))
case(33, "model", "header length near 2^64",
     ["run", "--model", write("huge.safetensors", struct.pack("<Q", 2**64 - 9) + good[8:])], 2,
     r"header length 18446744073709551607 exceeds the limit")
off = re.sub(r'"data_offsets":\[(\d+),(\d+)\]', lambda m: f'"data_offsets":[{m.group(1)},{int(m.group(2)) + 10**9}]', header, count=1)
case(34, "model", "data offsets out of range",
     ["run", "--model", write("off.safetensors", struct.pack("<Q", len(off)) + off.encode() + good[8 + hlen:])], 2,
     r"data_offsets \[\d+, \d+\] do not hold")


def poke(name, value):
    """The model with one weight replaced (the first element of tensor `name`)."""
    import json
    h = json.loads(header)
    begin = h[name]["data_offsets"][0]
    data = bytearray(good)
    struct.pack_into("<d", data, 8 + hlen + begin, value)
    return bytes(data)


case(35, "model", "NaN weight", ["run", "--model", write("nan.safetensors", poke("embed.weight", float("nan")))], 2,
     r"tensor 'embed.weight' holds NaN at element 0")
case(36, "model", "infinite weight", ["run", "--model", write("inf.safetensors", poke("embed.weight", float("inf")))], 2,
     r"tensor 'embed.weight' holds an infinity at element 0")
big_cfg = header.replace('\\"ffn_hidden\\":2,', '\\"ffn_hidden\\":2000000000,', 1)
case(37, "model", "configuration larger than the data",
     ["run", "--model", write("cfg.safetensors", struct.pack("<Q", len(big_cfg)) + big_cfg.encode() + good[8 + hlen:])], 2,
     r"model configuration: layer 0: ffn_hidden 2000000000 is out of range")
newer = header.replace('\\"format_version\\":2', '\\"format_version\\":3', 1)
case(55, "model", "a newer format version (3)",
     ["run", "--model", write("v3.safetensors", struct.pack("<Q", len(newer)) + newer.encode() + good[8 + hlen:])], 2,
     r"the file's format version 3 is newer than this softhat reads \(2\); upgrade softhat")
v1 = header.replace('"softhat.format_version":"2"', '"softhat.format_version":"1"', 1).replace(
    '\\"format_version\\":2', '\\"format_version\\":1', 1).replace(
    '\\"alphabet\\":\\"ab\\"', '\\"alphabet\\":\\"a\u00e1\\"', 1).encode()
case(56, "model", "format version 1 with a non-ASCII alphabet",
     ["run", "--model", write("v1.safetensors", struct.pack("<Q", len(v1)) + v1 + good[8 + hlen:])], 2,
     r"the alphabet has a non-ASCII byte at 1, which format version 1 cannot hold")
# ---------------------------------------------------------------- output files
plain = write("plain-file", "x")
case(38, "output", "output folder under a regular file", ["generate", "contains-ab", "--lengths", "1-3", "--out",
     os.path.join(plain, "corpus")], 2, r"cannot (create|write) .*plain-file.*(Not a directory|is not a writable folder)",
     no_files=[os.path.join(plain, "corpus")])
case(39, "output", "-o into a missing folder", ["compile", "contains-ab", "-o", path("no/such/dir/m.safetensors")], 2,
     r"cannot write .*m\.safetensors: No such file or directory", no_files=[path("no")])
existing = write("existing.safetensors", "old contents")
case(40, "output", "existing output file is replaced whole", ["compile", "contains-ab", "-o", existing], 0,
     r"wrote .*existing\.safetensors")
with open(existing, "rb") as f:
    if f.read() != good:
        failures.append((40, "existing file", ["not replaced by the model"]))
case(41, "output", "--out names an existing regular file", ["generate", "contains-ab", "--lengths", "1-3", "--out", plain], 2,
     r"exists and is not a folder")
# Full disk: a small tmpfs (needs root); /dev/full for stdout.
tfs = path("tfs")
os.makedirs(tfs)
mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", tfs], capture_output=True).returncode == 0
if mounted:
    def fill():
        """Leaves the tmpfs with less than a page free."""
        subprocess.run(f"dd if=/dev/zero of='{tfs}/filler' bs=4k 2>/dev/null", shell=True)
    try:
        fill()
        case(42, "output", "full disk (64 KiB tmpfs): corpus folder", ["generate", "contains-ab", "--lengths", "10-14",
             "--per-length", "20", "--out", os.path.join(tfs, "corpus")], 2,
             r"cannot write .*No space left on device", no_files=[os.path.join(tfs, "corpus")])
        leftovers = [n for n in os.listdir(tfs) if n != "filler"]
        if leftovers:
            failures.append((42, "full disk", [f"left on the disk: {leftovers}"]))
        case(43, "output", "full disk (64 KiB tmpfs): --json report", ["verify", "contains-ab", "--max-len", "12",
             "--json", os.path.join(tfs, "r.json")], 2, r"cannot write .*r\.json.*No space left on device",
             no_files=[os.path.join(tfs, "r.json")])
    finally:
        subprocess.run(["umount", tfs])
else:
    print("skip 42, 43: cannot mount a tmpfs here (needs root); the full-disk cases did not run", flush=True)
    results.append((42, "output", "full disk (64 KiB tmpfs): corpus folder", "(skipped: no tmpfs)", 2,
                    "softhat: cannot write $TMP/tfs/corpus: ... No space left on device"))
code = subprocess.run(f"'{SOFTHAT}' generate contains-ab --lengths 4-8 --per-length 2 > /dev/full", shell=True,
                      capture_output=True).returncode
err = subprocess.run(f"'{SOFTHAT}' generate contains-ab --lengths 4-8 --per-length 2 > /dev/full", shell=True,
                     capture_output=True).stderr.decode()
results.append((44, "output", "stdout on a full device", "softhat generate contains-ab --lengths 4-8 --per-length 2 > /dev/full", code,
                err.strip().splitlines()[0] if err.strip() else "(none)"))
ok = code == 2 and "No space left on device" in err
print(("ok   " if ok else "FAIL ") + "44 stdout on a full device", flush=True)
if not ok:
    failures.append((44, "stdout full", [f"exit {code}: {err!r}"]))


# ---------------------------------------------------------------- hardening, round 2 (issue 20)
def shlex_quote(p):
    return "'" + p.replace("'", "'\\''") + "'"


big_word = write("big-word", b"a" * 100000000 + b"\n")


def case_shell(cid, area, title, script, status, message, command):
    """A case that needs a shell (redirections, pipes): `script` runs with SOFTHAT set."""
    p = subprocess.run(["bash", "-c", script], capture_output=True, timeout=600, env=dict(os.environ, SOFTHAT=SOFTHAT))
    err = p.stderr.decode("utf-8", "replace")
    ok = p.returncode == status and re.search(message, err) is not None
    first = err.strip().splitlines()[0] if err.strip() else "(none)"
    results.append((cid, area, title, command, p.returncode, first.replace(TMP, "$TMP")))
    print(("ok   " if ok else "FAIL ") + f"{cid:>2} {title}", flush=True)
    if not ok:
        failures.append((cid, title, [f"exit {p.returncode}, expected {status}; stderr {err[:300]!r}"]))


case(90, "files", "a model path naming /dev/zero", ["run", "--model", "/dev/zero"], 2,
     r"cannot read /dev/zero: it is a character device, not a regular file", stdin=b"ab\n")
fifo = path("fifo")
os.mkfifo(fifo)
case(91, "files", "a model path naming a FIFO (no hang)", ["run", "--model", fifo], 2,
     r"cannot read .*fifo: it is a FIFO, not a regular file", stdin=b"ab\n")
case(92, "files", "--att naming a FIFO", ["verify", "--att", fifo], 2, r"--att .*fifo: cannot read the file: it is a FIFO")
fifo_dir = path("fifo-catalog")
os.makedirs(fifo_dir)
os.mkfifo(os.path.join(fifo_dir, "lang.toml"))
case(93, "files", "a catalogue entry that is a FIFO", ["--catalog", fifo_dir, "list"], 2,
     r"lang\.toml: cannot read the file: it is a FIFO, not a regular file")
case_shell(94, "words", "stdin is a directory", '"$SOFTHAT" classify contains-ab < /', 2,
           r"cannot read stdin: Is a directory", "softhat classify contains-ab < /")
case(95, "flags", "--max-memory 0", ["--max-memory", "0", "classify", "contains-ab"], 2,
     r"--max-memory: a memory size is positive, not 0")
case(96, "flags", "--max-memory -5", ["--max-memory", "-5", "classify", "contains-ab"], 2,
     r"--max-memory: a memory size is positive, not -5")
case(97, "numbers", "beta overflow in simulate", ["simulate", "contains-ab", "--beta", "1e308*(n+1)", "--lengths", "3"], 2,
     r"overflows at beta = inf")
case(98, "numbers", "beta overflow in explain", ["explain", "contains-ab", "ab", "--beta", "1e308*(n+1)"], 2,
     r"overflows at beta = inf")
import json as _json
hdr = _json.loads(header)
cfg_text = hdr["__metadata__"]["softhat.config"]


def with_config(text):
    h = _json.loads(header)
    h["__metadata__"]["softhat.config"] = text
    out = _json.dumps(h, separators=(",", ":"))
    return struct.pack("<Q", len(out)) + out.encode() + good[8 + hlen:]


dup = cfg_text.replace('"format_version":2', '"format_version":2,"format_version":2', 1)
case(99, "model", "a repeated key in the configuration", ["run", "--model", write("dup.safetensors", with_config(dup))], 2,
     r'the key "format_version" appears twice in one object')
dup_header = '{"__metadata__":{},' + header[1:]
case(100, "model", "a repeated key in the header",
     ["run", "--model", write("duph.safetensors", struct.pack("<Q", len(dup_header)) + dup_header.encode() + good[8 + hlen:])],
     2, r'the key "__metadata__" appears twice in one object')
case(101, "model", "format_version as the string \"2\"",
     ["run", "--model", write("fvs.safetensors", with_config(cfg_text.replace('"format_version":2', '"format_version":"2"', 1)))],
     2, r'format_version must be an integer, found "2"')
meta = header.replace('"softhat.format_version":"2"', '"softhat.format_version":"x"', 1)
case(102, "model", "the metadata's version disagrees with the configuration's",
     ["run", "--model", write("fvm.safetensors", struct.pack("<Q", len(meta)) + meta.encode() + good[8 + hlen:])], 2,
     r'softhat.format_version is "x", but the configuration')
tmodel = path("khop.safetensors")
assert run(["compile", "khop-1", "-o", tmodel])[0] == 0
tgood = open(tmodel, "rb").read()
thlen = struct.unpack("<Q", tgood[:8])[0]
th = _json.loads(tgood[8:8 + thlen].decode())
tcfg = _json.loads(th["__metadata__"]["softhat.config"])
tcfg["transducer"]["default"] = "\t"
th["__metadata__"]["softhat.config"] = _json.dumps(tcfg, separators=(",", ":"))
tout = _json.dumps(th, separators=(",", ":"))
case(103, "model", "a transducer symbol that is a TAB (would break TSV)",
     ["run", "--model", write("tab.safetensors", struct.pack("<Q", len(tout)) + tout.encode() + tgood[8 + thlen:])], 2,
     r"the transducer default has the control character 0x09 at 0")
case(104, "automata", "a tableau too large for the state limit (no minutes-long hang)",
     ["generate", "--formula", "F(a & X X X X X X X X X X X X X b)", "--alphabet", "ab", "--lengths", "3"], 2,
     r"the formula's tableau needs more than 4000000 guesses .*; raise --max-states",
     command="softhat generate --formula 'F(a & X^13 b)' --alphabet ab --lengths 3")
case(139, "automata", "a tableau whose start state alone passes the state limit's work (found by fuzz_compile)",
     ["--max-states", "2000", "generate", "--formula", "bSXXFXb|bSXXFXOXFaSFFXXXOXFaSFFXXXFaSFFXXaSFa", "--alphabet", "ab",
      "--lengths", "3"], 2, r"the formula's tableau needs more than 8000 guesses \(22 future operators",
     command="softhat --max-states 2000 generate --formula 'bSXXFXb|bSXXFXOX...' --alphabet ab --lengths 3")
p0, p1 = path("part0.json"), path("part1.json")
for k, f in ((0, p0), (1, p1)):
    assert run(["verify", "contains-ab", "--max-len", "6", "--lengths", "20", "--samples", "10", "--shard", f"{k}/2",
                "--json", f])[0] == 0
edited = _json.load(open(p1))
edited["languages"][0]["rows"][0]["agreed"] += 1
open(path("edited.json"), "w").write(_json.dumps(edited, indent=2))
case(105, "merge", "a hand-edited verify shard", ["merge", p0, path("edited.json")], 2,
     r"edited\.json: the checksum does not match the content")
assert run(["verify", "contains-ab", "--max-len", "7", "--lengths", "20", "--samples", "10", "--shard", "1/2",
            "--json", path("other.json")])[0] == 0
case(106, "merge", "a shard of another run (--max-len)", ["merge", p0, path("other.json")], 2,
     r"other\.json is another run than .*part0\.json: its max_len differs")
case_shell(107, "output", "a reader closing the pipe early (SIGPIPE, quietly)",
           '"$SOFTHAT" generate a-since-b --lengths 20-30 --per-length 2000 | head -1 > /dev/null; exit ${PIPESTATUS[0]}',
           141, r"^$", "softhat generate a-since-b --lengths 20-30 --per-length 2000 | head -1")
# Sizes from the command line, estimated before anything is allocated; under
# `ulimit -v` (2 GiB) too, where the default --max-memory (8 GiB) is more than
# the process may take: exit 2, never a signal.
# (Sanitizer builds map terabytes of shadow memory and cannot start under
# `ulimit -v`: there the same commands run without it; every one of them is
# refused by its estimate before it allocates, so the messages are the same.)
V = "" if "ASAN_OPTIONS" in os.environ else "ulimit -v 2097152; "
for cid, title, cmd, message in (
        (112, "generate --per-length 10^12", "generate contains-ab --lengths 10 --per-length 1000000000000",
         r"a corpus of 1000000000000 words needs about .* over the limit of 8\.0 GiB; raise --max-memory"),
        (113, "generate --lengths 900000-1000000", "generate contains-ab --lengths 900000-1000000",
         r"a corpus of 10000100 words needs about .* TiB|a corpus of 10000100 words needs about"),
        (114, "simulate dyck-2 --lengths 10^7", "simulate dyck-2 --lengths 10000000",
         r"a word of 10000000 symbols, run exactly and in softmax, needs about"),
        (115, "sweep at n = 10^7", "--max-memory 1GiB sweep contains-ab --lengths 10000000",
         r"a word of 10000000 symbols in the engine needs about .* over the limit of 1\.0 GiB"),
        (116, "explain a long word with --max-length raised", "--max-memory 64MB explain contains-ab --max-length 100000 " + "ab" * 5000,
         r"the attention maps of a word of 10000 symbols needs about"),
        (117, "a word too large for the address space (ulimit -v)", "classify contains-ab < $BIG",
         r"1 of 1 lines had errors"),
        (123, "verify --lengths 2*10^7", "verify contains-ab --max-len 4 --lengths 20000000 --samples 10 --threads 2",
         r"verifying contains-ab \(10 words per length, up to 20000000 symbols, 2 threads\) needs about .* over the limit"),
        (124, "check --lengths 10^8", "check contains-ab --max-len 4 --lengths 100000000",
         r"100 sampled words per length needs about .* over the limit of 8\.0 GiB"),
        (125, "generate: the sampler's count tables", "--max-memory 1MiB generate no-aa --lengths 1000000 --per-length 1",
         r"counting the words of \d+ DFA states at every length up to 1000001 needs about .* over the limit of 1\.0 MiB")):
    case_shell(cid, "memory", title + " (ulimit -v 2 GiB)", V + '"$SOFTHAT" ' + cmd.replace("$BIG", shlex_quote(big_word)),
               2, message, "ulimit -v 2GiB; softhat " + (cmd if len(cmd) < 90 else cmd[:60] + "...").replace("$BIG", "(a line of 10^8 a)"))


# More threads than the address space holds stacks for: a thread the system
# refuses to start runs its share on the main thread (it once aborted the
# process); the output is --threads 1's, byte for byte.
threads_words = path("threads.words")
open(threads_words, "w").write("ab\nba\n" * 4500)
case_shell(171, "memory", "run --threads 1024 under ulimit -v 2 GiB (thread stacks refused)",
           V + f'"$SOFTHAT" -q run --model {shlex_quote(model)} --threads 1024 < {shlex_quote(threads_words)} > '
           f'{shlex_quote(path("t1024.out"))} && "$SOFTHAT" -q run --model {shlex_quote(model)} --threads 1 < '
           f'{shlex_quote(threads_words)} | cmp - {shlex_quote(path("t1024.out"))}',
           0, r"^$", "ulimit -v 2GiB; softhat run --model M --threads 1024 < (9,000 lines)")


case(118, "memory", "compile mod(10^9, 1): a residual stream 10^9 wide",
     ["compile", "--formula", "mod(1000000000,1)", "--alphabet", "ab", "-o", path("mod.safetensors")], 2,
     r"the mod predicates need 1000000000 one-hot position features .*, more than 1000000",
     no_files=[path("mod.safetensors")])
# Within the mod limit but not the memory: a counting formula (no DFA limit
# stops it first) whose position projection would be 111,111^2 weights.
case(170, "memory", "compile a 20-byte formula whose weights would take 92 GiB (mod(111111,0))",
     ["compile", "--formula", "#a > 1 | mod(111111,0)", "--alphabet", "ab", "-o", path("mod2.safetensors")], 2,
     r"the compiled model \(12349654581 weights: width 111121, 111113 position features, 3 layers\) needs about 92\.0 GiB, "
     r"over the limit of 8\.0 GiB; raise --max-memory",
     no_files=[path("mod2.safetensors")])

# Corpus shards: an edit is refused by the checksum; an edit whose forger
# recomputed the checksum is refused by the validation of the merged corpus.
c0, c1 = path("corpus0.json"), path("corpus1.json")
for k, f in ((0, c0), (1, c1)):
    assert run(["generate", "no-aa", "--split", "train:3-6", "--split", "test:8-9", "--per-length", "6",
                "--shard", f"{k}/2", "--out", f])[0] == 0
cgood = _json.load(open(c1, encoding="utf-8"))


def corpus_edit(name, edit, checksum):
    j = _json.loads(_json.dumps(cgood))
    edit(j)
    if checksum:  # the rule of io::json_checksum: sha256 of the compact, key-sorted JSON without "checksum"
        body = {k: v for k, v in j.items() if k != "checksum"}
        j["checksum"] = hashlib.sha256(_json.dumps(body, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=False).encode()).hexdigest()
    open(path(name), "w", encoding="utf-8").write(_json.dumps(j, indent=1, ensure_ascii=False))
    return ["merge", c0, path(name)]


def flip(j):
    j["units"][1]["splits"][1][0][1] = not j["units"][1]["splits"][1][0][1]


case(119, "merge", "a corpus shard with a label flipped", corpus_edit("cflip.json", flip, False), 2,
     r"cflip\.json: the checksum does not match the content")
case(120, "merge", "a corpus shard with a label flipped and the checksum recomputed",
     corpus_edit("cforged.json", flip, True), 2, r"merged corpus is not valid: .*label")
case(121, "merge", "a corpus shard with a length removed (checksum recomputed)",
     corpus_edit("cunit.json", lambda j: j["units"].pop(1), True), 2,
     r"cunit\.json: corpus shard 1/2 lacks the words of length")
case(129, "merge", "a corpus shard with a float where a count belongs (checksum recomputed; found by fuzz_merge)",
     corpus_edit("cfloat.json", lambda j: j["units"][0].__setitem__("length", 2.02e33), True), 2,
     r"cfloat\.json: a unit's length must be a non-negative integer, found 2\.02e\+33")
assert run(["generate", "no-aa", "--split", "train:3-6", "--split", "test:8-9", "--per-length", "6", "--seed", "5",
            "--shard", "1/2", "--out", path("cseed.json")])[0] == 0
case(122, "merge", "a corpus shard of another run (--seed)", ["merge", c0, path("cseed.json")], 2,
     r"cseed\.json comes from another run than .*corpus0\.json: its command_args differs")


# S-RASP programs: positioned errors (tests/rasp has the full list).
for cid, title, text, message in (
        (130, "an S-RASP type error", "x : int := tok\noutput x\n", r"p\.srasp:2:12: 'x' is declared int, but its definition is sym"),
        (131, "an S-RASP unknown name", "x : sym := y\noutput x\n", r"p\.srasp:2:12: unknown name 'y'"),
        (132, "an S-RASP score without [i]/[j]", "x : sym := rmost j [all] (tok == 'a') -> tok else '#'\noutput x\n",
         r"p\.srasp:2:27: in a score every variable is read at \[i\] or \[j\]"),
        (133, "an S-RASP multiplication of two vectors", "x : int := pos * pos\n",
         r"p\.srasp:2:16: a multiplication needs an integer literal as one factor"),
        (134, "S-RASP recursion through names", "x : int := y + 1\ny : int := x\n",
         r"p\.srasp:2:12: 'y' is defined later, at line 3 \(no recursion"),
        (135, "an S-RASP program without output", "x : sym := tok\n", r"p\.srasp:3:1: no `output NAME` line"),
        (136, "an S-RASP symbol outside the alphabet", "x : bool := tok == 'c'\n",
         r"p\.srasp:2:20: 'c' is not in the input alphabet \{a, b\}"),
        (137, "an S-RASP mask that does not exist", "x : sym := rmost j [j<k] (true) -> tok else '#'\n",
         r"p\.srasp:2:20: expected a mask: \[all\], \[j<i\], \[j<=i\], \[j>i\] or \[j>=i\]")):
    prog = path("p.srasp")
    open(prog, "w").write("input alphabet {a, b}\n" + text)
    case(cid, "rasp", title, ["rasp", "check", prog], 2, message)
rotate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "srasp", "rotate.srasp")
case(138, "rasp", "a word with a symbol outside the program's alphabet (the stream goes on)",
     ["rasp", "run", rotate], 2, r"1 of 3 lines had errors", stdin=b"abcd\nabx\ndcba\n",
     out_lines=["abcd\tdabc", "abx\tERROR\tsymbol 'x' at 3 is not in the alphabet {a,b,c,d}", "dcba\tadcb"],
     command="printf 'abcd\\nabx\\ndcba\\n' | softhat rasp run examples/srasp/rotate.srasp")

# S-RASP compiler refusals: a valid program outside the compiled subset names its statement and line, writes nothing.
examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "srasp")
prog = path("cat.srasp")
open(prog, "w").write("input alphabet {a, b, c, d}\ns1 : sym := concat(tok, tok)\ns2 : sym := concat(s1, s1)\n"
                      "s3 : sym := concat(s2, s2)\noutput s3\n")
case(150, "rasp", "rasp compile of concats whose product alphabet passes the logic limit (5^8 strings)",
     ["rasp", "compile", prog, "-o", path("cat.safetensors")],
     2, r"cat\.srasp:4: statement 's3' cannot be compiled: a logic expression with more than 16384 cases",
     no_files=[path("cat.safetensors")], command="softhat rasp compile cat.srasp -o cat.safetensors")
prog = path("cmp.srasp")
open(prog, "w").write("input alphabet {a, b}\nx : int := pos\ny : int := rmost j [all] (x[i] < x[j]) -> pos else 0\n"
                      "out : sym := if y > 0 then 'a' else 'b'\noutput out\n")
case(151, "rasp", "rasp compile of a score comparing ints of [i] and [j] by <", ["rasp", "compile", prog, "-o", path("cmp.safetensors")],
     2, r"cmp\.srasp:3: statement 'y' cannot be compiled: its score compares ints of \[i\] and \[j\] other than by one equality",
     no_files=[path("cmp.safetensors")], command="softhat rasp compile cmp.srasp -o cmp.safetensors")
case(152, "rasp", "transduce --program on a word holding the pad symbol '#' (the stream goes on)",
     ["transduce", "--program", rotate], 2, r"1 of 3 lines had errors", stdin=b"abcd\na#b\ndcba\n",
     out_lines=["abcd\tdabc", "a#b\tERROR\tsymbol '#' at 2 is the program's pad symbol, not part of its input alphabet",
                "dcba\tadcb"],
     command="printf 'abcd\\na#b\\ndcba\\n' | softhat transduce --program examples/srasp/rotate.srasp")
case(153, "rasp", "transduce --mode hard without --program", ["transduce", "--formula", "a", "--mode", "hard"], 2,
     r"--mode hard needs --program", command="softhat transduce --formula a --mode hard")
case(154, "rasp", "simulate --program with --epsilon (the compiler sets beta)",
     ["simulate", "--program", rotate, "--epsilon", "0.1"], 2, r"--epsilon: not with --program",
     command="softhat simulate --program examples/srasp/rotate.srasp --epsilon 0.1")
case(155, "rasp", "verify --program with an oracle that does not exist",
     ["verify", "--program", rotate, "--oracle", "rotat"], 2, r"no direct oracle named 'rotat' \(known: compact, dyck2",
     command="softhat verify --program examples/srasp/rotate.srasp --oracle rotat")
case(156, "rasp", "verify --program with a language as well", ["verify", "--program", rotate, "contains-ab"], 2,
     r"verify: give --program alone, not with --model, --shard or a language",
     command="softhat verify --program examples/srasp/rotate.srasp contains-ab")
case(157, "rasp", "verify --program with --mode (it checks both modes)", ["verify", "--program", rotate, "--mode", "hard"],
     2, r"--mode: not with --program", command="softhat verify --program examples/srasp/rotate.srasp --mode hard")
case(158, "rasp", "verify --oracle without --program", ["verify", "contains-ab", "--oracle", "rotate"], 2,
     r"--oracle: only with --program", command="softhat verify contains-ab --oracle rotate")

# ---------------------------------------------------------------- verify at scale
sf006 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "languages", "04.04.SF.0.0.6.att")
case(159, "scale", "verify --mlregtest-splits with --max-len (the splits set the words)",
     ["verify", "--att", sf006, "--mlregtest-splits", "small", "--max-len", "3"], 2,
     r"--mlregtest-splits: sets the words and writes JSONL rows: drop --program, --model, --max-len",
     command="softhat verify --att languages/04.04.SF.0.0.6.att --mlregtest-splits small --max-len 3")
case(160, "scale", "verify --out without --mlregtest-splits", ["verify", "contains-ab", "--out", path("rows.jsonl")], 2,
     r"--out: only with --mlregtest-splits", no_files=[path("rows.jsonl")],
     command="softhat verify contains-ab --out rows.jsonl")
case(161, "scale", "verify --mlregtest-splits with an unknown size",
     ["verify", "--att", sf006, "--mlregtest-splits", "tiny"], 2, r"--mlregtest-splits: tiny not in \{small,mid,large\}",
     command="softhat verify --att languages/04.04.SF.0.0.6.att --mlregtest-splits tiny")
with open(path("damaged.jsonl"), "w") as f:
    f.write("not a row\n")
case(162, "scale", "verify --mlregtest-splits --out resuming from a file with a damaged line (refused, untouched)",
     ["verify", "--att", sf006, "--mlregtest-splits", "small", "--out", path("damaged.jsonl")], 2,
     r"damaged\.jsonl:1: not a row of verify --mlregtest-splits \(give another --out, or remove the line\)",
     command="softhat verify --att languages/04.04.SF.0.0.6.att --mlregtest-splits small --out damaged.jsonl")
os.makedirs(path("attdir"))
shutil.copy(sf006, path("attdir"))
write("attdir/bad.att", "0 1 a a\n1 two b b\n1\n")
case(168, "scale", "verify --att DIR --mlregtest-splits with one malformed .att file (an error row; the others run)",
     ["verify", "--att", path("attdir"), "--mlregtest-splits", "small"], 2,
     r"^04\.04\.SF\.0\.0\.6 agree; bad error: .*bad\.att:2: ",
     record=lambda out: "; ".join(f"{r['language']} {r['status']}" + (f": {r['message']}" if "message" in r else "")
                                  for r in map(_json.loads, out.decode().splitlines())),
     command="softhat verify --att attdir --mlregtest-splits small")
# run --model --beta: the expression is read before the model file is (a
# missing file here, so the error can only be the flag's).
case(169, "flags", "run --model with a malformed beta expression (a usage error before the file is read)",
     ["run", "--model", path("none.safetensors"), "--beta", "3*(n+"], 2,
     r"^softhat: --beta '3\*\(n\+': expected a number at 2")

# The float32 claim (compile --float32): its tuning flags need it; a claim whose numbers contradict it is refused.
case(163, "float32", "compile --float32-max-len without --float32",
     ["compile", "contains-ab", "--float32-max-len", "40", "-o", path("f32.safetensors")], 2,
     r"--float32-max-len: only with --float32", no_files=[path("f32.safetensors")])
claim = ',"float32":{"max_length":64,"words":100,"min_margin":1e-9,"max_deviation":1e-6,"max_state_deviation":1e-6,"safety":8}'
case(164, "float32", "a model whose float32 claim has a margin below 8 x its deviation",
     ["run", "--model", write("f32bad.safetensors", with_config(cfg_text[:-1] + claim + "}"))], 2,
     r"the float32 claim's margin is below safety x deviation")
claim = ',"float32":{"max_length":64,"words":100,"min_margin":0.5,"max_deviation":0,"safety":8}'
case(165, "float32", "a model whose float32 claim lacks a field",
     ["run", "--model", write("f32miss.safetensors", with_config(cfg_text[:-1] + claim + "}"))], 2,
     r"model configuration: .*key 'max_state_deviation' not found")

case(166, "float32", "verify --float32 without --mlregtest-splits", ["verify", "contains-ab", "--float32"], 2,
     r"--float32: only with --mlregtest-splits \(compile --float32 records the claim in a model file; verify --model tests it\)")
case(167, "float32", "compile --float32 whose check would hold more words than --max-memory",
     ["compile", "contains-ab", "--float32", "--float32-max-len", "100000", "--float32-samples", "1000000", "-o",
      path("f32big.safetensors")], 2,
     r"the float32 check \(1000000 words per length, up to 100000 symbols\) needs about .* over the limit",
     no_files=[path("f32big.safetensors")])

# ---------------------------------------------------------------- signals
def interrupt(cid, title, args, no_files, command, sig=signal.SIGINT, stdin=None):
    p = subprocess.Popen([SOFTHAT] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin)
    time.sleep(1.0)
    running = p.poll() is None  # the command must still be at work when the signal comes
    sent = time.monotonic()
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    took = time.monotonic() - sent
    err = err.decode()
    status = 130 if sig == signal.SIGINT else 143
    ok = running and took < 1.0 and p.returncode == status and "interrupted; no output file was written" in err
    left = [f for f in no_files if os.path.exists(f)] + [n for n in os.listdir(TMP) if ".tmp." in n]
    ok = ok and not left
    results.append((cid, "signals", title, command, p.returncode, err.strip().splitlines()[0] if err.strip() else "(none)"))
    print(("ok   " if ok else "FAIL ") + f"{cid} {title}", flush=True)
    if not ok:
        failures.append((cid, title, [f"exit {p.returncode} after {took:.2f} s (running: {running}): {err!r}; left {left}"]))


interrupt(45, "SIGINT during generate --out", ["generate", "majority", "--lengths", "1-400", "--per-length", "400",
          "--out", path("sig-corpus")], [path("sig-corpus")], "softhat generate majority --lengths 1-400 ... --out DIR, then SIGINT")
interrupt(47, "SIGTERM during generate of a counting language", ["generate", "anbncn", "--lengths", "2000-3000",
          "--per-length", "1000", "--allow-shortage", "--out", path("sigterm-corpus")], [path("sigterm-corpus")],
          "softhat generate anbncn --lengths 2000-3000 --per-length 1000 --allow-shortage --out DIR, then SIGTERM",
          signal.SIGTERM)
interrupt(46, "SIGINT during verify --json", ["verify", "contains-ab", "--max-len", "24", "--json", path("sig.json")],
          [path("sig.json")], "softhat verify contains-ab --max-len 24 --json FILE, then SIGINT")

interrupt(108, "SIGINT while building a large tableau", ["--max-states", "100000000", "analyze", "--formula",
          "F(a & X X X X X X X X X X X X X b)", "--alphabet", "ab"], [],
          "softhat --max-states 100000000 analyze --formula 'F(a & X^13 b)' --alphabet ab, then SIGINT")
idle = path("idle-fifo")
os.mkfifo(idle)
idle_fd = os.open(idle, os.O_RDWR)  # a writer that never writes: classify waits on the FIFO
interrupt(109, "SIGTERM while classify waits on a FIFO", ["classify", "contains-ab"], [],
          "softhat classify contains-ab < FIFO (nobody writes), then SIGTERM", signal.SIGTERM, stdin=idle_fd)
os.close(idle_fd)
interrupt(110, "SIGINT during simulate", ["simulate", "contains-ab", "--lengths", "0-18", "--exhaustive-limit", "300000"],
          [], "softhat simulate contains-ab --lengths 0-18 --exhaustive-limit 300000, then SIGINT")
interrupt(111, "SIGTERM during verify", ["verify", "contains-ab", "--max-len", "24"], [],
          "softhat verify contains-ab --max-len 24, then SIGTERM", signal.SIGTERM)
# The other signal for each of them: both end every long-running command.
interrupt(126, "SIGTERM while building a large tableau", ["--max-states", "100000000", "analyze", "--formula",
          "F(a & X X X X X X X X X X X X X b)", "--alphabet", "ab"], [],
          "softhat --max-states 100000000 analyze --formula 'F(a & X^13 b)' --alphabet ab, then SIGTERM", signal.SIGTERM)
idle_fd = os.open(idle, os.O_RDWR)
interrupt(127, "SIGINT while classify waits on a FIFO", ["classify", "contains-ab"], [],
          "softhat classify contains-ab < FIFO (nobody writes), then SIGINT", stdin=idle_fd)
os.close(idle_fd)
interrupt(128, "SIGTERM during simulate", ["simulate", "contains-ab", "--lengths", "0-18", "--exhaustive-limit", "300000"],
          [], "softhat simulate contains-ab --lengths 0-18 --exhaustive-limit 300000, then SIGTERM", signal.SIGTERM)

# ---------------------------------------------------------------- report
subprocess.run(["rm", "-rf", TMP])
print(f"{len(results)} cases, {len(failures)} failed")
for cid, title, why in failures:
    print(f"  {cid} {title}: {why}")

table = ["| # | area | case | command | exit | message |", "|---|---|---|---|---|---|"]
for cid, area, title, command, code, message in sorted(results):
    esc = lambda s: s.replace("|", "\\|").replace("\t", "⇥")
    table.append(f"| {cid} | {area} | {esc(title)} | `{esc(command)}` | {code} | {esc(message)} |")
generated = "\n".join(table) + "\n"
begin, end = "<!-- matrix:begin (tests/errors/matrix.py --update writes this table) -->\n", "<!-- matrix:end -->"
doc = open(DOCS, encoding="utf-8").read()
if begin not in doc or end not in doc:
    sys.exit(f"{DOCS} lacks the matrix markers")
current = doc[doc.index(begin) + len(begin):doc.index(end)]
if current != generated:
    if UPDATE:
        open(DOCS, "w", encoding="utf-8").write(doc[:doc.index(begin) + len(begin)] + generated + doc[doc.index(end):])
        print(f"updated {DOCS}")
    else:
        failures.append((0, "docs/errors.md", ["the table differs from the observed messages; run matrix.py --update"]))
        import difflib
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), generated.splitlines(True), "docs", "observed"))
sys.exit(1 if failures else 0)
