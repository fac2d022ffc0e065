"""Full-size one-dimensional worlds for the entries the small worlds of adversary.py cannot reach
(issue 34, item 2: "entries that need a larger world get the one-dimensional linear and
quadratic instances at full size"): strongly convex losses (the hidden-state entries), projection
onto a bounded domain, and the Langevin diffusion. No rdpdyn code is called, imported or ported.

The worlds. Every record's loss is one-dimensional; the others sit at x = 0, the differing
record at x in D and x' in D' (replace adjacency, S_g = 2, C = 1; docs/config.md's units):
  quadratic  l(theta; x) = lam/2 (theta - x)^2: lam-strongly convex and lam-smooth, gradient
             differences lam |x - x'| <= S_g (so |x - x'| <= 2/lam). A fixed-size batch B gives
             theta' = a theta + c x [record in B] + N(0, s^2), a = 1 - eta lam, c = eta lam / b,
             s = eta m C / b (noise_multiplier m, docs/config.md); Poisson batches divide by
             b = q n, so a = 1 - eta lam |B| / (q n) depends on the batch size. The last iterate
             is a Gaussian mixture over the inclusion pattern (and the batch sizes), enumerated
             exactly: full batch one component, partition one per placement, shuffle-once N (the
             record's place), shuffle N^E, per-step 2^T, Poisson (2 n)^T before the cut below.
             [lsi] recursion with lambda = beta = lam from a point start, or strongly-convex from
             the start N(0, 2 sigma^2 / lam) that kind declares (C21 Lemma 5; sigma = C21's).
  projected  the linear loss l = -x theta (gradient -x, |x| <= C) or the quadratic one, projected
             onto K = [-D/2, D/2] at every step ([domain] diameter D, lipschitz_loss where every
             gradient on K is at most C). The projected laws are not mixtures; D is taken so wide
             that, with the unprojected process coupled to it, the projection acts with
             probability p <= 1e-15 (a union bound over the steps of Gaussian tails with the
             largest drift and variance), so each bin's mass moves by at most p (below).
  langevin   d theta = -lam (theta - xbar) dt + sqrt(2) sigma dW (docs/config.md, kind = "langevin",
             (1/n) g = lam (theta - xbar) for the quadratic loss) from the start N(0, sigma^2/lam)
             that [lsi] strongly-convex declares: at time T the laws are N(xbar (1 - e^-lam T),
             sigma^2 / lam) (Ornstein-Uhlenbeck), xbar differing by S_g / (lam n).

The floors (binned_floors): any partition of the line into bins is a post-processing, so the
binned pair's hockey-stick and Renyi divergences are at or below the exact ones (data processing;
van Erven & Harremoes 2014, arXiv:1206.2459, Thm 9). Each bin's mass is a sum of closed-form
normal-CDF differences (taken on the side of the smaller tail, so nothing cancels), given with a
bound on its rounding (1e-13 relative per term, as mixture_exact.py assumes and measures, plus
1e-300 for an underflow); P's bin masses are taken at their lower ends and Q's at their upper
ends, less and plus the slack p (the projection's coupling above, or the mass of Poisson batch
sizes left out), which can only lower the hockey-stick and Renyi values (for alpha > 1 the
summand P^alpha Q^(1-alpha) increases in P and decreases in Q). eps(delta) is the largest eps at
which that delta floor exceeds delta, found by bisection: the exact eps is above it.

How tight they are (their validity does not depend on it): bins of a twentieth of the smallest
standard deviation lose little where the bins reach, but the bins end where the laws have no mass
to speak of, the 1e-300 underflow term caps eps near 690 nats, and the projected worlds' slack of
1e-15 in every bin of Q caps their eps near 31 nats and their Renyi tails. Where the true values
exceed those caps (multipliers 0.05 and below, high orders), the floors can be far below them, and
the coverage table's ratios overstate the margins there. The Renyi floors use bins reaching
(alpha - 1) times the laws' spread further out (up to 60 standard deviations), where the order-alpha
integrand lives.
"""
import itertools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import special

TERM_RELATIVE_ERROR = 1e-13
ESCAPE = 1e-15             # the projection acts with at most this probability in each dataset
MAX_BINS = 30000
MAX_COMPONENTS = 20000


# ---------------------------------------------------------------------------------------------
# mixtures and their binned floors


