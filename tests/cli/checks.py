"""Shared bookkeeping of the end-to-end test scripts: count checks, print failures, and close with
the 'N passed, N failed' line that CI reads."""
import sys

_counts = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    """Records one check; prints the failure with its detail."""
    if condition:
        _counts["passed"] += 1
    else:
        _counts["failed"] += 1
        print(f"FAIL {name}: {detail}")


def finish():
    """Prints the closing line and exits non-zero on any failure."""
    print(f"{_counts['passed']} passed, {_counts['failed']} failed")
    sys.exit(1 if _counts["failed"] else 0)
