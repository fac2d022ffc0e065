"""The floors the tests use (issue 34, item 4), each the exact privacy (or a certified lower bound of
it) of a concrete pair of neighbouring datasets, computed by floors.py independently of rdpdyn.

usage: /usr/bin/python3 tests/soundness/floors/values.py [NAME ...]
Prints every value (or the named ones) to 16 digits, rounded DOWN, with the datasets it comes from;
values.json beside this file caches them (delete it to recompute; the long compositions take a few
minutes). The tests quote these numbers with a pointer to the name printed here.

Conventions. "Remove pair (q, mu)": (1-q) N(0,1) + q N(mu,1) against N(0,1); "add pair": the reverse.
Noise units: a DP-SGD run of multiplier m has noise std m C on the sum of gradients clipped at C.
Quadratic runs: l(theta; x) = h (theta - x)^2 / 2 in one dimension, the differing record moving the
update by d = eta S_g / b when it is in the batch (|h (x - x')| = S_g), the other records equal on
both datasets; both last iterates are Gaussian with the same variance V and mean gap m, so
R_alpha = alpha m^2 / (2 V) and epsilon(delta) is the Gaussian mechanism's at mu = m / sqrt(V)
(Mironov 2017 Prop. 7; Dong, Roth & Su 2022 Cor 2.13), point start (V_0 = 0) unless stated.
"""
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floors import (Pair, binomial_mixture, composed_eps_floor, gaussian_eps, gaussian_mu_for,  # noqa: E402
                    mixture, mp, mpf, renyi, renyi_trapezoid)

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "values.json")


def down(x, digits=16):
    """x rounded down to `digits` significant digits (a floor stays a floor)."""
    x = mpf(x)
    if x == 0:
        return 0.0
    e = int(mp.floor(mp.log10(abs(x)))) - digits + 1
    return float(mp.floor(x / mpf(10) ** e) * mpf(10) ** e)


def remove_pair(q, mu):
    q = mpf(q)
    return mixture([(1 - q, 0), (q, mu)]), mixture([(1, 0)])


def composed_both(P, Q, k, delta, h):
    return max(composed_eps_floor(P, Q, k, delta, h=h), composed_eps_floor(Q, P, k, delta, h=h))


def quadratic(c, d, s2, uses, T, V0=0):
    """mean gap and variance of the last iterate: m <- c m + d [step uses the record], V <- c^2 V + s2."""
    m, V = mpf(0), mpf(V0)
    c, d, s2 = mpf(c), mpf(d), mpf(s2)
    for t in range(T):
        m = c * m + (d if uses(t) else 0)
        V = c * c * V + s2
    return m, V


def position_gaps(c, d, s2, N, T):
    """mean gaps of the record in batch j = 0..N-1 of a partition cycled in order (step t uses batch
    t mod N) and the common variance; closed-form geometric sums are avoided: stepped in mpmath."""
    c, d, s2 = mpf(c), mpf(d), mpf(s2)
    gaps = [mpf(0)] * N
    V = mpf(0)
    for t in range(T):
        j = t % N
        gaps = [c * g + (d if i == j else 0) for i, g in enumerate(gaps)]
        V = c * c * V + s2
    return gaps, V


def mixture_renyi_both(gaps, V, alpha):
    """R_alpha of the uniform mixture of N(g_j, V) against N(0, V), the larger direction."""
    s = mp.sqrt(V)
    P = mixture([(mpf(1) / len(gaps), g / s) for g in gaps])
    Q = mixture([(1, 0)])
    return max(renyi_trapezoid(P, Q, alpha), renyi_trapezoid(Q, P, alpha))


def mixture_eps(gaps, V, delta):
    s = mp.sqrt(V)
    P = mixture([(mpf(1) / len(gaps), g / s) for g in gaps])
    Q = mixture([(1, 0)])
    return max(Pair(P, Q).eps_floor(delta), Pair(Q, P).eps_floor(delta))


# ------------------------------------------------------------------------------------------------
# The values, by name. Each returns a number or a list of numbers (rounded down).
# ------------------------------------------------------------------------------------------------

V = {}


def value(name, doc):
    def wrap(f):
        V[name] = (doc, f)
        return f
    return wrap


Q01 = mpf("0.01")