@dataclass
class Mixture:
    w: np.ndarray      # weights (sum <= 1: a sub-probability where mass was left out)
    mu: np.ndarray
    var: np.ndarray


def _bins(mixtures, reach=0.0):
    """Edges from 10 standard deviations below the lowest mean to 10 above the highest, widened on
    both sides by `reach` times the means' spread (at most 60 standard deviations)."""
    sd_max = max(float(np.sqrt(m.var).max()) for m in mixtures)
    spread = max(float(m.mu.max()) for m in mixtures) - min(float(m.mu.min()) for m in mixtures)
    extra = min(reach * spread, 60 * sd_max)
    lo = min(float((m.mu - 10 * np.sqrt(m.var)).min()) for m in mixtures) - extra
    hi = max(float((m.mu + 10 * np.sqrt(m.var)).max()) for m in mixtures) + extra
    width = min(float(np.sqrt(m.var).min()) for m in mixtures) / 20
    count = int(min(max((hi - lo) / width, 1000), MAX_BINS))
    edges = np.linspace(lo, hi, count + 1)
    return np.concatenate([[-np.inf], edges, [np.inf]])


def bin_masses(mix, edges, chunk=32):
    """(masses, rounding bounds) of the mixture in the bins between the edges."""
    mass = np.zeros(edges.size - 1)
    err = np.zeros(edges.size - 1)
    for i in range(0, mix.w.size, chunk):
        w = mix.w[i:i + chunk, None]
        z = (edges[None, :] - mix.mu[i:i + chunk, None]) / np.sqrt(mix.var[i:i + chunk, None])
        cdf, sf = special.ndtr(z), special.ndtr(-z)
        right = z[:, :-1] >= 0          # the bin lies right of the mean: take upper tails
        m = np.where(right, sf[:, :-1] - sf[:, 1:], cdf[:, 1:] - cdf[:, :-1])
        e = np.where(right, sf[:, :-1] + sf[:, 1:], cdf[:, 1:] + cdf[:, :-1])
        mass += (w * np.maximum(m, 0)).sum(axis=0)
        err += (w * (TERM_RELATIVE_ERROR * e + 1e-300)).sum(axis=0)
    return mass, err


class BinnedPair:
    """P and Q binned: P's masses at their lower ends, Q's at their upper ends (module doc)."""

    def __init__(self, p, q, slack=0.0, edges=None):
        edges = _bins([p, q]) if edges is None else edges
        mp, ep = bin_masses(p, edges)
        mq, eq = bin_masses(q, edges)
        self.p = np.maximum(mp - ep - slack, 0.0)
        self.q = np.minimum(mq + eq + slack, 1.0)
        self.edges, self.slack = edges, slack
        self.raw = (mp, ep, mq, eq)

    def reversed(self):
        r = BinnedPair.__new__(BinnedPair)
        mp, ep, mq, eq = self.raw
        r.p = np.maximum(mq - eq - self.slack, 0.0)
        r.q = np.minimum(mp + ep + self.slack, 1.0)
        r.edges, r.slack, r.raw = self.edges, self.slack, (mq, eq, mp, ep)
        return r

    def delta(self, eps):
        # in logs: q >= 1e-300 (its rounding bound), so e^eps q neither overflows nor is lost
        with np.errstate(divide="ignore", over="ignore"):
            eq = np.exp(eps + np.log(self.q))
        d = float(np.maximum(self.p - eq, 0.0).sum())
        return max(d * (1 - 1e-14), 0.0)

    def epsilon(self, delta):
        if self.delta(0.0) <= delta:
            return 0.0
        lo, hi = 0.0, 1.0
        while self.delta(hi) > delta:
            lo, hi = hi, 2 * hi
        while hi - lo > 1e-10 * (1 + lo):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self.delta(mid) > delta else (lo, mid)
        return lo

    def renyi(self, alpha):
        ok = self.p > 0
        with np.errstate(divide="ignore"):
            t = alpha * np.log(self.p[ok]) + (1 - alpha) * np.log(self.q[ok])
        top = float(t.max())
        v = (top + math.log(float(np.exp(t - top).sum()))) / (alpha - 1)
        return v - 1e-12 * (1 + abs(v))


