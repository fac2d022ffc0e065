"""`rdpdyn plot` (README, "Pictures"; python/rdpdyn/plot.py) on a file of each kind the CLI writes.

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
    files = {}
    for kind, args in commands.items():
        files[kind] = d / f"{kind}.h5"
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
