"""`rdpdyn plot FILE.h5 [-o FIG.png]`: a picture of any output file of rdpdyn (docs/hdf5.md).

    solve    R against steps at a few orders (--orders), with the file's closed forms beside it
    compare  epsilon per analysis (status shown; the ones that do not apply listed) and R per order
    sweep    a heat map of epsilon over the first two axes with labelled contour lines, per analysis
             (one axis: curves); the title states the configuration's values the sweep keeps fixed

The command line runs `/usr/bin/python3 -m rdpdyn.plot` with PYTHONPATH at this package (README,
"Pictures"); from Python, `plot_file(path, output)`. Files are read with h5py; matplotlib draws with
its Agg backend (no display). Exit codes as the command line's: 0 success, 2 bad input (a file
that is not an rdpdyn output, a bad option, an output directory that does not exist), and no PNG
is left behind: the picture is written to a temporary sibling and renamed.
"""
import argparse
import difflib
import math
import os
import re
import signal
import sys
import textwrap

import numpy as np

EXIT_BAD_INPUT = 2
# Colours of the compare statuses (docs/guide-dpsgd.md, "Every analysis of a run": published, derived, disputed, exact,
# lower-bound, record-specific).
STATUS_COLOURS = {"published": "tab:blue", "derived": "tab:green", "disputed": "tab:orange", "exact": "tab:red",
                  "lower-bound": "tab:gray", "record-specific": "tab:purple", "heuristic": "tab:olive",
                  "released-lower-bound": "tab:brown"}
# Colour, line style and marker of each closed form, in the order the file lists them (R itself is
# solid black): colour and style both differ, so a closed form equal to R still shows (its markers).
CLOSED_FORM_STYLES = [("tab:red", "--", "o"), ("tab:blue", ":", "s"), ("tab:green", "-.", "^"),
                      ("tab:orange", (0, (5, 1, 1, 1, 1, 1)), "D"), ("tab:purple", (0, (1, 3)), "v"),
                      ("tab:brown", (0, (8, 2)), "P"), ("tab:cyan", (0, (3, 1, 1, 1)), "X")]
# Line styles that tell apart curves of the compare plot drawn in the same colour.
COMPARE_STYLES = ["-", "--", "-.", ":"]
# Runs without discrete steps (docs/hdf5.md, root attribute `algorithm`): their x axis is the time t.
CONTINUOUS_ALGORITHMS = ("langevin", "pdi")
# Below this many records a solve curve is drawn with a marker at each record.
FEW_RECORDS = 20
# Units of the keys most often swept (docs/config.md); others are labelled by their key alone.
KEY_UNITS = {"algorithm.sigma": "C21 noise scale", "algorithm.noise_multiplier": "noise std / clipping norm",
             "algorithm.steps": "steps", "algorithm.eta": "step size = time per step",
             "algorithm.n": "records", "algorithm.batch_size": "records",
             "algorithm.sampling_rate": "probability", "algorithm.sensitivity": "gradient norm",
             "report.delta": "probability", "lsi.lambda": "strong convexity of the loss",
             "lsi.c": "1/(parameter units)^2"}
# epsilon is a log-likelihood ratio (privacy loss): natural log, not an information quantity in nats.
EPSILON_UNITS = "natural log"


class PlotInputError(ValueError):
    """A file or an option `rdpdyn plot` cannot draw (exit 2)."""


def pyplot():
    """matplotlib.pyplot on the Agg backend: files only, no display needed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def spans_decades(values, decades=2.0):
    """Whether the positive finite values span at least `decades` powers of ten (then log scale)."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    return v.size > 1 and math.log10(v.max() / v.min()) >= decades


def log_axis(values):
    """Whether an axis of sampled values reads better on a log scale: positive values more evenly
    spaced in log than linearly (a log range of a sweep), or, for two values, ten-fold apart."""
    v = np.unique(np.asarray(values, dtype=float))
    if v.size < 2 or v.min() <= 0:
        return False
    if v.size == 2:
        return spans_decades(v, 1)
    spread = lambda d: np.std(d) / np.mean(d)  # coefficient of variation of the spacings
    return spread(np.diff(np.log(v))) < spread(np.diff(v))


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


# ---- reading -------------------------------------------------------------------------------------

