"""Exact Rényi divergences of the last iterates of noisy GD on quadratic losses, computed here from
the update rule, independently of rdpdyn (no rdpdyn code is called or ported).

Conventions (docs/math.md section 1; C21 = Chourasia, Ye & Shokri 2021, arXiv:2102.05855):
one step of full-batch noisy GD on l(theta; x) = (theta - x)^T H (theta - x)/2 is
    theta <- theta - (eta/n) sum_i H (theta - x_i) + sqrt(2 eta) sigma N(0, I)        (C21 Alg. 1)
(a mini-batch of fixed size b: (eta/b) sum over the batch; Ye & Shokri 2022, Alg. 1). Two runs on
neighbouring datasets differing in record x vs x' share every Gaussian noise law, so both iterates
are Gaussian with the SAME covariance and means that differ by a deterministic vector m:
    m_{k+1}     = (I - eta H) m_k + (eta/n) v,         v = H (x - x'),  |v| <= S_g,
    Sigma_{k+1} = (I - eta H) Sigma_k (I - eta H)^T + 2 eta sigma^2 I,
    Sigma_0     = s^2 I (a shared start N(mu, s^2 I), quadratic.initial_std) or 0 (a point start).
(C21 Thm 3 proof, App. E, for H = I; the same computation with I - eta H for a general H.)

Rényi divergence of two Gaussians with one covariance (C21 eq. (1)):
    R_alpha(N(mu + m, Sigma) || N(mu, Sigma)) = alpha m^T Sigma^{-1} m / 2
(Mironov 2017, arXiv:1702.07476, Prop. 7 for N(m, I) vs N(0, I); the whitening map Sigma^{-1/2} is
a bijection, so by the data-processing inequality in both directions (van Erven & Harremoës 2014,
arXiv:1206.2459, Thm 9) it does not change the divergence.)

Every matrix above is a polynomial in H (Sigma_0 is a multiple of I), so in an orthonormal
eigenbasis u_i of H (eigenvalue h_i) everything is diagonal: per direction
    q_i  (mean gap per unit of v_i = u_i . v),   V_i (variance),   p_i (factor of an initial mean gap),
and  m^T Sigma^{-1} m = sum_i (p_i g_i + q_i v_i)^2 / V_i.  Hence the worst pair allowed by S_g is
    sup_{|v| <= S_g} R_alpha / alpha = S_g^2 max_i q_i^2 / (2 V_i),
attained by v along the eigenvector of the largest q_i^2 / V_i (a Rayleigh quotient of a diagonal
form). Over a phase of K steps with constant eta, sigma (a_i = 1 - eta h_i):
    q <- a^K q + (eta/n) sum_{j<K} a^j,   V <- a^{2K} V + 2 eta sigma^2 sum_{j<K} a^{2j},   p <- a^K p
(geometric sums; K when the ratio is 1). A data-independent map theta -> L theta applied to both
runs (a `lipschitz` event realised as a scaling) multiplies q and p by L and V by L^2.

The values are computed with mpmath at two precisions (30 and 50 digits); they must agree to 1e-20
relative (else ExactError), and the 50-digit value, lowered by 1e-20 relative, is rounded DOWN to
a double: the returned lower value is <= the exact divergence of the double-precision inputs, so
a bound is checked against it with no slack.

Mixtures (noisy mini-batch GD with a random batch position): in one eigen-direction the two last
iterates are P = sum_B w_B N(g_B, V) and Q = N(0, V) (the other records are 0 and x' = 0, so the run
on D' does not depend on the batches), and R_alpha(P||Q) = ln E_Q[(dP/dQ)^alpha] / (alpha - 1),
R_alpha(Q||P) = ln E_Q[(dP/dQ)^(1 - alpha)] / (alpha - 1) (C21 eq. (1)) are 1-D integrals against
N(0, 1), computed by the trapezoidal rule in double precision (geometrically convergent for these
analytic, Gaussian-decaying integrands) at two step sizes; see mixture_renyi.
"""
import functools
import math
from fractions import Fraction

