"""The failure list the CLI tests in Python share: every failed check is
printed as it happens, and the test's exit status says whether any did."""

FAILURES = []


def fail(message):
    FAILURES.append(message)
    print("FAIL:", message)


def exit_status(success_message):
    """1 after any failure (printing how many), else 0 after success_message."""
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print(success_message)
    return 0