def read_output(path):
    """The content of an rdpdyn output file as a dict with `kind` = solve, compare or sweep.
    PlotInputError when the file is missing, not HDF5, or not written by rdpdyn."""
    import h5py
    if not os.path.isfile(path):
        raise PlotInputError(f"'{path}': no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise PlotInputError(f"'{path}' is not an HDF5 file ({e})") from None
    with f:
        if _text(f.attrs.get("program", "")) != "rdpdyn":
            raise PlotInputError(f"'{path}' is not an rdpdyn output (no root attribute program = rdpdyn; docs/hdf5.md)")
        # Schema >= 3 names the command; older solve files are recognised by their datasets.
        kind = _text(f.attrs.get("command", "solve" if "R" in f else ""))
        try:
            reader = {"solve": _read_solve, "compare": _read_compare, "sweep": _read_sweep}[kind]
        except KeyError:
            raise PlotInputError(f"'{path}': unknown command '{kind}' (solve, compare or sweep)") from None
        try:
            data = reader(f)
        except KeyError as e:  # a dataset or attribute docs/hdf5.md promises is missing
            raise PlotInputError(f"'{path}' is not a complete {kind} file: {e}") from None
    data.update(kind=kind, path=str(path))
    return data


def _read_solve(f):
    closed = {name: {"R": d[()], "role": _text(d.attrs.get("role", "")), "citation": _text(d.attrs.get("citation", ""))}
              for name, d in f["closed_forms"].items()}
    extra = {n: f.attrs[n] for n in _text(f.attrs.get("extra_attributes", "")).splitlines()}
    return {"orders": f["orders"][()], "steps": f["step"][()], "t": f["t"][()], "R": f["R"][()],
            "closed_forms": closed, "epsilon": extra.get("epsilon"), "delta": extra.get("delta"),
            "algorithm": _text(f.attrs.get("algorithm", "")),
            "title": f"{_text(f.attrs.get('config_path', ''))}  ({_text(f.attrs['engine'])}, "
                     f"gamma {_text(f.attrs['gamma_mode'])}, LSI {_text(f.attrs['lsi_model'])})"}


def _read_compare(f):
    analyses = []
    for name, d in f["analyses"].items():
        a = d.attrs
        eps = float(a["epsilon"])
        analyses.append({"name": name, "status": _text(a["status"]), "applies": bool(a["applies"]),
                         "reason": _text(a["reason"]), "R": d[()], "epsilon": None if math.isnan(eps) else eps,
                         "best_order": float(a["best_order"])})
    delta = float(f.attrs["delta"])
    # Privacy profiles and trade-off curves (schema >= 4; only entries that know them).
    curves = {name: {k: g[k][()] for k in ("profile_epsilon", "profile_delta", "tradeoff_alpha", "tradeoff_beta")
                     if k in g} for name, g in f.get("curves", {}).items()}
    return {"orders": f["orders"][()], "analyses": analyses, "curves": curves, "best": _text(f["best/R"].attrs["name"]),
            "delta": None if math.isnan(delta) else delta, "title": _text(f.attrs.get("config_path", ""))}


def _read_sweep(f):
    group = f["sweep"]
    keys = _text(group.attrs["axes"]).splitlines()
    surfaces = {}
    for name in _text(group.attrs["analyses"]).splitlines():
        g = group[name]
        surfaces[name] = {"status": _text(g.attrs["status"]), "R": g["R"][()],
                          "epsilon": g["epsilon"][()] if "epsilon" in g else None,
                          "reason": np.array([_text(r) for r in g["reason"][()].ravel()]).reshape(g["reason"].shape)}
        axes = {k: g[k][()] for k in keys}
        orders = g["orders"][()]
    delta = next(iter(group.values()))["delta"][()]
    finite = delta[np.isfinite(delta)]
    config = _text(f.attrs.get("config", ""))
    return {"axes": axes, "orders": orders, "surfaces": surfaces,
            "delta": float(finite.flat[0]) if finite.size else None, "title": _text(f.attrs.get("config_path", "")),
            "config": config, "fixed": fixed_parameters(config, keys)}


# ---- the fixed parameters of a sweep (its caption) -----------------------------------------------

# The line before the `--set` overrides in the root attribute `config` (io/config/overrides.cpp,
# effective_config_text): each override follows as "# KEY=VALUE".
OVERRIDES_MARKER = "# Overridden on the command line (--set), applied to the text above:"
# Tables the caption leaves out: the sweep itself and where the output goes.
CAPTION_SKIPPED_TABLES = ("sweep", "output")


def _toml_value(text):
    """The value of `--set KEY=VALUE` as the CLI reads it: a TOML value, else a bare word as a string."""
    import tomllib
    try:
        return tomllib.loads(f"v = {text}\n")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _set_key(root, key, value):
    """`--set` semantics: a dotted key with optional [index] parts set in the parsed document."""
    parts = key.split(".")
    node = root
    for i, part in enumerate(parts):
        m = re.fullmatch(r"([^\[\]]+)(?:\[(\d+)\])?", part)
        if not m:
            raise KeyError(key)
        name, index = m.group(1), m.group(2)
        last = i + 1 == len(parts)
        if last and index is None:
            node[name] = value
            return
        node = node.setdefault(name, {})
        if index is not None:
            if last:
                node[int(index)] = value
                return
            node = node[int(index)]


def _flatten(value, prefix, out):
    """Dotted keys (`algorithm.schedule[0].eta`, the --set syntax) of every value under `prefix`."""
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else k, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):  # an array of tables
        for i, v in enumerate(value):
            _flatten(v, f"{prefix}[{i}]", out)
    else:
        out[prefix] = value


