"""The Python module rdpdyn (docs/guide-dpsgd.md, "From Python") against the command line and opacus.

Run by ctest (`python:module`) as
    PYTHONPATH=<build>/python /usr/bin/python3 -m pytest tests/python/test_module.py
with RDPDYN_CLI = <build>/rdpdyn and RDPDYN_SOURCE = the source tree.

The module runs the same C++ code as the CLI, so its numbers must equal the CLI's JSON exactly
(JSON doubles are written with enough digits to read back bit for bit).
"""
import json
import os
import pathlib
import subprocess
import threading
import tomllib

import numpy as np
import pytest

import rdpdyn

SOURCE = pathlib.Path(os.environ.get("RDPDYN_SOURCE", pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("RDPDYN_CLI", str(SOURCE / "build" / "rdpdyn"))
EXAMPLES = SOURCE / "examples"


def cli_json(*args):
    out = subprocess.run([CLI, *map(str, args), "--json", *([] if args[0] == "calibrate" else ["--quiet"])],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def as_array(values):
    """JSON null (a non-finite number) as NaN."""
    return np.array([np.nan if v is None else v for v in values], dtype=float)


# ---- solve ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("example", ["figure1_lambda1.toml", "figure2_squared_loss.toml", "schedule_phases.toml",
                                     "quadratic_anisotropic.toml", "fd_optimal_nonlinear.toml"])
def test_solve_equals_cli(example):
    run = rdpdyn.solve(EXAMPLES / example)
    ref = cli_json("solve", EXAMPLES / example)
    np.testing.assert_array_equal(run.orders, ref["orders"])
    np.testing.assert_array_equal(run.R[-1], as_array(ref["R"]))
    assert run.t[-1] == ref["t"] and run.steps[-1] == ref["step"]
    assert set(run.closed_forms) == set(ref["closed_forms"])
    for name, row in ref["closed_forms"].items():
        np.testing.assert_array_equal(run.closed_forms[name][-1], as_array(row))
        assert run.closed_form_roles[name] == ref["closed_form_roles"][name]
    assert run.epsilon == ref.get("epsilon") and run.best_order == ref.get("best_order")
    assert run.metadata["engine"] == ref["engine"] and run.metadata["gamma_mode"] == ref["gamma_mode"]
    assert run.metadata["declared_constants"] == ref["declared_constants"]
    # Every record: steps from 0, R and the closed forms with one row per record.
    assert run.steps[0] == 0 and run.R.shape == (len(run.steps), len(run.orders))
    assert all(v.shape == run.R.shape for v in run.closed_forms.values())


def test_solve_epsilon_with_delta_and_overrides_equal_cli_set():
    sets = {"algorithm.sigma": 0.07, "report.delta": 1e-5, "algorithm.steps": 300}
    run = rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml", **sets)
    ref = cli_json("solve", EXAMPLES / "figure1_lambda1.toml", *sum((["--set", f"{k}={v}"] for k, v in sets.items()), []))
    np.testing.assert_array_equal(run.R[-1], ref["R"])
    assert run.steps[-1] == 300 and run.epsilon == ref["epsilon"] and run.delta == 1e-5
    assert "algorithm.sigma=0.07" in run.metadata["config_text"]  # the effective configuration
    assert run.R[-1][0] != rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml").R[-1][0]


def test_solve_dict_and_text_equal_file():
    path = EXAMPLES / "figure2_squared_loss.toml"
    text = path.read_text()
    from_file = rdpdyn.solve(path)
    from_str_path = rdpdyn.solve(str(path))
    from_text = rdpdyn.solve(text)
    from_dict = rdpdyn.solve(tomllib.loads(text))
    for other in (from_str_path, from_text, from_dict):
        np.testing.assert_array_equal(other.R, from_file.R)
        for name in from_file.closed_forms:
            np.testing.assert_array_equal(other.closed_forms[name], from_file.closed_forms[name])
    assert from_dict.metadata["config_path"] == "<dict>" or from_dict.metadata["config_path"] == ""


MINIMAL = """[orders]
values = [2, 10]

[algorithm]
kind = "noisy-gd"
steps = 100
eta = 0.01
sigma = 0.1
n = 1000
sensitivity = 2.0

[lsi]
kind = "constant"
c = 1.0
"""


def test_minimal_dict_config_and_numpy_values(tmp_path):
    """docs/config.md's minimal example as a dict (with a numpy array) equals the CLI on the file."""
    config = {"orders": {"values": np.array([2.0, 10.0])},
              "algorithm": {"kind": "noisy-gd", "steps": np.int64(100), "eta": 0.01, "sigma": np.float64(0.1),
                            "n": 1000, "sensitivity": 2.0},
              "lsi": {"kind": "constant", "c": 1.0}}
    run = rdpdyn.solve(config)
    (tmp_path / "min.toml").write_text(MINIMAL)
    ref = cli_json("solve", tmp_path / "min.toml")
    np.testing.assert_array_equal(run.R[-1], ref["R"])
    # C21 Thm 2 at gamma = 1/2, as docs/config.md prints it: 0.00039800665 and 0.00199003325.
    np.testing.assert_allclose(run.closed_forms["thm2"][-1], [0.00039800665, 0.00199003325], rtol=1e-8)


def test_arrays_are_not_copies():
    run = rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml")
    for a in (run.R, run.t, run.steps, run.orders, *run.closed_forms.values()):
        assert isinstance(a, np.ndarray) and not a.flags["OWNDATA"] and a.base is not None
    assert run.steps.dtype == np.int64 and run.R.dtype == np.float64


def test_to_xarray():
    pytest.importorskip("xarray")
    ds = rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml").to_xarray()
    assert ds["R"].dims == ("step", "orders") and "cor1" in ds and ds["t"].dims == ("step",)


def test_gil_released_during_solve():
    """A Python thread keeps running while C++ solves (a 2*10^5-step run of a few tenths of a second)."""
    ticks, done = [0], threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1

    thread = threading.Thread(target=count)
    thread.start()
    try:
        rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml", **{"algorithm.steps": 200000, "output.record_every": 100000})
    finally:
        done.set()
        thread.join()
    assert ticks[0] > 1000


# ---- errors --------------------------------------------------------------------------------------

def test_config_error_carries_key_value_rule():
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml", **{"algorithm.sigma": -1.0})
    assert isinstance(e.value, ValueError)
    assert e.value.key == "algorithm.sigma" and e.value.value == "-1" and e.value.rule
    # The same words as the CLI (exit 2).
    cli = subprocess.run([CLI, "solve", EXAMPLES / "figure1_lambda1.toml", "--set", "algorithm.sigma=-1.0"],
                         capture_output=True, text=True)
    assert cli.returncode == 2 and str(e.value) in cli.stderr


def test_config_error_unknown_key_in_dict_and_missing_file():
    config = tomllib.loads((EXAMPLES / "figure1_lambda1.toml").read_text())
    config["algorithm"]["sigmaa"] = 1.0
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.solve(config)
    assert e.value.key == "algorithm.sigmaa"
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.solve("no_such_file.toml")
    assert e.value.key == "CONFIG"
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml", **{"algorithm.steps": 10.5})
    assert e.value.key == "algorithm.steps"
    with pytest.raises(TypeError):
        rdpdyn.solve(42)


# The bad runs of tests/library/test_error_paths.cpp, with the same expected messages: the Python dict
# and keyword-override paths reach the same rules as the file, --set and RunBuilder.
BAD_RUNS = [
    ({"algorithm.sigma": -1.0}, "'algorithm.sigma' = -1: must be > 0"),
    ({"algorithm.eta": 0.5}, "'algorithm.eta' = 0.5: must be < 1/beta = 0.25 (C21 Lemma 5)"),
    ({"analysis.engine": "reference", "analysis.gamma": "optimal"},
     "'analysis.gamma' = \"optimal\": the reference engine integrates a given gamma (a number or a field in alpha "
     "and t), not the pointwise-optimal one"),
    ({"algorithm.loss": "quadratic", "quadratic.hessian": [[1.0]], "quadratic.pair": [5.0]},
     "'quadratic.pair' = with |H pair| = 5.000000000000007 (rounded up): must satisfy |H (x - x')| <= "
     "algorithm.sensitivity = 4"),
]


@pytest.mark.parametrize("assignments,message", BAD_RUNS)
def test_bad_run_same_message_on_every_path(assignments, message):
    config = tomllib.loads((EXAMPLES / "figure1_lambda1.toml").read_text())
    for key, value in assignments.items():
        table, name = key.split(".", 1)
        config.setdefault(table, {})[name] = value
    with pytest.raises(rdpdyn.ConfigError) as from_dict:
        rdpdyn.solve(config)
    with pytest.raises(rdpdyn.ConfigError) as from_keywords:
        rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml", **assignments)
    assert str(from_dict.value) == message
    assert str(from_keywords.value) == message


def test_compare_from_opacus_history_and_dp_event_equal_the_file():
    """The run of examples/dpsgd_accounting.toml as an opacus history and as a DpEvent (plain dicts,
    dp_accounting's to_named_tuple() written out): the epsilons of the file (same orders)."""
    orders = tomllib.loads((EXAMPLES / "dpsgd_accounting.toml").read_text())["orders"]["values"]
    by_file = rdpdyn.compare(EXAMPLES / "dpsgd_accounting.toml")
    gaussian = {"module_name": "dp_accounting.dp_event", "class_name": "GaussianDpEvent", "noise_multiplier": 1.1}
    event = {"class_name": "SelfComposedDpEvent", "count": 10000,
             "event": {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01, "event": gaussian}}
    for result in (rdpdyn.compare(opacus_history=[(1.1, 0.01, 10000)], **{"orders.values": orders}),
                   rdpdyn.compare(dp_event=event, **{"orders.values": orders})):
        for name in ("composition-sgm", "composition-pld"):
            assert result[name].epsilon == pytest.approx(by_file[name].epsilon, rel=1e-12)
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.compare(dp_event={"class_name": "LaplaceDpEvent", "parameter": 1.0})
    assert e.value.key == "DpEvent.class_name"
    with pytest.raises(TypeError):
        rdpdyn.compare(EXAMPLES / "dpsgd_accounting.toml", opacus_history=[(1.1, 0.01, 1)])


# ---- compare, calibrate, sweep -------------------------------------------------------------------

@pytest.mark.parametrize("example", ["dpsgd_accounting.toml", "figure1_lambda1.toml", "figure2_tight.toml"])
def test_compare_equals_cli(example):
    c = rdpdyn.compare(EXAMPLES / example)
    ref = cli_json("compare", EXAMPLES / example)
    assert [a.name for a in c.analyses] == [a["name"] for a in ref["analyses"]]
    for a, r in zip(c.analyses, ref["analyses"]):
        assert (a.status, a.applies, a.reason, a.citation) == (r["status"], r["applies"], r["reason"], r["citation"])
        if a.applies:
            np.testing.assert_array_equal(a.R, as_array(r["R"]))
        else:
            assert a.R is None
        assert a.epsilon == r["epsilon"] and a.best_order == r["best_order"] and a.mu == r["mu"]
    assert c.best["name"] == ref["best"]["name"] and c.best["epsilon"] == ref["best"]["epsilon"]
    assert c.best["mu"] == ref["best"]["mu"]
    np.testing.assert_array_equal(c.best["R"], as_array(ref["best"]["R"]))
    assert c[c.best["name"]].applies


def test_calibrate_equals_cli():
    k = rdpdyn.calibrate(EXAMPLES / "dpsgd_accounting.toml", epsilon=2, delta=1e-5, for_="noise_multiplier")
    ref = cli_json("calibrate", EXAMPLES / "dpsgd_accounting.toml", "--epsilon", 2, "--delta", 1e-5,
                   "--for", "noise_multiplier")
    assert k.noise_multiplier == ref["noise_multiplier"] and k.epsilon == ref["epsilon"] <= 2
    assert k.tightest == ref["tightest"] and k.evaluations == ref["evaluations"]
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.calibrate(EXAMPLES / "dpsgd_accounting.toml", epsilon=2, delta=1e-5, for_="noise_multiplier",
                         analysis="no-such")
    assert e.value.key == "analysis"  # the argument's name (the CLI says --analysis)
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.calibrate(EXAMPLES / "dpsgd_accounting.toml", epsilon=-1, delta=1e-5, for_="noise_multiplier")
    assert e.value.key == "epsilon"


def test_compare_delta_at_epsilon_and_curves_equal_cli():
    """[report] epsilon (items 3 of the outputs issue): delta_at_epsilon per analysis and best, and the
    PLD entry's profile and trade-off curve as numpy arrays, equal to the CLI's JSON."""
    c = rdpdyn.compare(EXAMPLES / "dpsgd_accounting.toml", **{"report.epsilon": 2})
    ref = cli_json("compare", EXAMPLES / "dpsgd_accounting.toml", "--set", "report.epsilon=2")
    assert c.epsilon == ref["epsilon"] == 2.0
    for a, r in zip(c.analyses, ref["analyses"]):
        assert a.delta_at_epsilon == r["delta_at_epsilon"]
        assert (a.profile is None) == (r["profile"] is None) and (a.tradeoff is None) == (r["tradeoff"] is None)
    pld, sgm = c["composition-pld"], c["composition-sgm"]
    assert 0 < pld.delta_at_epsilon < sgm.delta_at_epsilon
    assert sgm.profile is None and sgm.tradeoff is None
    profile, tradeoff = pld.profile, pld.tradeoff
    r = next(x for x in ref["analyses"] if x["name"] == "composition-pld")
    assert isinstance(profile["delta"], np.ndarray) and isinstance(tradeoff["beta"], np.ndarray)
    np.testing.assert_array_equal(profile["epsilon"], r["profile"]["epsilon"])
    np.testing.assert_array_equal(profile["delta"], r["profile"]["delta"])
    np.testing.assert_array_equal(tradeoff["alpha"], r["tradeoff"]["alpha"])
    np.testing.assert_array_equal(tradeoff["beta"], r["tradeoff"]["beta"])
    assert profile["units"] == {"epsilon": "nats", "delta": "probability"} and "type II" in tradeoff["meaning"]
    # The profile is non-increasing and brackets the delta at epsilon = 2; beta is a trade-off curve.
    assert np.all(np.diff(profile["delta"]) <= 0) and np.all((profile["delta"] >= 0) & (profile["delta"] <= 1))
    i = np.searchsorted(profile["epsilon"], 2.0) - 1
    assert profile["delta"][i + 1] * (1 - 1e-9) <= pld.delta_at_epsilon <= profile["delta"][i] * (1 + 1e-9)
    assert np.all(np.diff(tradeoff["beta"]) <= 0) and np.all((tradeoff["beta"] >= 0) & (tradeoff["beta"] <= 1))
    assert np.all(tradeoff["beta"] <= 1 - tradeoff["alpha"] + 1e-12)
    assert c.best["delta_at_epsilon"] == ref["best"]["delta_at_epsilon"] == pld.delta_at_epsilon
    assert c.best["delta_at_epsilon_analysis"] == "composition-pld" and c.amplification_warning is None
    assert "delta_at_epsilon" in c.to_xarray()
    # Without [report] epsilon: None, the curves still.
    plain = rdpdyn.compare(EXAMPLES / "dpsgd_accounting.toml")
    assert plain.epsilon is None and plain["composition-pld"].delta_at_epsilon is None
    np.testing.assert_array_equal(plain["composition-pld"].profile["delta"], profile["delta"])


def test_solve_delta_at_epsilon_equals_cli():
    sets = {"report.epsilon": 0.05, "report.delta": 1e-5}
    run = rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml", **sets)
    ref = cli_json("solve", EXAMPLES / "figure1_lambda1.toml", *sum((["--set", f"{k}={v}"] for k, v in sets.items()), []))
    assert run.report_epsilon == ref["report_epsilon"] == 0.05
    assert run.delta_at_epsilon == ref["delta_at_epsilon"] and 0 < run.delta_at_epsilon < 1
    assert run.delta_at_epsilon_order == ref["delta_at_epsilon_order"] and run.delta_at_epsilon_order in run.orders
    assert rdpdyn.solve(EXAMPLES / "figure1_lambda1.toml").delta_at_epsilon is None


def test_amplification_warning_of_unamplified_sampled_runs():
    """Fixed-size batches drawn every step under replace adjacency: composition-pld amplifies (Dong,
    Roth & Su's C_q needs no norm bound); with an initial divergence given as a Rényi curve (no
    profile) nothing amplifies without lipschitz_loss, and compare and calibrate say so, naming the key."""
    config = {"orders": {"values": [2, 4, 8, 16]},
              "algorithm": {"kind": "noisy-sgd", "sampling": "per-step", "batch_size": 600, "n": 60000,
                            "steps": 10000, "noise_multiplier": 1.1},
              "report": {"delta": 1e-5}}
    c = rdpdyn.compare(config)
    assert c.amplification_warning is None and c.best["name"] == "composition-pld"
    config["initial"] = {"kind": "linear", "slope": 0.01}
    c = rdpdyn.compare(config)
    assert c.amplification_warning.startswith("WARNING:") and "domain.lipschitz_loss = true" in c.amplification_warning
    k = rdpdyn.calibrate(config, epsilon=2, delta=1e-5, for_="noise_multiplier")
    assert k.amplification_warning == c.amplification_warning
    # with lipschitz_loss only composition-sgm amplifies, and its value there is disputed (a numerical
    # search, not a proof): the warning says how to count it, and then it is gone
    declared = rdpdyn.compare(config, **{"domain.lipschitz_loss": True})
    assert "report.include_disputed = true" in declared.amplification_warning
    assert rdpdyn.compare(config, **{"domain.lipschitz_loss": True,
                                     "report.include_disputed": True}).amplification_warning is None


def test_sweep_equals_cli():
    sets = {"sweep.axis[0].range.count": 3, "sweep.axis[1].range.count": 4, "orders.count": 5}
    ds = rdpdyn.sweep(EXAMPLES / "sweep_surface.toml", as_xarray=False, **sets)
    ref = cli_json("sweep", EXAMPLES / "sweep_surface.toml", *sum((["--set", f"{k}={v}"] for k, v in sets.items()), []))
    assert list(ds.axes) == [a["key"] for a in ref["axes"]] == ["algorithm.sigma", "algorithm.steps"]
    for name, surface in ref["analyses"].items():
        mine = ds.surfaces[name]
        assert mine["epsilon"].shape == (3, 4) and mine["R"].shape == (3, 4, 5)
        np.testing.assert_array_equal(mine["epsilon"], np.array(surface["epsilon"], dtype=float))
        np.testing.assert_array_equal(mine["R"], np.array(surface["R"], dtype=float))
    if pytest.importorskip("xarray"):
        x = rdpdyn.sweep(EXAMPLES / "sweep_surface.toml", **sets)
        assert x["epsilon"].dims == ("analysis", "algorithm.sigma", "algorithm.steps")
        assert x["R"].sel(analysis="pdi").shape == (3, 4, 5)


@pytest.mark.parametrize("analyses", [["best"], ["best", "pdi"]])
def test_sweep_best_keeps_chosen_and_the_file_s_names(analyses, tmp_path):
    # The Dataset of a sweep with "best" names the order dimension and the per-point analysis as the
    # HDF5 file of `rdpdyn sweep -o` does (docs/hdf5.md): R (..., "orders") and "chosen"; "chosen"
    # used to be dropped as soon as another analysis was swept beside "best".
    pytest.importorskip("xarray")
    h5py = pytest.importorskip("h5py")
    sets = {"sweep.axis[0].range.count": 3, "sweep.axis[1].range.count": 4, "orders.count": 5,
            "sweep.analyses": analyses}
    ds = rdpdyn.sweep(EXAMPLES / "sweep_surface.toml", **sets)
    assert list(ds["analysis"].values) == analyses
    assert ds["R"].dims == ("analysis", "algorithm.sigma", "algorithm.steps", "orders")
    assert "chosen" in ds.data_vars and ds["chosen"].dims == ("analysis", "algorithm.sigma", "algorithm.steps")
    out = tmp_path / "best.h5"
    subprocess.run([CLI, "sweep", EXAMPLES / "sweep_surface.toml", "-o", out, "--quiet",
                    *sum((["--set", f"{k}={json.dumps(v)}"] for k, v in sets.items()), [])], check=True)
    with h5py.File(out, "r") as f:
        group = f["sweep/best"]
        assert [d.label for d in group["R"].dims] == list(ds["R"].dims[1:])
        assert [d.label for d in group["chosen"].dims] == list(ds["chosen"].dims[1:])
        np.testing.assert_array_equal(ds["orders"].values, group["orders"][()])
        np.testing.assert_array_equal(ds["R"].sel(analysis="best").values, group["R"][()])
        chosen = np.array([c.decode() if isinstance(c, bytes) else c for c in group["chosen"][()].ravel()])
        np.testing.assert_array_equal(ds["chosen"].sel(analysis="best").values.ravel(), chosen)
        assert (chosen != "").all()
        for name in analyses[1:]:  # no pointwise choice: "" (the file has no /sweep/<name>/chosen)
            assert "chosen" not in f[f"sweep/{name}"] and (ds["chosen"].sel(analysis=name) == "").all()


# ---- DP-SGD accounting in the libraries' conventions ---------------------------------------------
# Reference values: opacus at commit 4d0ebc84613d214fbfd37fbfd1390e3747a625ce (v1.5.4-17), unmodified
# opacus/accountants/analysis/rdp.py, Python 3.11.2, numpy 1.24.2, scipy 1.10.1:
# compute_rdp(q, noise_multiplier=z, steps=T, orders) then get_privacy_spent(orders, rdp, delta=1e-5)
# -> (eps, best order). The same numbers and their provenance as tests/accounting/test_sgm_opacus.cpp
# (cases A to E), which checks them against 50-digit values too. Case B uses opacus'
# RDPAccountant.DEFAULT_ALPHAS, the module's default orders.
OPACUS = [
    # (case, q, z, T, orders, eps, best order)
    ("A", 0.01, 1.1, 10000, [1.5, 2, 3, 4, 8, 16, 32, 64], 5.755044775102264, 4.0),
    ("B", 0.01, 1.1, 10000, None, 5.63199236854841, 4.7),
    ("C", 0.001, 0.8, 1000, [2, 4, 8, 16, 32, 64, 128, 256], 1.231816466894613, 8.0),
    ("D", 0.05, 2.0, 500, [1.25, 1.5, 2, 3, 5, 10, 20], 2.940066885572166, 10.0),
    ("E", 1.0, 1.0, 10, [2, 3], 19.801691480042894, 3.0),
]


def test_default_orders_are_opacus_default_alphas():
    assert rdpdyn.default_orders() == [1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))


