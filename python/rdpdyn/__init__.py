"""rdpdyn from Python: certified Renyi-DP bounds of noisy gradient descent (docs/guide-dpsgd.md, "From Python").

Every function runs the C++ code of the command line in process (the compiled module _rdpdyn);
this file only shapes its results. A configuration is a path, TOML text or a dict of tables
(docs/config.md); overrides are the keys of `--set`:

    import rdpdyn
    run = rdpdyn.solve("examples/figure1_lambda1.toml", **{"algorithm.sigma": 0.5})
    run.R[-1]                     # R at every order after the last step (nats)
    rdpdyn.dpsgd_epsilon(0.01, 1.1, 10000, 1e-5)   # certified PLD: 5.1928 (method="rdp": 5.6320)

Bad input raises ConfigError (a ValueError) with the key, value and rule of the command line's
message.
"""
import json

from . import _rdpdyn

__version__ = _rdpdyn.__version__
__all__ = ["solve", "compare", "calibrate", "sweep", "dpsgd_epsilon", "dpsgd_delta", "dpsgd_noise_multiplier",
           "analyses", "default_orders", "ConfigError", "Solution", "Comparison", "AnalysisResult",
           "Calibration", "Sweep"]


class ConfigError(ValueError):
    """Invalid input: `key` (e.g. "algorithm.sigma"; None when no key is at fault), the `value`
    found and the `rule` it breaks, as `rdpdyn` prints them before exiting with code 2."""

    def __init__(self, message, key=None, value=None, rule=None):
        super().__init__(message)
        self.key, self.value, self.rule = key, value, rule


def _xarray():
    try:
        import xarray
    except ImportError as e:
        raise ImportError("to_xarray needs xarray (Debian: python3-xarray)") from e
    return xarray


class Solution:
    """`rdpdyn solve`: R at every recorded step (rows) and order (columns), in nats.

    orders, steps, t, lsi_constant, R (records x orders), closed_forms {name: records x orders},
    closed_form_roles, epsilon / best_order / delta / conversion (with [report] delta, at the final
    time, as `solve --json`; conversion names the RDP -> (epsilon, delta) conversion attaining
    epsilon, docs/analyses.md section 4), report_epsilon / delta_at_epsilon / delta_at_epsilon_order
    (with [report] epsilon: the certified delta there at the final time, the smallest of the
    conversions over the orders, and the order attaining it; else None), extras (engine series),
    metadata (engine, method, constants, units, ...).
    """

    def __init__(self, d):
        self.__dict__.update(d)

    def to_xarray(self):
        """An xarray.Dataset: R and each closed form over (step, order), t as a coordinate."""
        xr = _xarray()
        dims = ("step", "orders")
        data = {"R": (dims, self.R, {"units": self.metadata["units"]["R"]})}
        for name, values in self.closed_forms.items():
            data[name] = (dims, values, {"role": self.closed_form_roles[name],
                                         "citation": self.closed_form_citations[name]})
        attrs = {k: v for k, v in self.metadata.items() if isinstance(v, str)}
        for k in ("epsilon", "delta", "best_order", "conversion", "report_epsilon", "delta_at_epsilon"):
            if getattr(self, k) is not None:
                attrs[k] = getattr(self, k)
        return xr.Dataset(data, coords={"step": self.steps, "orders": self.orders,
                                        "t": ("step", self.t, {"units": self.metadata["units"]["t"]})},
                          attrs=attrs)

    def __repr__(self):
        eps = "" if self.epsilon is None else f", epsilon={self.epsilon:.6g} at delta={self.delta:g}"
        terms = self.metadata.get("terms")
        return (f"<rdpdyn.Solution {len(self.steps)} records x {len(self.orders)} orders, "
                f"step {int(self.steps[-1])}{eps}{'' if terms is None else ', ' + terms['line']}>")