def fixed_parameters(config, axis_keys):
    """{dotted key: value} of the sweep's configuration (the root attribute `config`: the file, then
    its --set overrides) that the sweep does not vary: every key except the axes' (and anything
    under them), [sweep] and [output]; algorithm.kind first. {} when the text cannot be read
    (then the picture has no caption rather than a wrong one)."""
    import tomllib
    if not config:
        return {}
    # This run's overrides are the last block (a file copied from an earlier output's `config`
    # carries that run's block too, as comments it did not apply).
    text, marker, overrides = config.rpartition(OVERRIDES_MARKER)
    if not marker:
        text, overrides = config, ""
    try:
        doc = tomllib.loads(text)
        for line in overrides.splitlines():
            line = line.strip()
            if line.startswith("#") and "=" in line:
                key, _, value = line[1:].partition("=")
                if re.split(r"[.\[]", key.strip())[0] not in CAPTION_SKIPPED_TABLES:  # left out anyway
                    _set_key(doc, key.strip(), _toml_value(value.strip()))
    except (tomllib.TOMLDecodeError, KeyError, IndexError, TypeError, AttributeError):
        return {}
    flat = {}
    for table in doc:
        if table not in CAPTION_SKIPPED_TABLES:
            _flatten(doc[table], table, flat)
    # A key is swept when an axis is it, lies inside it, or sets one element of it (an axis
    # `quadratic.pair[0]` sweeps the array `quadratic.pair`, flattened as one value).
    swept = lambda k: any(k == a or k.startswith(a + ".") or k.startswith(a + "[") or a.startswith(k + "[")
                          for a in axis_keys)
    fixed = {k: v for k, v in flat.items() if not swept(k)}
    if "algorithm.kind" in fixed:
        fixed = {"algorithm.kind": fixed.pop("algorithm.kind"), **fixed}
    return fixed


