"""Independent floors for the tests of rdpdyn's derived pairs and derived entries (issue 34, item 4).

Every value here is the privacy of a CONCRETE pair of neighbouring datasets, computed from the
definition of the two laws of the released output, never by rdpdyn (no rdpdyn code is called or
ported). A valid bound must be at or above it; where a pair is claimed tight the tests also bound it
from above by a stated tolerance. Run with Debian's /usr/bin/python3 (mpmath 1.2.1, numpy 1.24.2,
scipy 1.10.1):  /usr/bin/python3 tests/soundness/floors/values.py  prints every value the tests use.

Three tools, all giving LOWER bounds (a floor is never above the truth):

hs_floor(P, Q, eps)  -- delta(eps) = sup_S P(S) - e^eps Q(S) of two 1-D Gaussian mixtures of one
    variance, in mpmath at 40 digits: the set S = {log p/q > eps} is located on a grid (log p/q in
    double precision), its end points refined by bisection in mpmath, and P(S) - e^eps Q(S) summed
    from normal CDFs. ANY set S gives P(S) - e^eps Q(S) <= delta(eps), so an imprecise S only lowers
    the value; mixture components dropped as negligible (weight < 1e-60) are dropped from P and their
    weight added to Q(S) (Q(S) is bounded from above). eps_floor(P, Q, delta) is the largest eps (by
    bisection, rounded down) with hs_floor(eps) > delta, so the exact epsilon(delta) exceeds it.

renyi(P, Q, alpha) -- R_alpha(P || Q) = log(int p^alpha q^(1-alpha)) / (alpha - 1) by mpmath
    quadrature (tanh-sinh, 40 digits) split at the components' means; returned lowered by its
    error estimate plus 1e-25 relative.

composed_eps_floor(P, Q, k, delta) -- epsilon(delta) of the k-fold product of a 1-D pair (all k
    outputs released), from below. The real line is cut into intervals of width <= dx (the tails beyond
    `span` (12) standard deviations into the two end intervals), each interval labelled by round(L(mid)/h) with
    L = log p/q: the label is a deterministic function of one output, so the label sums of the k steps
    are a post-processing of the k outputs and their pair of laws has a SMALLER profile (data
    processing; no rounding of the loss in either direction is assumed). The label masses come from
    scipy's ndtr with per-interval error bounds (P's lowered, Q's raised), the k-fold convolutions
    from the exponentially tilted FFT of tests/accounting/reference/pld_certified.py (kfold_certified:
    an a-priori floating-point error bound, x10, subtracted from P's entries and added to Q's), so
    delta_lower(eps) = sum_K max(0, P_K - e^eps Q_K) - e^eps k rest(Q) <= delta(eps) of the k-fold
    product (rest(Q): the weight of Q's dropped components, none in the pairs used).
"""
import math
import os
import sys

import numpy as np
from mpmath import mp, mpf

mp.dps = 40

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "accounting", "reference"))
import pld_certified as PC  # noqa: E402  (its certified k-fold convolution and ndtr error bounds)

DROP = mpf("1e-60")


# ------------------------------------------------------------------------------------------------
# Mixtures: lists of (weight, mean) of N(mean, s^2); weights are mpf, sum <= 1 (`rest` = 1 - sum).
# ------------------------------------------------------------------------------------------------

def mixture(components):
    """[(w, m)] with weights as given (mpf), negligible components dropped."""
    return [(mpf(w), mpf(m)) for w, m in components if mpf(w) >= DROP]


def binomial_mixture(T, q, shift, scale=1):
    """sum_j Bin(j; T, q) N(j * shift, .): the count of the record's uses in T Poisson steps."""
    q, shift = mpf(q), mpf(shift)
    out = []
    for j in range(T + 1):
        w = mp.binomial(T, j) * q**j * (1 - q) ** (T - j)
        if w >= DROP:
            out.append((w * scale, j * shift))
    return out


def rest(P):
    return max(mpf(0), 1 - sum(w for w, _ in P))


def _log_density_np(P, x, s):
    w = np.array([float(a) for a, _ in P])
    m = np.array([float(b) for _, b in P])
    z = -((x[:, None] - m[None, :]) ** 2) / (2 * s * s) + np.log(w)[None, :]
    mx = z.max(axis=1)
    return mx + np.log(np.exp(z - mx[:, None]).sum(axis=1))


def _log_density_mp(P, x, s):
    return mp.log(sum(w * mp.exp(-((x - m) ** 2) / (2 * s * s)) for w, m in P))


def _mass(P, a, b, s):
    """P([a, b]) from normal CDFs, the representation without cancellation."""
    tot = mpf(0)
    for w, m in P:
        ua = (a - m) / s if a != -mp.inf else -mp.inf
        ub = (b - m) / s if b != mp.inf else mp.inf
        if ua > 0:
            tot += w * (mp.ncdf(-ua) - mp.ncdf(-ub))
        else:
            tot += w * (mp.ncdf(ub) - mp.ncdf(ua))
    return tot