class AnalysisResult:
    """One analysis of `compare`: name, status, status_note, applies, reason, citation, R (None
    when it does not apply), epsilon, best_order and conversion (None without a delta; conversion:
    improved, asoodeh, mironov, zcdp, gdp, gdp-mixture for pdi on shuffle-once runs, pld for
    composition-pld and ganesh-group-pld, group for an entry made user-level by records_per_user,
    pld-lower for chua-shuffle-lower, whose epsilon is a certified LOWER bound), epsilon_recorded_orders, mu (the Gaussian-DP parameter of the f-DP entries,
    whose epsilon is their exact profile; else None), and

    - delta_at_epsilon: the certified delta at [report] epsilon (dp_accounting's get_delta), the
      smallest of the entry's routes (its privacy loss distribution, the exact mu-GDP profile, the RDP
      conversions over the recorded orders); None without [report] epsilon, where the entry does not
      apply, or for a bound that is not a bound on the run (lower-bound, record-specific, heuristic,
      released-lower-bound);
    - profile: for the entries that know their privacy profile (composition-pld on Poisson runs), a
      dict of numpy arrays "epsilon" (nats, increasing from 0) and "delta" (certified upper bounds of
      delta(epsilon)), with "units" and "meaning"; else None:
      ``c["composition-pld"].profile["delta"]``;
    - tradeoff: for the same entries, a dict of numpy arrays "alpha" (type I errors from 0 to 1) and
      "beta" (a certified lower bound of the type II error at each alpha, non-increasing), with
      "meaning"; else None.
    """

    def __init__(self, d):
        self.__dict__.update(d)

    def __repr__(self):
        what = f"epsilon={self.epsilon:.6g}" if self.epsilon is not None else (
            "applies" if self.applies else "does not apply")
        return f"<rdpdyn.AnalysisResult {self.name} ({self.status}): {what}>"


class Comparison:
    """`rdpdyn compare`: `analyses` (every registered analysis, AnalysisResult), `best` (the
    tightest trusted one: name, status, R, epsilon, best_order, conversion, mu; delta_at_epsilon, the
    smallest delta at [report] epsilon of the trusted ones, and delta_at_epsilon_analysis, the one
    attaining it), orders, delta, epsilon ([report] epsilon or None), amplification_warning (the
    WARNING line of a run sampled at every step that no analysis amplifies, else None), terms (the
    neighbouring relation, sampling and user level the numbers are for: adjacency,
    adjacency_default, sampling, records_per_user, records_per_user_default, line and
    ecosystem_hint; None for a "pdi" run); comparison["pdi"],
    comparison["composition-pld"].profile["delta"]."""

    def __init__(self, d):
        self.__dict__.update(d)
        self.analyses = [AnalysisResult(a) for a in d["analyses"]]

    def __getitem__(self, name):
        for a in self.analyses:
            if a.name == name:
                return a
        raise KeyError(name)

    def to_xarray(self):
        """An xarray.Dataset: R over (analysis, order) for the analyses that apply, and epsilon."""
        import numpy as np
        xr = _xarray()
        valid = [a for a in self.analyses if a.applies]
        nan = float("nan")
        return xr.Dataset(
            {"R": (("analysis", "orders"), np.array([a.R for a in valid]).reshape(len(valid), len(self.orders))),
             "epsilon": ("analysis", [nan if a.epsilon is None else a.epsilon for a in valid]),
             "delta_at_epsilon": ("analysis", [nan if a.delta_at_epsilon is None else a.delta_at_epsilon
                                               for a in valid]),
             "status": ("analysis", [a.status for a in valid])},
            coords={"analysis": [a.name for a in valid], "orders": self.orders},
            attrs={"best": self.best["name"] or "", **({"delta": self.delta} if self.delta else {}),
                   **({"epsilon": self.epsilon} if self.epsilon is not None else {})})

    def __repr__(self):
        eps = "" if self.best["epsilon"] is None else f" epsilon={self.best['epsilon']:.6g}"
        terms = "" if self.terms is None else f", {self.terms['line']}"
        return f"<rdpdyn.Comparison {len(self.analyses)} analyses, best {self.best['name']}{eps}{terms}>"


class Calibration:
    """`rdpdyn calibrate`: target, sigma, sigma_at, noise_multiplier, steps, epsilon (achieved, <=
    epsilon_target), best_order, conversion, analysis, tightest, evaluations, amplification_warning
    (analysis "best" on a run sampled at every step that no analysis amplifies: the WARNING line;
    else None) (as `calibrate --json`)."""

    def __init__(self, d):
        self.__dict__.update(d)

    def __repr__(self):
        return (f"<rdpdyn.Calibration {self.target}={getattr(self, self.target)!r}: "
                f"epsilon={self.epsilon:.6g} <= {self.epsilon_target:g} at delta={self.delta:g}>")


