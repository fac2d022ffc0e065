"""The papers' figures regenerated with rdpdyn (docs/guide-research.md, "The papers' figures"):

    PYTHONPATH=build/python /usr/bin/python3 -m rdpdyn.figures docs/figures

writes
    c21_figure1.png    C21 (Chourasia, Ye & Shokri 2021, arXiv:2102.05855) Figure 1: Cor 1 against
                       the composition baseline for lambda = 1, 2, 4 at alpha = 10, 20, 30
    c21_figure2.png    C21 Figure 2: Cor 2, the Thm 3 lower bound, the exact divergence (Thm 3's
                       proof), composition, and this tool's tight solution (LSI recursion, optimal gamma)
    ye_shokri_fmnist.png  every analysis of `rdpdyn compare` on Ye & Shokri's Fashion-MNIST run

Every curve comes from the module in process (rdpdyn.solve, rdpdyn.compare), never from files or
subprocesses. The data behind each picture are returned by figure1_data(), figure2_data() and
fmnist_data(), so the tests check the numbers (tests/python/test_figures.py), not the pixels.
The configurations are those of examples/figure1_lambda*.toml, figure2_*.toml and
ye_shokri_fmnist.toml, written here as dicts so the installed package needs no source tree (the
test checks that they equal the examples).
"""
import json
import os
import sys

import numpy as np

import rdpdyn
from rdpdyn import plot

DPI = 100
PALETTE = 64  # colours of the committed PNGs (about 20 kB each instead of 80)
# C21 Figures 1 and 2 (Sec. 3.3 and 3.4): beta = 4, S_g = 4, n = 5000, eta = 0.02, sigma = 0.02,
# orders 10, 20, 30; the K axis is not given in the text: K = 1000 (eta K = 20, converged).
C21_ALGORITHM = {"kind": "noisy-gd", "steps": 1000, "eta": 0.02, "sigma": 0.02, "n": 5000, "sensitivity": 4.0}
C21_ORDERS = {"values": [10, 20, 30]}
FIGURE1_LAMBDAS = (1, 2, 4)


def figure1_config(lam):
    """examples/figure1_lambda{lam}.toml: strongly convex (lambda), beta-smooth, gamma = 1/2 (Cor 1)."""
    return {"orders": C21_ORDERS, "algorithm": dict(C21_ALGORITHM),
            "lsi": {"kind": "strongly-convex", "lambda": lam, "beta": 4}, "analysis": {"gamma": 0.5}}


def figure2_configs():
    """examples/figure2_squared_loss.toml (C21 Cor 2's LSI constant, gamma = 1/2) and
    figure2_tight.toml (per-step LSI recursion, C21 Lemmas 8, 9, with the optimal gamma)."""
    algorithm = dict(C21_ALGORITHM, loss="squared")
    return ({"orders": C21_ORDERS, "algorithm": algorithm, "lsi": {"kind": "squared-loss"}, "analysis": {"gamma": 0.5}},
            {"orders": C21_ORDERS, "algorithm": algorithm, "lsi": {"kind": "recursion"},
             "analysis": {"gamma": "optimal"}})


def fmnist_config():
    """examples/ye_shokri_fmnist.toml: Ye & Shokri 2022 (arXiv:2203.05363), their Fashion-MNIST run
    (batch 2048, lr 1.92, noise multiplier 3.01, 1200 epochs of a partition shuffled once)."""
    return {"orders": {"values": [1.5, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64]},
            "algorithm": {"kind": "noisy-sgd", "sampling": "shuffle-once", "batch_size": 2048, "n": 59392,
                          "steps": 34800, "eta": 1.92, "noise_multiplier": 3.01, "sensitivity": 4.0},
            "lsi": {"kind": "recursion", "lambda": 0.02, "beta": 1.02},
            "analysis": {"gamma": "optimal"}, "report": {"delta": 1e-5}, "output": {"record_every": 290}}


def figure1_data():
    """{lambda: Solution} of C21 Figure 1's runs: R (this tool, Cor 1 at gamma = 1/2) and the
    closed forms "cor1" and "composition" over (step, order)."""
    return {lam: rdpdyn.solve(figure1_config(lam)) for lam in FIGURE1_LAMBDAS}


def figure2_data():
    """C21 Figure 2's curves over (step, order): cor2, thm3-lower, thm3-exact, composition (closed
    forms of the squared-loss run) and tight (this tool's R with the recursion and optimal gamma)."""
    squared, tight = (rdpdyn.solve(c) for c in figure2_configs())
    assert np.array_equal(squared.steps, tight.steps) and np.array_equal(squared.orders, tight.orders)
    curves = {name: squared.closed_forms[name] for name in ("cor2", "thm3-lower", "thm3-exact", "composition")}
    curves["tight"] = tight.R
    return {"steps": squared.steps, "orders": squared.orders, "curves": curves,
            "citations": {**{n: squared.closed_form_citations[n] for n in curves if n != "tight"},
                          "tight": "this tool: LSI recursion (C21 Lemmas 8, 9), optimal gamma"}}


def fmnist_data():
    """The Comparison of every analysis on Ye & Shokri's Fashion-MNIST run."""
    return rdpdyn.compare(fmnist_config())


def _order_colours(orders):
    return {a: f"C{i}" for i, a in enumerate(orders)}