@pytest.mark.parametrize("case,q,z,steps,orders,eps,order", OPACUS, ids=[c[0] for c in OPACUS])
def test_dpsgd_epsilon_equals_opacus(case, q, z, steps, orders, eps, order):
    got, got_order = rdpdyn.dpsgd_epsilon(q, z, steps, 1e-5, orders=orders, return_order=True, method="rdp")
    assert got_order == order
    # opacus is itself accurate to ~1e-8 at fractional orders (case B's best order is 4.7); rdpdyn
    # rounds outward (docs/math.md section 6), so it is never below the 50-digit value.
    assert got == pytest.approx(eps, rel=1e-10 if float(order).is_integer() else 1e-9)


def test_dpsgd_epsilon_equals_compare_of_the_example():
    c = rdpdyn.compare(EXAMPLES / "dpsgd_accounting.toml")
    sgm = c["composition-sgm"]
    assert rdpdyn.dpsgd_epsilon(0.01, 1.1, 10000, 1e-5, orders=c.orders, method="rdp") == sgm.epsilon_recorded_orders
    # the default, the certified PLD, is compare's composition-pld
    assert rdpdyn.dpsgd_epsilon(0.01, 1.1, 10000, 1e-5) == c["composition-pld"].epsilon


# dp_accounting (google/differential-privacy b5b0286e313b64a692abfc8c528d54ef47d960a0, python/dp_accounting,
# Debian's numpy 1.24.2 / scipy 1.10.1): PLDAccountant(relation) composing
# PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1)) 10^4 times, get_epsilon(1e-5), get_delta(2.0)
# (pessimistic, connect-the-dots at 1e-4: an upper bound up to its FFT round-off), and the optimistic
# privacy-buckets PLD at 1e-5 (from_gaussian_mechanism(..., pessimistic_estimate=False,
# value_discretization_interval=1e-5, use_connect_dots=False), add/remove: a lower bound, the floor).
DP_ACCOUNTING_PLD = {
    "add-remove": dict(eps=5.192620123006462, delta_at_2=0.04266562944268842,
                       eps_floor=5.1425835883469535, delta_floor=0.03920353523291247),
    "replace": dict(eps=9.422322822080035, delta_at_2=0.2934542859647554),
}