class Sweep:
    """`rdpdyn sweep`: axes {key: values} in order, orders, and per analysis (surfaces[name]) R
    (axes..., order), epsilon, best_order and conversion (axes...), reason, chosen (for "best": the
    analysis giving each point's value, an array of names; else empty); delta (axes...)."""

    def __init__(self, d):
        import numpy as np
        self.axes = {a["key"]: a["values"].astype(np.int64) if a["integer"] else a["values"] for a in d["axes"]}
        self.axis_descriptions = {a["key"]: a["description"] for a in d["axes"]}
        self.orders, self.delta, self.config_text = d["orders"], d["delta"], d["config_text"]
        shape = tuple(d["shape"])
        self.invalid = np.array(d["invalid"], dtype=object).reshape(shape)
        self.surfaces = {}
        for name, s in d["surfaces"].items():
            s = dict(s)
            s["reason"] = np.array(s["reason"], dtype=object).reshape(shape)
            s["conversion"] = np.array(s["conversion"], dtype=object).reshape(shape)
            if s["chosen"]:
                s["chosen"] = np.array(s["chosen"], dtype=object).reshape(shape)
            self.surfaces[name] = s

    def to_xarray(self):
        """An xarray.Dataset over the axes (named by their keys), "orders" (the HDF5 file's name) and
        "analysis"."""
        import numpy as np
        xr = _xarray()
        axes = tuple(self.axes)
        names = list(self.surfaces)
        stack = lambda field: np.stack([self.surfaces[n][field] for n in names])
        data = {"R": (("analysis",) + axes + ("orders",), stack("R"), {"units": "nats"}),
                "epsilon": (("analysis",) + axes, stack("epsilon")),
                "best_order": (("analysis",) + axes, stack("best_order")),
                "reason": (("analysis",) + axes, stack("reason").astype(str)),
                "conversion": (("analysis",) + axes, stack("conversion").astype(str)),
                "delta": (axes, self.delta)}
        # The entry that gave each point's value of "best" (the HDF5 file's /sweep/best/chosen): kept
        # whenever "best" is among the analyses, "" for the others (a named analysis is its own entry).
        chosen = [self.surfaces[n].get("chosen") for n in names]
        if any(isinstance(c, np.ndarray) for c in chosen):
            chosen = [c if isinstance(c, np.ndarray) else np.full(self.invalid.shape, "", dtype=object) for c in chosen]
            data["chosen"] = (("analysis",) + axes, np.stack(chosen).astype(str))
        coords = {"analysis": names, "orders": self.orders, **self.axes}
        return xr.Dataset(data, coords=coords,
                          attrs={"config_text": self.config_text,
                                 **{f"axis {k}": v for k, v in self.axis_descriptions.items()}})

    def __repr__(self):
        shape = " x ".join(f"{k} ({len(v)})" for k, v in self.axes.items())
        return f"<rdpdyn.Sweep {shape}; analyses {', '.join(self.surfaces)}>"


# The configuration's top-level tables (docs/config.md): a keyword argument `<table>_<key>` is read as
# the dotted key `<table>.<key>` (Python names cannot hold dots), e.g. algorithm_sigma=0.1.
_TABLES = ("algorithm", "analysis", "domain", "events", "grid", "initial", "lsi", "orders", "output", "quadratic",
           "report", "sweep")


def _merged_overrides(overrides, keywords):
    """The overrides of a call: the `overrides` mapping ({"algorithm.sigma": 0.1}) and the keyword
    arguments, dotted (**{"algorithm.sigma": 0.1}) or with the table's name and an underscore
    (algorithm_sigma=0.1). A key given twice is a TypeError."""
    merged = dict(overrides or {})
    for key, value in keywords.items():
        if "." not in key:
            table, _, rest = key.partition("_")
            if table in _TABLES and rest:
                key = f"{table}.{rest}"
        if key in merged:
            raise TypeError(f"the override '{key}' is given twice")
        merged[key] = value
    return merged


def solve(config, overrides=None, **keywords):
    """Solves the PDI for a configuration, as `rdpdyn solve` (docs/config.md).

    Parameters
    ----------
    config : str or os.PathLike
        A TOML configuration file, or its text.
    overrides : dict, optional
        Dotted keys and values that replace the configuration's, as `--set` (e.g.
        {"algorithm.sigma": 0.1, "orders.values": [2, 4]}).
    **keywords
        More overrides: `algorithm_sigma=0.1` (a table's name, an underscore, its key) or
        `**{"algorithm.sigma": 0.1}`.

    Returns
    -------
    Solution
        R (records x orders, nats), steps, times, orders, closed forms and metadata.

    Raises
    ------
    rdpdyn.ConfigError
        Bad input: the message names the key, the value and the rule (the CLI's exit 2).

    Example
    -------
    >>> s = rdpdyn.solve("examples/figure1_lambda1.toml", algorithm_steps=200)
    >>> s.R[-1]
    """
    return Solution(_rdpdyn.solve(config, _merged_overrides(overrides, keywords)))


