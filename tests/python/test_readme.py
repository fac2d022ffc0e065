"""The README's Python block runs as written, and every decimal number in its comments is the value
the statement gives (docs/guide-dpsgd.md, "From Python"; issue: docs that match the program).

Each top-level statement of the block is executed in turn (paths under examples/ made absolute); its
comment is the text after `#` on its lines and on the comment-only lines that follow it. For an
expression (or a statement that prints), every decimal number written in its comment (digits, a
point, digits) must be one of the numbers in its value (its repr, or for an object its attributes)
or printed output, to the digits written; an assignment's comment describes its inputs.

Run by ctest (`python:readme`) with PYTHONPATH=<build>/python and RDPDYN_SOURCE.
"""
import ast
import contextlib
import io
import os
import pathlib
import re

import pytest

import rdpdyn

SOURCE = pathlib.Path(os.environ.get("RDPDYN_SOURCE", pathlib.Path(__file__).resolve().parents[2]))
DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?")


def python_block():
    text = (SOURCE / "docs" / "guide-dpsgd.md").read_text()  # the README's reference, moved (issue 37)
    start = text.index("## From Python")
    block = text[text.index("```python\n", start) + len("```python\n"):]
    return block[:block.index("```")]


def statements(block):
    """(source, comment) per top-level statement."""
    lines = block.splitlines()
    tree = ast.parse(block)
    out = []
    for i, node in enumerate(tree.body):
        last = node.end_lineno
        end = tree.body[i + 1].lineno - 1 if i + 1 < len(tree.body) else len(lines)
        comment = []
        for k in range(node.lineno - 1, end):
            line = lines[k]
            if k >= last and line.strip() and not line.strip().startswith("#"):
                break
            if "#" in line:
                comment.append(line.split("#", 1)[1])
        out.append((node, ast.get_source_segment(block, node), " ".join(comment)))
    return out


def numbers_in(value):
    text = repr(value)
    if hasattr(value, "__dict__"):
        text += " " + repr(vars(value))
    return [float(x) for x in DECIMAL.findall(text)]


def matches(written, observed):
    """Every number of the block is a bound (an epsilon, a delta, a noise that meets a target): as
    written it must still hold, so it is the value rounded UP to its digits."""
    digits = len(written.split("e")[0].split(".")[1])
    target, unit = float(written), 10.0 ** -digits
    return any(x - 1e-9 * unit <= target <= x + unit * (1 + 1e-9) for x in observed)


def test_the_python_block_runs_as_written_and_its_numbers_hold():
    block = python_block().replace('"examples/', f'"{SOURCE}/examples/')
    namespace = {}
    checked = 0
    for node, source, comment in statements(block):
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), "<README>", "eval"), namespace)
            else:
                exec(compile(ast.Module([node], []), "<README>", "exec"), namespace)
                value = None
        printed = captured.getvalue()
        observed = numbers_in(value) + [float(x) for x in DECIMAL.findall(printed)]
        # An assignment's comment describes its inputs; an expression's and a print's, the result.
        for written in DECIMAL.findall(comment) if isinstance(node, ast.Expr) or printed else []:
            assert matches(written, observed), f"README: `{source}` gives {value!r} {printed!r}, not {written}"
            checked += 1
        if printed and isinstance(node, ast.Try):
            assert printed.strip() == comment.split("# ")[-1].strip() or printed.strip() in comment, (printed, comment)
    # The block's numbers: 0.0751773, 2.18049, 0.0426902, 0.12231, 2.12775, 2.27806, 5.1929, 0.0426726, 2.12775, 5.631993.
    assert checked >= 8, checked
