#!/usr/bin/env python3
"""Exact small-world adversary (issue 34, item 2): every entry of `rdpdyn compare` that claims to
bound a run is held at or above the exact privacy of concrete neighbouring datasets of that run,
computed here from the mechanism's definition (mixture_exact.py; no rdpdyn code is called,
imported or ported).

usage: adversary.py RDPDYN [--seed S] [--jobs J] [--only CELL] [--budget SECONDS]
                           [--timeout SECONDS] [--keep DIR] [--list]

The worlds. DP-SGD in one dimension with a linear loss: step t releases
    Y_t = sum_{i in B_t} g_i + N(0, (m C)^2),      C = 1 (the clip), m the noise multiplier,
every record's clipped gradient g_i in {-C, -C/2, 0, C/2, C} (below in half clips: -2..2).
rdpdyn's units say the same (docs/config.md, noise_multiplier; docs/analyses.md, "Replace versus
add-remove adjacency"): the noise is m C with C = S_g/2 under replace (the configuration gives
S_g = 2) and C = S_g under add-remove and zero-out (S_g = 1); theta moves by eta/b times Y_t for
both datasets alike (post-processing). The last iterate of a linear loss is theta_0 - (eta/b)
sum_t Y_t, equivalent to S = sum_t Y_t, whose law given the dataset is a finite Gaussian mixture
with noise variance T (m C)^2: its exact divergence is a floor for every entry (each bounds the
last iterate, or all iterates). Where the steps are independent (poisson, per-step) all iterates
released are the product of T one-step mixtures, whose Renyi divergence is T times one step's: a
floor for the composition entries (RELEASED), which bound all iterates released. (Their delta(eps)
for T >= 2 is not computed: their epsilon is held above the last-iterate floor only.)

Batch outcomes are enumerated exactly, with rational weights:
  full batch (noisy-gd)  S = T sum(D);
  poisson (rate q)       each record in Binomial(T, q) steps independently: S = sum_i g_i K_i; the
                         other records add an independent term common to both datasets, which can
                         only lower the divergence, so they are taken at gradient 0;
  per-step (b of n)      T independent uniform b-subsets;
  shuffle, shuffle-once  N = n/b batches an epoch (floor(n/b) with drop_last), T = E N + r steps:
                         S = E sum(D) + the sum of a uniform (r b)-subset; with drop_last each
                         epoch uses a uniform n'-subset, independent (shuffle) or the same one
                         with the r b first records nested in it (shuffle-once);
  partition              deterministic, the user's records in the batches used most.
Neighbours: replace (the user's gradients changed; with lipschitz_loss every |g| <= C, without it
only differences are bounded, by S_g = 2C, so gradients lie in a window of width 2C that need not
be centred on 0, which matters for Poisson batches of random size), zero-out (the user's records
become null records of gradient 0; the dataset keeps its size), add-remove (the user's records
added or removed: modelled for full batch and Poisson, the schemes whose entries accept it; for
fixed-size batches only that no bounding entry applies is checked). User level: all k records of
one user differ (records_per_user = k). Both directions of every pair are taken.

The search. Per cell (sampling x adjacency x k) three worlds (n <= 8, b or q, T <= 4, drop_last)
are drawn from the seed, at the multipliers 0.05, 0.5, 1, 2, and 0.005 in every full-batch cell,
one cell of each other scheme and issue 34's two cells (make_worlds, tiny_cells: rdpdyn takes
seconds there, and the test has 3 minutes); per-step zero-out also gets issue 34's own instance
(n = 100, b = 1, others at -C, the record at +C against the null record: eps(1e-5) = 2.3989 at
m = 1). Candidates per (world, multiplier): structured extremes (others all at -C, +C, 0, -C/2,
or half at -C, the user at +C against -C or 0) and a seeded random sample, the others as a
multiset (only the multiset matters); a cheap screening of each candidate's privacy profile
(mixture_exact.ScreeningProfile) picks the top ones, which get the exact floors:
  eps(1e-5), delta at eps0 (the top candidate's screened eps at 1e-3, to 3 digits) and R_alpha at
  the orders 1.5, 3, 8, 32, each the larger of the two directions and rounded DOWN, with how far
  below the exact value it may be (mixture_exact.py states how).

The check. The same run as a TOML configuration (loss = "linear", eta = 0.1, S_g, and [lsi]
recursion with lambda = 0, beta = 1 (true of a linear loss), or for the second full-batch world
the iterates' exact LSI constant, so that the analyses needing one apply too), given to
`RDPDYN compare CONFIG --json` once per (world, multiplier). Every entry that applies and bounds
the run (status published, derived, disputed or exact: bounds_the_run in analyses/analysis.hpp)
must have epsilon >= the eps floor, delta_at_epsilon >= the delta floor at eps0 and R >= the
floor at every order (the composition entries also >= the all-iterates floor); so must `best`.
Heuristic, lower-bound, record-specific and released-lower-bound entries are not upper bounds and
are not checked. A compare that fails (exit code != 0) or gives no answer within --timeout is an
error (a run must finish or be refused, issue 34).

Output: the coverage table (entry x cell: units, exact instances, the worst ratio entry / floor,
which check and where), then every violation with its instance and configuration, every error;
exit 1 if there is any. Units not started within --budget seconds are skipped and counted (NOTE).
The exact code's own checks: python3 mixture_exact.py (ctest soundness:mixture_exact).
Bounding entries that never apply to these small worlds: those needing strong convexity (lambda >
0), which a linear loss lacks (chourasia-cor1, ye-shokri-thm4.2, ye-shokri-d5-last-batch,
ye-shokri-d6, pabi-strongly-convex, bok-su-altschuler-*, noisysgd-window), a projection diameter
(altschuler-talwar-*, pabi-bounded-domain, liang-2025-thm3.4, kong-ribero-2024) or a Langevin run
(ganesh-lemma-*). They are checked on the full-size one-dimensional worlds of hidden_state.py
(quadratic, projected and Langevin; its docstring says how their floors are certified), whose
cells are named quadratic:..., projected:... and langevin:... in the same coverage table. The
squared and quadratic loss entries (chourasia-cor2, chourasia-thm3-exact, exact) are the
soundness campaign's (campaign.py).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from multiprocessing import Pool

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hidden_state as hs  # noqa: E402
import mixture_exact as mx  # noqa: E402

ORDERS = [1.5, 3.0, 8.0, 32.0]
DELTA = 1e-5
DELTA_LARGE = 1e-3
MULTIPLIERS = [0.005, 0.05, 0.5, 1.0, 2.0]
SAMPLINGS = ["full", "poisson", "per-step", "shuffle", "shuffle-once", "partition"]
ADJACENCIES = ["replace", "replace-lip", "add-remove", "zero-out"]
USERS = [1, 2, 3]
VALUES = (-2, -1, 0, 1, 2)   # clipped gradients in half clips
BOUNDING = {"published", "derived", "disputed", "exact"}
# entries that bound every iterate released (composition of per-step mechanisms)
RELEASED = {"composition-gaussian", "composition-sgm", "composition-pld", "gdp-composition", "ganesh-group-pld"}
EXACT_PER_UNIT = 2           # candidates given the exact floors per (world, multiplier)
ETA = 0.1                    # the step size given to rdpdyn (the floors do not depend on it)
EPS_REL_TOL = 1e-9           # the eps floors are within this (relative to 1 + eps) of the exact value


# ---------------------------------------------------------------------------------------------
# cells, worlds, instances


@dataclass(frozen=True)
class Cell:
    sampling: str
    adjacency: str   # replace, replace-lip, add-remove, zero-out
    k: int

    @property
    def name(self):
        return f"{self.sampling}/{self.adjacency}/k{self.k}"

    @property
    def modelled(self):
        # fixed-size batches under add-remove change n and refill slots: rdpdyn's bounding
        # entries refuse them (docs/analyses.md), and no model is made here
        return not (self.adjacency == "add-remove" and self.sampling not in ("full", "poisson"))


@dataclass
class World:
    cell: Cell
    n: int
    T: int
    b: int = None            # batch size (fixed-size schemes)
    q: Fraction = None       # Poisson rate
    drop_last: bool = False
    multipliers: tuple = ()
    lsi: str = "recursion"   # or "constant": the iterates' exact LSI constant (see config_text)
    tag: str = ""
    fixed_instances: list = field(default_factory=list)

    def describe(self):
        s = f"n={self.n} T={self.T}"
        if self.b is not None:
            s += f" b={self.b}"
        if self.q is not None:
            s += f" q={float(self.q):g}"
        if self.drop_last:
            s += " drop_last"
        if self.lsi != "recursion":
            s += f" lsi={self.lsi}"
        return s + (f" [{self.tag}]" if self.tag else "")


@dataclass(frozen=True)
class Instance:
    others: tuple    # the other records' gradients (half clips), sorted
    x: tuple         # the user's records in D
    xp: tuple        # the user's records in D' (None: D' lacks them, add-remove)
    label: str = ""

    def describe(self):
        def g(v):
            return "[" + ",".join(f"{u / 2:g}" for u in v) + "]"
        d2 = "absent" if self.xp is None else g(self.xp)
        o = Counter(self.others)
        others = ", ".join(f"{c}x{v / 2:g}" for v, c in sorted(o.items())) or "none"
        return f"user {g(self.x)} vs {d2}, others ({others}) in C" + (f" [{self.label}]" if self.label else "")


def make_worlds(cell, rng, tiny):
    """Three worlds for the cell: the first with T = 4 at multiplier 0.05 and a large one, the
    others random at one large multiplier each (0.5, 1, 2 over the three), and 0.005 on the
    second if `tiny` (rdpdyn's accountants take seconds there: every full-batch cell, one cell
    of each other scheme drawn from the seed, and issue 34's two cells). Full batch, being
    cheap, takes all five multipliers on every world."""
    worlds = []
    k = cell.k
    large = [0.5, 1.0, 2.0]
    shift = int(rng.integers(3))
    large = large[shift:] + large[:shift]
    if cell.sampling == "full":
        mults = [tuple(MULTIPLIERS)] * 2
    else:
        mults = [(0.05, large[0]), ((0.005,) if tiny else ()) + (large[1],), (large[2],)]
    for i, ms in enumerate(mults):
        T = 4 if i == 0 else int(rng.integers(1, 5))
        s = cell.sampling
        if s == "full":
            w = World(cell, n=int(rng.integers(k, 9)), T=T)
        elif s == "poisson":
            q = [Fraction(1, 100), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1)][
                int(rng.integers(6))] if i else Fraction(1, 4)
            w = World(cell, n=8, T=T, q=q)
        elif s == "per-step":
            # rdpdyn takes b dividing n here too
            n = int(rng.integers(max(k + 1, 2), 9))
            sizes = [b for b in range(1, n) if n % b == 0]
            w = World(cell, n=n, T=T, b=sizes[int(rng.integers(len(sizes)))])
        else:
            # b divides n with at least two batches, or drop_last with b <= n/2 not dividing n
            n = int(rng.integers(max(k + 1, 4), 9))
            sizes = [b for b in range(1, n // 2 + 1)]
            b = sizes[int(rng.integers(len(sizes)))]
            w = World(cell, n=n, T=T, b=b, drop_last=(n % b != 0))
        w.multipliers = ms
        if s == "full" and i == 1:
            w.lsi = "constant"   # full batch, linear loss: the iterates are Gaussian, c is known
        worlds.append(w)
    # issue 34's pair: zero-out, b of n drawn afresh, others at -C, the record at +C against the
    # null record; q = b/n = 0.01, m = 1: exact eps(1e-5) = 2.3989
    if cell == Cell("per-step", "zero-out", 1):
        w = World(cell, n=100, T=1, b=1, multipliers=(1.0,), tag="issue 34")
        w.fixed_instances = [Instance(tuple([-2] * 99), (2,), (0,), "issue 34")]
        worlds.insert(0, w)
    return worlds


def _pairs(cell, rng, count):
    """The user's values in D and D' (k each): extremes first, then a random sample."""
    k, adj = cell.k, cell.adjacency
    if adj == "zero-out":
        out = [((2,) * k, (0,) * k), ((1,) * k, (0,) * k)]
        while len(out) < count:
            out.append((tuple(int(v) for v in rng.choice([-2, -1, 1, 2], k)), (0,) * k))
    elif adj == "add-remove":
        out = [((2,) * k, None), ((1,) * k, None)]
        while len(out) < count:
            out.append((tuple(int(v) for v in rng.choice([-2, -1, 1, 2], k)), None))
    else:
        out = [((2,) * k, (-2,) * k), ((2,) * k, (0,) * k)]
        if adj == "replace" and cell.sampling == "poisson":
            # gradients in a window [a - 2, a + 2] that need not hold 0 symmetrically: with the
            # others at 0, the window [0, 4] (S_g = 2C bounds differences only)
            out.insert(0, ((4,) * k, (0,) * k))
        while len(out) < count:
            # under replace without lipschitz_loss, Poisson batches: a window [a - 2, a + 2]
            a = int(rng.integers(-2, 3)) if adj == "replace" and cell.sampling == "poisson" else 0
            x = tuple(int(v) + a for v in rng.choice(VALUES, k))
            xp = tuple(int(v) + a for v in rng.choice(VALUES, k))
            if x != xp:
                out.append((x, xp))
    return out


def _others_sets(n_others, rng, count):
    """Multisets of the other records' gradients: constant ones, two-valued ones, random."""
    if n_others == 0:
        return [()]
    half = n_others // 2
    out = [(-2,) * n_others, (2,) * n_others, (0,) * n_others, (-1,) * n_others,
           (-2,) * half + (2,) * (n_others - half), (-2,) * half + (0,) * (n_others - half)]
    while len(out) < count:
        out.append(tuple(sorted(int(v) for v in rng.choice(VALUES, n_others))))
    return list(dict.fromkeys(tuple(sorted(o)) for o in out))


def make_instances(world, rng):
    cell = world.cell
    if world.fixed_instances:
        return list(world.fixed_instances)
    if cell.sampling in ("poisson", "full", "partition"):
        # the others do not matter (poisson: set to 0, see the docstring; full batch and
        # partition: the sum of the others is the same constant in both datasets)
        n_others = 0 if cell.sampling == "poisson" else world.n - cell.k
        others = (0,) * n_others
        return [Instance(others, x, xp) for x, xp in _pairs(cell, rng, 6)]
    pairs = _pairs(cell, rng, 4)
    sets = _others_sets(world.n - cell.k, rng, 9)
    out = [Instance(o, x, xp) for o in sets[:6] for x, xp in pairs[:2]]
    out += [Instance(o, x, xp) for o in sets[6:] for x, xp in pairs[2:]]
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------------------------------------
# exact laws of the sum of the released values (and of one step), in half clips


def convolve(a, b):
    out = defaultdict(Fraction)
    for s, p in a.items():
        for t, r in b.items():
            out[s + t] += p * r
    return dict(out)


def convolve_power(a, times):
    out = {0: Fraction(1)}
    for _ in range(times):
        out = convolve(out, a)
    return out


def scaled(law, c):
    out = defaultdict(Fraction)
    for s, p in law.items():
        out[c * s] += p
    return dict(out)


def subset_sum_law(values, size):
    """Law of the sum of a uniformly random size-subset of the records (a multiset): a count of
    subsets by sum, value class by value class."""
    ways = {(0, 0): 1}
    for v, c in Counter(values).items():
        nxt = defaultdict(int)
        for (cnt, s), w in ways.items():
            for j in range(0, min(c, size - cnt) + 1):
                nxt[(cnt + j, s + j * v)] += w * comb(c, j)
        ways = nxt
    total = comb(len(values), size)
    return {s: Fraction(w, total) for (cnt, s), w in ways.items() if cnt == size}


def nested_sum_law(values, inner, outer, w_inner, w_outer):
    """Law of w_inner sum(A) + w_outer sum(B minus A) over the uniform nested pairs A in B of sizes
    inner <= outer (the first inner and first outer records of one random permutation)."""
    ways = {(0, 0, 0): 1}
    for v, c in Counter(values).items():
        nxt = defaultdict(int)
        for (ca, cb, s), w in ways.items():
            for j in range(0, min(c, inner - ca) + 1):
                for l in range(0, min(c - j, outer - inner - cb) + 1):
                    nxt[(ca + j, cb + l, s + (w_inner * j + w_outer * l) * v)] += w * comb(c, j) * comb(c - j, l)
        ways = nxt
    total = comb(len(values), inner) * comb(len(values) - inner, outer - inner)
    return {s: Fraction(w, total) for (ca, cb, s), w in ways.items() if ca == inner and cb == outer - inner}


def binomial_law(T, q):
    return {j: comb(T, j) * q ** j * (1 - q) ** (T - j) for j in range(T + 1)}


def poisson_laws(user, T, q):
    """(sum law, one-step law) of the user's records each in a batch with probability q."""
    total, step = {0: Fraction(1)}, {0: Fraction(1)}
    for v in user:
        total = convolve(total, scaled(binomial_law(T, q), v))
        step = convolve(step, {0: 1 - q, v: q} if v else {0: Fraction(1)})
    return total, step


def partition_uses(world):
    """How often each batch position is used in T steps, largest first."""
    N = world.n // world.b
    E, r = divmod(world.T, N)
    return sorted([E + (1 if p < r else 0) for p in range(N)], reverse=True)


def dataset_laws(world, records):
    """(sum law, one-step law or None) of one dataset (all its records, half clips)."""
    s, T = world.cell.sampling, world.T
    if s == "full":
        return {T * sum(records): Fraction(1)}, {sum(records): Fraction(1)}
    if s == "per-step":
        step = subset_sum_law(records, world.b)
        return convolve_power(step, T), step
    N = world.n // world.b
    n_used = N * world.b
    E, r = divmod(T, N)
    if s == "shuffle":
        epoch = subset_sum_law(records, n_used) if world.drop_last else {sum(records): Fraction(1)}
        return convolve(convolve_power(epoch, E), subset_sum_law(records, r * world.b)), None
    if s == "shuffle-once":
        return nested_sum_law(records, r * world.b, n_used, E + 1, E), None
    raise ValueError(s)


def instance_laws(world, inst):
    """(law of S for D, for D', one-step law for D, for D') of an instance; None where the steps
    are not independent (the one-step laws are for the all-iterates floor)."""
    cell = world.cell
    if cell.sampling == "poisson":
        lp, sp = poisson_laws(inst.x, world.T, world.q)
        lq, sq = poisson_laws(inst.xp or (), world.T, world.q)
        return lp, lq, sp, sq
    if cell.sampling == "partition":
        # the user's records in the batches used most (at most b a batch); the rest cancels
        uses = [u for u in partition_uses(world) for _ in range(world.b)][:cell.k]
        shift = sum(u * (a - (b or 0)) for u, a, b in zip(uses, inst.x, inst.xp or (0,) * cell.k))
        return {shift: Fraction(1)}, {0: Fraction(1)}, None, None
    d1 = inst.others + inst.x
    d2 = inst.others + (inst.xp if inst.xp is not None else ())
    lp, sp = dataset_laws(world, d1)
    lq, sq = dataset_laws(world, d2)
    if cell.sampling == "full":
        return lp, lq, None, None   # the all-iterates floor equals the last iterate's here
    return lp, lq, sp, sq


def lattice_pair(law_p, law_q, m, T):
    """Sum laws in half clips as mixtures in noise standard deviations: S has noise 2 m sqrt(T)."""
    return mx.LatticePair.from_laws(law_p, law_q, 1.0 / (2.0 * m * math.sqrt(T)))


# ---------------------------------------------------------------------------------------------
# floors of one (world, multiplier)


def floors_of(world, m, instances):
    """Screen the candidates, compute the exact floors of the top ones; return the floors (the
    largest over the instances computed, each with the instance attaining it)."""
    laws = [instance_laws(world, inst) for inst in instances]
    screened = []
    for inst, (lp, lq, _, _) in zip(instances, laws):
        pair = lattice_pair(lp, lq, m, world.T)
        a, b = mx.ScreeningProfile(pair), mx.ScreeningProfile(pair.reversed())
        screened.append((max(a.epsilon(DELTA), b.epsilon(DELTA)), max(a.epsilon(DELTA_LARGE), b.epsilon(DELTA_LARGE))))
    by_eps = sorted(range(len(instances)), key=lambda i: -screened[i][0])
    by_large = sorted(range(len(instances)), key=lambda i: -screened[i][1])
    chosen = list(dict.fromkeys(by_eps[:EXACT_PER_UNIT] + by_large[:1]))
    eps0 = float(f"{max(screened[by_large[0]][1], 1e-3):.3g}")
    # each floor: (value, instance, how far below the exact value it may be)
    fl = {"eps": (0.0, None, 0.0), "delta": (0.0, None, 0.0), "eps0": eps0,
          "R": [(0.0, None, 0.0)] * len(ORDERS), "R_released": None, "instances": len(chosen),
          "candidates": len(instances)}
    if laws[0][2] is not None:
        fl["R_released"] = [(0.0, None, 0.0)] * len(ORDERS)
    for i in chosen:
        inst = instances[i]
        lp, lq, sp, sq = laws[i]
        pair = lattice_pair(lp, lq, m, world.T)
        e = mx.epsilon_floor_both(pair, DELTA, guess=screened[i][0])
        if e > fl["eps"][0]:
            fl["eps"] = (e, inst, EPS_REL_TOL * (1 + e))
        d, derr = mx.delta_floor(pair, eps0, with_error=True)
        if d > fl["delta"][0]:
            fl["delta"] = (d, inst, derr)
        for j, a in enumerate(ORDERS):
            r, rerr = mx.renyi_floor_both(pair, a, with_error=True)
            if r > fl["R"][j][0]:
                fl["R"][j] = (r, inst, rerr)
        if sp is not None and fl["R_released"] is not None:
            step = lattice_pair(sp, sq, m, 1)
            for j, a in enumerate(ORDERS):
                r, rerr = mx.renyi_floor_both(step, a, with_error=True)
                if world.T * r > fl["R_released"][j][0]:
                    fl["R_released"][j] = (world.T * r, inst, world.T * rerr)
    return fl


# ---------------------------------------------------------------------------------------------
# the configuration rdpdyn sees, and its verdict


def config_text(world, m, eps0):
    cell = world.cell
    adjacency = "replace" if cell.adjacency == "replace-lip" else cell.adjacency
    sg = 2.0 if adjacency == "replace" else 1.0   # S_g = 2C under replace, C otherwise (C = 1)
    lines = ["[orders]", "values = [" + ", ".join(repr(a) for a in ORDERS) + "]", "", "[algorithm]"]
    if cell.sampling == "full":
        lines.append('kind = "noisy-gd"')
    else:
        lines += ['kind = "noisy-sgd"', f'sampling = "{cell.sampling}"']
        if cell.sampling == "poisson":
            lines.append(f"sampling_rate = {float(world.q)!r}")
        else:
            lines.append(f"batch_size = {world.b}")
        if world.drop_last:
            lines.append("drop_last = true")
    lines += [f"n = {world.n}", f"steps = {world.T}", f"noise_multiplier = {m!r}",
              'loss = "linear"', f"eta = {ETA!r}", f"sensitivity = {sg!r}", "", "[lsi]"]
    if world.lsi == "constant":
        # full batch and a linear loss from a point start: theta_k is Gaussian with variance
        # k (eta m C / n)^2 (C = 1), so 1 / (T (eta m / n)^2) is an LSI constant of every iterate
        # (C21 Def. 3.2: N(0, s^2) is 1/s^2-LSI) and of the point start
        lines += ['kind = "constant"', f"c = {1.0 / (world.T * (ETA * m / world.n) ** 2)!r}", ""]
    else:
        # a linear loss is convex and beta-smooth for every beta (its Hessian is 0)
        lines += ['kind = "recursion"', "lambda = 0", "beta = 1", ""]
    lines += ["[domain]", f'adjacency = "{adjacency}"', f"records_per_user = {cell.k}",
              f"lipschitz_loss = {'true' if cell.adjacency == 'replace-lip' else 'false'}", "",
              "[report]", f"delta = {DELTA!r}", f"epsilon = {eps0!r}", ""]
    return "\n".join(lines)


def run_compare(rdpdyn, text, timeout, keep):
    fd, path = tempfile.mkstemp(suffix=".toml", prefix="adversary-", dir=keep)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    try:
        r = subprocess.run([rdpdyn, "compare", path, "--json", "--quiet"], capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"no answer within {timeout:g} s"
    except OSError as e:
        return None, f"could not run: {e}"
    finally:
        if keep is None:
            os.unlink(path)
    if r.returncode != 0:
        return None, f"exit code {r.returncode}: {r.stderr.strip()[:300]}"
    return json.loads(r.stdout), None


def checks_of(name, entry, fl):
    """(metric, rdpdyn's value, floor) for every check of one entry or of best; a floor is
    (value, instance, how far below the exact value it may be)."""
    out = []
    if entry.get("epsilon") is not None:
        out.append(("eps@1e-5", entry["epsilon"], fl["eps"]))
    if entry.get("delta_at_epsilon") is not None:
        out.append((f"delta@eps0={fl['eps0']:g}", entry["delta_at_epsilon"], fl["delta"]))
    R = entry.get("R") or []
    for j, a in enumerate(ORDERS):
        if j < len(R):
            v = math.inf if R[j] is None else R[j]   # null is +inf in rdpdyn's JSON
            out.append((f"R({a:g})", v, fl["R"][j]))
            if name in RELEASED and fl["R_released"] is not None:
                out.append((f"R({a:g}) all iterates", v, fl["R_released"][j]))
    return out


def unit(args):
    """One (world, multiplier): floors, compare, checks. Returns a record for the parent."""
    rdpdyn, world, m, instances, timeout, keep, deadline = args
    if isinstance(world, hs.HWorld):
        return hidden_unit(args)
    rec = {"cell": world.cell.name, "world": world.describe(), "m": m, "checks": [], "error": None,
           "skipped": False, "unchecked": [], "t_floor": 0.0, "t_compare": 0.0}
    if time.time() > deadline:
        rec["skipped"] = True
        return rec
    t0 = time.time()
    fl, eps0 = None, 1.0
    if world.cell.modelled:
        try:
            fl = floors_of(world, m, instances)
        except (ArithmeticError, ValueError) as e:   # a defect of this test, reported as such
            rec["error"] = f"(the adversary's exact code, not rdpdyn) {type(e).__name__}: {e}"
            rec["config"] = config_text(world, m, eps0)
            return rec
        eps0 = fl["eps0"]
    rec["t_floor"] = time.time() - t0
    summary = None if fl is None else {
        "eps": fl["eps"][0], "delta": fl["delta"][0], "eps0": eps0, "R": [r[0] for r in fl["R"]],
        "instances": fl["instances"], "candidates": fl["candidates"]}
    return compare_and_check(rec, rdpdyn, config_text(world, m, eps0), timeout, keep, fl, summary)


def compare_and_check(rec, rdpdyn, text, timeout, keep, fl, summary):
    """Runs compare on the configuration and records every check of an entry that bounds the run
    (and of best) against the floors fl; without floors (fl None), which entries went unchecked."""
    rec["config"] = text
    t0 = time.time()
    out, err = run_compare(rdpdyn, text, timeout, keep)
    rec["t_compare"] = time.time() - t0
    if err:
        rec["error"] = err
        return rec
    rec["floors"] = summary
    for a in out["analyses"]:
        if not a["applies"] or a["status"] not in BOUNDING:
            continue
        if fl is None:
            rec["unchecked"].append(a["name"])
            continue
        for metric, value, (floor, inst, err) in checks_of(a["name"], a, fl):
            rec["checks"].append((a["name"], metric, value, floor, err, inst.describe() if inst else ""))
    best = out.get("best") or {}
    if fl is not None and best.get("name"):
        for metric, value, (floor, inst, err) in checks_of("best", best, fl):
            rec["checks"].append(("best", metric, value, floor, err, inst.describe() if inst else ""))
    return rec


class _Label:
    def __init__(self, text):
        self.text = text

    def describe(self):
        return self.text


def hidden_unit(args):
    """One full-size world (hidden_state.py) at one multiplier: floors, compare, checks."""
    rdpdyn, world, m, _, timeout, keep, deadline = args
    rec = {"cell": world.cell, "world": world.describe(), "m": math.nan if m is None else m, "checks": [],
           "error": None, "skipped": False, "unchecked": [], "t_floor": 0.0, "t_compare": 0.0}
    if time.time() > deadline:
        rec["skipped"] = True
        return rec
    t0 = time.time()
    why = hs.prepare(world, m)
    rec["world"] = world.describe()
    try:
        if why:
            raise ValueError(why)
        f = hs.world_floors(world, m, DELTA, ORDERS)
    except (ArithmeticError, ValueError) as e:
        rec["error"] = f"(the adversary's exact code, not rdpdyn) {type(e).__name__}: {e}"
        rec["config"] = hs.config_text(world, m, 1.0, ORDERS, DELTA)
        return rec
    rec["t_floor"] = time.time() - t0
    # (value, instance, how far below the exact value it may be: not bounded for the binned floors,
    # which can be far below where the laws' tails matter; hidden_state.py says where)
    far = math.inf
    fl = {"eps": (f["eps"][0], _Label(f["eps"][1]), far), "delta": (f["delta"][0], _Label(f["delta"][1]), far),
          "eps0": f["eps0"], "R": [(r, _Label(lab), far) for r, lab in f["R"]], "R_released": None}
    summary = {"eps": fl["eps"][0], "delta": fl["delta"][0], "eps0": fl["eps0"], "R": [r[0] for r in fl["R"]],
               "instances": f["instances"], "candidates": f["instances"]}
    return compare_and_check(rec, rdpdyn, hs.config_text(world, m, f["eps0"], ORDERS, DELTA), timeout, keep, fl,
                             summary)


# ---------------------------------------------------------------------------------------------
# the report


def all_cells():
    return [Cell(s, a, k) for s in SAMPLINGS for a in ADJACENCIES for k in USERS]


def tiny_cells(seed):
    """The cells that also run at multiplier 0.005 (see make_worlds)."""
    rng = np.random.default_rng([seed, 1000])
    chosen = {Cell("per-step", "zero-out", 1), Cell("poisson", "add-remove", 1)}
    for s in SAMPLINGS:
        cells = [c for c in all_cells() if c.sampling == s and c.modelled]
        if s == "full":
            chosen.update(cells)
        else:
            chosen.add(cells[int(rng.integers(len(cells)))])
    return chosen


def plan(seed, only):
    units = []
    tiny = tiny_cells(seed)
    for world in hs.worlds():
        if not only or only == world.cell:
            units += [(world, m, []) for m in world.multipliers]
    for ci, cell in enumerate(all_cells()):
        if only and cell.name != only:
            continue
        rng = np.random.default_rng([seed, ci])
        if cell.modelled:
            worlds = make_worlds(cell, rng, cell in tiny)
        else:
            worlds = [World(cell, n=8, T=2, b=2, multipliers=(1.0,))]   # only: does anything apply?
        for world in worlds:
            instances = make_instances(world, rng) if cell.modelled else []
            for m in world.multipliers:
                units.append((world, m, instances))
    return units


def priority(units, i):
    """Order of the units: should the budget run out, what is skipped is the least informative.
    First one unit of every cell at a large multiplier and issue 34's instance, then the far
    shifts (0.005), then 0.05, then the rest; within each, the costlier first (rdpdyn is slowest
    at small multipliers), so that the processes finish together."""
    world, m, _ = units[i]
    if isinstance(world, hs.HWorld):
        return 0, -5, i    # few, and the only units of their cells
    first = [j for j, u in enumerate(units) if u[0].cell == world.cell and u[1] > 0.1]
    if world.tag or (first and first[0] == i):
        rank = 0
    else:
        rank = 1 if m < 0.01 else 2 if m < 0.1 else 3
    cost = 10 if m < 0.01 else 3 if m < 0.1 else 1
    return rank, -cost, i


def sanity():
    """The exact code on two known values before anything else (full tests: mixture_exact.py)."""
    q = Fraction(1, 100)
    e = mx.epsilon_floor_both(mx.LatticePair.from_laws({0: 1 - q, 2: q}, {0: 1 - q, 1: q}, 1.0), 1e-5)
    g = mx.renyi_floor_both(mx.LatticePair(300.0, [0, 1], [-math.inf, 0.0], [0.0, -math.inf]), 2.0)
    if not (2.3988 < e <= 2.39892 and 89999.0 < g <= 90000.0):
        raise SystemExit(f"adversary: the exact code is off: eps {e} (2.3989), R {g} (90000)")
    # the binned floors of the full-size worlds on N(1.5, 1) against N(0, 1): R_2 = 2.25 and
    # delta(1) = Phi(-1/1.5 + 0.75) - e Phi(-1/1.5 - 0.75) = 0.32039191 (closed forms, Gaussian DP)
    one = hs.Mixture(np.ones(1), np.full(1, 1.5), np.ones(1))
    zero = hs.Mixture(np.ones(1), np.zeros(1), np.ones(1))
    f = hs.floors(one, zero, 0.0, 1e-5, 1.0, [2.0])
    exact_delta = mx.special.ndtr(-1 / 1.5 + 0.75) - math.e * mx.special.ndtr(-1 / 1.5 - 0.75)
    if not (2.25 * (1 - 1e-3) < f["R"][0] <= 2.25 and exact_delta * (1 - 1e-3) < f["delta"] <= exact_delta):
        raise SystemExit(f"adversary: the binned floors are off: R {f['R'][0]} (2.25), delta {f['delta']} ({exact_delta})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdpdyn")
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="one cell, e.g. per-step/zero-out/k1 (see --list)")
    ap.add_argument("--budget", type=float, default=170.0, help="seconds; later units are skipped")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per compare")
    ap.add_argument("--keep", help="directory to keep the configurations in")
    ap.add_argument("--list", action="store_true", help="list the cells and exit")
    args = ap.parse_args()
    if args.list:
        for c in all_cells():
            print(c.name + ("" if c.modelled else "   (no model: checks that no bounding entry applies)"))
        for name in dict.fromkeys(w.cell for w in hs.worlds()):
            print(name + "   (full-size world, hidden_state.py)")
        return 0
    if args.only and args.only not in {c.name for c in all_cells()} | {w.cell for w in hs.worlds()}:
        ap.error(f"--only {args.only}: not a cell (see --list)")
    t_start = time.time()
    args.rdpdyn = os.path.abspath(args.rdpdyn)
    sanity()
    units = plan(args.seed, args.only)
    deadline = t_start + args.budget
    order = sorted(range(len(units)), key=lambda i: priority(units, i))
    tasks = [(args.rdpdyn, units[i][0], units[i][1], units[i][2], args.timeout, args.keep, deadline) for i in order]
    with Pool(args.jobs) as pool:
        records = list(pool.imap_unordered(unit, tasks, chunksize=1))
    return report(records, time.time() - t_start, args)


def report(records, elapsed, args):
    cov = {}         # (entry, cell) -> [units, instances, worst ratio, metric, where]
    violations = defaultdict(list)   # (cell, world, m) -> [(entry, metric, value, floor, err, instance)]
    configs, errors, unchecked, uncovered = {}, [], defaultdict(set), set()
    skipped = sum(r["skipped"] for r in records)
    instances = 0
    for r in records:
        if r["skipped"]:
            continue
        if r["error"]:
            errors.append(r)
            continue
        n_inst = r["floors"]["instances"] if r.get("floors") else 0
        instances += n_inst
        for name in r["unchecked"]:
            unchecked[r["cell"]].add(name)
        if not r["checks"] and not r["unchecked"]:
            uncovered.add(r["cell"])
        for entry in dict.fromkeys(c[0] for c in r["checks"]):
            c = cov.setdefault((entry, r["cell"]), [0, 0, math.inf, "", ""])
            c[0] += 1
            c[1] += n_inst
        for entry, metric, value, floor, err, inst in r["checks"]:
            c = cov[(entry, r["cell"])]
            if floor > 0 and value / floor < c[2]:
                c[2:] = [value / floor, metric, f"{r['world']} m={r['m']:g}"]
            if value < floor:
                key = (r["cell"], r["world"], r["m"])
                violations[key].append((entry, metric, value, floor, err, inst))
                configs[key] = r["config"]
    covered_cells = {cell for _, cell in cov}
    print(f"exact small-world adversary: seed {args.seed}, {len(records)} (world, multiplier) units, "
          f"{instances} exact instances, {elapsed:.1f} s with {args.jobs} processes "
          f"({sum(r['t_floor'] for r in records):.1f} s of floors, "
          f"{sum(r['t_compare'] for r in records):.1f} s of compare, summed over the processes)")
    if skipped:
        print(f"NOTE: {skipped} units skipped: the time budget of {args.budget:g} s ran out")
    print()
    print("coverage: every (entry, cell) checked: units = (world, multiplier) compared, inst = exact instances")
    print("behind them; worst ratio = the smallest entry / exact floor over every check (eps at 1e-5, delta")
    print("at eps0, R at each order, R of all iterates for composition entries), with the check and world")
    print(f"{'entry':<28} {'cell':<28} {'units':>5} {'inst':>5} {'worst ratio':>11}  check, world")
    for (entry, cell), (n, ni, ratio, metric, where) in sorted(cov.items(), key=lambda kv: (kv[0][0] == "best", kv[0])):
        rs = "-" if ratio == math.inf else f"{ratio:.4g}"
        print(f"{entry:<28} {cell:<28} {n:>5} {ni:>5} {rs:>11}  {metric}, {where}")
    for cell in sorted(uncovered - covered_cells):
        print(f"no entry that bounds the run applies in {cell}")
    for cell, names in sorted(unchecked.items()):
        print(f"UNCHECKED (no model of the cell): {cell}: {', '.join(sorted(names))} apply")
    print()
    n_viol = 0
    for (cell, world, m), items in violations.items():
        print(f"VIOLATION in {cell}, {world}, noise_multiplier {m:g}:")
        for entry, metric, value, floor, err, inst in items:
            n_viol += 1
            print(f"  {entry}: {metric} = {value:.8g} < exact floor {floor:.8g} (the floor is at most "
                  f"{err:.1e} below the exact value)\n    instance: {inst}")
        print("  configuration:\n    " + configs[(cell, world, m)].strip().replace("\n", "\n    "))
    for r in errors:
        what = r["error"] if r["error"].startswith("(the adversary") else "compare " + r["error"]
        print(f"ERROR {r['cell']}, {r['world']}, noise_multiplier {r['m']:g}: {what}")
        print("  configuration:\n    " + r["config"].strip().replace("\n", "\n    "))
    print(f"{n_viol} violation(s) in {len(violations)} (world, multiplier) units, {len(errors)} error(s)")
    return 1 if violations or errors else 0


if __name__ == "__main__":
    sys.exit(main())
