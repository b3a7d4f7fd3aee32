#!/usr/bin/env python3
"""The house rules of softhat's source tree, checked (issue 17).

1. The stages of lib/CMakeLists.txt (softhat_stage(NAME DEPS ...)) form an
   acyclic graph, and docs/architecture.md's dependency table says the same.
2. Every #include "STAGE/..." in lib/ stays inside the including stage or
   goes to a stage it depends on (transitively): no upward edge, and so no
   cycle. lib/ never includes cli/; lib/model includes nothing of logic,
   compile or oracle.
3. No function in lib/ or cli/ is longer than MAX_FUNCTION_LINES lines.
4. docs/, README.md, lib/ and cli/ never cite the shared folder the project
   was designed from: the repository's docs stand alone.

Usage: house.py SOURCE_DIR. Prints every violation; exit 1 if any.
"""
import bisect
import os
import re
import sys

MAX_FUNCTION_LINES = 120


def stage_graph(src):
    text = open(os.path.join(src, "lib", "CMakeLists.txt")).read()
    graph = {}
    for m in re.finditer(r"^softhat_stage\((\w+)([^)]*)\)", text, re.M):
        args = m.group(2).split()
        deps, mode = [], None
        for a in args:
            if a in ("DEPS", "EXTRA_SOURCES", "LIBS"):
                mode = a
            elif mode == "DEPS":
                deps.append(a)
        graph[m.group(1)] = deps
    return graph


def doc_graph(src):
    """The rows `| `stage` | deps, comma-separated or — | ... |` of the table."""
    graph = {}
    path = os.path.join(src, "docs", "architecture.md")
    for line in open(path):
        m = re.match(r"\|\s*`(\w+)`\s*\|\s*([^|]*)\|", line)
        if m:
            deps = [d.strip(" `") for d in m.group(2).split(",")]
            graph[m.group(1)] = [d for d in deps if d and d not in ("—", "-")]
    return graph


def find_cycle(graph):
    state = {}

    def visit(n, path):
        state[n] = 1
        for d in graph.get(n, []):
            if state.get(d) == 1:
                return path + [n, d]
            if d not in state:
                c = visit(d, path + [n])
                if c:
                    return c
        state[n] = 2
        return None

    for n in graph:
        if n not in state:
            c = visit(n, [])
            if c:
                return c
    return None


def closure(graph, n):
    seen, todo = set(), list(graph.get(n, []))
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(graph.get(d, []))
    return seen


def sources(src, top):
    for root, _, files in os.walk(os.path.join(src, top)):
        for f in sorted(files):
            if f.endswith((".cc", ".h")):
                yield os.path.join(root, f)


def strip_code(text):
    """Comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delim = ")" + text[i + 2:k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b|extern\s*$")


def long_functions(path, limit):
    """(line, length, header) of every function body longer than limit lines.
    A brace block is a function body when its header (the text since the last
    ; { or }) has a parenthesis and is not a namespace, type or initializer,
    and every block around it is a namespace or a type."""
    code = strip_code(open(path, encoding="utf-8").read())
    newlines = [k for k, ch in enumerate(code) if ch == "\n"]
    found, stack, start = [], [], 0
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c in "{}":
            header = code[start:i]
            if c == "{":
                if SCOPE.search(header) and "(" not in header.split("=")[0]:
                    kind = "scope"
                elif "(" in header and not header.rstrip().endswith("="):
                    kind = "function"
                else:
                    kind = "block"
                lead = start + len(header) - len(header.lstrip())
                stack.append((kind, bisect.bisect_left(newlines, lead) + 1, " ".join(header.split())[-70:]))
            elif stack:
                kind, first, text = stack.pop()
                if kind == "function" and all(k == "scope" for k, _, _ in stack):
                    # from the signature's first line to the closing brace
                    if line - first + 1 > limit:
                        found.append((first, line - first + 1, text))
            start = i + 1
        elif c == ";":
            start = i + 1
    return found


def main():
    src = sys.argv[1]
    problems = []

    graph = stage_graph(src)
    if not graph:
        problems.append("lib/CMakeLists.txt declares no softhat_stage")
    cycle = find_cycle(graph)
    if cycle:
        problems.append("the stage graph has a cycle: " + " -> ".join(cycle))
    for n, deps in graph.items():
        for d in deps:
            if d not in graph:
                problems.append(f"stage {n} depends on undeclared stage {d}")
    doc = doc_graph(src)
    if doc != graph:
        for n in sorted(set(doc) | set(graph)):
            if sorted(doc.get(n, ["(missing)"])) != sorted(graph.get(n, ["(missing)"])):
                problems.append(f"docs/architecture.md says {n} -> {doc.get(n)}, lib/CMakeLists.txt says {graph.get(n)}")
    on_disk = {d for d in os.listdir(os.path.join(src, "lib")) if os.path.isdir(os.path.join(src, "lib", d))}
    for d in sorted(on_disk - set(graph)):
        problems.append(f"lib/{d} is not a stage of lib/CMakeLists.txt")

    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for path in sources(src, "lib"):
        stage = os.path.relpath(path, os.path.join(src, "lib")).split(os.sep)[0]
        allowed = closure(graph, stage) | {stage}
        for m in include.finditer(open(path, encoding="utf-8").read()):
            target = m.group(1).split("/")[0]
            rel = os.path.relpath(path, src)
            if "/" not in m.group(1):
                continue
            if target == "cli":
                problems.append(f"{rel}: includes {m.group(1)}: lib/ never includes the CLI")
            elif target in graph and target not in allowed:
                problems.append(f"{rel}: includes {m.group(1)}: {stage} does not depend on {target} (upward edge)")
            elif stage == "model" and target in ("logic", "compile", "oracle"):
                problems.append(f"{rel}: the model includes {target}: a verdict must come from the weights alone")

    for top in ("lib", "cli"):
        for path in sources(src, top):
            for first, length, text in long_functions(path, MAX_FUNCTION_LINES):
                problems.append(f"{os.path.relpath(path, src)}:{first}: a function of {length} lines "
                                f"(at most {MAX_FUNCTION_LINES}): ...{text}")

    cited = re.compile(r"shared/")
    paths = [os.path.join(src, "README.md")]
    for top in ("docs", "lib", "cli"):
        for root, _, files in os.walk(os.path.join(src, top)):
            paths.extend(os.path.join(root, f) for f in sorted(files))
    for path in paths:
        for k, text in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            if cited.search(text):
                problems.append(f"{os.path.relpath(path, src)}:{k}: cites the shared design folder: {text.strip()[:80]}")

    for p in problems:
        print(p)
    print(f"house: {len(graph)} stages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
