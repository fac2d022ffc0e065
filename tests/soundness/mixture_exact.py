"""Exact privacy of two one-dimensional Gaussian mixtures with one common variance, computed from
their definition (no rdpdyn code is called or ported): the floors of the small-world adversary
(tests/soundness/adversary.py, issue 34). Unit checks: python3 mixture_exact.py.

The two laws are lattice mixtures in units of the noise standard deviation,
    P = sum_s w_s N(s h, 1),   Q = sum_s v_s N(s h, 1),   s an integer, h > 0 the lattice step,
which is the law of the sum of DP-SGD's released values when the clipped gradients lie on a
lattice (adversary.py). Every value returned is a FLOOR, at or below the exact value whatever the
shifts (thousands of standard deviations included), by construction rather than by the accuracy
of a quadrature:

* delta(eps) = sup_A P(A) - e^eps Q(A) (the hockey-stick divergence), so any set A gives a value
  at or below it. A = {p > e^eps q} is found by certified root isolation (below); P(A) and Q(A)
  are sums of normal-CDF differences in closed form, summed in logs (nothing underflows). The
  floor subtracts a bound on the rounding of that sum: 1e-13 relative per term, i.e. about 500
  units of rounding, an assumed bound on scipy's erfcx/erf/log (measured: 3.4e-16 against 40-digit
  mpmath on 400 intervals from 1e-14 to 300 wide and up to 3000 standard deviations out, unit
  check 0). A misplaced root would only lower the value.
* eps(delta) = the smallest eps with delta(eps) <= delta: the eps returned has a delta floor
  > delta, so the exact eps is above it (delta decreases in eps); Newton's method on log delta
  puts it within 1e-10 (1 + eps) of the eps at which the computed delta crosses.
* Renyi D_alpha(P||Q) >= D_alpha(P_B||Q_B) for any partition B of the line (data processing; van
  Erven & Harremoes 2014, arXiv:1206.2459, Thm 9). The bins' masses are normal-CDF differences
  in closed form, the sum is taken in logs, and the floor subtracts a bound on the rounding of
  the logs (1e-13 of 1 + |log mass| per bin, weighted by the bins' shares of the sum). The bins
  are fine where p^alpha q^(1-alpha) lives (located by a scan), so that the log-likelihood ratio
  varies by at most dl within a bin (dl larger where the integrand holds little of the integral);
  the discretisation gap is then about alpha dl^2 / 24 (second order), and dl makes it 1e-5 of the
  value: the floors are within about 1e-5 of the exact values (unit checks: closed forms, mpmath
  quadrature, and the weights' own divergence for far-apart atoms).

Normal-CDF differences are taken in logs with erfcx (log Phi(x) = log(erfcx(-x/sqrt 2)/2) - x^2/2),
so that neither underflow nor cancellation occurs at any shift: the difference of two log-CDFs
carries -(a - b)(a + b)/2 instead of two large squares, and for an interval narrower than 1 it
is the integral of the hazard phi/Phi (8-point Gauss-Legendre). A component whose mass in an
interval is provably below e^-50 of another's is left out (relative effect < 1e-19).

Roots of p - e^eps q: with c_s = w_s - e^eps v_s, p - e^eps q = phi(y) sum_s c_s exp(s h y - (s h)^2/2),
whose sign is that of U(y) - L(y), U and L the log-sum-exps of the positive and of the negative
terms, both convex in y (log-sum-exps of affine functions). On an interval a convex function lies
above the larger of its end tangents and below its chord, which bounds U - L on both sides; an
interval on which U - L has a certified sign holds no root, the others are halved until they do
(or are narrower than 1e-8 standard deviations, where the root is placed at the sign change; delta
is stationary in the roots, so this changes it to second order only). Only P's region (its atoms
+- 38 standard deviations; P has mass < 1e-315 beyond) is searched.

The mpmath references (40 digits) used by the unit checks integrate the definitions directly.
"""
import math

import numpy as np
from scipy import special

LOG_HALF = math.log(0.5)
LOG_SQRT2PI = 0.5 * math.log(2 * math.pi)
SQRT2 = math.sqrt(2.0)
TERM_RELATIVE_ERROR = 1e-13  # bound on the relative rounding error of one closed-form term
P_REGION = 38.0              # P's mass beyond 38 standard deviations of its atoms is < 1e-315


class LatticePair:
    """P and Q as lattice mixtures: component s has mean s*h (noise standard deviation 1)."""

    def __init__(self, h, support, logw_p, logw_q):
        self.h = float(h)
        self.s = np.asarray(support, dtype=float)
        self.logw_p = np.asarray(logw_p, dtype=float)
        self.logw_q = np.asarray(logw_q, dtype=float)

    @classmethod
    def from_laws(cls, law_p, law_q, h):
        """law_*: dict lattice index -> probability (a Fraction or a float); h: step in std units."""
        support = sorted(set(law_p) | set(law_q))
        return cls(h, support, [_log_prob(law_p.get(s, 0)) for s in support],
                   [_log_prob(law_q.get(s, 0)) for s in support])

    def reversed(self):
        return LatticePair(self.h, self.s, self.logw_q, self.logw_p)

    def means(self):
        return self.s * self.h