def format_number(v, digits=4):
    """A number as a caption states it: integers exact, others to `digits` significant digits,
    exponents without padding (1e-5, 2.5e6)."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    text = f"{float(v):.{digits}g}"
    mantissa, e, exponent = text.partition("e")
    return mantissa + (f"e{int(exponent)}" if e else "")


def _format_value(v):
    if isinstance(v, str):
        return v if len(v) <= 40 else v[:38] + "..."
    if isinstance(v, list):
        if v and all(isinstance(r, list) for r in v):
            return f"{len(v)} x {len(v[0])} matrix"
        if all(isinstance(x, (int, float)) for x in v) and len(v) > 4:
            return f"[{format_number(v[0])}, ..., {format_number(v[-1])}] ({len(v)} values)"
        return "[" + ", ".join(_format_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_format_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (int, float, np.number)):
        return format_number(v)
    return str(v)


def fixed_caption(fixed, width=120):
    """The fixed parameters as lines of at most `width` characters (where a value allows), grouped by
    table, the algorithm first and the orders last: "fixed: algorithm: kind = noisy-gd, eta = 0.02,
    n = 5000; lsi: kind = recursion; report: delta = 1e-5; orders: ..."; a line breaks between two
    "key = value", never inside one."""
    groups = {}
    for key, value in fixed.items():
        table, _, name = key.rpartition(".")
        groups.setdefault(table, []).append(f"{name} = {_format_value(value)}")
    if "orders" in groups:
        groups["orders"] = groups.pop("orders")
    words = ["fixed:"]
    for g, (table, items) in enumerate(groups.items()):
        last = g + 1 == len(groups)
        for i, item in enumerate(items):
            head = f"{table}: " if i == 0 and table else ""
            words.append(head + item + ("," if i + 1 < len(items) else "" if last else ";"))
    if len(words) == 1:
        return ""
    lines = [words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) > width:
            lines.append(word)
        else:
            lines[-1] += " " + word
    return "\n".join(lines)


# ---- drawing -------------------------------------------------------------------------------------

def chosen_orders(orders, wanted=None, count=4):
    """Indices of the orders to draw: the recorded ones nearest to `wanted`, else `count` spread
    evenly in log(alpha - 1) (the solver's own grid variable, docs/math.md section 2.2)."""
    orders = np.asarray(orders, dtype=float)
    if wanted:
        picked = []
        for a in wanted:
            i = int(np.argmin(np.abs(orders - a)))
            if not math.isclose(orders[i], a, rel_tol=1e-9):
                raise PlotInputError(f"--orders: {a:g} is not a recorded order (recorded: "
                                     f"{', '.join(f'{o:g}' for o in orders[:12])}{' ...' if len(orders) > 12 else ''})")
            picked.append(i)
        return sorted(set(picked))
    if len(orders) <= count:
        return list(range(len(orders)))
    y = np.log(orders - 1)
    return sorted({int(np.argmin(np.abs(y - target))) for target in np.linspace(y[0], y[-1], count)})


def _closed_form_label(name, c, width=70):
    """The legend entry of a closed form: the whole citation, wrapped (a cut one read "(the )")."""
    return textwrap.fill(f"{name}: {c['role']}" + (f", {c['citation']}" if c["citation"] else ""), width)


def draw_solve(fig, data, orders=None):
    from matplotlib.lines import Line2D
    continuous = data.get("algorithm") in CONTINUOUS_ALGORITHMS
    x = np.asarray(data["t"] if continuous else data["steps"], dtype=float)
    xlabel = "time t (C21 units)" if continuous else "steps K (count)"
    picked = chosen_orders(data["orders"], orders)
    closed = list(data["closed_forms"].items())
    few = len(x) < FEW_RECORDS  # a line between two records far apart reads as a spike: mark each record
    logx = spans_decades(x[x > 0], 2)
    keep = x > 0 if logx else np.ones_like(x, dtype=bool)  # step 0 has no place on a log axis
    shown = np.concatenate([data["R"][keep][:, picked].ravel()] + [c["R"][keep][:, picked].ravel() for _, c in closed])
    logy = spans_decades(shown, 2)
    # One panel per order: colours then name the closed forms, not the orders.
    rows, cols = (1, len(picked)) if len(picked) <= 2 else (2, (len(picked) + 1) // 2)
    labels = [_closed_form_label(name, c) for name, c in closed]
    legend_lines = 1 + sum(label.count("\n") + 1 for label in labels)
    # The legend takes the free cell of the grid, else a last row (matplotlib 3.6 has no "outside"
    # legend under constrained layout).
    spare = rows * cols > len(picked)
    grid = fig.add_gridspec(rows + (not spare), cols,
                            height_ratios=[1] * rows + ([] if spare else [0.05 + 0.045 * legend_lines * rows]))
    axes = [fig.add_subplot(grid[k // cols, k % cols]) for k in range(len(picked))]
    for ax in axes[1:]:
        ax.sharex(axes[0])
    handles = {"R (rdpdyn)": Line2D([], [], color="black", linewidth=2.2, marker="." if few else None)}
    for ax, j in zip(axes, picked):
        r = data["R"][keep, j]
        # On a log axis R = 0 (the start) is left out rather than drawn as a drop to the bottom.
        valid = lambda v: (v > 0) & np.isfinite(v) if logy else np.isfinite(v)
        ax.plot(x[keep][valid(r)], r[valid(r)], color="black", linewidth=2.2, marker="." if few else None,
                markersize=8, zorder=2)
        drawn = [r]
        for i, (name, c) in enumerate(closed):
            colour, style, marker = CLOSED_FORM_STYLES[i % len(CLOSED_FORM_STYLES)]
            v = c["R"][keep, j]
            ok = valid(v)
            # A closed form equal to R would hide under it: its markers (at every record, or spread) show it.
            same = any(ok.any() and np.allclose(v[ok], d[ok], rtol=1e-6, atol=0) for d in drawn)
            drawn.append(v)
            mark = marker if few or same else None
            # Spread along the drawn curve, offset per closed form: markers of equal curves interleave.
            every = (0.03 * (i % 4), 0.12) if same and not few else None
            ax.plot(x[keep][ok], v[ok], color=colour, linestyle=style, linewidth=1.4, marker=mark, markevery=every,
                    markersize=4 + 1.5 * i, markerfacecolor="none", zorder=3)  # growing: equal points nest
            handles.setdefault(labels[i], Line2D([], [], color=colour, linestyle=style, linewidth=1.4,
                                                                   marker=marker, markerfacecolor="none"))
        ax.set_xscale("log" if logx else "linear")
        ax.set_yscale("log" if logy else "linear")
        ax.set_title(rf"$\alpha$ = {data['orders'][j]:g}", fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        if not (x > 0).any():  # steps = 0: nothing after the start to draw
            ax.text(0.5, 0.5, "no step recorded after the start\n(steps = 0: R = 0)", transform=ax.transAxes,
                    ha="center", va="center", fontsize=9, color="dimgrey")
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
        elif few and not logx:
            ax.set_xlim(left=min(0.0, x.min()), right=x.max() * 1.05)  # the last record off the frame's edge
    for k, ax in enumerate(axes):
        if k % cols == 0:
            ax.set_ylabel(r"Rényi bound $R_\alpha$ (nats)")
        if k >= len(picked) - cols:
            ax.set_xlabel(xlabel)
    legend_ax = fig.add_subplot(grid[rows - 1, cols - 1] if spare else grid[rows, :])
    legend_ax.axis("off")
    legend_ax.legend(list(handles.values()), list(handles), loc="center", ncol=1, fontsize=7, frameon=False)
    title = data["title"]
    if data.get("epsilon") is not None:
        title += f"\nepsilon = {float(data['epsilon']):.4g} at delta = {float(data['delta']):g} (final step)"
    fig.suptitle(title, fontsize=9)


def _same_curve_groups(analyses):
    """The analyses grouped by equal R over the orders (a curve drawn twice hides the first)."""
    groups = []
    for a in analyses:
        for g in groups:
            if np.allclose(a["R"], g[0]["R"], rtol=1e-9, atol=0, equal_nan=True):
                g.append(a)
                break
        else:
            groups.append([a])
    return groups


def draw_compare(fig, data):
    from matplotlib.lines import Line2D
    valid = [a for a in data["analyses"] if a["applies"]]
    if not valid:
        raise PlotInputError(f"'{data['path']}': no analysis applies to this run; nothing to draw")
    curves = {n: c for n, c in data.get("curves", {}).items()
              if all(k in c for k in ("profile_epsilon", "profile_delta", "tradeoff_alpha", "tradeoff_beta"))}
    if curves:  # privacy profile and trade-off curve below the two panels
        (left, right), (profile, tradeoff) = fig.subplots(2, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    else:
        left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    with_eps = data["delta"] is not None
    # Left: epsilon (or R at the largest order without a delta) per analysis that applies, as dots
    # ranked from the smallest (a bar on a log axis starts at an arbitrary value, and a linear bar
    # hides the small ones). Values over decades get a log axis; a 0 (a lower bound with no
    # profile) then sits at its left edge, drawn hollow and labelled 0.
    def shown(a):  # a missing value (NaN in the file, None here) ranks last
        v = a["epsilon"] if with_eps else a["R"][-1]
        return math.inf if v is None or (isinstance(v, float) and math.isnan(v)) else v
    ranked = sorted(valid, key=lambda a: (shown(a), a["name"] != data["best"]))
    values = np.array([shown(a) for a in ranked], dtype=float)
    ypos = np.arange(len(ranked))
    statuses = list(dict.fromkeys(a["status"] for a in ranked))
    positive = values[values > 0]
    log = positive.size > 0 and spans_decades(positive, 1)
    base = positive.min() / 3 if log else 0.0
    drawn = np.where(values > 0, values, base) if log else values
    colours = [STATUS_COLOURS.get(a["status"], "grey") for a in ranked]
    left.hlines(ypos, base, drawn, color="lightgrey", linewidth=1, zorder=1)
    left.scatter(drawn, ypos, s=36, zorder=2, facecolors=[c if v > 0 or not log else "none" for c, v in zip(colours, values)],
                 edgecolors=colours)
    left.set_yticks(ypos, [("* " if a["name"] == data["best"] else "") + a["name"] for a in ranked], fontsize=7)
    left.invert_yaxis()
    for y, v, x in zip(ypos, values, drawn):
        left.annotate(f"{v:.4g}", (x, y), xytext=(5, 0), textcoords="offset points", va="center", fontsize=7)
    if log:
        left.set_xscale("log")
        left.set_xlim(base / 1.5, values.max() * 8)  # room for the value labels
    else:
        left.set_xlim(0, max(values.max(), 1e-12) * 1.25)
    left.set_xlabel(f"epsilon at delta = {data['delta']:g} ({EPSILON_UNITS})" if with_eps
                    else f"R at alpha = {data['orders'][-1]:g} (nats)")
    left.set_title("* best; colour = status", fontsize=8)
    left.grid(True, axis="x", alpha=0.3)
    # Only the statuses drawn, below the axes: inside it would cover a value label.
    left.legend([Line2D([], [], marker="o", linestyle="", color=STATUS_COLOURS.get(s, "grey")) for s in statuses],
                statuses, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=min(len(statuses), 4),
                frameon=False)
    absent = [a["name"] for a in data["analyses"] if not a["applies"]]
    if absent:  # their reasons are in the file (/analyses/<name> attribute `reason`)
        fig.supxlabel(textwrap.fill("do not apply here: " + ", ".join(absent), 180), fontsize=7, color="dimgrey")
    # Right: R against the order; analyses with equal R share one curve and one legend entry.
    orders = np.asarray(data["orders"], dtype=float)
    for i, group in enumerate(_same_curve_groups(valid)):
        a = group[0]
        style = "--" if a["status"] == "disputed" else COMPARE_STYLES[(i // 10) % len(COMPARE_STYLES)]
        right.plot(orders, a["R"], marker="." if len(orders) < 30 else None, color=f"C{i % 10}",
                   linestyle=style, label=textwrap.fill(" = ".join(g["name"] for g in group), 45))
    right.set_xscale("log" if spans_decades(orders, 1) else "linear")  # orders: often a hand list
    right.set_yscale("log" if spans_decades(np.concatenate([a["R"] for a in valid]), 2) else "linear")
    right.set_xlabel(r"Rényi order $\alpha$ (dimensionless)")
    right.set_ylabel(r"$R_\alpha$ bound (nats)")
    # Below the axes: inside, a dozen entries cover the curves.
    right.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    right.grid(True, alpha=0.3)
    if curves:
        _draw_privacy_curves(profile, tradeoff, curves, data)
    fig.suptitle(data["title"], fontsize=9)


def _draw_privacy_curves(profile, tradeoff, curves, data):
    """delta(epsilon) and the trade-off curve of the entries that know them (/curves, docs/hdf5.md)."""
    for i, (name, c) in enumerate(curves.items()):
        style = dict(color=f"C{i % 10}", linestyle=COMPARE_STYLES[i % len(COMPARE_STYLES)], label=name)
        positive = c["profile_delta"] > 0  # delta = 0 has no place on the log axis
        profile.plot(c["profile_epsilon"][positive], c["profile_delta"][positive], **style)
        tradeoff.plot(c["tradeoff_alpha"], c["tradeoff_beta"], **style)
    if data["delta"] is not None:
        profile.axhline(data["delta"], color="dimgrey", linewidth=0.8, linestyle=":",
                        label=f"delta = {data['delta']:g}")
    profile.set_yscale("log")
    profile.set_xlabel(f"epsilon ({EPSILON_UNITS})")
    profile.set_ylabel("delta(epsilon) (probability)")
    profile.set_title("privacy profile (upper bound)", fontsize=8)
    profile.legend(fontsize=6)
    profile.grid(True, which="major", alpha=0.3)
    alpha = np.linspace(0, 1, 101)
    tradeoff.plot(alpha, 1 - alpha, color="dimgrey", linewidth=0.8, linestyle=":", label="perfect privacy (1 - alpha)")
    tradeoff.set_xlim(0, 1)
    tradeoff.set_ylim(0, 1)
    tradeoff.set_aspect("equal", adjustable="box")
    tradeoff.set_xlabel("type I error alpha (probability)")
    tradeoff.set_ylabel("type II error beta (probability)")
    tradeoff.set_title("trade-off curve (lower bound on beta)", fontsize=8)
    tradeoff.legend(fontsize=6)
    tradeoff.grid(True, alpha=0.3)


def _axis_label(key):
    units = KEY_UNITS.get(key)
    return f"{key} ({units})" if units else key


def cell_edges(values, log):
    """Edges of the cells centred on sampled axis values: midpoints (in log space on a log axis),
    the outer cells as wide as their neighbours; on a linear axis of positive values (eta, a
    diameter) never below 0, on a log axis positive by construction."""
    v = np.asarray(values, dtype=float)
    if v.size == 1:
        return np.array([v[0] / 2, v[0] * 2]) if log else np.array([v[0] - 0.5, v[0] + 0.5])
    u = np.log(v) if log else v
    mid = (u[1:] + u[:-1]) / 2
    edges = np.concatenate([[u[0] - (mid[0] - u[0])], mid, [u[-1] + (u[-1] - mid[-1])]])
    if log:
        return np.exp(edges)
    if v.min() > 0:
        edges[0] = max(edges[0], 0.0)
    return edges


def _sweep_value(data, s):
    if s["epsilon"] is not None:
        return s["epsilon"], f"epsilon at delta = {format_number(data['delta'])} ({EPSILON_UNITS})"
    return s["R"][..., -1], f"R at alpha = {data['orders'][-1]:g} (nats)"  # no [report] delta: the largest order


def shared_levels(values, log, count=5):
    """Round contour levels over the common range of every panel (the same lines in each)."""
    from matplotlib import ticker
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & ((v > 0) if log else True)]
    if v.size < 2 or v.min() == v.max():
        return np.array([])
    if log:  # 1, 2, 5 per decade, thinned to about `count`
        levels = np.array([m * 10.0 ** e for e in range(int(np.floor(np.log10(v.min()))), int(np.ceil(np.log10(v.max()))) + 1)
                           for m in (1, 2, 5)])
        levels = levels[(levels > v.min()) & (levels < v.max())]
        return levels[::max(1, int(np.ceil(len(levels) / count)))]
    levels = np.asarray(ticker.MaxNLocator(count, steps=[1, 2, 2.5, 5, 10]).tick_values(v.min(), v.max()))
    return levels[(levels > v.min()) & (levels < v.max())]


def _label_size(fig, renderer, text, fontsize):
    """Width and height in pixels of a contour label."""
    from matplotlib.text import Text
    box = Text(0, 0, text, figure=fig, size=fontsize).get_window_extent(renderer)
    return box.width, box.height


def _inside_label_point(path, box, width, height, pad):
    """Where on `path` (display coordinates) a label of `width` x `height` pixels, turned along the
    line, keeps its box `pad` pixels inside `box` (an axes' window extent): the middle, by arc
    length, of the longest run of such vertices; None when no run is 1.5 label widths long (the
    label and its gap in the line would not fit)."""
    if len(path) < 2:
        return None
    # Every 2 pixels along the line: a coarse sweep's line has a vertex per cell only.
    pieces = np.maximum(np.ceil(np.hypot(*np.diff(path, axis=0).T) / 2).astype(int), 1)
    path = np.concatenate([a + np.linspace(0, 1, n, endpoint=False)[:, None] * (b - a)
                           for a, b, n in zip(path[:-1], path[1:], pieces)] + [path[-1:]])
    dx, dy = np.gradient(path[:, 0]), np.gradient(path[:, 1])
    turn = np.hypot(dx, dy)
    cos, sin = np.abs(dx) / np.maximum(turn, 1e-12), np.abs(dy) / np.maximum(turn, 1e-12)
    hx, hy = (width * cos + height * sin) / 2 + pad, (width * sin + height * cos) / 2 + pad
    inside = ((path[:, 0] - hx >= box.x0) & (path[:, 0] + hx <= box.x1) &
              (path[:, 1] - hy >= box.y0) & (path[:, 1] + hy <= box.y1))
    best, best_length = None, 1.5 * width
    edges = np.flatnonzero(np.diff(np.concatenate([[0], inside.astype(int), [0]])))
    for start, stop in zip(edges[::2], edges[1::2]):  # the runs of inside vertices
        run = path[start:stop]
        steps = np.hypot(*np.diff(run, axis=0).T)
        length = steps.sum()
        if len(run) > 1 and length >= best_length:
            arc = np.concatenate([[0.0], np.cumsum(steps)])
            k = min(max(int(np.searchsorted(arc, length / 2)), 1), len(run) - 1)
            f = (length / 2 - arc[k - 1]) / max(arc[k] - arc[k - 1], 1e-12)
            best, best_length = run[k - 1] + f * (run[k] - run[k - 1]), length
    return best


def label_contours(fig, ax, contours, fmt, fontsize=7):
    """Contour labels placed inline where their box lies inside the axes: on each line long enough,
    the middle of its longest stretch away from the edges (matplotlib's own placement, which ignores
    the edges, put labels across the frame), none closer than 1.2 label widths to another. Needs the
    final layout (fig.draw_without_rendering() first). Returns the labels."""
    renderer = fig.canvas.get_renderer()
    box = ax.get_window_extent(renderer)
    pad = 2.0 * fig.dpi / 72  # points between the label's box and the frame
    points, placed = [], []
    # allsegs: each level's lines in data coordinates (ContourSet.collections is gone in matplotlib 3.10).
    for level, segments in zip(contours.levels, contours.allsegs):
        width, height = _label_size(fig, renderer, fmt(level), fontsize)
        for vertices in segments:
            if len(vertices) < 2:
                continue
            p = _inside_label_point(ax.transData.transform(vertices), box, width, height, pad)
            if p is None or any(math.hypot(*(p - q)) < 1.2 * width for q in placed):
                continue
            placed.append(p)
            points.append(tuple(ax.transData.inverted().transform(p)))
    if not points:
        return []
    labels = ax.clabel(contours, inline=True, manual=points, fmt=fmt, fontsize=fontsize)
    # A last check: a label whose box still leaves the axes (a rounding of the layout) is dropped.
    for t in list(labels):
        b = t.get_window_extent(renderer)
        if b.x0 < box.x0 or b.x1 > box.x1 or b.y0 < box.y0 or b.y1 > box.y1:
            t.remove()
            contours.labelTexts.remove(t)
            labels.remove(t)
    return labels


def _sweep_ticks(axis, values, log):
    """About 5 ticks; on a log axis spanning under two decades at 1, 2, 5 per decade in plain
    numbers (powers of ten alone left a 0.25 .. 4 axis with the one tick 10^0)."""
    from matplotlib import ticker
    if not log:
        axis.set_major_locator(ticker.MaxNLocator(5))
    elif spans_decades(values, 2):
        axis.set_major_locator(ticker.LogLocator(numticks=5))
    else:
        axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: format_number(v)))
        axis.set_minor_formatter(ticker.NullFormatter())


def draw_sweep(fig, data, analysis=None):
    from matplotlib import colors
    names = [analysis] if analysis else list(data["surfaces"])
    if analysis and analysis not in data["surfaces"]:
        near = difflib.get_close_matches(analysis, list(data["surfaces"]), n=1)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        raise PlotInputError(f"--analysis: '{analysis}' is not in the file (it has {', '.join(data['surfaces'])}){hint}")
    keys = list(data["axes"])
    # Beyond two axes: the first value of each further axis (said in the suptitle).
    further = {k: data["axes"][k][0] for k in keys[2:]}
    pick = lambda z: z[(slice(None),) * min(2, z.ndim) + (0,) * max(0, z.ndim - 2)]
    surfaces = {name: pick(np.asarray(_sweep_value(data, data["surfaces"][name])[0], dtype=float)) for name in names}
    what = _sweep_value(data, data["surfaces"][names[0]])[1]
    x = np.asarray(data["axes"][keys[0]], dtype=float)
    notes = []
    for name in names:
        invalid = int(np.sum(data["surfaces"][name]["reason"] != ""))
        if invalid:
            notes.append(f"{name}: {invalid} points blank (see /sweep/{name}/reason)")
    # The title: the configuration, the values it keeps fixed (not the axes'), the blank points.
    # Characters per line at 9 points: about 13 per inch of the figure.
    width = int(fig.get_figwidth() * 13)
    at = "; ".join(f"{k} = {format_number(v)}" for k, v in further.items())
    caption = [data["title"], fixed_caption(data.get("fixed", {}), width)]
    caption += [textwrap.fill(f"at {at} (first value of each further axis)", width)] if at else []
    caption += [textwrap.fill(n, width) for n in notes]
    title = "\n".join(c for c in caption if c)
    if len(keys) == 1:  # one axis: one curve per analysis on one axes, not a panel each
        ax = fig.add_subplot(1, 1, 1)
        for i, name in enumerate(names):
            ax.plot(x, surfaces[name], marker=".", color=f"C{i % 10}", linestyle=COMPARE_STYLES[i % 4],
                    label=f"{name} ({data['surfaces'][name]['status']})")
        ax.set_xscale("log" if log_axis(x) else "linear")
        ax.set_yscale("log" if spans_decades(np.concatenate(list(surfaces.values())), 2) else "linear")
        ax.set_xlabel(_axis_label(keys[0]))
        ax.set_ylabel(what)
        ax.legend(fontsize=7)
        ax.grid(True, which="major", alpha=0.3)
        fig.suptitle(title, fontsize=9)
        return
    y = np.asarray(data["axes"][keys[1]], dtype=float)
    logx, logy = log_axis(x), log_axis(y)
    every = np.concatenate([z[np.isfinite(z)].ravel() for z in surfaces.values()])
    # One colour scale and one set of contour levels for every panel: the same colour is the same epsilon.
    log = spans_decades(every, 1) and every.size > 0 and every.min() > 0
    lo, hi = (every.min(), every.max()) if every.size else (0.0, 1.0)
    norm = colors.LogNorm(lo, hi) if log else colors.Normalize(lo, hi)
    levels = shared_levels(every, log)
    axes = fig.subplots(1, len(names), squeeze=False, sharey=True)[0]
    contours = {}
    for ax, name in zip(axes, names):
        s = data["surfaces"][name]
        zt = np.ma.masked_invalid(surfaces[name].T)  # rows = second axis; invalid points blank
        mesh = ax.pcolormesh(cell_edges(x, logx), cell_edges(y, logy), zt, norm=norm, cmap="viridis")
        if min(len(x), len(y)) >= 2 and zt.count() >= 4 and len(levels):
            contours[ax] = ax.contour(x, y, zt, levels=levels, colors="white", linewidths=0.8)
        ax.set_xscale("log" if logx else "linear")
        ax.set_yscale("log" if logy else "linear")
        _sweep_ticks(ax.xaxis, x, logx)
        if logy:  # a linear y axis keeps matplotlib's ticks (0, 200, ..., 1000 steps)
            _sweep_ticks(ax.yaxis, y, logy)
        ax.tick_params(axis="x", labelrotation=30)  # long values would overprint
        ax.set_xlabel(_axis_label(keys[0]))
        ax.set_title(f"{name} ({s['status']})", fontsize=8)
    axes[0].set_ylabel(_axis_label(keys[1]))
    bar = fig.colorbar(mesh, ax=list(axes), label=what)
    if log and len(levels):  # the contour levels as the ticks: a log bar within a decade has none else
        bar.set_ticks(levels, labels=[f"{v:.3g}" for v in levels])
    fig.suptitle(title, fontsize=9)
    if contours:  # labels last: their place depends on the final size of each axes
        fig.draw_without_rendering()
        for ax, c in contours.items():
            label_contours(fig, ax, c, lambda v: f"{v:.3g}")


# ---- the command ---------------------------------------------------------------------------------

def default_output(path):
    root, _ = os.path.splitext(str(path))
    return root + ".png"


# The formats the picture is written in, by the output's suffix (matplotlib writes each).
FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}


def output_format(output):
    """The format of `output` by its suffix; another suffix is refused (exit 2) rather than a PNG
    written under a misleading name."""
    suffix = os.path.splitext(str(output))[1].lower()
    if suffix not in FORMATS:
        raise PlotInputError(f"-o '{output}': the suffix '{suffix}' is not one of .png, .pdf, .svg")
    return FORMATS[suffix]


def check_output(output):
    """The output's directory must exist (as the other commands' -o) and its suffix name a format
    (output_format): exit 2 before any work."""
    output_format(output)
    directory = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(directory):
        raise PlotInputError(f"-o '{output}': the directory '{directory}' does not exist")
    if os.path.isdir(output):
        raise PlotInputError(f"-o '{output}' is a directory")


def save_atomically(fig, output, dpi, palette=None):
    """The picture (PNG, PDF or SVG by the suffix of `output`) written to a temporary sibling, then
    renamed over `output`: a reader never sees a partial picture, and a failure or a signal (see
    main) leaves none. With `palette` = k (PNG only), the colours are reduced to k (Pillow, a
    dependency of matplotlib): a quarter of the bytes for line drawings, which is what the committed
    figures of docs/figures need."""
    tmp = f"{output}.tmp-{os.getpid()}"
    fmt = output_format(output)
    try:
        if fmt != "png":
            fig.savefig(tmp, format=fmt, dpi=dpi)
        elif palette:
            import io
            from PIL import Image
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=dpi)
            buffer.seek(0)
            image = Image.open(buffer).convert("RGB")
            image.quantize(colors=palette, method=Image.Quantize.MEDIANCUT).save(tmp, format="PNG", optimize=True)
        else:
            fig.savefig(tmp, format="png", dpi=dpi)
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def figure_size(data, orders=None, analysis=None):
    """Width and height in inches: room for the panels each kind draws."""
    if data["kind"] == "solve":
        n = len(chosen_orders(data["orders"], orders))
        return (7.5, 4.6) if n == 1 else (9.0, 5.0) if n == 2 else (9.0, 8.0)
    if data["kind"] == "compare":
        return (11.0, 9.0) if data.get("curves") else (11.0, 5.2)
    panels = 1 if analysis or len(data["axes"]) == 1 else len(data["surfaces"])
    return (max(5.0 * panels + 1.0, 6.5), 4.8)


def plot_file(path, output=None, orders=None, analysis=None, dpi=100):
    """Draws the rdpdyn output `path` into `output` (PNG, PDF or SVG by its suffix; default: path with
    .png); returns it."""
    output = output or default_output(path)
    check_output(output)
    data = read_output(path)
    if orders and data["kind"] != "solve":
        raise PlotInputError("--orders applies to solve files only")
    if analysis and data["kind"] != "sweep":
        raise PlotInputError("--analysis applies to sweep files only")
    plt = pyplot()
    fig = plt.figure(figsize=figure_size(data, orders, analysis), layout="constrained")
    try:
        if data["kind"] == "solve":
            draw_solve(fig, data, orders)
        elif data["kind"] == "compare":
            draw_compare(fig, data)
        else:
            draw_sweep(fig, data, analysis)
        save_atomically(fig, output, dpi)
    finally:
        plt.close(fig)
    return output


def _orders_option(text):
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of numbers") from None


def _exit_on_signal(signum, _frame):
    # SystemExit unwinds through save_atomically's `finally`, which removes the temporary.
    raise SystemExit(128 + signum)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="rdpdyn plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="an output of rdpdyn solve, compare or sweep (HDF5, docs/hdf5.md)")
    parser.add_argument("-o", "--output", help="the PNG to write (default: FILE with .png)")
    parser.add_argument("--orders", type=_orders_option, help="solve: the recorded orders to draw, e.g. 10,30")
    parser.add_argument("--analysis", help="sweep: draw this analysis only")
    parser.add_argument("--dpi", type=int, default=100, help="resolution (default 100)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on bad options already; --help exits 0
        return e.code
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _exit_on_signal)
    try:
        output = plot_file(args.file, args.output, args.orders, args.analysis, args.dpi)
    except PlotInputError as e:
        print(f"rdpdyn plot: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    print(f"rdpdyn plot: {args.file} -> {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