@pytest.mark.parametrize("adjacency", ["add-remove", "replace"])
def test_dpsgd_pld_default_against_dp_accounting(adjacency):
    ref = DP_ACCOUNTING_PLD[adjacency]
    eps = rdpdyn.dpsgd_epsilon(0.01, 1.1, 10000, 1e-5, adjacency=adjacency)
    delta = rdpdyn.dpsgd_delta(0.01, 1.1, 10000, 2.0, adjacency=adjacency)
    # within the accountant's 1e-4 relative accuracy of dp_accounting's pessimistic value
    assert eps == pytest.approx(ref["eps"], rel=2e-4)
    assert delta == pytest.approx(ref["delta_at_2"], rel=2e-3)
    if "eps_floor" in ref:
        assert eps >= ref["eps_floor"] and delta >= ref["delta_floor"]
    # tighter than the RDP accountant (opacus case B: 5.63199236854841)
    if adjacency == "add-remove":
        assert eps < 5.63199236854841


def test_dpsgd_pld_noise_multiplier_inverts_dpsgd_epsilon():
    # dp_accounting's calibrate_dp_mechanism with its PLD accountant (same commit) gives 2.12744 for
    # epsilon 2 at (0.01, 10^4, 1e-5); rdpdyn's certified epsilon is at most 1e-4 above its own. The
    # PLD's epsilon moves with its grid (refined to 1e-4 relative), so z is the smallest to about that.
    z = rdpdyn.dpsgd_noise_multiplier(0.01, 10000, 2.0, 1e-5)
    assert z == pytest.approx(2.12744, rel=1e-3)
    assert rdpdyn.dpsgd_epsilon(0.01, z, 10000, 1e-5) <= 2.0
    assert rdpdyn.dpsgd_epsilon(0.01, z * (1 - 1e-3), 10000, 1e-5) > 2.0


