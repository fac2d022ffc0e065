#!/usr/bin/env python3
"""Reference privacy profiles delta(eps) = sup_S P(S) - e^eps Q(S) of one-dimensional Gaussian-mixture
pairs whose components lie up to 1000 noise standard deviations apart, from their definitions in
mpmath at 60 digits (no rdpdyn code): the values tests/accounting/test_far_shifts.cpp holds the
pairs of accounting/pld/ to (issue 34: a component 40 standard deviations past the threshold was
counted 0 once its density underflowed).

Every pair here has an increasing privacy loss L = log dP/dQ (a likelihood ratio of mixtures with
ordered means), so the optimal set is {x > t} with L(t) = eps, found by bisection in log space;
then delta = P(x > t) - e^eps Q(x > t) with the normal tails of mpmath.

usage: far_shift_profiles.py   (prints the C++ table rows)
"""
from mpmath import mp, mpf, ncdf, log, exp, binomial

mp.dps = 60


def upper(x):
    """Phi(-x), the upper tail."""
    return ncdf(-x)


def logsumexp(terms):
    top = max(terms)
    return top + log(sum(exp(t - top) for t in terms))


def log_density(mix, x):
    """log of sum_j w_j phi(x - m_j), up to the common -log sqrt(2 pi)."""
    return logsumexp([log(w) - (x - m) ** 2 / 2 for w, m in mix])


def profile(p_mix, q_mix, eps):
    """delta(eps) of P = p_mix against Q = q_mix (lists of (weight, mean)), the loss monotone in x:
    the optimal set is {x > t} (increasing loss) or {x < t} (decreasing), L(t) = eps."""
    eps = mpf(eps)
    loss = lambda x: log_density(p_mix, x) - log_density(q_mix, x)
    lo, hi = mpf(-5000), mpf(5000)
    increasing = loss(hi) > loss(lo)
    sign = 1 if increasing else -1
    f = lambda x: sign * (loss(x) - eps)  # increasing in x, the set is {f > 0}
    if f(lo) >= 0:
        t = lo if increasing else None
        if t is None:
            return mpf(0)
    elif f(hi) <= 0:
        if increasing:
            return mpf(0)
        t = hi
    else:
        for _ in range(400):
            mid = (lo + hi) / 2
            if f(mid) > 0:
                hi = mid
            else:
                lo = mid
        t = hi if increasing else lo
    if increasing:
        mass = lambda mix: sum(w * upper(t - m) for w, m in mix)
    else:
        mass = lambda mix: sum(w * ncdf(t - m) for w, m in mix)
    return max(mpf(0), mass(p_mix) - exp(eps) * mass(q_mix))


def subsampled(q, mu):
    return [(1 - q, mpf(0)), (q, mu)]


def binomial_mixture(steps, q, mu):
    return [(binomial(steps, j) * q**j * (1 - q) ** (steps - j), j * mu) for j in range(steps + 1)]


def main():
    """One C++ initialiser row a case: {pair, q, shift, steps, eps, "delta to 30 digits"}."""
    q = mpf("0.01")
    rows = []
    for mu in (40, 300, 1000):
        g = [(1, mpf(mu))]
        for eps in (-1, 0.5, 5, 50):
            rows.append(("Forward", "0.01", mu, 1, eps, profile(subsampled(q, mu), [(1, 0)], eps)))
            rows.append(("SharedComponent", "0.01", mu, 1, eps,
                         (1 - q) * max(0, 1 - exp(mpf(eps))) + q * profile(g, [(1, 0)], eps)))
        for eps in (-1, 0.001, 0.005):
            rows.append(("Reverse", "0.01", mu, 1, eps, profile([(1, 0)], subsampled(q, mu), eps)))
        for eps in (-1, 0.001, 0.5, 5):
            rows.append(("FixedSize", "0.01", mu, 1, eps, max(profile(subsampled(q, mu), [(1, 0)], eps),
                                                              profile([(1, 0)], subsampled(q, mu), eps))))
    for steps, mu in ((9, "17.2"), (5, "200")):
        mix = binomial_mixture(steps, mpf("0.03"), mpf(mu))
        for eps in (-1, 1, 26.757, 100):
            rows.append(("BinomialForward", "0.03", mu, steps, eps, profile(mix, [(1, 0)], eps)))
        for eps in (-1, 0.01, 0.1):
            rows.append(("BinomialReverse", "0.03", mu, steps, eps, profile([(1, 0)], mix, eps)))
    for c in (20, 500):
        for eps in (-1, 0.5, 5, 50):
            p = [(1 - q, mpf(0)), (q, mpf(c))]
            qq = [(1 - q, mpf(0)), (q, mpf(-c))]
            rows.append(("Antipodal", "0.01", c, 1, eps, profile(p, qq, eps)))
    for kind, rate, shift, steps, eps, value in rows:
        print(f'    {{Pair::{kind}, {rate}, {shift}, {steps}, {eps}, "{mp.nstr(value, 30)}"}},')


if __name__ == "__main__":
    main()


def epsilon_at(p_mix, q_mix, delta, top=mpf(100)):
    """The smallest eps with delta(eps) <= delta, by bisection (delta(eps) decreases in eps)."""
    lo, hi = mpf(0), top
    for _ in range(200):
        mid = (lo + hi) / 2
        if profile(p_mix, q_mix, mid) > delta:
            lo = mid
        else:
            hi = mid
    return lo  # delta(lo) > delta: lo is below the exact epsilon