@value("zero_out_per_step_m1",
       "zero-out, b of n drawn afresh (q = 0.01), multiplier 1: the others at -C, the record at +C against the "
       "null record: P = 0.99 N(0) + 0.01 N(2), Q = 0.99 N(0) + 0.01 N(1); epsilon at delta 1e-5 after 1, 10, 100 "
       "steps (1: exact, 40 digits; 10, 100: certified lower bracket, h = 2^-10), the larger direction")
def _():
    P, Q = mixture([(1 - Q01, 0), (Q01, 2)]), mixture([(1 - Q01, 0), (Q01, 1)])
    one = max(Pair(P, Q).eps_floor(1e-5), Pair(Q, P).eps_floor(1e-5))
    return [down(one, 8), down(composed_both(P, Q, 10, 1e-5, 2.0**-10), 8),
            down(composed_both(P, Q, 100, 1e-5, 2.0**-10), 8)]


@value("zero_out_per_step_m1.1_3000",
       "the same pair at multiplier 1.1 (shifts 2/1.1, 1/1.1), 3000 steps, delta 1e-5: epsilon (certified lower "
       "bracket, h = 2^-8), then R at orders 2, 4, 8, 16, 32 (3000 times the one-step R, the larger direction; "
       "mpmath quadrature)")
def _():
    m = mpf("1.1")
    P, Q = mixture([(1 - Q01, 0), (Q01, 2 / m)]), mixture([(1 - Q01, 0), (Q01, 1 / m)])
    eps = composed_both(P, Q, 3000, 1e-5, 2.0**-8)
    R = [3000 * max(renyi(P, Q, a), renyi(Q, P, a)) for a in (2, 4, 8, 16, 32)]
    return [down(eps, 8)] + [down(r, 12) for r in R]


@value("replace_per_step_m1.6_1000",
       "replace-one, b = 500 of n = 50000 drawn afresh (q = 0.01), multiplier 1.6 (S_g = 2C, mu = 1.25): the "
       "others at -C, the record at +C against -C: the remove pair (0.01, 1.25) (and, swapped, the add pair); "
       "1000 steps, delta 1e-5, certified lower bracket (h = 2^-9), the larger direction")
def _():
    P, Q = remove_pair(Q01, mpf("1.25"))
    return down(composed_both(P, Q, 1000, 1e-5, 2.0**-9), 8)


@value("poisson_replace_m1.1_1000",
       "replace-one, Poisson q = 0.01, multiplier 1.1, S_g = 2C bounding only the gradients' difference (no norm "
       "bound): the others at 0, the record's gradient 2C against 0: the remove pair (0.01, 2/1.1); 1000 steps, "
       "delta 1e-5, certified lower bracket (h = 2^-9), the larger direction")
def _():
    P, Q = remove_pair(Q01, 2 / mpf("1.1"))
    return down(composed_both(P, Q, 1000, 1e-5, 2.0**-9), 8)


@value("poisson_replace_m1.1_10000",
       "the same pair, 10000 steps (examples/dpsgd_accounting.toml under replace), delta 1e-5, certified lower "
       "bracket (h = 2^-7), remove direction")
def _():
    P, Q = remove_pair(Q01, 2 / mpf("1.1"))
    return down(composed_eps_floor(P, Q, 10000, 1e-5, h=2.0**-7), 8)


EPS_CQ = [-2.0, -0.5, -0.01, 0.0, 0.01, 0.1, 0.5, 1.0, 2.0, 4.0]


@value("cq_profile_q0.01_mu1/1.1",
       "one step of b of n drawn afresh (q = 0.01) under replace-one, shift mu = 1/1.1: the datasets of the remove "
       "pair and of the add pair; delta(eps) of each (exact, 40 digits) at eps = " + str(EPS_CQ) +
       ", the larger; then the q = 1 Gaussian N(mu) vs N(0) at eps 0.3")
def _():
    P, Q = remove_pair(Q01, 1 / mpf("1.1"))
    a, b = Pair(P, Q), Pair(Q, P)
    out = [max(a.hs_floor(e), b.hs_floor(e)) for e in EPS_CQ]
    mu = 1 / mpf("1.1")
    g = mp.ncdf(-mpf("0.3") / mu + mu / 2) - mp.e ** mpf("0.3") * mp.ncdf(-mpf("0.3") / mu - mu / 2)
    return [float(x) for x in out] + [float(g)]