def test_dpsgd_method_and_adjacency_errors():
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.dpsgd_epsilon(0.01, 1.1, 100, 1e-5, orders=[2, 3])      # orders need method="rdp"
    assert e.value.key == "orders"
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.dpsgd_epsilon(0.01, 1.1, 100, 1e-5, method="prv")
    assert e.value.key == "method"
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.dpsgd_delta(0.01, 1.1, 100, 1.0, adjacency="zero-out")
    assert e.value.key == "adjacency"
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.dpsgd_epsilon(0.01, 1.1, 100, 1e-5, method="rdp", adjacency="replace")
    assert e.value.key == "adjacency"
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.dpsgd_delta(0.01, 1.1, 100, -1.0)
    assert e.value.key == "epsilon"


def test_dpsgd_noise_multiplier_inverts_dpsgd_epsilon():
    # opacus gives epsilon 5.63199236854841 at z = 1.1 (case B): the calibration finds z = 1.1 back.
    z = rdpdyn.dpsgd_noise_multiplier(0.01, 10000, 5.63199236854841, 1e-5, method="rdp")
    assert z == pytest.approx(1.1, rel=1e-8)
    assert rdpdyn.dpsgd_epsilon(0.01, z, 10000, 1e-5, method="rdp") <= 5.63199236854841
    assert rdpdyn.dpsgd_epsilon(0.01, z * (1 - 1e-7), 10000, 1e-5, method="rdp") > 5.63199236854841
    z2 = rdpdyn.dpsgd_noise_multiplier(0.004, 3000, 1.0, 1e-6, orders=[2, 4, 8, 16, 32], method="rdp")
    assert rdpdyn.dpsgd_epsilon(0.004, z2, 3000, 1e-6, orders=[2, 4, 8, 16, 32], method="rdp") <= 1.0


