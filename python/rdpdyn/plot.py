"""`rdpdyn plot FILE.h5 [-o FIG.png]`: a picture of any output file of rdpdyn (docs/hdf5.md).

    solve    R against steps at a few orders (--orders), with the file's closed forms beside it
    compare  epsilon per analysis (status shown; the ones that do not apply listed) and R per order
    sweep    a heat map of epsilon over the first two axes with labelled contour lines, per analysis

The command line runs `/usr/bin/python3 -m rdpdyn.plot` with PYTHONPATH at this package (README,
"Pictures"); from Python, `plot_file(path, output)`. Files are read with h5py; matplotlib draws with
its Agg backend (no display). Exit codes as the command line's: 0 success, 2 bad input (a file
that is not an rdpdyn output, a bad option, an output directory that does not exist), and no PNG
is left behind: the picture is written to a temporary sibling and renamed.
"""
import argparse
import math
import textwrap
import os
import signal
import sys

import numpy as np

EXIT_BAD_INPUT = 2
# Colours of the compare statuses (README, "Every analysis of a run": published, derived, disputed, exact,
# lower-bound, record-specific).
STATUS_COLOURS = {"published": "tab:blue", "derived": "tab:green", "disputed": "tab:orange", "exact": "tab:red",
                  "lower-bound": "tab:gray", "record-specific": "tab:purple", "heuristic": "tab:olive",
                  "released-lower-bound": "tab:brown"}
# Line styles of the closed forms, in the order the file lists them (R itself is solid).
CLOSED_FORM_STYLES = ["--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), (0, (3, 1, 1, 1))]
# Units of the keys most often swept (docs/config.md); others are labelled by their key alone.
KEY_UNITS = {"algorithm.sigma": "C21 noise scale", "algorithm.noise_multiplier": "noise std / clipping norm",
             "algorithm.steps": "steps", "algorithm.eta": "step size = time per step",
             "algorithm.n": "records", "algorithm.batch_size": "records",
             "algorithm.sampling_rate": "probability", "algorithm.sensitivity": "gradient norm",
             "report.delta": "probability", "lsi.lambda": "1/(parameter units)^2",
             "lsi.c": "1/(parameter units)^2"}
EPSILON_UNITS = "nats"


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
    return {"orders": f["orders"][()], "analyses": analyses, "best": _text(f["best/R"].attrs["name"]),
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
    return {"axes": axes, "orders": orders, "surfaces": surfaces,
            "delta": float(finite.flat[0]) if finite.size else None, "title": _text(f.attrs.get("config_path", ""))}


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


def draw_solve(fig, data, orders=None):
    from matplotlib.lines import Line2D
    ax = fig.add_subplot(1, 1, 1)
    steps = np.asarray(data["steps"], dtype=float)
    picked = chosen_orders(data["orders"], orders)
    curves = [("R (rdpdyn)", data["R"], "-")] + [
        (f"{name}, {c['role']} ({c['citation'][:40]})", c["R"], CLOSED_FORM_STYLES[i % len(CLOSED_FORM_STYLES)])
        for i, (name, c) in enumerate(data["closed_forms"].items())]
    logx = spans_decades(steps[steps > 0], 2)
    keep = steps > 0 if logx else np.ones_like(steps, dtype=bool)  # step 0 has no place on a log axis
    colours = [f"C{i % 10}" for i in range(len(picked))]
    for colour, j in zip(colours, picked):
        for _, values, style in curves:
            ax.plot(steps[keep], values[keep, j], linestyle=style, color=colour,
                    linewidth=2.0 if style == "-" else 1.2)
    shown = np.concatenate([v[keep][:, picked].ravel() for _, v, _ in curves])
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if spans_decades(shown, 2) else "linear")
    ax.set_xlabel("steps K (count)")
    ax.set_ylabel(r"Rényi divergence bound $R_\alpha$ (nats)")
    order_legend = ax.legend([Line2D([], [], color=c, linewidth=2) for c in colours],
                             [rf"$\alpha$ = {data['orders'][j]:g}" for j in picked], loc="upper left", fontsize=8)
    ax.add_artist(order_legend)
    ax.legend([Line2D([], [], color="black", linestyle=s, linewidth=2.0 if s == "-" else 1.2) for _, _, s in curves],
              [label for label, _, _ in curves], loc="lower right", fontsize=7)
    title = data["title"]
    if data.get("epsilon") is not None:
        title += f"\nepsilon = {float(data['epsilon']):.4g} at delta = {float(data['delta']):g} (final step)"
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="major", alpha=0.3)