class Pair:
    """P against Q (1-D mixtures, one standard deviation s): the scan of log p/q is done once."""

    def __init__(self, P, Q, s=1, step=None):
        self.P, self.Q, self.s = P, Q, mpf(s)
        means = [float(m) for _, m in P + Q]
        sf = float(s)
        self.lo, self.hi = min(means) - 40 * sf, max(means) + 40 * sf
        step = step or 0.005 * sf
        self.x = np.arange(self.lo, self.hi + step, step)
        self.L = _log_density_np(P, self.x, sf) - _log_density_np(Q, self.x, sf)
        self.restQ = rest(Q)

    def L_mp(self, x):
        return _log_density_mp(self.P, x, self.s) - _log_density_mp(self.Q, x, self.s)

    def _root(self, a, b, eps):
        a, b = mpf(a), mpf(b)
        fa = self.L_mp(a) - eps
        for _ in range(140):
            c = (a + b) / 2
            fc = self.L_mp(c) - eps
            if (fc > 0) == (fa > 0):
                a, fa = c, fc
            else:
                b = c
        return (a + b) / 2

    def region(self, eps):
        """intervals where log p/q > eps (ends -inf / inf beyond the scan)."""
        above = self.L > float(eps)
        out, start = [], (-mp.inf if above[0] else None)
        for i in range(1, len(above)):
            if above[i] != above[i - 1]:
                r = self._root(self.x[i - 1], self.x[i], mpf(eps))
                if above[i]:
                    start = r
                else:
                    out.append((start, r))
                    start = None
        if start is not None:
            out.append((start, mp.inf))
        return out

    def hs_floor(self, eps):
        eps = mpf(eps)
        S = self.region(eps)
        p = sum((_mass(self.P, a, b, self.s) for a, b in S), mpf(0))
        q = sum((_mass(self.Q, a, b, self.s) for a, b in S), mpf(0))
        if S:
            q += self.restQ
        return p - mp.e**eps * q

    def eps_floor(self, delta, hi=60):
        """largest eps (to 1e-13) with hs_floor(eps) > delta; the exact epsilon(delta) is above it."""
        delta = mpf(delta)
        lo, hi = mpf(0), mpf(hi)
        if self.hs_floor(lo) <= delta:
            return mpf(0)
        for _ in range(60):
            mid = (lo + hi) / 2
            if self.hs_floor(mid) > delta:
                lo = mid
            else:
                hi = mid
        return lo


def eps_floor_both(P, Q, delta, s=1):
    """the larger of the two directions' floors (neighbouring is symmetric)."""
    return max(Pair(P, Q, s).eps_floor(delta), Pair(Q, P, s).eps_floor(delta))


def gaussian_eps(mu, delta):
    """exact epsilon(delta) of N(mu, 1) against N(0, 1) (Dong, Roth & Su 2022 Cor 2.13, inverted)."""
    mu, delta = mpf(mu), mpf(delta)
    d = lambda e: mp.ncdf(-e / mu + mu / 2) - mp.e**e * mp.ncdf(-e / mu - mu / 2)
    lo, hi = mpf(0), mpf(1)
    while d(hi) > delta:
        hi *= 2
    if d(lo) <= delta:
        return mpf(0)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return lo


def gaussian_mu_for(eps, delta):
    """the mu whose exact epsilon(delta) is eps (mu-GDP profile increasing in mu)."""
    eps, delta = mpf(eps), mpf(delta)
    d = lambda mu: mp.ncdf(-eps / mu + mu / 2) - mp.e**eps * mp.ncdf(-eps / mu - mu / 2)
    lo, hi = mpf("1e-6"), mpf(1)
    while d(hi) < delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) < delta else (lo, mid)
    return lo


def renyi(P, Q, alpha, s=1):
    """R_alpha(P || Q) of two 1-D mixtures, lowered by its quadrature error. Q's dropped components
    (each below 1e-60) would raise R only where they dominate Q's density, which in the pairs used here
    (a single Gaussian, or binomial mixtures whose means all lie within 0.1 noise std) they never do."""
    alpha, s = mpf(alpha), mpf(s)
    assert rest(Q) < mpf("1e-30")  # only components below 1e-60 dropped (and 40-digit rounding)
    pts = sorted(set([m for _, m in P + Q]))
    # the integrand's bulk lies within alpha max|mean| of 0 (N(a m) for a Gaussian pair); a range cut
    # short only lowers the integral, so the value stays a floor
    X = alpha * max(abs(m) for m in pts) + 60 * s
    grid = [-X] + pts + [X]

    def f(x):
        lp = _log_density_mp(P, x, s)
        lq = _log_density_mp(Q, x, s)
        return mp.exp(alpha * lp + (1 - alpha) * lq - x * 0) / (s * mp.sqrt(2 * mp.pi))

    val, err = mp.quad(f, grid, error=True, maxdegree=10)
    return (mp.log(val - err) / (alpha - 1)) * (1 - mpf("1e-25"))


def _logsumexp(v, axis=None):
    mx = np.max(v, axis=axis, keepdims=True)
    out = mx + np.log(np.sum(np.exp(v - mx), axis=axis, keepdims=True))
    return np.squeeze(out, axis=axis) if axis is not None else float(out.squeeze())