def _log_prob(x):
    """log of a probability given as a Fraction (exact numerator and denominator) or a float."""
    if x == 0:
        return -math.inf
    if hasattr(x, "numerator"):
        return math.log(x.numerator) - math.log(x.denominator)
    return math.log(x)


# ---------------------------------------------------------------------------------------------
# Normal-CDF differences in logs


def _log1mexp(x):
    """log(1 - e^x) for x <= 0 (Maechler 2012's two branches)."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    small = x > -math.log(2.0)
    with np.errstate(divide="ignore"):
        out[small] = np.log(-np.expm1(x[small]))
        out[~small] = np.log1p(-np.exp(x[~small]))
    return out


def _log_phi_left(x):
    """log Phi(x) + x^2/2 = log(erfcx(-x/sqrt2)/2), the part of log Phi(x) free of x^2/2."""
    return np.log(special.erfcx(-x / SQRT2)) + LOG_HALF


GL_NODES, GL_WEIGHTS = np.polynomial.legendre.leggauss(8)


def _log_phi_increment(l, u):
    """log Phi(l) - log Phi(u) for l < u <= 0, without cancellation: the difference of the
    x^2/2-free parts minus (l - u)(l + u)/2 for wide intervals; for intervals of width <= 1, minus
    the integral of the hazard phi/Phi = sqrt(2/pi)/erfcx(-t/sqrt2) by 8-point Gauss-Legendre
    (relative error far below 1e-13 there: the hazard is analytic with derivative of size <= 1)."""
    d = (_log_phi_left(l) - _log_phi_left(u)) - (l - u) * (l + u) / 2
    narrow = (u - l) <= 1.0
    if narrow.any():
        ln, un = l[narrow], u[narrow]
        half, mid = (un - ln) / 2, (un + ln) / 2
        t = mid[:, None] + half[:, None] * GL_NODES[None, :]
        hazard = math.sqrt(2 / math.pi) / special.erfcx(-t / SQRT2)
        d[narrow] = -half * (hazard * GL_WEIGHTS[None, :]).sum(axis=1)
    return np.where(np.isneginf(l), -np.inf, d)


def log_ndtr_diff(a, b):
    """log(Phi(b) - Phi(a)) for a < b elementwise (arrays, infinite ends allowed), accurate in
    relative terms for any a, b, however far out or narrow (see _log_phi_increment)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    out = np.full(a.shape, -np.inf)
    # by symmetry Phi(b) - Phi(a) = Phi(-a) - Phi(-b): move right-hand intervals to the left
    right = a >= 0
    lo = np.where(right, -b, a)
    hi = np.where(right, -a, b)
    left = hi <= 0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if left.any():
            l, u = lo[left], hi[left]
            d = _log_phi_increment(l, u)
            out[left] = _log_phi_left(u) - u * u / 2 + _log1mexp(np.minimum(d, 0.0))
        mid = ~left
        if mid.any():
            # the interval straddles 0: (erf(u/sqrt2) + erf(-l/sqrt2))/2, a sum of positives
            l, u = lo[mid], hi[mid]
            out[mid] = np.log((special.erf(u / SQRT2) + special.erf(-l / SQRT2)) / 2)
    return out