@value("revealed_mixture_profile",
       "the pair that reveals which of three pairs it draws (weights 0.5: N(0.5) vs N(0); 0.3: N(2) vs N(0); "
       "0.19: N(0) vs N(0)) and, with weight 0.01, an outcome only P has: delta(eps) at eps = -1, 0, 0.5, 2, 6 "
       "(exact, 40 digits)")
def _():
    out = []
    for e in (-1, 0, mpf("0.5"), 2, 6):
        e = mpf(e)
        g = lambda mu: mp.ncdf(-e / mu + mu / 2) - mp.e**e * mp.ncdf(-e / mu - mu / 2)
        none = -mp.expm1(e) if e < 0 else 0
        out.append(float(mpf("0.5") * g(mpf("0.5")) + mpf("0.3") * g(mpf(2)) + mpf("0.19") * none + mpf("0.01")))
    return out


@value("window_K_equals_T",
       "200 steps of b of n drawn afresh, q = 0.05, shift mu = 1 (replace-one, every iterate released): the remove "
       "pair (0.05, 1) composed 200 times (and the add pair), delta 1e-6, certified lower bracket (h = 2^-10), the "
       "larger direction")
def _():
    P, Q = remove_pair(mpf("0.05"), 1)
    return down(composed_both(P, Q, 200, 1e-6, 2.0**-10), 8)


@value("window_quadratic_last_iterate",
       "test_noisysgd_window.cpp's quadratic run (n 1000, b 100, eta 0.1, lambda 1, S_g 2, T 60, c = 0.9): the last "
       "iterates sum_y P(Y = y) N(Delta y, v) vs N(0, v), Y = sum_j c^j xi_j rounded down to a grid of 0.02 "
       "(exact dynamic programming; rounding down lowers P of every half-line {x > t}, the optimal sets); epsilon "
       "at 1e-5 for z = 0.8 and 1.5 (40 digits)")
def _():
    out = []
    c, q, T, hgrid = mpf("0.9"), mpf("0.1"), 60, mpf("0.02")
    n = int(1 / ((1 - c) * hgrid)) + 2
    for z in (mpf("0.8"), mpf("1.5")):
        w = [mpf(0)] * n
        w[0] = mpf(1)
        for j in range(T):
            a = int(mp.floor(c**j / hgrid))
            new = [x * (1 - q) for x in w]
            for i in range(n):
                if i + a < n:
                    new[i + a] += q * w[i]
            w = new
        v = (1 - c ** (2 * T)) / (1 - c * c)  # in units of s^2
        # shift per grid unit: Delta i h / sqrt(v s^2) = i h / (z sqrt(v))
        P = mixture([(wi, i * hgrid / (z * mp.sqrt(v))) for i, wi in enumerate(w)])
        out.append(down(Pair(P, mixture([(1, 0)])).eps_floor(1e-5), 8))
    return out


@value("pdi_poisson_linear",
       "test_composition.cpp's Poisson run (n 1000, q 0.1, b = q n = 100, eta 0.05, sigma 0.1, S_g 1, 200 steps, "
       "norms <= S_g/2, replace-one): a linear loss, the record's gradient +S_g/2 against -S_g/2, the others 0: the "
       "last iterates sum_j Bin(j; 200, 0.1) N(-+ j d/2, V), d = eta S_g / b = 5e-4, V = 200 (2 eta sigma^2) = 0.2; "
       "R at orders 1.5, 2, 8 (trapezoidal rule, floors.renyi_trapezoid), the larger direction")
def _():
    d, Vv = mpf("5e-4"), 200 * 2 * mpf("0.05") * mpf("0.1") ** 2
    s = mp.sqrt(Vv)
    P = binomial_mixture(200, "0.1", -d / 2 / s)
    Q = binomial_mixture(200, "0.1", d / 2 / s)
    return [down(max(renyi_trapezoid(P, Q, a), renyi_trapezoid(Q, P, a)), 12) for a in (mpf("1.5"), 2, 8)]


@value("gdp_composition_full_batch",
       "full-batch noisy GD, n 1000, eta 0.1, sigma 0.4, S_g 2, 500 steps, a quadratic loss of curvature 0.5 (the "
       "declared lambda) with every iterate released: 500 Gaussian mechanisms of shift eta S_g / n over noise "
       "sqrt(2 eta) sigma, i.e. exactly G(mu), mu = sqrt(eta/2) S_g sqrt(500) / (n sigma); mu and epsilon at 1e-5")