def test_dpsgd_errors_name_the_argument():
    for args, key in [((1.5, 1.0, 10, 1e-5), "sampling_rate"), ((0.1, -1.0, 10, 1e-5), "noise_multiplier"),
                      ((0.1, 1.0, -3, 1e-5), "steps"), ((0.1, 1.0, 10, 2.0), "delta")]:
        with pytest.raises(rdpdyn.ConfigError) as e:
            rdpdyn.dpsgd_epsilon(*args)
        assert e.value.key == key, (args, e.value)
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.dpsgd_epsilon(0.1, 1.0, 10, 1e-5, orders=[0.5, 2], method="rdp")
    assert e.value.key == "orders[0]"
    with pytest.raises(rdpdyn.ConfigError) as e:
        rdpdyn.dpsgd_noise_multiplier(0.01, 100, -1.0, 1e-5)
    assert e.value.key == "epsilon"


def test_analyses_registry():
    names = [a["name"] for a in rdpdyn.analyses()]
    assert "pdi" in names and "composition-sgm" in names


def test_every_engine_of_the_registry_from_python():
    # engine = "reference" (the characteristic ODEs, solver/reference_engine.hpp) reached by name, as
    # from the command line: within 1e-7 above the characteristics engine's closed forms.
    ref = rdpdyn.solve(EXAMPLES / "fd_convergence.toml", **{"analysis.engine": "reference", "analysis.gamma": 0.5})
    exact = rdpdyn.solve(EXAMPLES / "fd_convergence.toml", **{"analysis.engine": "characteristics", "analysis.gamma": 0.5})
    assert ref.metadata["engine"] == "reference"
    for r, e in zip(ref.R[-1], exact.R[-1]):
        assert e * (1 - 1e-12) <= r <= e * (1 + 1e-7)
    with pytest.raises(rdpdyn.ConfigError) as err:
        rdpdyn.solve(EXAMPLES / "fd_convergence.toml", **{"analysis.engine": "reference", "analysis.gamma": "optimal"})
    assert err.value.key == "analysis.gamma"