def draw_compare(fig, data):
    valid = [a for a in data["analyses"] if a["applies"]]
    if not valid:
        raise PlotInputError(f"'{data['path']}': no analysis applies to this run; nothing to draw")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    with_eps = data["delta"] is not None
    # Left: epsilon (or R at the largest order without a delta) per analysis that applies.
    values = [a["epsilon"] if with_eps else a["R"][-1] for a in valid]
    ypos = np.arange(len(valid))
    left.barh(ypos, values, color=[STATUS_COLOURS.get(a["status"], "grey") for a in valid])
    left.set_yticks(ypos, [("* " if a["name"] == data["best"] else "") + a["name"] for a in valid], fontsize=7)
    left.invert_yaxis()
    for y, v in zip(ypos, values):
        left.annotate(f"{v:.4g}", (v, y), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7)
    if spans_decades(values, 1):
        left.set_xscale("log")
    left.set_xlabel(f"epsilon at delta = {data['delta']:g} ({EPSILON_UNITS})" if with_eps
                    else f"R at alpha = {data['orders'][-1]:g} (nats)")
    left.set_title("* best; colour = status", fontsize=8)
    from matplotlib.patches import Patch
    left.legend([Patch(color=c) for c in STATUS_COLOURS.values()], list(STATUS_COLOURS), fontsize=7, loc="lower right")
    absent = [a["name"] for a in data["analyses"] if not a["applies"]]
    if absent:  # their reasons are in the file (/analyses/<name> attribute `reason`)
        fig.supxlabel(textwrap.fill("do not apply here: " + ", ".join(absent), 150), fontsize=7, color="dimgrey")
    # Right: R against the order for every analysis that applies.
    orders = np.asarray(data["orders"], dtype=float)
    for i, a in enumerate(valid):
        right.plot(orders, a["R"], marker="." if len(orders) < 30 else None, color=f"C{i % 10}",
                   linestyle="-" if a["status"] != "disputed" else "--", label=a["name"])
    right.set_xscale("log" if spans_decades(orders, 1) else "linear")  # orders: often a hand list
    right.set_yscale("log" if spans_decades(np.concatenate([a["R"] for a in valid]), 2) else "linear")
    right.set_xlabel(r"Rényi order $\alpha$ (dimensionless)")
    right.set_ylabel(r"$R_\alpha$ bound (nats)")
    right.legend(fontsize=6)
    right.grid(True, alpha=0.3)
    fig.suptitle(data["title"], fontsize=9)


def _axis_label(key):
    units = KEY_UNITS.get(key)
    return f"{key} ({units})" if units else key


def draw_sweep(fig, data, analysis=None):
    from matplotlib import colors
    names = [analysis] if analysis else list(data["surfaces"])
    if analysis and analysis not in data["surfaces"]:
        raise PlotInputError(f"--analysis: '{analysis}' is not in the file (it has {', '.join(data['surfaces'])})")
    keys = list(data["axes"])
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    for ax, name in zip(axes, names):
        s = data["surfaces"][name]
        if s["epsilon"] is not None:
            z, what = s["epsilon"], f"epsilon at delta = {data['delta']:g} ({EPSILON_UNITS})"
        else:  # no [report] delta: the bound at the largest order
            z, what = s["R"][..., -1], f"R at alpha = {data['orders'][-1]:g} (nats)"
        # Beyond two axes: the first value of each further axis (said in the title).
        fixed = {k: data["axes"][k][0] for k in keys[2:]}
        z = z[(slice(None),) * min(2, z.ndim) + (0,) * max(0, z.ndim - 2)]
        x = np.asarray(data["axes"][keys[0]], dtype=float)
        if z.ndim == 1:
            ax.plot(x, z, marker=".")
            ax.set_xscale("log" if log_axis(x) else "linear")
            ax.set_yscale("log" if spans_decades(z, 2) else "linear")
            ax.set_xlabel(_axis_label(keys[0]))
            ax.set_ylabel(what)
        else:
            y = np.asarray(data["axes"][keys[1]], dtype=float)
            zt = np.ma.masked_invalid(z.T)  # rows = second axis; invalid points blank
            log = spans_decades(zt.compressed(), 1) and zt.compressed().min() > 0
            norm = colors.LogNorm() if log else colors.Normalize()
            mesh = ax.pcolormesh(x, y, zt, shading="nearest", norm=norm, cmap="viridis")
            fig.colorbar(mesh, ax=ax, label=what)
            if min(len(x), len(y)) >= 2 and zt.count() >= 4:
                vmin, vmax = zt.min(), zt.max()
                levels = (np.geomspace(vmin, vmax, 7)[1:-1] if log else np.linspace(vmin, vmax, 7)[1:-1])
                if np.all(np.diff(levels) > 0):
                    contours = ax.contour(x, y, zt, levels=levels, colors="white", linewidths=0.8)
                    ax.clabel(contours, fmt="%.3g", fontsize=7)
            ax.set_xscale("log" if log_axis(x) else "linear")
            ax.set_yscale("log" if log_axis(y) else "linear")
            ax.set_xlabel(_axis_label(keys[0]))
            ax.set_ylabel(_axis_label(keys[1]))
        invalid = int(np.sum(s["reason"] != ""))
        note = f"; {invalid} points blank (see /sweep/{name}/reason)" if invalid else ""
        at = "".join(f"; {k} = {v:g}" for k, v in fixed.items())
        ax.set_title(f"{name} ({s['status']}){at}{note}", fontsize=8)
    fig.suptitle(data["title"], fontsize=9)


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
    width = {"solve": 7.0, "compare": 10.0, "sweep": 5.0 * (1 if analysis else len(data.get("surfaces", [0])))}
    fig = plt.figure(figsize=(max(width[data["kind"]], 5.5), 4.6), layout="constrained")
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