def floors(p, q, slack, delta, eps0, orders, binned=None):
    """Floors over both directions: eps(delta), delta(eps0), R at the orders (on bins reaching
    further out, where the order-alpha integrand lives; each binning is a valid floor)."""
    a = BinnedPair(p, q, slack) if binned is None else binned
    b = a.reversed()
    wide = BinnedPair(p, q, slack, _bins([p, q], reach=max(orders) - 1.0))
    wide_r = wide.reversed()
    return {"eps": max(a.epsilon(delta), b.epsilon(delta)),
            "delta": max(a.delta(eps0), b.delta(eps0)),
            "R": [max(a.renyi(al), b.renyi(al), wide.renyi(al), wide_r.renyi(al)) for al in orders]}


# ---------------------------------------------------------------------------------------------
# the worlds


@dataclass
class HWorld:
    family: str              # quadratic, projected, langevin
    sampling: str            # full, per-step, poisson, shuffle, shuffle-once, partition; diffusion
    n: int
    T: int = 0
    b: int = 0
    q: float = 0.0
    eta: float = 0.5
    lam: float = 0.0
    lsi: str = "recursion"   # or strongly-convex (Gaussian start)
    k: int = 1               # records per user (all of them differ)
    lipschitz: bool = False  # projected: every gradient on K is at most C
    time: float = 0.0        # langevin
    sigma: float = 0.0       # langevin
    multipliers: tuple = (0.5,)
    x_pairs: tuple = ()      # (x, x') of the differing record
    diameter: float = 0.0    # set by prepare()
    cut: float = 0.0         # Poisson: mass of batch sizes left out

    @property
    def cell(self):
        adj = "replace-lip" if self.lipschitz else "replace"
        return f"{self.family}:{self.sampling}/{adj}/k{self.k}"

    def describe(self):
        s = f"n={self.n}"
        if self.family == "langevin":
            return s + f" time={self.time:g} sigma={self.sigma:g} lam={self.lam:g}"
        s += f" T={self.T}" + (f" b={self.b}" if self.b else "") + (f" q={self.q:g}" if self.q else "")
        s += f" eta={self.eta:g} lam={self.lam:g}" + (f" lsi={self.lsi}" if self.lsi != "recursion" else "")
        return s + (f" D={self.diameter:.4g}" if self.diameter else "")

    @property
    def batch(self):
        return self.q * self.n if self.sampling == "poisson" else (self.n if self.sampling == "full" else self.b)

    def c21_sigma(self, m):
        # docs/config.md, noise_multiplier under replace: sigma = sqrt(eta/2) m S_g / (2 b)
        return math.sqrt(self.eta / 2) * m * 2.0 / (2 * self.batch)


def _affine_steps(state, options):
    """One step of the mixture over paths: options (prob, A, B, V): m' = A m + B, v' = A^2 v + V."""
    w, m, v = state
    if w.size * len(options) > MAX_COMPONENTS:
        raise ValueError(f"{w.size * len(options)} components: more than {MAX_COMPONENTS}")
    ws, ms, vs = [], [], []
    for p, A, B, V in options:
        ws.append(w * p)
        ms.append(A * m + B)
        vs.append(A * A * v + V)
    w, m, v = np.concatenate(ws), np.concatenate(ms), np.concatenate(vs)
    # paths that reach the same (mean, variance) bit for bit are one component (a linear loss:
    # the mean counts the inclusions, whatever their order)
    key, inverse = np.unique(np.stack([m, v]), axis=1, return_inverse=True)
    return np.bincount(inverse.ravel(), weights=w), key[0], key[1]


