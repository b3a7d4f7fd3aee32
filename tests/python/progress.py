#!/usr/bin/env python3
"""The progress line appears on a terminal's stderr, and never on stdout, in a
pipe or with --quiet.

The terminal is a pseudo-terminal (pty). SOFTHAT_PROGRESS_AFTER=0 makes the
line appear however short the run is (its final count is drawn at the end),
so the test does not depend on timing.
"""
import argparse
import os
import pty
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from failures import exit_status, fail  # noqa: E402


def run_with_tty_stderr(argv, env, stdin_text=""):
    """stdout and stdin are pipes, stderr is a pty: returns (rc, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    p.stdin.write(stdin_text.encode())
    p.stdin.close()
    terminal = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the pty
            break
        if not chunk:
            break
        terminal += chunk
    out = p.stdout.read()
    rc = p.wait()
    os.close(master)
    return rc, out.decode(), terminal.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    a = ap.parse_args()
    env = dict(os.environ, SOFTHAT_PROGRESS_AFTER="0")
    runs = [
        (["verify", "a-since-b", "--exhaustive", "6", "--lengths", "20", "--per-length", "20"], "", "words/s"),
        (["classify", "a-since-b"], "ab\nba\nbab\n", "lines/s"),
        (["generate", "a-since-b", "--lengths", "1-6", "--per-length", "4"], "", "lengths/s"),
        (["simulate", "a-since-b", "--lengths", "0-3"], "", "lengths/s"),
    ]
    for args, stdin_text, unit in runs:
        argv = [a.cli] + args
        what = " ".join(args)
        # On a terminal: the line is drawn on stderr, and stdout is the same as in a pipe.
        rc, out, terminal = run_with_tty_stderr(argv, env, stdin_text)
        piped = subprocess.run(argv, input=stdin_text.encode(), capture_output=True, env=env)
        if rc != piped.returncode:
            fail(f"{what}: exit {rc} on a terminal, {piped.returncode} in a pipe")
        if unit not in terminal:
            fail(f"{what}: no progress line on the terminal: {terminal[:200]!r}")
        if "\r" not in terminal or "\x1b[K" not in terminal:
            fail(f"{what}: the progress line is not redrawn in place and cleared")
        if out != piped.stdout.decode():
            fail(f"{what}: stdout differs when stderr is a terminal")
        if unit in out or "\r" in out:
            fail(f"{what}: progress reached stdout")
        # In a pipe: none, on either stream.
        if unit in piped.stderr.decode() or "\r" in piped.stderr.decode():
            fail(f"{what}: progress in a pipe: {piped.stderr.decode()[:200]!r}")
        # --quiet: none on the terminal either.
        rc, out, terminal = run_with_tty_stderr([a.cli, "--quiet"] + args, env, stdin_text)
        if unit in terminal:
            fail(f"{what}: progress with --quiet")
    return exit_status(f"progress: on the terminal only, for {len(runs)} commands")


if __name__ == "__main__":
    sys.exit(main())