def _():
    mu = mp.sqrt(mpf("0.1") / 2) * 2 * mp.sqrt(500) / (1000 * mpf("0.4"))
    return [float(mu), down(gaussian_eps(mu, mpf("1e-5")), 12)]


@value("pabi_sc_plateau",
       "test_altschuler_talwar_2022.cpp's pabi run (A&T units sigma 0.2, eta 0.02, L 2 (S_g 4), n = b = 5000, "
       "lambda = beta = 1): the quadratic run h = 1 (c = 0.98), shift 1.6e-5 per step over noise 0.004; exact R at "
       "orders 2, 10, 40.5 for K = 1, 10, 100, 500, 5000, 100000 (row by row)")
def _():
    out = []
    for K in (1, 10, 100, 500, 5000, 100000):
        c = mpf("0.98")
        # closed form of the stepped recursion (geometric sums), as K reaches 1e5
        m = mpf("1.6e-5") * (1 - c**K) / (1 - c)
        Vv = mpf("0.004") ** 2 * (1 - c ** (2 * K)) / (1 - c * c)
        out.append([down(a * m * m / (2 * Vv), 14) for a in (2, 10, mpf("40.5"))])
    return out


@value("pabi_sc_prop54",
       "the optimal-shift test's runs (alpha 3.5, sigma 0.7, eta 0.1, L 1.5, n = b = 200): the quadratic run whose "
       "contraction is c, shift 2 eta L / n, noise eta sigma; exact R for c = 0, 0.3, 0.9, 0.999 (rows) and "
       "T = 1, 2, 7, 60, 3000 (columns)")
def _():
    out = []
    for c in (0, mpf("0.3"), mpf("0.9"), mpf("0.999")):
        row = []
        for T in (1, 2, 7, 60, 3000):
            m, Vv = quadratic(c, 2 * mpf("0.1") * mpf("1.5") / 200, (mpf("0.1") * mpf("0.7")) ** 2, lambda t: True, T)
            row.append(down(mpf("3.5") * m * m / (2 * Vv), 14))
        out.append(row)
    return out


YS_ETA, YS_SIGMA, YS_SG, YS_B, YS_N = mpf("0.05"), mpf(1), mpf(1), 10, 100


@value("ys_partition_worst",
       "test_ye_shokri_2022.cpp's base run (eta 0.05, sigma 1, S_g 1, b 10, n 1000: 100 batches in a fixed "
       "order): the quadratic run h = lambda, the record in the last batch (the worst position), exact R at orders "
       "2, 8, 32; rows lambda = 1, 0.01, 0, columns K = 1, 2, 10 epochs")
def _():
    out = []
    for lam in (1, mpf("0.01"), 0):
        row = []
        for K in (1, 2, 10):
            c = 1 - YS_ETA * lam
            worst = None
            gaps, Vv = position_gaps(c, YS_ETA * YS_SG / YS_B, 2 * YS_ETA * YS_SIGMA**2, YS_N, K * YS_N)
            worst = max(g * g / (2 * Vv) for g in gaps)
            row.append([down(a * worst, 14) for a in (2, 8, 32)])
        out.append(row)
    return out


@value("ys_shuffle_mixture",
       "the base run with a random partition (lambda = 1): the record's batch uniform over the 100 positions, "
       "the last iterates (1/100) sum_j N(g_j, V) against N(0, V); R (the larger direction) at orders 2, 8, 32 "
       "after one epoch, then at order 8 after 10 epochs of a partition drawn once")
def _():
    c = 1 - YS_ETA
    gaps, Vv = position_gaps(c, YS_ETA * YS_SG / YS_B, 2 * YS_ETA * YS_SIGMA**2, YS_N, YS_N)
    one = [down(mixture_renyi_both(gaps, Vv, a), 12) for a in (2, 8, 32)]
    gaps, Vv = position_gaps(c, YS_ETA * YS_SG / YS_B, 2 * YS_ETA * YS_SIGMA**2, YS_N, 10 * YS_N)
    return one + [down(mixture_renyi_both(gaps, Vv, 8), 12)]


YS_LOOP_ORDERS = (mpf("1.01"), mpf("1.5"), 2, 8, 64, 512)


