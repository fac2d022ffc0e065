"""Runs a command and passes only if it exits 0 AND its standard output matches a regular expression.

ctest's PASS_REGULAR_EXPRESSION alone ignores the exit code, so a crash after the matching line
would pass; this wrapper checks both. Usage: run_and_match.py REGEX -- COMMAND [ARGS...]"""
import re
import subprocess
import sys

sep = sys.argv.index("--")
pattern, command = sys.argv[1], sys.argv[sep + 1:]
done = subprocess.run(command, capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
if done.returncode != 0:
    print(f"FAIL: exit code {done.returncode} (expected 0)")
    sys.exit(1)
if not re.search(pattern, done.stdout):
    print(f"FAIL: no line matches {pattern!r}")
    sys.exit(1)