def _lse(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(m, axis) + np.log(np.sum(np.exp(x - m), axis=axis))


PRUNE = 50.0  # a component whose mass in an interval is below e^-50 of another's is dropped


def log_interval_mass(logw, means, lo, hi, chunk=8192):
    """log of sum_s w_s (Phi(hi - mean_s) - Phi(lo - mean_s)) for each interval [lo, hi].

    Components that cannot matter are dropped: the mass of component s in [lo, hi] is at most
    w_s min(width phi(d_s), Phi(-d_s)) (d_s the distance from its mean to the interval) and at
    least w_s width phi(D_s) (D_s the distance to the far end); a component whose upper bound is
    below e^-50 of the largest lower bound is left out. The K components left out change the
    mass by a relative K e^-50 < 1e-19, far inside TERM_RELATIVE_ERROR."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    keep = np.isfinite(logw)
    lw, x = logw[keep], means[keep]
    out = np.empty(lo.shape)
    for start in range(0, lo.size, chunk):
        l = lo[start:start + chunk, None] - x[None, :]
        u = hi[start:start + chunk, None] - x[None, :]
        width = (hi[start:start + chunk] - lo[start:start + chunk])[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            near = np.where(l > 0, l, np.where(u < 0, -u, 0.0))
            far = np.maximum(np.abs(l), np.abs(u))
            log_width = np.log(width)
            upper = lw[None, :] + np.minimum(log_width - near * near / 2 - LOG_SQRT2PI, -near * near / 2 + LOG_HALF)
            lower = lw[None, :] + log_width - far * far / 2 - LOG_SQRT2PI
            lower = np.where(np.isfinite(width), lower, upper)  # a tail bin: compare upper bounds
            need = upper >= (np.max(lower, axis=1, keepdims=True) - PRUNE)
        terms = np.full(l.shape, -np.inf)
        terms[need] = lw[np.nonzero(need)[1]] + log_ndtr_diff(l[need], u[need])
        out[start:start + chunk] = _lse(terms, axis=1)
    return out


# ---------------------------------------------------------------------------------------------
# delta(eps): the hockey-stick divergence


def _signed_log_coefficients(pair, eps):
    """log|c_s| of c_s = w_s - e^eps v_s, split by sign: (positive set, negative set)."""
    lw, lv = pair.logw_p, pair.logw_q + eps
    pos = lw > lv
    neg = lv > lw
    with np.errstate(invalid="ignore"):
        lpos = lw[pos] + _log1mexp(np.minimum(lv[pos] - lw[pos], 0.0))
        lneg = lv[neg] + _log1mexp(np.minimum(lw[neg] - lv[neg], 0.0))
    x = pair.means()
    # term_s(y) = |c_s| exp(x_s y - x_s^2/2): intercept and slope in y of its log
    return (lpos - x[pos] ** 2 / 2, x[pos]), (lneg - x[neg] ** 2 / 2, x[neg])


def _lse_affine(coef, y):
    """(value, derivative) at the points y of log sum_s exp(A_s + B_s y); -inf if empty."""
    A, B = coef
    if A.size == 0:
        return np.full(y.shape, -np.inf), np.zeros(y.shape)
    t = A[None, :] + B[None, :] * y[:, None]
    m = np.max(t, axis=1, keepdims=True)
    e = np.exp(t - m)
    tot = e.sum(axis=1)
    return m[:, 0] + np.log(tot), (e * B[None, :]).sum(axis=1) / tot


def _certified_sign(y0, y1, f0, f1, U0, U1, dU0, dU1, L0, L1, dL0, dL1):
    """+1 / -1 where U - L is certified positive / negative on [y0, y1], else 0. U, L convex:
    tangent_max(U) - chord(L) <= U - L <= chord(U) - tangent_max(L)."""
    def min_tan_minus_chord(F0, F1, dF0, dF1, G0, G1):
        # min over [y0, y1] of max(F0 + dF0 (y - y0), F1 + dF1 (y - y1)) - chord(G)
        with np.errstate(invalid="ignore", divide="ignore"):
            ys = (F1 - F0 + dF0 * y0 - dF1 * y1) / (dF0 - dF1)
        inside = np.isfinite(ys) & (ys > y0) & (ys < y1)
        ys = np.where(inside, ys, y0)
        w = np.where(y1 > y0, (ys - y0) / (y1 - y0), 0.0)
        val = F0 + dF0 * (ys - y0) - (G0 + w * (G1 - G0))
        val = np.where(inside, val, np.inf)
        return np.minimum(np.minimum(F0 - G0, F1 - G1), val)

    with np.errstate(invalid="ignore"):
        lower = min_tan_minus_chord(U0, U1, dU0, dU1, L0, L1)
        upper = -min_tan_minus_chord(L0, L1, dL0, dL1, U0, U1)
    return np.where(lower > 0, 1, np.where(upper < 0, -1, 0))


def positive_set(pair, eps, lo, hi, start_width=4.0, min_width=1e-8):
    """Intervals of [lo, hi] on which p > e^eps q, by certified subdivision (module docstring).
    Returns (intervals as an (m, 2) array, number of roots found)."""
    pos, neg = _signed_log_coefficients(pair, eps)
    if pos[0].size == 0:
        return np.zeros((0, 2)), 0
    if neg[0].size == 0:
        return np.array([[lo, hi]]), 0
    n0 = max(1, int(math.ceil((hi - lo) / start_width)))
    edges = np.linspace(lo, hi, n0 + 1)

    def evaluate(y):
        U, dU = _lse_affine(pos, y)
        L, dL = _lse_affine(neg, y)
        return U, dU, L, dL

    U, dU, L, dL = evaluate(edges)
    # all open intervals of one level at once: ends y0 < y1 and (U, dU, L, dL) at both
    y0, y1 = edges[:-1], edges[1:]
    a = (U[:-1], dU[:-1], L[:-1], dL[:-1])
    b = (U[1:], dU[1:], L[1:], dL[1:])
    done = []  # rows (y0, y1, sign)
    roots = 0
    while y0.size:
        f0, f1 = a[0] - a[2], b[0] - b[2]
        sign = _certified_sign(y0, y1, f0, f1, a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3])
        narrow = (y1 - y0) <= min_width * (1 + np.abs(y0))
        settled = (sign != 0) | narrow
        if settled.any():
            s = sign[settled]
            ys0, ys1, g0, g1 = y0[settled], y1[settled], f0[settled], f1[settled]
            change = (s == 0) & ((g0 > 0) != (g1 > 0))
            roots += int(change.sum())
            # a narrow interval with a sign change: split it at its midpoint, each half with
            # its end's sign; without one, the sign of its ends (a near-double root)
            mid = (ys0 + ys1) / 2
            done.append(np.stack([ys0, np.where(change, mid, ys1), np.where(s != 0, s, np.where(g0 > 0, 1, -1))], 1))
            if change.any():
                done.append(np.stack([mid[change], ys1[change], np.where(g1[change] > 0, 1, -1)], 1))
        rest = ~settled
        y0, y1 = y0[rest], y1[rest]
        a = tuple(v[rest] for v in a)
        b = tuple(v[rest] for v in b)
        if y0.size:
            ym = (y0 + y1) / 2
            m = evaluate(ym)
            y0, y1 = np.concatenate([y0, ym]), np.concatenate([ym, y1])
            # the left halves end at the midpoints, the right halves start there
            a, b = (tuple(np.concatenate([u, v]) for u, v in zip(a, m)),
                    tuple(np.concatenate([u, v]) for u, v in zip(m, b)))
    pieces = np.concatenate(done) if done else np.zeros((0, 3))
    pieces = pieces[np.argsort(pieces[:, 0])]
    pieces = pieces[pieces[:, 1] > pieces[:, 0]]
    out = []
    for y0, y1, s in pieces:
        if s > 0:
            if out and out[-1][1] >= y0:
                out[-1][1] = y1
            else:
                out.append([y0, y1])
    return np.array(out).reshape(-1, 2), roots


def p_region(pair):
    """[lo, hi]: P has mass below 1e-315 outside (its atoms +- 38 standard deviations)."""
    x = pair.means()[np.isfinite(pair.logw_p)]
    return float(x.min()) - P_REGION, float(x.max()) + P_REGION


def _hockey_stick_parts(pair, eps):
    """(floor, error bound, roots, P(A), e^eps Q(A)) for P||Q at eps. The masses are summed in
    logs (no term underflows), then exponentiated once."""
    lo, hi = p_region(pair)
    A, roots = positive_set(pair, eps, lo, hi)
    if A.shape[0] == 0:
        return 0.0, 0.0, roots, 0.0, 0.0
    x = pair.means()
    P = math.exp(float(_lse(log_interval_mass(pair.logw_p, x, A[:, 0], A[:, 1]))))
    with np.errstate(over="ignore"):
        EQ = float(np.exp(eps + _lse(log_interval_mass(pair.logw_q, x, A[:, 0], A[:, 1]))))
    err = TERM_RELATIVE_ERROR * (P + EQ)
    return max(P - EQ - err, 0.0), err, roots, P, EQ


def hockey_stick(pair, eps):
    """(floor, error bound, roots): floor <= delta(eps) = sup_A P(A) - e^eps Q(A) for P||Q."""
    return _hockey_stick_parts(pair, eps)[:3]


def delta_floor(pair, eps, with_error=False):
    """A floor of delta(eps) over both directions (P||Q and Q||P); with_error: also the rounding
    bound subtracted from it (how far below the exact value it may be, roots being exact)."""
    a, b = hockey_stick(pair, eps), hockey_stick(pair.reversed(), eps)
    best = a if a[0] >= b[0] else b
    return (best[0], best[1]) if with_error else best[0]


def epsilon_floor(pair, delta, rel_tol=1e-10, guess=None):
    """eps(delta) for P||Q rounded down: a bracket [lo, hi] with a certified delta floor > delta at
    lo (so the exact eps(delta) > lo, delta being decreasing in eps) and none at hi, narrowed by
    Newton's method on log delta (d delta / d eps = -e^eps Q(A)) or bisection, to rel_tol."""
    def floor_at(e):
        return _hockey_stick_parts(pair, e)[0]

    if floor_at(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    if guess is not None and guess > 0:
        # a bracket around a guess (a screening value) saves most of the iterations
        a, b = guess * (1 - 1e-2), guess * (1 + 1e-2) + 1e-3
        if floor_at(a) > delta:
            lo, hi = a, b
    while floor_at(hi) > delta:
        lo, hi = hi, 2 * hi
        if hi > 1e12:
            raise ArithmeticError("epsilon beyond 1e12")
    e = (lo + hi) / 2
    for _ in range(200):
        f, _, _, P, EQ = _hockey_stick_parts(pair, e)
        if f > delta:
            lo = e
        else:
            hi = e
        tol = rel_tol * (1 + lo)
        if hi - lo <= tol:
            break
        cand = math.nan
        if P - EQ > 0 and EQ > 0:
            cand = e + math.log((P - EQ) / delta) * (P - EQ) / EQ
        if abs(cand - e) <= tol:
            # Newton has converged (from either side): probe just to the left of the root
            r, t = min(cand, e), tol / 2
            while r - t > lo and floor_at(r - t) <= delta:
                t *= 10
            lo = max(lo, r - t)
            break
        e = cand if lo < cand < hi else (lo + hi) / 2
    return lo


def epsilon_floor_both(pair, delta, guess=None):
    return max(epsilon_floor(pair, delta, guess=guess), epsilon_floor(pair.reversed(), delta, guess=guess))


# ---------------------------------------------------------------------------------------------
# Renyi divergences


def _log_density(logw, x, y):
    """log of sum_s w_s phi(y - x_s) at the points y, without the factor 1/sqrt(2 pi)."""
    keep = np.isfinite(logw)
    t = logw[keep][None, :] - (y[:, None] - x[keep][None, :]) ** 2 / 2
    return _lse(t, axis=1)


def _log_integrand(pair, alpha, y):
    x = pair.means()
    return alpha * _log_density(pair.logw_p, x, y) + (1 - alpha) * _log_density(pair.logw_q, x, y)


def _transitions(x, logw):
    """Points where two components of a mixture have equal density: w_i phi(y - x_i) =
    w_j phi(y - x_j) at y = (x_i + x_j)/2 + (log w_i - log w_j)/(x_i - x_j)."""
    i, j = np.triu_indices(x.size, 1)
    return (x[i] + x[j]) / 2 + (logw[i] - logw[j]) / (x[i] - x[j])


def _lattice_cover(centres, radius):
    """The integers within radius of any of the (integer-valued) centres, sorted, each once."""
    c = np.unique(centres)
    # merge the intervals [c - radius, c + radius] that touch
    starts, ends = c - radius, c + radius
    new = np.concatenate([[True], starts[1:] > ends[:-1] + 1])
    lo = starts[new]
    hi = np.maximum.reduceat(ends, np.nonzero(new)[0])
    return np.concatenate([np.arange(a, b + 1) for a, b in zip(lo, hi)])


def _integrand_region(pair, alpha, step=0.05):
    """Scan points where log p^alpha q^(1-alpha) is within 60 of the scan's maximum, the scan
    step, and the scan (points, log integrand). Where one component of P (mean x_i) and one of Q
    (x_j) dominate, log p^alpha q^(1-alpha) is a concave quadratic of curvature 1 with its top
    at alpha x_i + (1 - alpha) x_j; so its maximum on the line is near such a point or where
    the dominating component changes (two components of P, or of Q, equal). The integrand is
    evaluated at all of these candidates, and scanned at `step` within +-8 of every candidate
    within 60 of the largest value; a coarse scan of the whole range is added."""
    keep_p, keep_q = np.isfinite(pair.logw_p), np.isfinite(pair.logw_q)
    xp, wp = pair.means()[keep_p], pair.logw_p[keep_p]
    xq, wq = pair.means()[keep_q], pair.logw_q[keep_q]
    cand = np.concatenate([(alpha * xp[:, None] + (1 - alpha) * xq[None, :]).ravel(),
                           _transitions(xp, wp), _transitions(xq, wq), xp, xq])
    ymin = min(float(cand.min()), float(xp.min())) - 40
    ymax = max(float(cand.max()), float(xp.max())) + 40
    cand = np.concatenate([cand, np.linspace(ymin, ymax, 5001)])
    lc = _log_integrand(pair, alpha, cand)
    near = np.round(cand[lc >= lc.max() - 60] / step)
    y = _lattice_cover(near, 160) * step
    li = _log_integrand(pair, alpha, y)
    return y[li > li.max() - 60], step, y, li


def renyi_floor(pair, alpha, rel_gap=1e-5):
    """(floor, rounding error bound, estimated discretisation gap) of D_alpha(P||Q), nats."""
    x = pair.means()
    core, step, yscan, li = _integrand_region(pair, alpha)
    # a rough value, to choose how fine the bins must be (a Riemann sum on the scan)
    dy = np.diff(yscan, append=yscan[-1] + step)
    rough = (_lse(li + np.log(dy)) - LOG_SQRT2PI) / (alpha - 1)
    dl = math.sqrt(24 * (rel_gap * max(rough, 0.0) + 1e-13) / alpha)
    # segments of the scan step around every core point, merged
    seg0 = np.unique(np.round((core - step) / step).astype(np.int64))
    seg0 = np.unique(np.concatenate([seg0, seg0 + 1, seg0 + 2]))
    ends0 = seg0 * step
    ends1 = ends0 + step
    # bound on the variation of the log-likelihood ratio over each segment from the
    # derivatives of the two convex log-sum-exps at its ends
    keep_p, keep_q = np.isfinite(pair.logw_p), np.isfinite(pair.logw_q)
    coef_p = (pair.logw_p[keep_p] - x[keep_p] ** 2 / 2, x[keep_p])
    coef_q = (pair.logw_q[keep_q] - x[keep_q] ** 2 / 2, x[keep_q])
    _, dp0 = _lse_affine(coef_p, ends0)
    _, dp1 = _lse_affine(coef_p, ends1)
    _, dq0 = _lse_affine(coef_q, ends0)
    _, dq1 = _lse_affine(coef_q, ends1)
    slope = np.maximum(np.abs(dp1 - dq0), np.abs(dp0 - dq1))
    # a segment holding a share W of the integral may take bins sqrt(1/(N W)) times coarser
    # (N segments): the gap, about the sum of W alpha dl^2 / 24, stays below its target
    li_mid = _log_integrand(pair, alpha, (ends0 + ends1) / 2)
    share = np.exp(li_mid - _lse(li_mid))
    coarser = np.clip(1 / np.sqrt(np.maximum(share * seg0.size, 1e-300)), 1, 100)
    nsub = np.clip(np.ceil(slope * step / (dl * coarser)), 1, 200000).astype(np.int64)
    # edges (segment + i/k) * step: computed alike on both sides of a segment boundary
    seg = np.repeat(seg0, nsub)
    first = np.repeat(np.cumsum(nsub) - nsub, nsub)
    frac = (np.arange(seg.size) - first) / np.repeat(nsub, nsub)
    edges = np.unique(np.concatenate([(seg + frac) * step, (seg0 + 1) * step]))
    # the partition: -inf, fine edges (the gaps between segments are single bins), +inf
    lo = np.concatenate([[-np.inf], edges])
    hi = np.concatenate([edges, [np.inf]])
    lp = log_interval_mass(pair.logw_p, x, lo, hi)
    lq = log_interval_mass(pair.logw_q, x, lo, hi)
    terms = alpha * lp + (1 - alpha) * lq
    ok = np.isfinite(lp)
    value = float(_lse(terms[ok])) / (alpha - 1)
    err_terms = TERM_RELATIVE_ERROR * (alpha * (1 + np.abs(lp[ok])) + (alpha - 1) * (1 + np.abs(lq[ok])))
    # the log-sum-exp moves by the softmax-weighted mean of its terms' errors (to first order;
    # doubled for the second order and the sum's own rounding)
    weights = np.exp(terms[ok] - terms[ok].max())
    err = 2 * (float((weights * err_terms).sum() / weights.sum()) + 1e-15 * math.log2(2 + ok.sum())) / (alpha - 1)
    gap = alpha * dl * dl / 24
    return value - err, err, gap


def renyi_floor_both(pair, alpha, with_error=False):
    """The larger of the two directions' floors; with_error: also how far below the exact value
    it may be (its rounding bound plus its estimated discretisation gap)."""
    a, b = renyi_floor(pair, alpha), renyi_floor(pair.reversed(), alpha)
    best = a if a[0] >= b[0] else b
    return (best[0], best[1] + best[2]) if with_error else best[0]


# ---------------------------------------------------------------------------------------------
# Screening (not a floor): to choose which instances get the exact computation


class ScreeningProfile:
    """delta(eps) of P||Q approximated on a grid (step 0.05 within 9 standard deviations of P's
    atoms of weight > e^-60): the privacy loss L = log p/q at each point with P's mass there.
    Cheap, and within a few percent of the exact value; used only to rank instances."""

    def __init__(self, pair, step=0.05):
        x = pair.means()
        keep = pair.logw_p > -60
        k = np.unique((np.round(x[keep] / step)[:, None] + np.arange(-180, 181)[None, :]).ravel())
        y = k * step
        lp = _log_density(pair.logw_p, x, y) - LOG_SQRT2PI
        lq = _log_density(pair.logw_q, x, y) - LOG_SQRT2PI
        loss = lp - lq
        order = np.argsort(-loss)
        self.loss = loss[order]
        self.cum_p = np.cumsum(np.exp(lp[order]) * step)
        with np.errstate(under="ignore"):
            self.cum_q = np.cumsum(np.exp(lq[order]) * step)

    def delta(self, eps):
        k = int(np.searchsorted(-self.loss, -eps, side="left"))
        if k == 0:
            return 0.0
        q = self.cum_q[k - 1]
        with np.errstate(over="ignore"):
            eq = math.exp(eps + math.log(q)) if q > 0 else 0.0
        return max(float(self.cum_p[k - 1]) - eq, 0.0)

    def epsilon(self, delta):
        if self.delta(0.0) <= delta:
            return 0.0
        lo, hi = 0.0, max(float(self.loss[0]), 1.0)
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self.delta(mid) > delta else (lo, mid)
        return lo


def screen(pair, delta, eps):
    """(eps(delta), delta(eps)) estimated over both directions."""
    a, b = ScreeningProfile(pair), ScreeningProfile(pair.reversed())
    return max(a.epsilon(delta), b.epsilon(delta)), max(a.delta(eps), b.delta(eps))


# ---------------------------------------------------------------------------------------------
# mpmath references (slow; unit tests only)


def _mp_log_density(mp, logw, x, y):
    terms = [mp.mpf(lw) - (y - mp.mpf(xi)) ** 2 / 2 for lw, xi in zip(logw, x) if math.isfinite(lw)]
    m = max(terms)
    return m + mp.log(mp.fsum(mp.exp(t - m) for t in terms)) - mp.log(mp.sqrt(2 * mp.pi))


def hockey_stick_mp(pair, eps, dps=40):
    """delta(eps) by mpmath: roots of log p - log q - eps located from this module's intervals
    and polished by mpmath.findroot, then P(A) - e^eps Q(A) with mpmath's ncdf at dps digits."""
    import mpmath
    mp = mpmath.mp
    with mpmath.workdps(dps):
        x = [mp.mpf(v) for v in pair.means()]
        A, _ = positive_set(pair, eps, *p_region(pair))
        lo, hi = p_region(pair)

        def g(y):
            return (_mp_log_density(mp, pair.logw_p, x, y) - _mp_log_density(mp, pair.logw_q, x, y) - eps)

        def polish(r):
            if r <= lo or r >= hi:
                return mp.mpf(r)
            try:
                return mp.findroot(g, (mp.mpf(r) - mp.mpf("1e-6"), mp.mpf(r) + mp.mpf("1e-6")), solver="anderson")
            except (ValueError, ZeroDivisionError):
                return mp.mpf(r)

        total = mp.mpf(0)
        for a, b in A:
            a2, b2 = polish(a), polish(b)
            for lw, lq, xi in zip(pair.logw_p, pair.logw_q, x):
                mass = mp.ncdf(b2 - xi) - mp.ncdf(a2 - xi)
                if math.isfinite(lw):
                    total += mp.exp(mp.mpf(lw)) * mass
                if math.isfinite(lq):
                    total -= mp.exp(mp.mpf(eps) + mp.mpf(lq)) * mass
        return total


def renyi_mp(pair, alpha, dps=40):
    """D_alpha(P||Q) by mpmath.quad of exp(alpha log p + (1 - alpha) log q) in logs, split at
    every scan point of the integrand's region (dps digits)."""
    import mpmath
    mp = mpmath.mp
    with mpmath.workdps(dps):
        x = [mp.mpf(v) for v in pair.means()]
        core, step, _, _ = _integrand_region(pair, alpha)
        a0, b0 = float(core.min()) - 20, float(core.max()) + 20
        ref = max(_log_integrand(pair, alpha, np.linspace(a0, b0, 20001)))

        def f(y):
            return mp.exp(alpha * _mp_log_density(mp, pair.logw_p, x, y)
                          + (1 - alpha) * _mp_log_density(mp, pair.logw_q, x, y) - ref
                          + 0.5 * mp.log(2 * mp.pi))

        pts = list(np.linspace(a0, b0, max(2, int((b0 - a0) / 0.5) + 1)))
        integral = mp.quad(f, [mp.mpf(p) for p in pts])
        return (mp.log(integral) + ref - 0.5 * mp.log(2 * mp.pi)) / (alpha - 1)


# ---------------------------------------------------------------------------------------------
# unit checks: python3 mixture_exact.py


def _gaussian_pair(mu):
    return LatticePair(mu, [0, 1], [-math.inf, 0.0], [0.0, -math.inf])


def _gaussian_delta(mu, eps):
    from mpmath import mp, ncdf
    mp.dps = 40
    return ncdf(-eps / mu + mu / 2) - mp.exp(eps) * ncdf(-eps / mu - mu / 2)


def _self_test():
    import time
    from fractions import Fraction
    from mpmath import mp, mpf
    mp.dps = 40
    failures = []

    def check(name, ok, detail):
        print(("ok    " if ok else "FAIL  ") + name + ": " + detail)
        if not ok:
            failures.append(name)

    t0 = time.time()
    # 0. log(Phi(b) - Phi(a)) against mpmath, from narrow to wide and from 0 to 3000 std out
    rng = np.random.default_rng(1)
    a = rng.choice([-1, 1], 400) * 10 ** rng.uniform(-3, 3.5, 400)
    b = a + 10 ** rng.uniform(-14, 2.5, 400)
    got = log_ndtr_diff(a, b)
    worst = 0.0
    for ai, bi, gi in zip(a, b, got):
        ref = mp.log(mp.ncdf(mpf(bi)) - mp.ncdf(mpf(ai))) if bi < 0 else mp.log(mp.ncdf(-mpf(ai)) - mp.ncdf(-mpf(bi)))
        worst = max(worst, float(abs(mpf(gi) - ref) / (1 + abs(ref))))
    check("log_ndtr_diff", worst < TERM_RELATIVE_ERROR / 10, f"largest error {worst:.2e} (relative to 1 + |log mass|)")
    # 1. a single Gaussian: delta(eps) in closed form (Dong, Roth & Su 2022 Cor 2.13)
    for mu, eps in [(0.5, 0.3), (2.0, 1.0), (2.0, 5.0), (40.0, 700.0), (200.0, 19000.0), (1000.0, 4.9e5)]:
        exact = _gaussian_delta(mu, eps)
        got = delta_floor(_gaussian_pair(mu), eps)
        rel = abs(mpf(got) - exact) / exact
        check(f"gaussian delta mu={mu} eps={eps}", got <= exact and rel < 1e-11,
              f"floor {got:.15g} exact {mp.nstr(exact, 15)} rel gap {mp.nstr(rel, 3)}")
    # epsilon of a single Gaussian against mpmath's root of the closed form
    for mu, delta in [(1.0, 1e-5), (200.0, 1e-5), (0.05, 1e-3)]:
        got = epsilon_floor_both(_gaussian_pair(mu), delta)
        exact = mp.findroot(lambda e: _gaussian_delta(mu, e) - delta, (got - 1e-3 * (1 + got), got + 1e-3 * (1 + got)),
                            solver="illinois")
        check(f"gaussian epsilon mu={mu} delta={delta}", got <= exact and exact - got < 1e-8 * (1 + exact),
              f"floor {got:.12g} exact {mp.nstr(exact, 15)}")
    # 2. Renyi of two Gaussians: alpha mu^2 / 2
    for mu in [1e-3, 0.1, 2.0, 400.0, 2000.0]:
        for alpha in [1.5, 2.0, 32.0]:
            got, err, gap = renyi_floor(_gaussian_pair(mu), alpha)
            exact = alpha * mu * mu / 2
            check(f"gaussian renyi mu={mu} alpha={alpha}", got <= exact and (exact - got) <= 2e-5 * exact + 1e-11,
                  f"floor {got:.12g} exact {exact:.12g} rel gap {(exact - got) / exact:.2e} "
                  f"(err {err:.1e}, est gap {gap:.1e})")
    # 3. issue 34's pair: zero-out, per-step batches, q = 0.01, m = 1: eps(1e-5) = 2.3989
    q = Fraction(1, 100)
    for m, want in [(1.0, 2.3989)]:
        pair = LatticePair.from_laws({0: 1 - q, 2: q}, {0: 1 - q, 1: q}, 1 / m)
        e = epsilon_floor_both(pair, 1e-5)
        d = delta_floor(pair, 2.3989)
        check("issue 34 pair epsilon", abs(e - want) < 1e-4 and abs(d - 1.00003e-5) < 1e-10,
              f"eps floor {e:.6f}, delta(2.3989) {d:.8g} (issue: 2.3989, 1.00003e-5)")
    # 4. mixtures with shifts of hundreds of standard deviations against mpmath at 40 digits
    for m in [1.0, 0.05, 0.005]:
        pair = LatticePair.from_laws({0: 1 - q, 2: q}, {0: 1 - q, 1: q}, 1 / m)
        for p2, eps in [(pair, 2.0), (pair.reversed(), 2.0), (pair, 50.0)]:
            got, err, roots = hockey_stick(p2, eps)
            ref = hockey_stick_mp(p2, eps)
            check(f"mixture delta m={m} eps={eps}", mpf(got) <= ref and abs(mpf(got) - ref) <= 1e-12 * ref + 1e-300,
                  f"floor {got:.15g} mpmath {mp.nstr(ref, 15)} roots {roots}")
        for alpha in [2.0, 8.0]:
            for p2 in (pair, pair.reversed()):
                got, err, gap = renyi_floor(p2, alpha)
                ref = renyi_mp(p2, alpha)
                rel = (ref - got) / ref
                check(f"mixture renyi m={m} alpha={alpha}", got <= ref and rel < 2e-5,
                      f"floor {got:.12g} mpmath {mp.nstr(ref, 15)} rel gap {mp.nstr(rel, 3)}")
    # 5. a Poisson mixture with many atoms: Binomial(4, 0.3) shifts of 2 vs 0, multiplier 0.05
    from math import comb
    p = Fraction(3, 10)
    law = {2 * j: comb(4, j) * p**j * (1 - p) ** (4 - j) for j in range(5)}
    pair = LatticePair.from_laws(law, {0: Fraction(1)}, 1 / (2 * 0.05 * 2))
    for p2 in (pair, pair.reversed()):
        got, _, roots = hockey_stick(p2, 10.0)
        ref = hockey_stick_mp(p2, 10.0)
        check("binomial mixture delta", mpf(got) <= ref and abs(mpf(got) - ref) <= 1e-12 * ref + 1e-300,
              f"floor {got:.15g} mpmath {mp.nstr(ref, 15)} roots {roots}")
        got, _, _ = renyi_floor(p2, 4.0)
        ref = renyi_mp(p2, 4.0)
        check("binomial mixture renyi", got <= ref and (ref - got) / ref < 2e-5,
              f"floor {got:.12g} mpmath {mp.nstr(ref, 15)}")
    # 6. far apart (multiplier 0.005, atoms 100 standard deviations apart): the divergences of
    # the weights themselves, which data processing puts above the mixtures' (and the gap is tiny)
    r = np.random.default_rng(3)
    w, v = r.random(17), r.random(17)
    w, v = w / w.sum(), v / v.sum()
    pair = LatticePair(100.0, np.arange(17), np.log(w), np.log(v))
    for alpha in [1.5, 3.0, 32.0]:
        got = renyi_floor(pair, alpha)[0]
        discrete = math.log(float(np.sum(w ** alpha * v ** (1 - alpha)))) / (alpha - 1)
        check(f"far-apart renyi alpha={alpha}", got <= discrete and discrete - got < 1e-5 * discrete,
              f"floor {got:.12g}, weights' divergence {discrete:.12g}")
    for eps in [0.1, 1.0]:
        got = hockey_stick(pair, eps)[0]
        discrete = float(np.sum(np.maximum(w - math.exp(eps) * v, 0)))
        check(f"far-apart delta eps={eps}", got <= discrete and discrete - got < 1e-12,
              f"floor {got:.15g}, weights' {discrete:.15g}")
    # 7. the screening estimate is close to the floor (it only ranks instances)
    pair = LatticePair.from_laws({0: 1 - q, 2: q}, {0: 1 - q, 1: q}, 1.0)
    e_screen, _ = screen(pair, 1e-5, 1.0)
    check("screening", abs(e_screen - 2.3989) < 0.05, f"screened epsilon {e_screen:.5f} (exact 2.3989)")
    print(f"{len(failures)} failure(s), {time.time() - t0:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(_self_test())