@value("ys_derived_loop",
       "the derived-vs-published loop (base run, partition drawn once, lambda = 0.01, 0.3, 1, 5 (rows), K = 1, 2, "
       "7, 30 epochs (columns)): the mixture floor (as ys_shuffle_mixture) at orders 1.01, 1.5, 2, 8, 64, 512, then "
       "the full-batch run (n = b = 1000, 10 K steps, every step uses the record) exact R at the same orders")
def _():
    out = []
    for lam in (mpf("0.01"), mpf("0.3"), 1, 5):
        row = []
        for K in (1, 2, 7, 30):
            c = 1 - YS_ETA * lam
            gaps, Vv = position_gaps(c, YS_ETA * YS_SG / YS_B, 2 * YS_ETA * YS_SIGMA**2, YS_N, K * YS_N)
            mix = [down(mixture_renyi_both(gaps, Vv, a), 10) for a in YS_LOOP_ORDERS]
            m, W = quadratic(c, YS_ETA * YS_SG / 1000, 2 * YS_ETA * YS_SIGMA**2, lambda t: True, 10 * K)
            fb = [down(a * m * m / (2 * W), 14) for a in YS_LOOP_ORDERS]
            row.append([mix, fb])
        out.append(row)
    return out


@value("ys_d6_figure1",
       "C21 Figure 1 runs (full batch n = 5000, eta = sigma = 0.02, S_g 4, 1000 steps, point start): the quadratic "
       "run h = lambda, exact R at orders 10, 20, 30 for lambda = 1, 2, 4 (rows); then lambda = 1, order 10 after "
       "K = 1, 10, 1000 steps")
def _():
    out = []
    d, s2 = mpf("0.02") * 4 / 5000, 2 * mpf("0.02") * mpf("0.02") ** 2
    for lam in (1, 2, 4):
        m, Vv = quadratic(1 - mpf("0.02") * lam, d, s2, lambda t: True, 1000)
        out.append([down(a * m * m / (2 * Vv), 14) for a in (10, 20, 30)])
    row = []
    for K in (1, 10, 1000):
        m, Vv = quadratic(1 - mpf("0.02"), d, s2, lambda t: True, K)
        row.append(down(10 * m * m / (2 * Vv), 14))
    return out + [row]


@value("calibrate_sigma_floors",
       "test_calibrate.cpp: the smallest C21 sigma at which the quadratic run h = 1 (point start, full batch, "
       "n 5000, eta 0.02, S_g 4) has exact epsilon <= the target at delta 1e-5: (1) 1000 steps, target 1; (2) 100 "
       "steps at sigma then 100 at 2 sigma, target 2. Any sigma a valid calibration returns is at or above it.")
def _():
    d, c = mpf("0.02") * 4 / 5000, 1 - mpf("0.02")
    out = []
    m, Vv = quadratic(c, d, 2 * mpf("0.02"), lambda t: True, 1000)  # sigma = 1
    out.append(m / mp.sqrt(Vv) / gaussian_mu_for(1, mpf("1e-5")))
    m, Vv = mpf(0), mpf(0)
    for t in range(200):
        sig = 1 if t < 100 else 2
        m, Vv = c * m + d, c * c * Vv + 2 * mpf("0.02") * sig**2
    out.append(m / mp.sqrt(Vv) / gaussian_mu_for(2, mpf("1e-5")))
    return [down(x, 12) for x in out]


@value("ys_fmnist_mixture",
       "examples/ye_shokri_fmnist.toml (a partition drawn once, 29 batches, 1200 epochs, eta 1.92, multiplier "
       "3.01 (shift 2/3.01 noise std per use), lambda 0.02): the quadratic run h = 0.02 (c = 0.9616), the record's "
       "batch uniform: (1/29) sum_j N(g_j, V) against N(0, V): epsilon at 1e-5 (40 digits), then R (the larger "
       "direction) at the example's 15 orders")
def _():
    c, s2 = 1 - mpf("1.92") * mpf("0.02"), mpf(1)
    gaps, Vv = position_gaps(c, 2 / mpf("3.01"), s2, 29, 34800)
    orders = [mpf(x) for x in ("1.5", 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64)]
    return [down(mixture_eps(gaps, Vv, 1e-5), 10)] + [down(mixture_renyi_both(gaps, Vv, a), 10) for a in orders]


@value("ys_mnist_partition_worst",
       "examples/ye_shokri_mnist_partition.toml (fixed partition, 29 batches, 100 epochs, eta 0.75, multiplier 3.08, "
       "lambda 0.08): the quadratic run h = 0.08 (c = 0.94), the record in the last batch: a Gaussian pair of "
       "parameter mu; mu, epsilon at 1e-5, then R at the example's 15 orders")