def draw_figure1(data, plt):
    fig, axes = plt.subplots(1, len(data), figsize=(11, 3.6), sharey=True, layout="constrained")
    for ax, (lam, run) in zip(axes, data.items()):
        colours = _order_colours(run.orders)
        for j, a in enumerate(run.orders):
            ax.plot(run.steps, run.closed_forms["cor1"][:, j], color=colours[a], linewidth=2,
                    label=rf"Cor 1, $\alpha$ = {a:g}")
            ax.plot(run.steps, run.closed_forms["composition"][:, j], color=colours[a], linestyle="--",
                    linewidth=1.2, label=rf"composition, $\alpha$ = {a:g}")
        ax.set_title(rf"$\lambda$ = {lam:g}", fontsize=10)
        ax.set_xlabel("iterations K (steps)")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel(r"Rényi privacy loss $R_\alpha$ (nats)")
    axes[0].legend(fontsize=7)
    fig.suptitle("C21 Figure 1: noisy GD, lambda-strongly convex, beta = 4, S_g = 4, n = 5000, "
                 "eta = 0.02, sigma = 0.02; Cor 1 (solid) vs composition (dashed)", fontsize=9)
    return fig


FIGURE2_STYLES = {"cor2": ("-", 2.0, "Cor 2 (upper bound)"), "tight": ("-", 0.9, "rdpdyn, tight (recursion, optimal gamma)"),
                  "thm3-exact": ((0, (1, 2)), 2.4, "exact divergence (Thm 3 proof)"),
                  "thm3-lower": ("--", 1.2, "Thm 3 lower bound, as stated"),
                  "composition": (":", 1.2, "composition (App. E)")}


def draw_figure2(data, plt):
    from matplotlib.lines import Line2D
    fig, ax = plt.subplots(figsize=(7, 4.4), layout="constrained")
    steps = data["steps"][1:]  # K >= 1 on the log axis
    colours = _order_colours(data["orders"])
    for j, a in enumerate(data["orders"]):
        for name, (style, width, _) in FIGURE2_STYLES.items():
            ax.plot(steps, data["curves"][name][1:, j], color=colours[a], linestyle=style, linewidth=width)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iterations K (steps)")
    ax.set_ylabel(r"Rényi privacy loss $R_\alpha$ (nats)")
    ax.grid(True, which="major", alpha=0.3)
    first = ax.legend([Line2D([], [], color=c, linewidth=2) for c in colours.values()],
                      [rf"$\alpha$ = {a:g}" for a in colours], loc="upper left", fontsize=8)
    ax.add_artist(first)
    ax.legend([Line2D([], [], color="black", linestyle=s, linewidth=w) for s, w, _ in FIGURE2_STYLES.values()],
              [label for _, _, label in FIGURE2_STYLES.values()], loc="lower right", fontsize=7)
    ax.set_title("C21 Figure 2: squared loss, theta_0 = 0, S_g = 4, n = 5000, eta = 0.02, sigma = 0.02", fontsize=9)
    return fig


def draw_fmnist(comparison, plt):
    """The picture of `rdpdyn plot` for a compare file, from the module's Comparison."""
    data = {"orders": comparison.orders, "best": comparison.best["name"], "delta": comparison.delta,
            "path": "ye_shokri_fmnist", "analyses": [
                {"name": a.name, "status": a.status, "applies": a.applies, "reason": a.reason, "R": a.R,
                 "epsilon": a.epsilon} for a in comparison.analyses],
            "title": "Ye & Shokri 2022, Fashion-MNIST: b = 2048, lr 1.92, noise multiplier 3.01, "
                     "1200 epochs, shuffled once; every analysis of rdpdyn compare"}
    fig = plt.figure(figsize=(10, 4.6), layout="constrained")
    plot.draw_compare(fig, data)
    return fig


def plotted_numbers(name, data):
    """The numbers a figure shows, small enough to commit beside its PNG (docs/figures/*.json): a
    committed figure whose numbers differ from the program's fails python:figures."""
    if name == "c21_figure1.png":
        return {f"lambda={lam:g}": {f"alpha={a:g}": {"cor1": float(run.closed_forms["cor1"][-1, j]),
                                                      "composition": float(run.closed_forms["composition"][-1, j])}
                                    for j, a in enumerate(run.orders)} for lam, run in data.items()}
    if name == "c21_figure2.png":
        return {f"alpha={a:g}": {curve: float(values[-1, j]) for curve, values in data["curves"].items()}
                for j, a in enumerate(data["orders"])}
    return {"best": data.best["name"],
            "epsilon": {a.name: float(a.epsilon) for a in data.analyses if a.applies and a.epsilon is not None}}


def regenerate(directory):
    """Writes the three PNGs into `directory` (atomically), each with the JSON of its numbers
    (plotted_numbers); returns {name: path}."""
    plt = plot.pyplot()
    os.makedirs(directory, exist_ok=True)
    drawings = {"c21_figure1.png": (draw_figure1, figure1_data), "c21_figure2.png": (draw_figure2, figure2_data),
                "ye_shokri_fmnist.png": (draw_fmnist, fmnist_data)}
    written = {}
    for name, (draw, make) in drawings.items():
        data = make()
        fig = draw(data, plt)
        try:
            path = os.path.join(directory, name)
            plot.save_atomically(fig, path, DPI, PALETTE)
            with open(os.path.splitext(path)[0] + ".json", "w", encoding="utf-8") as f:
                json.dump(plotted_numbers(name, data), f, indent=1, sort_keys=True)
                f.write("\n")
            written[name] = path
        finally:
            plt.close(fig)
    return written


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python3 -m rdpdyn.figures DIRECTORY   (e.g. docs/figures)", file=sys.stderr)
        return 2
    for path in regenerate(argv[0]).values():
        print(f"rdpdyn.figures: {path} ({os.path.getsize(path)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
