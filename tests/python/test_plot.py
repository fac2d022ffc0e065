"""`rdpdyn plot` (docs/guide-research.md, "Pictures"; python/rdpdyn/plot.py) on a file of each kind the CLI writes.

Run by ctest (`python:plot`) with PYTHONPATH=<build>/python, RDPDYN_CLI = <build>/rdpdyn and
RDPDYN_SOURCE = the source tree. The files are small runs of the examples written by the CLI into
a temporary directory; each picture must be a PNG (signature, a plausible size) written atomically
(no temporary left), and bad input must exit 2 leaving no PNG.
"""
import os
import pathlib
import subprocess

import h5py
import pytest

from rdpdyn import plot

SOURCE = pathlib.Path(os.environ.get("RDPDYN_SOURCE", pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("RDPDYN_CLI", str(SOURCE / "build" / "rdpdyn"))
EXAMPLES = SOURCE / "examples"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """One small file per command: solve (C21 Figure 1, 200 steps), compare (Ye & Shokri's
    Fashion-MNIST run), sweep (6 noise levels x 5 step counts x 20 orders of the surface example)."""
    d = tmp_path_factory.mktemp("outputs")
    commands = {
        "solve": ["solve", EXAMPLES / "figure1_lambda1.toml", "--set", "algorithm.steps=200"],
        "compare": ["compare", EXAMPLES / "ye_shokri_fmnist.toml"],
        "sweep": ["sweep", EXAMPLES / "sweep_surface.toml", "--set", "sweep.axis[0].range.count=6",
                  "--set", "sweep.axis[1].range.count=5", "--set", "orders.count=20"],
    }
    return write_outputs(d, commands)


def write_outputs(directory, commands):
    """{kind: file} of the CLI's outputs of `commands` ({kind: arguments}) in `directory`."""
    files = {}
    for kind, args in commands.items():
        files[kind] = directory / f"{kind}.h5"
        r = run(*args, "-o", files[kind], "--quiet")
        assert r.returncode == 0, r.stderr
    return files


def assert_png(path):
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert 5_000 < len(data) < 500_000, f"{path}: {len(data)} bytes"
    assert not [p for p in pathlib.Path(path).parent.iterdir() if ".tmp-" in p.name], "a temporary was left"


@pytest.mark.parametrize("kind", ["solve", "compare", "sweep"])
def test_plot_draws_each_kind(outputs, kind, tmp_path):
    png = tmp_path / f"{kind}.png"
    r = run("plot", outputs[kind], "-o", png)
    assert r.returncode == 0, r.stderr
    assert_png(png)


def test_plot_default_output_is_the_file_with_png(outputs, tmp_path):
    h5 = tmp_path / "run.h5"
    h5.write_bytes(outputs["solve"].read_bytes())
    assert run("plot", h5).returncode == 0
    assert_png(tmp_path / "run.png")


def test_plot_options(outputs, tmp_path):
    r = run("plot", outputs["solve"], "-o", tmp_path / "a.png", "--orders", "10,30", "--dpi", "60")
    assert r.returncode == 0, r.stderr
    assert_png(tmp_path / "a.png")
    r = run("plot", outputs["sweep"], "-o", tmp_path / "b.png", "--analysis", "pdi")
    assert r.returncode == 0, r.stderr
    assert_png(tmp_path / "b.png")


@pytest.mark.parametrize("suffix, signature", [(".pdf", b"%PDF"), (".svg", b"<?xml")])
def test_plot_honours_pdf_and_svg(outputs, suffix, signature, tmp_path):
    # `-o fig.pdf` used to exit 0 with a PNG under that name.
    out = tmp_path / f"fig{suffix}"
    r = run("plot", outputs["compare"], "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:len(signature)] == signature


def test_plot_refuses_other_suffixes(outputs, tmp_path):
    r = run("plot", outputs["compare"], "-o", tmp_path / "fig.jpeg")
    assert r.returncode == 2 and "is not one of .png, .pdf, .svg" in r.stderr, (r.returncode, r.stderr)
    assert not (tmp_path / "fig.jpeg").exists()


def test_plot_in_process(outputs, tmp_path):
    assert plot.plot_file(outputs["compare"], tmp_path / "c.png") == tmp_path / "c.png"
    assert_png(tmp_path / "c.png")
    assert plot.read_output(outputs["sweep"])["kind"] == "sweep"


def not_rdpdyn_hdf5(path):
    with h5py.File(path, "w") as f:
        f["R"] = [1.0, 2.0]
    return path


@pytest.mark.parametrize("bad, words", [
    (lambda d: (d / "text.h5").write_text("not HDF5") and d / "text.h5", "is not an HDF5 file"),
    (lambda d: d / "missing.h5", "no such file"),
    (lambda d: not_rdpdyn_hdf5(d / "other.h5"), "is not an rdpdyn output"),
])
def test_bad_file_exits_2_without_png(bad, words, tmp_path):
    path = bad(tmp_path)
    png = tmp_path / "x.png"
    r = run("plot", path, "-o", png)
    assert r.returncode == 2 and words in r.stderr, (r.returncode, r.stderr)
    assert not png.exists() and not [p for p in tmp_path.iterdir() if p.suffix == ".png" or ".tmp-" in p.name]


@pytest.mark.parametrize("args, words", [
    (["--orders", "11"], "not a recorded order"),
    (["--analysis", "pdi"], "--analysis applies to sweep files only"),
    (["-o", "/nonexistent-directory/x.png"], "does not exist"),
    (["--", "-log_view"], "takes no PETSc options"),
    (["--dpi", "0"], "dpi"),
])
def test_bad_options_exit_2(outputs, args, words, tmp_path):
    r = run("plot", outputs["solve"], *(args if "-o" in args else ["-o", tmp_path / "x.png", *args]))
    assert r.returncode == 2 and words in r.stderr, (r.returncode, r.stderr)
    assert not (tmp_path / "x.png").exists()


def test_sweep_analysis_near_miss_did_you_mean(outputs, tmp_path):
    r = run("plot", outputs["sweep"], "-o", tmp_path / "x.png", "--analysis", "pdf")
    assert r.returncode == 2 and "'pdf' is not in the file" in r.stderr and "did you mean 'pdi'?" in r.stderr, r.stderr
    assert not (tmp_path / "x.png").exists()


# ---- what the pictures show (drawn in-process into a Figure and inspected) ----------------------

def figure_of(path, **options):
    """The figure plot_file would write for `path`, open for inspection."""
    plt = plot.pyplot()
    data = plot.read_output(path)
    fig = plt.figure(figsize=plot.figure_size(data), layout="constrained")
    {"solve": plot.draw_solve, "compare": plot.draw_compare, "sweep": plot.draw_sweep}[data["kind"]](fig, data, **options)
    return fig


def legend_texts(fig):
    return [t.get_text() for ax in fig.axes for leg in [ax.get_legend()] if leg for t in leg.get_texts()]


@pytest.fixture(scope="module")
def more(tmp_path_factory):
    """Runs of the findings: a long run with two records, a run of 0 steps, a Langevin and a PDI run,
    DP-SGD accounting with privacy curves, a one-axis sweep, a 20 x 20 sweep."""
    d = tmp_path_factory.mktemp("more")
    one = d / "one.toml"
    text = (EXAMPLES / "sweep_surface.toml").read_text()
    one.write_text(text[:text.index("[[sweep.axis]]")] +
                   '[[sweep.axis]]\nkey = "algorithm.sigma"\nrange = { start = 0.01, stop = 1.0, count = 8, scale = "log" }\n')
    commands = {
        "long": ["solve", EXAMPLES / "figure1_lambda1.toml", "--set", "algorithm.steps=1000000",
                 "--set", "output.record_steps=[1000000]"],
        "zero": ["solve", EXAMPLES / "figure1_lambda1.toml", "--set", "algorithm.steps=0"],
        "langevin": ["solve", EXAMPLES / "schedule_langevin.toml"],
        "pdi": ["solve", EXAMPLES / "pdi_decaying_sensitivity.toml"],
        "dpsgd": ["compare", EXAMPLES / "dpsgd_accounting.toml"],
        "one": ["sweep", one],
        # 20 x 20 points: matplotlib's own label placement put a label across the frame here.
        "dense": ["sweep", EXAMPLES / "sweep_surface.toml", "--set", "sweep.axis[0].range.count=20",
                  "--set", "sweep.axis[1].range.count=20", "--set", "orders.count=20"],
    }
    return write_outputs(d, commands)


def test_solve_few_records_marked_and_linear_time(more):
    fig = figure_of(more["long"])
    ax = fig.axes[0]
    # Two records: each curve marks them (no spike), and no curve runs down to R = 0 on the log axis.
    assert all(line.get_marker() not in (None, "None", "") for line in ax.get_lines())
    assert ax.get_yscale() == "log" and all((line.get_ydata() > 0).all() for line in ax.get_lines())
    assert any("steps K" in a.get_xlabel() for a in fig.axes) and ax.get_xlim()[0] >= 0


def test_solve_log_steps_when_they_span_decades(outputs):
    axes = [ax for ax in figure_of(outputs["solve"]).axes if ax.get_lines()]
    assert axes and all(ax.get_xscale() == "log" for ax in axes)


def test_solve_zero_steps_has_a_note_and_sane_limits(more):
    ax = figure_of(more["zero"]).axes[0]
    assert ax.get_xlim()[0] >= 0 and ax.get_xlim()[1] > 0
    assert any("steps = 0" in t.get_text() for t in ax.texts)


@pytest.mark.parametrize("kind", ["langevin", "pdi"])
def test_continuous_runs_are_drawn_against_time(more, kind):
    labels = {ax.get_xlabel() for ax in figure_of(more[kind]).axes if ax.get_lines()} - {""}
    assert labels == {"time t (C21 units)"}


def test_closed_forms_have_distinct_colour_and_style_and_full_labels(outputs):
    fig = figure_of(outputs["solve"], orders=[10])
    ax = fig.axes[0]
    lines = ax.get_lines()[1:]  # the first is R
    keys = [(str(line.get_color()), str(line.get_linestyle())) for line in lines]
    assert len(lines) == 4 and len(set(keys)) == len(keys)
    assert all(line.get_color() != ax.get_lines()[0].get_color() for line in lines)
    # thm2 and cor1 equal R in this run: they carry markers so they show over it.
    import numpy as np
    r = ax.get_lines()[0].get_ydata()
    for line in lines:
        if np.allclose(line.get_ydata(), r, rtol=1e-6):
            assert line.get_marker() not in (None, "None", "")
    texts = " ".join(legend_texts(fig)).replace("\n", " ")
    assert "(the stated theorem)" in texts and "(the )" not in texts


def test_compare_dots_statuses_and_merged_equal_curves(outputs):
    fig = figure_of(outputs["compare"])
    left, right = fig.axes[:2]
    data = plot.read_output(outputs["compare"])
    present = {a["status"] for a in data["analyses"] if a["applies"]}
    assert set(left.get_legend().get_texts() and [t.get_text() for t in left.get_legend().get_texts()]) == present
    assert not left.patches  # dots, not bars from an arbitrary log origin
    # Ranked from the smallest epsilon, on a log axis (2.18 to 373 here; chua-shuffle-lower's 0 at the
    # left edge): on a linear axis from 0 the best, pdi at 2.18, was a dot on the axis' first pixel.
    valid = {a["name"]: a["epsilon"] for a in data["analyses"] if a["applies"]}
    names = [t.get_text().lstrip("* ") for t in left.get_yticklabels()]
    assert [valid[n] for n in names] == sorted(valid.values()), names
    assert left.get_xscale() == "log" and names[0] == "chua-shuffle-lower" and valid[names[0]] == 0
    best = names.index(data["best"])
    assert best == min(i for i, n in enumerate(names) if valid[n] > 0 and n != "chua-shuffle-lower")
    assert "natural log" in left.get_xlabel() and "nats" not in left.get_xlabel()
    # ye-shokri-thm3.3 and its shifted form have equal R: one curve, both names.
    labels = [t.get_text().replace("\n", "") for t in right.get_legend().get_texts()]
    assert any("ye-shokri-thm3.3 = ye-shokri-thm3.3-shifted" in t for t in labels)
    ys = [tuple(line.get_ydata()) for line in right.get_lines()]
    assert len(ys) == len(set(ys))
    # The status legend sits below the axes, clear of the value labels.
    fig.canvas.draw()
    legend_box = left.get_legend().get_window_extent()
    assert legend_box.y1 <= left.get_window_extent().y0


def test_compare_draws_privacy_curves(more):
    fig = figure_of(more["dpsgd"])
    assert len(fig.axes) == 4
    profile, tradeoff = fig.axes[2:]
    assert profile.get_yscale() == "log" and "epsilon" in profile.get_xlabel()
    assert tradeoff.get_xlim() == (0, 1) and "type II" in tradeoff.get_ylabel()
    assert "composition-pld" in [t.get_text() for t in tradeoff.get_legend().get_texts()]


def test_sweep_shares_one_scale_and_levels(outputs):
    fig = figure_of(outputs["sweep"])
    panels = [ax for ax in fig.axes if ax.collections and ax.get_label() != "<colorbar>"]
    meshes = [c for ax in panels for c in ax.collections if c.__class__.__name__ == "QuadMesh"]
    assert len(panels) == 2 and len(meshes) == 2
    assert len({(m.norm.vmin, m.norm.vmax) for m in meshes}) == 1
    assert sum(ax.get_label() == "<colorbar>" for ax in fig.axes) == 1
    # Contour levels: round values of the common range, the same in both panels (their labels).
    import numpy as np
    data = plot.read_output(outputs["sweep"])
    every = np.concatenate([v["epsilon"].ravel() for v in data["surfaces"].values()])
    levels = plot.shared_levels(every, log=True)
    assert len(levels) and all(float(f"{v:.1g}") == v for v in levels)
    for ax in panels:
        labels = {t.get_text() for t in ax.texts}
        assert labels and labels <= {f"{v:.3g}" for v in levels}
    for ax in panels:  # cells stay on positive values of a log axis and at or above 0 otherwise
        mesh = next(c for c in ax.collections if c.__class__.__name__ == "QuadMesh")
        corners = mesh.get_coordinates()
        assert corners[..., 0].min() > 0 and corners[..., 1].min() >= 0
        assert all(t.get_rotation() != 0 for t in ax.get_xticklabels())


def test_sweep_states_the_fixed_axes_and_lambda_unit():
    assert "1/(parameter units)^2" not in plot._axis_label("lsi.lambda")
    edges = plot.cell_edges([0.01, 0.02, 0.03], log=False)
    assert edges[0] >= 0 and plot.cell_edges([0.01, 0.1, 1.0], log=True)[0] > 0


def figure_texts(fig):
    """Every text of the figure (suptitle, titles, labels), as drawn."""
    from matplotlib.text import Text
    return [t.get_text() for t in fig.findobj(Text)]


def fixed_part(fig):
    """The caption's list of fixed values: from "fixed:" to the end of its text."""
    text = next(t for t in figure_texts(fig) if "fixed:" in t)
    return text[text.index("fixed:"):].replace("\n", " ")


@pytest.mark.parametrize("kind", ["sweep", "one"])
def test_sweep_caption_states_the_fixed_values_not_the_axes(outputs, more, kind):
    # sweep: sigma x steps of examples/sweep_surface.toml, orders.count=20 by --set; one: sigma only.
    path = outputs["sweep"] if kind == "sweep" else more["one"]
    fixed = fixed_part(figure_of(path))
    for words in ["algorithm: kind = noisy-gd", "loss = squared", "eta = 0.02", "n = 5000", "sensitivity = 4",
                  "lsi: kind = recursion", "gamma = optimal", "delta = 1e-5"]:
        assert words in fixed, (words, fixed)
    # An override given on the command line (--set orders.count=20) is the value stated.
    assert ("count = 20" if kind == "sweep" else "count = 100") in fixed, fixed
    # No axis is stated as fixed: in the sweep both sigma and steps vary, in `one` only sigma.
    axes = list(plot.read_output(path)["axes"])
    assert axes == (["algorithm.sigma", "algorithm.steps"] if kind == "sweep" else ["algorithm.sigma"])
    for key in axes:
        assert f" {key.rpartition('.')[2]} = " not in fixed, (key, fixed)
    assert ("steps = 1000" in fixed) == (kind == "one")
    # Short lines: wrapped to the figure's width, none cut inside "key = value"; numbers rounded.
    text = next(t for t in figure_texts(figure_of(path)) if "fixed:" in t)
    lines = text[text.index("fixed:"):].splitlines()
    assert len(lines) >= 2 and all(len(line) <= 13 * plot.figure_size(plot.read_output(path))[0] for line in lines)
    assert not any(line.rstrip().endswith("=") or line.lstrip().startswith("=") for line in lines)


def test_fixed_parameters_apply_the_overrides_and_leave_out_the_axes():
    config = ('[algorithm]\nkind = "noisy-gd"\nsigma = 0.1\neta = 0.0123456\nsteps = 1000\n'
              '[[algorithm.schedule]]\nsteps = 10\neta = 0.01\n[lsi]\nkind = "constant"\nc = 5.0\n'
              '[sweep]\nanalyses = ["pdi"]\n[output]\nrecord_every = 20\n'
              f"\n{plot.OVERRIDES_MARKER}\n# algorithm.eta=0.05\n# lsi.kind=recursion\n"
              "# algorithm.schedule[0].steps=20\n# sweep.axis[0].range.count=6\n")
    fixed = plot.fixed_parameters(config, ["algorithm.sigma", "algorithm.schedule[0].eta"])
    assert fixed == {"algorithm.kind": "noisy-gd", "algorithm.eta": 0.05, "algorithm.steps": 1000,
                     "algorithm.schedule[0].steps": 20, "lsi.kind": "recursion", "lsi.c": 5.0}
    caption = plot.fixed_caption({**fixed, "report.delta": 1e-5, "algorithm.n": 60000, "orders.max": 123.456789})
    assert caption.startswith("fixed: algorithm: kind = noisy-gd, eta = 0.05, steps = 1000, n = 60000;")
    assert "lsi: kind = recursion, c = 5;" in caption and "report: delta = 1e-5;" in caption
    assert caption.endswith("orders: max = 123.5")  # ~4 significant digits, the orders last
    assert plot.fixed_parameters("not = [toml", []) == {} and plot.fixed_caption({}) == ""
    # An axis on one element of a plain array sweeps the array: it is not stated as fixed.
    pair = '[quadratic]\npair = [0.5, 1.0]\ninitial_std = 2.0\n'
    assert plot.fixed_parameters(pair, ["quadratic.pair[0]"]) == {"quadratic.initial_std": 2.0}
    # Only this run's overrides apply: a copied file's earlier block is comments the run ignored.
    copied = (f"[lsi]\nkind = \"constant\"\nc = 5.0\n{plot.OVERRIDES_MARKER}\n# lsi.c=7\n"
              f"{plot.OVERRIDES_MARKER}\n# lsi.c=9\n")
    assert plot.fixed_parameters(copied, [])["lsi.c"] == 9


@pytest.mark.parametrize("kind", ["sweep", "dense"])
def test_sweep_contour_labels_lie_inside_their_axes(outputs, more, kind):
    fig = figure_of(outputs[kind] if kind in outputs else more[kind])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(panels) == 2
    for ax in panels:
        box = ax.get_window_extent(renderer)
        assert len(ax.texts) >= 2, [t.get_text() for t in ax.texts]  # the 0.01 and 0.1 lines stay labelled
        for label in ax.texts:
            b = label.get_window_extent(renderer)
            assert box.x0 <= b.x0 and b.x1 <= box.x1 and box.y0 <= b.y0 and b.y1 <= box.y1, \
                (ax.get_title(), label.get_text(), b.bounds, box.bounds)


def test_one_axis_sweep_is_curves(more):
    fig = figure_of(more["one"])
    assert len(fig.axes) == 1
    ax = fig.axes[0]
    assert len(ax.get_lines()) == len(plot.read_output(more["one"])["surfaces"])
    assert ax.get_xscale() == "log" and "epsilon" in ax.get_ylabel()