def _():
    c = 1 - mpf("0.75") * mpf("0.08")
    gaps, Vv = position_gaps(c, 2 / mpf("3.08"), 1, 29, 2900)
    mu = max(gaps) / mp.sqrt(Vv)
    orders = [mpf(x) for x in ("1.5", 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64)]
    return [down(mu, 14), down(gaussian_eps(mu, mpf("1e-5")), 12)] + [down(a * mu * mu / 2, 14) for a in orders]


@value("figure1_quadratic",
       "examples/figure1_lambda1.toml (full batch, n 5000, eta = sigma = 0.02, S_g 4, 1000 steps, lambda 1): the "
       "quadratic run h = 1 from a point start, exact R at orders 10, 20, 30 (= ys_d6_figure1's first row)")
def _():
    m, Vv = quadratic(1 - mpf("0.02"), mpf("0.02") * 4 / 5000, 2 * mpf("0.02") ** 3, lambda t: True, 1000)
    return [down(a * m * m / (2 * Vv), 14) for a in (10, 20, 30)]


@value("langevin_ou",
       "examples/langevin_strongly_convex.toml (Langevin, sigma 0.1, n 1000, S_g 2, lambda 0.5, start N(0, "
       "sigma^2/lambda)): the quadratic loss of curvature 0.5, an Ornstein-Uhlenbeck process: mean gap "
       "(S_g/(n lambda)) (1 - e^{-lambda t}), variance sigma^2/lambda (stationary); exact R at orders 2, 8, 32, 128 "
       "at t = 10, then at order 2 and 8 for t = 0.01, 0.5, 1, 2, 40")
def _():
    lam, sig, D = mpf("0.5"), mpf("0.1"), mpf(2) / 1000
    R = lambda a, t: a * (D / lam * (1 - mp.e ** (-lam * t))) ** 2 / (2 * sig * sig / lam)
    out = [down(R(a, 10), 14) for a in (2, 8, 32, 128)]
    out += [[down(R(2, mpf(t)), 14), down(R(8, mpf(t)), 14)] for t in ("0.01", "0.5", "1", "2", "40")]
    return out


@value("window_long_run_per_step",
       "test_noisysgd_window.cpp's long run, b = 600 of n = 60000 drawn afresh (q = 0.01), eta 0.5, lambda 0.01 "
       "(c = 0.995), z = 1.1, 5000 steps: the quadratic run h = 0.01, the record's x S_g apart (the others equal): "
       "the last iterates sum_y P(Y = y) N(y / (z sqrt(v)), 1) vs N(0, 1), Y = sum_j c^j xi_j, v = (1 - c^2T) / "
       "(1 - c^2); Y rounded down (each term to a grid of 0.005 by dynamic programming in double precision, "
       "weights lowered by 1e-12 relative, then the sum to a grid of 0.05): a smaller law on every half-line "
       "{x > t}, the optimal sets; epsilon at 1e-5 (40 digits)")
def _():
    import numpy as np
    c, q, T, z = 0.995, 0.01, 5000, mpf("1.1")
    h = 0.005
    n = int(1 / ((1 - c) * h)) + 2
    w = np.zeros(n)
    w[0] = 1.0
    for j in range(T):
        a = int(mp.floor(mpf(c) ** j / h))  # mpmath: exact floor of c^j / h for the double c
        if a == 0:
            break  # the remaining terms round down to 0: Y' is left as it is (a smaller law)
        new = w * (1 - q)
        new[a:] += q * w[:-a]
        w = new
    coarse = {}
    for i in np.nonzero(w > 1e-70)[0]:
        k = int(mp.floor(mpf(int(i)) * mpf(h) / mpf("0.05")))
        coarse[k] = coarse.get(k, 0.0) + w[i]
    v = (1 - mpf(c) ** (2 * T)) / (1 - mpf(c) ** 2)
    P = mixture([(mpf(wk) * (1 - mpf("1e-12")), k * mpf("0.05") / (z * mp.sqrt(v))) for k, wk in sorted(coarse.items())])
    return down(Pair(P, mixture([(1, 0)])).eps_floor(1e-5), 8)