def _plain(value):
    """A DpEvent's named tuple (dp_accounting's to_named_tuple()) as plain dicts and lists."""
    if hasattr(value, "to_named_tuple"):
        value = value.to_named_tuple()
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def compare(config=None, *, opacus_history=None, dp_event=None, overrides=None, **keywords):
    """Every registered analysis of the run side by side, as `rdpdyn compare` (docs/analyses.md).

    Parameters
    ----------
    config : str or os.PathLike, optional
        A TOML configuration file, or its text.
    opacus_history : list of (noise_multiplier, sample_rate, steps), optional
        Instead of `config`: an opacus accountant's history (`rdpdyn compare --from-opacus`).
    dp_event : dp_accounting DpEvent, its to_named_tuple(), or the same as dicts, optional
        Instead of `config` (`--from-dp-event`; docs/config.md, "Runs from other libraries").
    overrides : dict, optional; **keywords
        Overrides of the run's keys, as for solve().

    Returns
    -------
    Comparison
        One entry per analysis (status, applies, reason, R, epsilon, order, conversion, mu) and best.

    Raises
    ------
    TypeError
        Not exactly one of config, opacus_history, dp_event.
    rdpdyn.ConfigError
        Bad input (the key, the value and the rule).

    Example
    -------
    >>> c = rdpdyn.compare("examples/ye_shokri_fmnist.toml")
    >>> c.best.name, c.best.epsilon
    """
    given = [x is not None for x in (config, opacus_history, dp_event)]
    if sum(given) != 1:
        raise TypeError("give one of config, opacus_history, dp_event")
    if opacus_history is not None:
        config = _rdpdyn.accounting_run_toml("opacus_history", json.dumps([list(h) for h in opacus_history]))
    elif dp_event is not None:
        config = _rdpdyn.accounting_run_toml("dp_event", json.dumps(_plain(dp_event)))
    return Comparison(_rdpdyn.compare(config, _merged_overrides(overrides, keywords)))


def calibrate(config, epsilon, delta, for_=None, analysis="best", max_steps=None, overrides=None, **keywords):
    """The smallest noise or the largest number of steps meeting (epsilon, delta), as `rdpdyn calibrate`.

    Parameters
    ----------
    config : str or os.PathLike
        A TOML configuration file, or its text.
    epsilon, delta : float
        The target.
    for_ : {"sigma", "noise_multiplier", "steps"}, optional
        What to calibrate; default: the noise key the configuration uses (noise_multiplier for a
        DP-SGD run configured by its multiplier, else sigma), as the CLI.
    analysis : str
        The bound that must meet the target: "best" or a name of compare.
    max_steps : int, optional
        The largest number of steps tried (for_="steps").
    overrides : dict, optional; **keywords
        Overrides of the run's keys, as for solve().

    Returns
    -------
    Calibration
        The value found, the epsilon it gives, the order and conversion, the analysis that met it.

    Raises
    ------
    rdpdyn.ConfigError
        Bad input, or a target no value meets.

    Example
    -------
    >>> rdpdyn.calibrate("examples/dpsgd_accounting.toml", 2, 1e-5)
    """
    return Calibration(_rdpdyn.calibrate(config, _merged_overrides(overrides, keywords), float(epsilon), float(delta),
                                         for_ or "", analysis, max_steps))


def sweep(config, as_xarray=None, overrides=None, **keywords):
    """Bound surfaces over the [sweep] axes, as `rdpdyn sweep` (docs/config.md, "[sweep]").

    Parameters
    ----------
    config : str or os.PathLike
        A TOML configuration with a [sweep] table, or its text.
    as_xarray : bool, optional
        None (default): an xarray.Dataset when xarray is installed, else a Sweep; True or False to choose.
    overrides : dict, optional; **keywords
        Overrides of the run's keys, as for solve().

    Returns
    -------
    xarray.Dataset or Sweep
        R (analysis, axes..., orders), epsilon, best_order, conversion, chosen, reason per point; the
        order dimension is named `orders`, as in the HDF5 file.

    Raises
    ------
    rdpdyn.ConfigError
        Bad input.

    Example
    -------
    >>> ds = rdpdyn.sweep("examples/sweep_surface.toml", **{"sweep.axis[0].range.count": 4})
    """
    result = Sweep(_rdpdyn.sweep(config, _merged_overrides(overrides, keywords)))
    if as_xarray is False:
        return result
    if as_xarray is None:
        try:
            import xarray  # noqa: F401
        except ImportError:
            return result
    return result.to_xarray()