import numpy as np
from mpmath import mp, mpf

# Relative agreement required between the 30- and 50-digit evaluations, and the amount by which
# the 50-digit value is lowered before rounding down (far below one double ulp, 1.1e-16).
MP_AGREEMENT = mpf("1e-20")
# Mixtures are computed in double precision: their lower value is the quadrature value times
# (1 - MIXTURE_SLACK); the quadrature's own error (difference between two step sizes, and the
# rounding of the sums) must stay below MIXTURE_TOLERANCE relative, else ExactError.
MIXTURE_SLACK = 1e-10
MIXTURE_TOLERANCE = 1e-12


class ExactError(RuntimeError):
    """The exact value could not be certified (precisions disagree, quadrature not converged)."""


def down(x):
    """The largest double <= x (x an mpf)."""
    f = float(x)
    while mpf(f) > x:
        f = math.nextafter(f, -math.inf)
    return f


def up(x):
    """The smallest double >= x (x an mpf)."""
    f = float(x)
    while mpf(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def exact(x):
    """An mpf of a double or a Fraction, at the current precision (a double is exact; a Fraction
    is rounded once)."""
    if isinstance(x, Fraction):
        return mpf(x.numerator) / mpf(x.denominator)
    return mpf(float(x))


def geometric(r, k):
    """sum_{j<k} r^j in mpmath (k when r = 1)."""
    if r == 1:
        return mpf(k)
    return (1 - r**k) / (1 - r)


def eigenvalues(H):
    """The eigenvalues and orthonormal eigenvectors (columns) of the symmetric double matrix H in
    mpmath at the current precision (mp.eigsy: tridiagonal reduction and implicit QL)."""
    return _eigenvalues(tuple(tuple(float(x) for x in row) for row in H), mp.prec)


@functools.lru_cache(maxsize=64)
def _eigenvalues(H, prec):
    d = len(H)
    with mp.workprec(prec):
        M = mp.matrix(d, d)
        for i in range(d):
            for j in range(d):
                M[i, j] = mpf(H[i][j])
        E, Q = mp.eigsy(M)
        return [E[i] for i in range(d)], Q


# ---------------------------------------------------------------------------------------------
# Full-batch noisy GD: per-eigen-direction propagation.
#
# A run is described by `program`: a list of operations applied in order,
#   ("steps", K, eta, var, c)   K steps of size eta (a double) with per-step noise variance `var`
#                               (= 2 eta sigma^2) and mean-gap injection c per step (eta/n), both
#                               exact fractions.Fraction of the configuration's doubles
#   ("scale", L)                the map theta -> L theta applied to both runs (L a double)
# ---------------------------------------------------------------------------------------------

def propagate(h, program, s2):
    """For one eigenvalue h: the final (p, q, V) and the largest variance at any step boundary
    (before and after every map), from V_0 = s2 (mpf), p_0 = 1, q_0 = 0."""
    p, q, V = mpf(1), mpf(0), s2
    vmax = V
    for op in program:
        if op[0] == "steps":
            _, K, eta, var, c = op
            a = 1 - mpf(eta) * h
            aK = a**K
            q = aK * q + exact(c) * geometric(a, K)
            V = aK * aK * V + exact(var) * geometric(a * a, K)
            p = aK * p
        else:
            L = mpf(op[1])
            p, q, V = L * p, L * q, L * L * V
        # The variance moves monotonically within a phase (towards 2 eta sigma^2/(1 - a^2), or
        # upwards when |a| >= 1), so its largest value over a phase is at one of its ends.
        vmax = max(vmax, V)
    return p, q, V, vmax


def gaussian_slopes(H, program, s2, sensitivity, pair=None, gap2=None):
    """R_alpha / alpha (exact, mpf at the current precision) of the last iterates:
    'worst': sup over |H (x - x')| <= S_g (zero initial mean gap);
    'pair':  for x - x' = pair;
    'gap':   an initial mean gap g with |g|^2 = gap2 and v both along the eigenvector where their
             aligned sum is largest (one instance of initial laws N(mu + g, s^2 I) vs N(mu, s^2 I));
    'inf_c': 1 / sup over step boundaries of lambda_max(Sigma) (the exact LSI constant's infimum,
             N(m, S) is 1/lambda_max(S)-LSI; C21 Lemma 8 applied to N(0, I), which is 1-LSI);
    'h':     the eigenvalues."""
    hs, U = eigenvalues(H)
    S = exact(sensitivity)
    s2 = exact(s2)
    out = {"h": hs, "worst": mpf(0), "pair": None, "gap": None}
    vmax_all = mpf(0)
    per_direction = []
    for i, h in enumerate(hs):
        p, q, V, vmax = propagate(h, program, s2)
        vmax_all = max(vmax_all, vmax)
        per_direction.append((p, q, V))
        out["worst"] = max(out["worst"], S * S * q * q / (2 * V))
    out["inf_c"] = 1 / vmax_all if vmax_all > 0 else mp.inf
    # Condition number of the final covariance (for the tolerances of double-precision checks).
    out["cond"] = max(V for _, _, V in per_direction) / min(V for _, _, V in per_direction)
    if pair is not None:
        d = len(hs)
        Hp = [sum(mpf(float(H[r][c])) * mpf(float(pair[c])) for c in range(d)) for r in range(d)]
        total = mpf(0)
        for i, (p, q, V) in enumerate(per_direction):
            vi = sum(U[r, i] * Hp[r] for r in range(d))
            total += q * q * vi * vi / (2 * V)
        out["pair"] = total
    if gap2 is not None:
        g = mp.sqrt(exact(gap2))
        out["gap"] = max((abs(p) * g + abs(q) * S) ** 2 / (2 * V) for p, q, V in per_direction)
    return out


def certified(compute, *args, **kwargs):
    """compute(*args, **kwargs) evaluated at 30 and 50 digits. Every mpf in the result (a dict,
    possibly holding lists) must agree to MP_AGREEMENT relative between the two, else ExactError.
    Returns the 50-digit result; lower()/upper() then round it outward to doubles."""
    results = []
    for dps in (30, 50):
        with mp.workdps(dps):
            results.append(compute(*args, **kwargs))

    def walk(a, b, key):
        if isinstance(b, dict):
            for k in b:
                walk(a[k], b[k], k)
        elif isinstance(b, list):
            for x, y in zip(a, b):
                walk(x, y, key)
        elif isinstance(b, mpf) and mp.isfinite(b):
            with mp.workdps(50):
                if abs(a - b) > MP_AGREEMENT * abs(b):
                    raise ExactError(f"'{key}': 30 and 50 digits disagree: {a} vs {b}")
    walk(results[0], results[1], "")
    return results[1]


def lower(x):
    """A double <= the exact value, from its 50-digit value x (>= 0) certified by `certified`."""
    with mp.workdps(50):
        return down(x * (1 - MP_AGREEMENT))


def upper(x):
    """A double >= the exact value, from its 50-digit value x (>= 0) certified by `certified`."""
    with mp.workdps(50):
        return up(x * (1 + MP_AGREEMENT))


def squared_loss_thm3(alpha, sensitivity, sigma, n, eta, K):
    """C21 Thm 3, last equality of its proof (App. E): the exact R_alpha for the squared loss from
    theta_0 = 0 (one phase, eta < 1):
        alpha S_g^2 / (4 sigma^2 n^2) * (2 - eta) (1 - (1 - eta)^K) / (1 + (1 - eta)^K)."""
    S, sig, n, eta, alpha = (exact(x) for x in (sensitivity, sigma, n, eta, alpha))
    r = (1 - eta) ** K
    return alpha * S**2 / (4 * sig**2 * n**2) * (2 - eta) * (1 - r) / (1 + r)


# ---------------------------------------------------------------------------------------------
# Literal cross-check in double precision: the moments propagated step by step with matrices.
# ---------------------------------------------------------------------------------------------

def literal_slopes(H, program, s2, sensitivity, pair=None, gap=None):
    """The same quantities as gaussian_slopes, by propagating the mean-gap map M (v -> m), the
    initial-gap map P and the covariance Sigma one step at a time with numpy matrices, and the
    worst case as S_g^2 lambda_max(M^T Sigma^{-1} M)/2 (Cholesky whitening, singular values).
    Independent of the eigen-decomposition closed forms: a check of their derivation."""
    H = np.array(H, dtype=float)
    sensitivity = float(sensitivity)
    gap = None if gap is None else float(gap)
    d = H.shape[0]
    I = np.eye(d)
    M, P, Sig = np.zeros((d, d)), I.copy(), float(s2) * I
    for op in program:
        if op[0] == "steps":
            _, K, eta, var, c = op
            A = I - eta * H
            c, var = float(c), float(var)
            for _ in range(K):
                M = A @ M + c * I
                P = A @ P
                Sig = A @ Sig @ A.T + var * I
        else:
            L = op[1]
            M, P, Sig = L * M, L * P, L * L * Sig
    Lc = np.linalg.cholesky(Sig)
    W = np.linalg.solve(Lc, M)
    out = {"worst": sensitivity**2 * np.linalg.svd(W, compute_uv=False)[0] ** 2 / 2}
    if pair is not None:
        m = M @ (H @ np.array(pair, dtype=float))
        z = np.linalg.solve(Lc, m)
        out["pair"] = z @ z / 2
    if gap is not None:
        best = 0.0
        _, U = np.linalg.eigh(H)
        for i in range(d):
            u = U[:, i]
            for sign in (1.0, -1.0):
                z = np.linalg.solve(Lc, gap * (P @ u) + sign * sensitivity * (M @ u))
                best = max(best, z @ z / 2)
        out["gap"] = best
    return out


# ---------------------------------------------------------------------------------------------
# Mixtures: one eigen-direction, P = sum_j w_j N(t_j, 1) against Q = N(0, 1) (means in units of the
# standard deviation).
# ---------------------------------------------------------------------------------------------

def _series(x, coefficients):
    """sum_{k>=2} coefficients[k-2] x^k (Horner)."""
    acc = np.zeros_like(x)
    for c in reversed(coefficients):
        acc = acc * x + c
    return acc * x * x


_EXPM1_COEFFICIENTS = [1 / math.factorial(k) for k in range(2, 30)]
_LOG1P_COEFFICIENTS = [(-1) ** (k + 1) / k for k in range(2, 40)]


def _minus_identity(function, x, limit, coefficients):
    """function(x) - x without cancellation: its Taylor series (coefficients of x^2, x^3, ...)
    where |x| < limit."""
    x = np.asarray(x, dtype=float)
    out = function(x) - x
    small = np.abs(x) < limit
    out[small] = _series(x[small], coefficients)
    return out


def _expm1_minus_x(x):
    return _minus_identity(np.expm1, x, 0.5, _EXPM1_COEFFICIENTS)  # 28 terms: 0.5^30/30! ~ 1e-42


def _log1p_minus_x(u):
    return _minus_identity(np.log1p, u, 0.1, _LOG1P_COEFFICIENTS)  # 38 terms: 0.1^40/40 ~ 1e-42


def _binomial_remainder(beta, u):
    """(1 + u)^beta - 1 - beta u without cancellation: the binomial series sum_{k>=2} C(beta, k) u^k
    where |u| < 0.05 and |beta u| < 5 (60 terms: the terms fall below 1e-17 of the first); for
    u <= 1 (expm1(beta u) - beta u) + e^(beta u) expm1(beta (log1p(u) - u)); for u > 1 directly
    (no cancellation there)."""
    u = np.asarray(u, dtype=float)
    out = np.empty_like(u)
    large = u > 1
    out[large] = np.expm1(beta * np.log1p(u[large])) - beta * u[large]
    um = u[~large]
    out[~large] = _expm1_minus_x(beta * um) + np.exp(beta * um) * np.expm1(beta * _log1p_minus_x(um))
    small = (np.abs(u) < 0.05) & (np.abs(beta * u) < 5)
    coefficients = [beta * (beta - 1) / 2]
    for k in range(3, 62):
        coefficients.append(coefficients[-1] * (beta - k + 1) / k)
    out[small] = _series(u[small], coefficients)
    return out


def _trapezoid_moments(beta, t, w, h):
    """E[f^beta] for Z ~ N(0,1), f(z) = sum_j w_j exp(t_j z - t_j^2/2) (= dP/dQ), by the trapezoidal
    rule with steps h and 2h (every other node) over the range where the integrand is not
    negligible (40 standard deviations beyond the centres 0 and beta t_j). Returns
    ("small", (E - 1 at h, at 2h)) computed as E[(1+u)^beta - 1 - beta u], u = f - 1 (exact
    centring: E[u] = 0), when that is finite and below 1e-2, else ("log", (ln E at h, at 2h))."""
    centres = [0.0, beta * float(t.min()), beta * float(t.max())]
    lo, hi = min(centres) - 40.0, max(centres) + 40.0
    k = np.arange(2 * math.floor(lo / (2 * h)), 2 * math.ceil(hi / (2 * h)) + 1)
    z = k * h
    even = k % 2 == 0
    shifted = np.outer(z, t) - (t * t / 2)[None, :]
    phi = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    with np.errstate(all="ignore"):  # non-finite small-regime values fall back to the log domain
        u = (w[None, :] * np.expm1(shifted)).sum(axis=1)
        g = phi * _binomial_remainder(beta, u)
        small = (float(g.sum() * h), float(g[even].sum() * 2 * h))
    if all(math.isfinite(s) and abs(s) < 1e-2 for s in small):
        return "small", small
    expo = np.log(w)[None, :] + shifted
    mx = expo.max(axis=1)
    ell = -z * z / 2 + beta * (mx + np.log(np.exp(expo - mx[:, None]).sum(axis=1)))
    top = ell.max()
    log_values = tuple(float(top + math.log(np.exp(ell[sel] - top).sum() * step) - 0.5 * math.log(2 * math.pi))
                       for sel, step in ((slice(None), h), (even, 2 * h)))
    return "log", log_values


def mixture_renyi(alpha, t, w):
    """(R_alpha(P||Q), R_alpha(Q||P)) for P = sum_j w_j N(t_j, 1), Q = N(0, 1), w summing to 1, as
    (value, relative error estimate) pairs, by C21 eq. (1): R = ln E_Q[(dP/dQ)^beta] / (alpha - 1)
    with beta = alpha, resp. 1 - alpha. The estimate is the difference between steps 0.05 and 0.1
    (the rule converges geometrically for these analytic integrands) plus 1e-14 for the rounding
    of the sums."""
    t = np.asarray(t, dtype=float)
    w = np.asarray(w, dtype=float)
    w = w / w.sum()
    results = []
    for beta in (alpha, 1.0 - alpha):
        regime, (fine, coarse) = _trapezoid_moments(beta, t, w, 0.05)
        to_r = (lambda x: math.log1p(x) / (alpha - 1)) if regime == "small" else (lambda x: x / (alpha - 1))
        v, v2 = to_r(fine), to_r(coarse)
        err = (abs(v - v2) / abs(v) if v != 0 else 0.0) + 1e-14
        results.append((v, err))
    return results