def _placements(world):
    """The user's k records in one epoch of N = n/b batches (uniformly random distinct slots):
    [(probability, count of the user's records in each batch)]."""
    N, b, n, k = world.n // world.b, world.b, world.n, world.k
    out = []
    for slots in itertools.combinations(range(n), k):   # small n only
        counts = [0] * N
        for sl in slots:
            counts[sl // b] += 1
        out.append(tuple(counts))
    total = special.comb(n, k, exact=True)
    return [(Fraction(c, total), v) for v, c in Counter(out).items()]


def mean_coefficients(world, m):
    """(weights, coefficient of x in the mean, variance) of the last iterate, and the slack.
    The user's k records all sit at x in D (x' in D'); the coefficient counts their inclusions."""
    a = 1 - world.eta * world.lam
    b = world.batch
    c = world.eta * world.lam / b if world.lam > 0 else world.eta / b    # linear: theta += eta x / b
    s2 = (world.eta * m / b) ** 2
    k = world.k
    v0 = 0.0
    if world.lsi == "strongly-convex":
        v0 = 2 * world.c21_sigma(m) ** 2 / world.lam      # C21 Lemma 5's start N(0, 2 sigma^2 / lam)
    state = (np.ones(1), np.zeros(1), np.full(1, v0))
    T, s = world.T, world.sampling
    if s == "full":
        for _ in range(T):
            state = _affine_steps(state, [(1.0, a, c * k, s2)])
        return state, 0.0
    if s == "per-step":
        # the count of the user's records in a uniform b-subset: hypergeometric
        total = special.comb(world.n, world.b, exact=True)
        opts = [(special.comb(k, j, exact=True) * special.comb(world.n - k, world.b - j, exact=True) / total,
                 a, c * j, s2) for j in range(k + 1)]
        for _ in range(T):
            state = _affine_steps(state, opts)
        return state, 0.0
    if s == "poisson":
        # batch sizes j of the others kept while their probability is >= 1e-16 (the rest: cut)
        j = np.arange(world.n - k + 1)
        pj = special.binom(world.n - k, j) * world.q ** j * (1 - world.q) ** (world.n - k - j)
        keep = pj >= 1e-16
        cut_step = float(pj[~keep].sum())
        opts = []
        for jj, p in zip(j[keep], pj[keep]):
            for inc in range(k + 1):
                pi = special.comb(k, inc, exact=True) * world.q ** inc * (1 - world.q) ** (k - inc)
                A = 1 - world.eta * world.lam * (jj + inc) / b
                opts.append((p * pi, A, c * inc, s2))
        for _ in range(T):
            state = _affine_steps(state, opts)
        return state, 1 - (1 - cut_step) ** T
    N = world.n // world.b
    if T % N:
        raise ValueError(f"{T} steps are not whole epochs of {N} batches: the laws here are for whole epochs")
    E = T // N
    epoch_var = s2 * sum(a ** (2 * i) for i in range(N))

    def epoch(counts):
        return a ** N, c * sum(cj * a ** (N - 1 - j) for j, cj in enumerate(counts)), epoch_var
    if k == 1:
        places = [(Fraction(1, N), tuple(int(i == j) for i in range(N))) for j in range(N)]
    else:
        places = _placements(world)
    if s == "shuffle":
        opts = [(float(p),) + epoch(v) for p, v in places]
        for _ in range(E):
            state = _affine_steps(state, opts)
        return state, 0.0
    if s in ("shuffle-once", "partition"):
        if s == "partition":
            # the user's records in the last batches (a < 1: the worst placement)
            last = tuple(max(0, min(b, k - (N - 1 - j) * b)) for j in range(N))
            places = [(Fraction(1), last)]
        ws, ms, vs = [], [], []
        for p, v in places:
            st = (np.ones(1), np.zeros(1), np.full(1, v0))
            for _ in range(E):
                st = _affine_steps(st, [(1.0,) + epoch(v)])
            ws.append(st[0] * float(p))
            ms.append(st[1])
            vs.append(st[2])
        return (np.concatenate(ws), np.concatenate(ms), np.concatenate(vs)), 0.0
    raise ValueError(s)


def laws(world, m, x, xp):
    """(P, Q, slack) of the last iterate for the record at x (D) and x' (D')."""
    if world.family == "langevin":
        lam, sig = world.lam, world.sigma
        # xbar differs by k (x - x') / n
        shift = world.k * (x - xp) / world.n * (1 - math.exp(-lam * world.time))
        var = np.full(1, sig * sig / lam)
        return (Mixture(np.ones(1), np.full(1, shift), var), Mixture(np.ones(1), np.zeros(1), var), 0.0)
    (w, coef, var), cut = mean_coefficients(world, m)
    slack = cut + (ESCAPE if world.family == "projected" else 0.0)
    return Mixture(w, x * coef, var), Mixture(w, xp * coef, var), slack


def escape_diameter(world, m):
    """A diameter D for which the unprojected process leaves [-D/2, D/2] at some step with
    probability <= ESCAPE in both datasets: |mean| <= max|x| times the largest mean coefficient,
    variance <= the largest variance, over every step (a union bound over the T steps)."""
    xmax = world.k * max(max(abs(x), abs(xp)) for x, xp in world.x_pairs)
    a = 1 - world.eta * world.lam
    if world.lam > 0 and (world.sampling == "poisson" or not 0 <= a < 1):
        # the drift and variance bounds below take one contraction a in [0, 1) at every step
        raise ValueError(f"escape bound: needs a fixed contraction in [0, 1) (a = {a:g}, {world.sampling})")
    b = world.batch
    s2 = (world.eta * m / b) ** 2
    if world.lam > 0:
        drift = xmax * (world.eta * world.lam / b) / (1 - a)        # sum of c a^k <= c / (1 - a)
        var = s2 / (1 - a * a)
    else:
        drift = xmax * world.eta / b * world.T                      # at most T inclusions
        var = s2 * world.T
    z = -special.ndtri(ESCAPE / (2 * world.T))
    return 2 * (drift + z * math.sqrt(var)) * (1 + 1e-9)


# ---------------------------------------------------------------------------------------------
# the worlds of the campaign and their configurations


def worlds():
    out = []
    # quadratic, strongly convex: S_g = 2 allows x - x' = 2/lam
    for s, kw in [("full", dict(n=50, T=40, eta=0.5, lam=0.2)),
                  ("per-step", dict(n=100, b=10, T=10, eta=0.5, lam=0.6)),
                  ("poisson", dict(n=40, q=0.5, T=2, eta=0.5, lam=0.4)),
                  ("shuffle", dict(n=30, b=10, T=18, eta=0.5, lam=0.2)),
                  ("shuffle-once", dict(n=40, b=10, T=100, eta=0.5, lam=0.1)),
                  ("partition", dict(n=40, b=10, T=200, eta=0.5, lam=0.04))]:
        lsis = ["recursion"] if s == "poisson" else ["recursion", "strongly-convex"]
        for lsi in lsis:
            lam = kw["lam"]
            out.append(HWorld("quadratic", s, lsi=lsi, multipliers=(0.05, 0.5, 2.0),
                              x_pairs=((1 / lam, -1 / lam), (2 / lam, 0.0)), **kw))
    # projected linear (gradients -x, |x| <= C = 1), with and without lipschitz_loss
    for s, kw in [("full", dict(n=20, T=50, eta=0.1)), ("per-step", dict(n=20, b=5, T=40, eta=0.1)),
                  ("poisson", dict(n=20, q=0.25, T=40, eta=0.1)), ("shuffle", dict(n=20, b=5, T=40, eta=0.1)),
                  ("shuffle-once", dict(n=20, b=5, T=40, eta=0.1)), ("partition", dict(n=20, b=5, T=40, eta=0.1))]:
        for lip in (False, True):
            out.append(HWorld("projected", s, lipschitz=lip, multipliers=(0.5, 2.0),
                              x_pairs=((1.0, -1.0), (1.0, 0.0)), **kw))
    # projected quadratic, per-step (A&T (B.3) needs strong convexity): x = +-0.5/lam, and every
    # gradient lam |theta - x| on K is at most C = 1 when D/2 + 0.5/lam <= 1/lam (checked in prepare)
    out.append(HWorld("projected", "per-step", n=100, b=10, T=10, eta=0.5, lam=0.05, lipschitz=True,
                      multipliers=(0.02, 0.2), x_pairs=((10.0, -10.0),)))
    # Langevin (the example's constants and a slower mixing one)
    for lam, t in ((0.5, 10.0), (0.05, 3.0)):
        out.append(HWorld("langevin", "diffusion", n=100, lam=lam, time=t, sigma=0.1,
                          multipliers=(None,), x_pairs=((2 / lam, 0.0),)))
    # users of two and three records (the registry's group conversions of every entry above)
    for k in (2, 3):
        for s, kw in [("full", dict(n=50, T=40, eta=0.5, lam=0.2)),
                      ("per-step", dict(n=100, b=10, T=8 if k == 2 else 6, eta=0.5, lam=0.6)),
                      ("poisson", dict(n=30, q=0.5, T=2, eta=0.5, lam=0.4)),
                      ("shuffle", dict(n=30, b=10, T=12, eta=0.5, lam=0.2)),
                      ("shuffle-once", dict(n=40, b=10, T=100, eta=0.5, lam=0.1)),
                      ("partition", dict(n=40, b=10, T=200, eta=0.5, lam=0.04))]:
            lam = kw["lam"]
            out.append(HWorld("quadratic", s, k=k, multipliers=(0.5, 2.0), x_pairs=((1 / lam, -1 / lam),), **kw))
        for s, kw in [("full", dict(n=20, T=50, eta=0.1)), ("per-step", dict(n=20, b=5, T=40, eta=0.1)),
                      ("shuffle-once", dict(n=20, b=5, T=40, eta=0.1)), ("partition", dict(n=20, b=5, T=40, eta=0.1)),
                      ("shuffle", dict(n=20, b=5, T=40, eta=0.1))]:
            out.append(HWorld("projected", s, k=k, lipschitz=True, multipliers=(2.0,), x_pairs=((1.0, -1.0),), **kw))
        out.append(HWorld("langevin", "diffusion", k=k, n=100, lam=0.5, time=10.0, sigma=0.1, multipliers=(None,),
                          x_pairs=((4.0, 0.0),)))
    return out


def prepare(world, m):
    """Sets the projected world's diameter for multiplier m; returns an error string or None."""
    if world.family != "projected":
        return None
    world.diameter = escape_diameter(world, m)
    if world.lipschitz and world.lam > 0:
        xmax = max(max(abs(x), abs(xp)) for x, xp in world.x_pairs)
        if world.lam * (world.diameter / 2 + xmax) > 1 + 1e-12:
            return f"projected quadratic: lipschitz_loss fails (D = {world.diameter:g})"
    return None


def config_text(world, m, eps0, orders, delta):
    lines = ["[orders]", "values = [" + ", ".join(repr(a) for a in orders) + "]", "", "[algorithm]"]
    if world.family == "langevin":
        lines += ['kind = "langevin"', f"time = {world.time!r}", f"sigma = {world.sigma!r}",
                  f"n = {world.n}", "sensitivity = 2.0", "intervals = 100", "", "[lsi]",
                  'kind = "strongly-convex"', f"lambda = {world.lam!r}", ""]
    else:
        if world.sampling == "full":
            lines.append('kind = "noisy-gd"')
        else:
            lines += ['kind = "noisy-sgd"', f'sampling = "{world.sampling}"']
            lines.append(f"sampling_rate = {world.q!r}" if world.sampling == "poisson" else f"batch_size = {world.b}")
        lines += [f"n = {world.n}", f"steps = {world.T}", f"noise_multiplier = {m!r}", f"eta = {world.eta!r}",
                  "sensitivity = 2.0"]
        if world.lam == 0:
            lines.append('loss = "linear"')
        beta = world.lam if world.lam > 0 else 1.0   # a linear loss is beta-smooth for every beta
        lines += ["", "[lsi]", f'kind = "{world.lsi}"', f"lambda = {world.lam!r}", f"beta = {beta!r}", ""]
    lines += ["[domain]", 'adjacency = "replace"', f"records_per_user = {world.k}"]
    if world.family == "projected":
        lines += [f"diameter = {world.diameter!r}", f"lipschitz_loss = {'true' if world.lipschitz else 'false'}"]
    lines += ["", "[report]", f"delta = {delta!r}", f"epsilon = {eps0!r}", ""]
    return "\n".join(lines)


def world_floors(world, m, delta, orders):
    """The floors of a (world, multiplier): the largest over its record pairs, with the pair."""
    best = None
    screened = []
    for x, xp in world.x_pairs:
        p, q, slack = laws(world, m, x, xp)
        binned = BinnedPair(p, q, slack)
        screened.append((max(binned.epsilon(1e-3), binned.reversed().epsilon(1e-3)), x, xp, p, q, slack, binned))
    eps0 = float(f"{max(max(s[0] for s in screened), 1e-3):.3g}")
    for _, x, xp, p, q, slack, binned in screened:
        f = floors(p, q, slack, delta, eps0, orders, binned)
        label = f"record at {x:g} vs {xp:g}"
        if best is None:
            best = {"eps": (f["eps"], label), "delta": (f["delta"], label), "R": [(r, label) for r in f["R"]]}
            continue
        if f["eps"] > best["eps"][0]:
            best["eps"] = (f["eps"], label)
        if f["delta"] > best["delta"][0]:
            best["delta"] = (f["delta"], label)
        best["R"] = [(r, label) if r > old[0] else old for r, old in zip(f["R"], best["R"])]
    best["eps0"] = eps0
    best["instances"] = len(world.x_pairs)
    return best