def test_overrides_three_ways():
    """`overrides={...}`, `algorithm_sigma=` (a table, an underscore, its key) and **{"a.b": ...}
    give the same run; a key given twice is a TypeError."""
    path = EXAMPLES / "figure1_lambda1.toml"
    a = rdpdyn.solve(path, overrides={"algorithm.sigma": 0.05, "algorithm.steps": 50})
    b = rdpdyn.solve(path, algorithm_sigma=0.05, algorithm_steps=50)
    c = rdpdyn.solve(path, **{"algorithm.sigma": 0.05, "algorithm.steps": 50})
    assert np.array_equal(a.R, b.R) and np.array_equal(a.R, c.R)
    with pytest.raises(TypeError, match="given twice"):
        rdpdyn.solve(path, overrides={"algorithm.sigma": 0.05}, algorithm_sigma=0.06)


def test_calibrate_takes_the_configured_noise_key():
    # dpsgd_accounting.toml gives a noise multiplier only: calibrate tunes it without for_.
    cal = rdpdyn.calibrate(EXAMPLES / "dpsgd_accounting.toml", 2, 1e-5)
    assert cal.target == "noise_multiplier" and cal.epsilon <= 2


def test_docstrings_are_full():
    for f in (rdpdyn.solve, rdpdyn.compare, rdpdyn.calibrate, rdpdyn.sweep):
        doc = f.__doc__ or ""
        assert all(word in doc for word in ("Parameters", "Returns", "Raises", "Example")), f.__name__