@value("ys_v5_rows",
       "test_ye_shokri_2022.cpp's V5 rows (C21 Figure 1 setting, full batch n = 5000, eta = sigma = 0.02, S_g 4, "
       "alpha 10): the quadratic run h = lambda from a point start, exact R for (lambda, K) = (1, 10), (1, 100), "
       "(1, 1000), (1, 10000), (2, 1000), (4, 1000)")
def _():
    d, s2 = mpf("0.02") * 4 / 5000, 2 * mpf("0.02") ** 3
    out = []
    for lam, K in ((1, 10), (1, 100), (1, 1000), (1, 10000), (2, 1000), (4, 1000)):
        c = 1 - mpf("0.02") * lam
        m = d * (1 - c**K) / (1 - c)
        Vv = s2 * (1 - c ** (2 * K)) / (1 - c * c)
        out.append(down(10 * m * m / (2 * Vv), 14))
    return out


@value("zero_out_per_step_calibrate",
       "the zero-out pair of zero_out_per_step_m1 at one step as a function of the multiplier m (shifts 2/m, 1/m, "
       "q = 0.01): the largest m (bisection, 30 halvings of [1, 2]) at which its exact epsilon at 1e-5 still exceeds "
       "2, so a valid calibration to epsilon 2 answers a larger multiplier")
def _():
    def eps(m):
        P, Q = mixture([(1 - Q01, 0), (Q01, 2 / m)]), mixture([(1 - Q01, 0), (Q01, 1 / m)])
        return max(Pair(P, Q).eps_floor(1e-5), Pair(Q, P).eps_floor(1e-5))

    lo, hi = mpf(1), mpf(2)
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if eps(mid) > 2 else (lo, mid)
    return down(lo, 11)


@value("poisson_add_remove_m1.1_10000",
       "add/remove, Poisson q = 0.01, multiplier 1.1, 10^4 steps (examples/dpsgd_accounting.toml): the record at +C "
       "against no record, the others at 0: the remove pair (0.01, 1/1.1) composed 10^4 times (and the add pair), "
       "delta 1e-5, certified lower bracket (h = 2^-8), the larger direction")
def _():
    P, Q = remove_pair(Q01, 1 / mpf("1.1"))
    return down(composed_both(P, Q, 10000, 1e-5, 2.0**-8), 8)


@value("selfcheck",
       "the tools against values computed otherwise: (1) eps_floor of the remove pair (0.01, 1/0.6) at 1e-5 against "
       "exact_1d.py's 1.597468387970882148839895728207023907597 (tests/accounting/pld_reference_values.hpp); (2) "
       "composed_eps_floor of N(0.1) vs N(0) 100 times against the exact G(1) value 4.377178095681224608553985889735; "
       "(3) composed_eps_floor of the remove pair (0.01, 1) 20 times at 1e-5 against pld_certified.py's bracket "
       "[0.45485642511716273, 0.45500932028511]; each [value, reference] (a floor: at or below, and close)")
def _():
    z = mpf("0.6")
    P, Q = mixture([(1 - Q01, 0), (Q01, 1 / z)]), mixture([(1, 0)])
    one = Pair(P, Q).eps_floor(1e-5)
    g = composed_eps_floor(mixture([(1, mpf("0.1"))]), mixture([(1, 0)]), 100, 1e-5, h=2.0**-10)
    P, Q = remove_pair(Q01, 1)
    k20 = composed_eps_floor(P, Q, 20, 1e-5, h=2.0**-10)
    out = [[float(one), 1.5974683879708821], [g, 4.3771780956812246], [k20, 0.45500932028511]]
    assert out[0][0] <= out[0][1] and out[0][0] > out[0][1] * (1 - 1e-14)
    assert out[1][0] <= out[1][1] and out[1][0] > out[1][1] * (1 - 1e-4)
    assert out[2][0] <= out[2][1] and out[2][0] > 0.45485642511716273 * (1 - 1e-4)
    return out


def main(names):
    cache = json.load(open(CACHE)) if os.path.exists(CACHE) else {}
    for name, (doc, f) in V.items():
        if names and name not in names:
            continue
        if name not in cache:
            t0 = time.time()
            cache[name] = {"value": f(), "doc": doc, "seconds": round(time.time() - t0, 1)}
            with open(CACHE, "w") as fh:
                json.dump(cache, fh, indent=1)
        print(f"{name}: {doc}\n  = {json.dumps(cache[name]['value'])}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