def renyi_trapezoid(P, Q, alpha, s=1):
    """R_alpha(P || Q) of two 1-D mixtures by the trapezoidal rule in double precision, in log space
    (geometrically convergent for these analytic, Gaussian-decaying integrands; as
    tests/soundness/exact_divergence.py's mixture_renyi), on [-X, X] with X = alpha max|mean| + 60 s,
    at steps s/40 and s/20: they must agree to 1e-9 relative (the rounding of sums of 10^5 terms
    is about 1e-11); the returned value is lowered by 1e-7 relative and 1e-14. For mixtures too
    large for renyi()'s mpmath quadrature."""
    a = float(alpha)
    sf = float(s)
    X = a * max(abs(float(m)) for _, m in P + Q) + 60 * sf

    def logI(step):
        x = np.arange(-X, X + step, step)
        out = []
        for chunk in np.array_split(x, max(1, len(x) // 20000)):
            lp = _log_density_np(P, chunk, sf)
            lq = _log_density_np(Q, chunk, sf)
            out.append(a * lp + (1 - a) * lq)
        v = np.concatenate(out) - 0.5 * np.log(2 * np.pi * sf * sf) + np.log(step)
        v[0] -= np.log(2.0)
        v[-1] -= np.log(2.0)
        return _logsumexp(v)

    fine, coarse = logI(sf / 40), logI(sf / 20)
    R = fine / (a - 1)
    assert abs(fine - coarse) <= 1e-9 * abs(fine) + 1e-13, (fine, coarse)
    return mpf(R * (1 - 1e-7) - 1e-14)


# ------------------------------------------------------------------------------------------------
# k-fold composition from below (numpy, certified FFT of pld_certified.py)
# ------------------------------------------------------------------------------------------------

def _label_masses(P, Q, s, h, dx, span):
    sf = float(s)
    means = [float(m) for _, m in P + Q]
    lo, hi = min(means) - span * sf, max(means) + span * sf
    b = np.concatenate([[-np.inf], np.arange(lo, hi, dx), [hi, np.inf]])
    mid = np.concatenate([[lo], 0.5 * (b[1:-2] + b[2:-1]), [hi]])  # one point per interval
    L = _log_density_np(P, mid, sf) - _log_density_np(Q, mid, sf)
    lab = np.rint(L / h).astype(np.int64)
    comps = lambda M: [(float(w), float(m), sf) for w, m in M]
    mP, eP = PC.mix_masses(b, comps(P))
    mQ, eQ = PC.mix_masses(b, comps(Q))
    off = lab.min()
    n = lab.max() - off + 1
    p = np.bincount(lab - off, weights=np.maximum(mP - eP, 0.0), minlength=n) * (1 - 1e-12)
    q = np.bincount(lab - off, weights=mQ + eQ, minlength=n) * (1 + 1e-12)
    return p, q, int(off)


def composed_delta_curve(P, Q, k, s=1, h=2.0**-9, dx=None, thetas=(0.0, 0.5, 1.0), span=12):
    """(P_K lower, Q_K upper, offset) of the k-fold label-sum pair, h the label width."""
    PC.H = h  # kfold_certified tilts by exp(theta * H * index)
    dx = dx or h / 4 / max(1e-9, max(abs(float(m)) for _, m in P + Q) / float(s) ** 2 + 1e-9)
    dx = min(dx, 0.01 * float(s))
    p, q, off = _label_masses(P, Q, s, h, dx, span)
    Plo, Qup = None, None
    for th in thetas:  # every pass is certified entrywise: keep the best bound of each entry
        if k * math.log(max(1e-300, float(np.sum(p * np.exp(th * h * np.arange(len(p))))))) < 600:
            c, _ = PC.kfold_certified(p, k, th, 'lo')
            Plo = c if Plo is None else np.maximum(Plo, c)
        if k * math.log(max(1e-300, float(np.sum(q * np.exp(th * h * np.arange(len(q))))))) < 600:
            c, _ = PC.kfold_certified(q, k, th, 'up')
            Qup = c if Qup is None else np.minimum(Qup, c)
    return Plo, Qup, k * off


def composed_eps_floor(P, Q, k, delta, s=1, h=2.0**-9, dx=None, thetas=(0.0, 0.5, 1.0), span=12):
    Plo, Qup, off = composed_delta_curve(P, Q, k, s, h, dx, thetas, span)

    # Q's dropped components (weight `rest` per step) add at most k rest to Q's mass of any set
    dropped = k * float(rest(Q)) * (1 + 1e-12)

    def dlow(eps):
        v = Plo - math.exp(eps) * (1 + 1e-15) * Qup
        return float(np.sum(v[v > 0])) * (1 - 1e-9) - math.exp(eps) * dropped

    lo, hi = 0.0, 1.0
    if dlow(lo) <= delta:
        return 0.0
    while dlow(hi) > delta:
        hi *= 2
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if dlow(mid) > delta else (lo, mid)
    return lo