def default_orders():
    """The orders of dpsgd_epsilon when none are given: opacus' RDPAccountant.DEFAULT_ALPHAS,
    1.1, 1.2, ..., 10.9, 12, 13, ..., 63."""
    return _rdpdyn.default_orders()


def _rdp_only(method, orders, return_order):
    if method not in ("pld", "rdp"):
        raise ConfigError(f"'method' = {method!r}: must be \"pld\" (certified privacy loss distribution) or "
                          "\"rdp\" (opacus' RDP accountant)", "method", repr(method),
                          'must be "pld" or "rdp"')
    if method == "pld" and (orders is not None or return_order):
        key = "orders" if orders is not None else "return_order"
        raise ConfigError(f"'{key}' = given with method=\"pld\": orders are read by method=\"rdp\" only (the PLD "
                          "has none); pass method=\"rdp\" for opacus' RDP accountant", key, "given",
                          'is read by method="rdp" only')


def dpsgd_epsilon(sampling_rate, noise_multiplier, steps, delta, orders=None, return_order=False, method="pld",
                  adjacency="add-remove"):
    """epsilon of DP-SGD at `delta`: Poisson sampling at `sampling_rate`, noise std =
    noise_multiplier x clipping norm, `steps` steps (the libraries' conventions).

    method="pld" (default): the certified privacy loss distribution of the registry's
    `composition-pld` (docs/pld.md), an upper bound to its last digit, as `rdpdyn compare` reports
    it; within about 1e-4 of dp_accounting's PLDAccountant (pessimistic). adjacency: "add-remove"
    (default, as opacus and dp_accounting) or "replace" (one record replaced, gradients clipped:
    dp_accounting's REPLACE_ONE).

    method="rdp": opacus' and dp_accounting's RDP accountant (add/remove), the registry's
    `composition-sgm` with the improved conversion (Balle et al. 2020 Thm 21) minimised over
    `orders` (default_orders()); with return_order=True, (epsilon, order)."""
    _rdp_only(method, orders, return_order)
    if method == "pld":
        return _rdpdyn.dpsgd_pld_epsilon(float(sampling_rate), float(noise_multiplier), steps, float(delta),
                                         str(adjacency))
    if adjacency != "add-remove":
        raise ConfigError(f"'adjacency' = {adjacency!r}: method=\"rdp\" is opacus' add/remove accountant",
                          "adjacency", repr(adjacency), 'must be "add-remove" with method="rdp"')
    eps, order = _rdpdyn.dpsgd_epsilon(float(sampling_rate), float(noise_multiplier), steps, float(delta),
                                       None if orders is None else [float(a) for a in orders])
    return (eps, order) if return_order else eps


def dpsgd_delta(sampling_rate, noise_multiplier, steps, epsilon, adjacency="add-remove"):
    """delta of DP-SGD at `epsilon` (>= 0) from the certified privacy loss distribution
    (`composition-pld`, an upper bound), in the conventions of dpsgd_epsilon."""
    return _rdpdyn.dpsgd_pld_delta(float(sampling_rate), float(noise_multiplier), steps, float(epsilon),
                                   str(adjacency))


def dpsgd_noise_multiplier(sampling_rate, steps, epsilon, delta, orders=None, method="pld", adjacency="add-remove"):
    """The smallest noise multiplier for which dpsgd_epsilon(sampling_rate, it, steps, delta,
    method=method, ...) <= epsilon. method="pld" (default): `rdpdyn calibrate --for noise_multiplier
    --analysis composition-pld` (the smallest to about the accountant's accuracy, 1e-4 relative: its
    epsilon moves with the grid it refines); method="rdp": opacus' get_noise_multiplier over
    `orders`, to 1e-9 relative, without its 0.01 tolerance."""
    _rdp_only(method, orders, False)
    if method == "pld":
        z, _ = _rdpdyn.dpsgd_pld_noise_multiplier(float(sampling_rate), steps, float(epsilon), float(delta),
                                                  str(adjacency))
        return z
    if adjacency != "add-remove":
        raise ConfigError(f"'adjacency' = {adjacency!r}: method=\"rdp\" is opacus' add/remove accountant",
                          "adjacency", repr(adjacency), 'must be "add-remove" with method="rdp"')
    z, _, _ = _rdpdyn.dpsgd_noise_multiplier(float(sampling_rate), steps, float(epsilon), float(delta),
                                             None if orders is None else [float(a) for a in orders])
    return z


def analyses():
    """The registered analyses: name, citation, status, status_note, any_order (`rdpdyn analyses`)."""
    return json.loads(_rdpdyn.analyses_json())
