"""The `exact` entry on quadratic runs with a wide shared start and a non-diagonal Hessian, against an
80-digit propagation of the two Gaussian laws that uses no eigen-decomposition of H (issue: "a number
below its claim"; docs/analyses.md, "exact").

Conventions (docs/math.md section 1; C21 = Chourasia, Ye & Shokri 2021, arXiv:2102.05855): one step of
full-batch noisy GD on l(theta; x) = (theta - x)^T H (theta - x) / 2 is
    theta <- theta - (eta/n) sum_i H (theta - x_i) + sqrt(2 eta) sigma N(0, I),
from a shared start N(mu, s^2 I). The two runs on neighbouring datasets are Gaussian with one
covariance; with A = I - eta H,
    Sigma_{k+1} = A Sigma_k A^T + 2 eta sigma^2 I,   M_{k+1} = A M_k + (eta/n) I   (mean gap M v),
and the worst pair |v| <= S_g gives mu = S_g sqrt(lambda_max(M^T Sigma^{-1} M)) (Dong, Roth & Su 2022,
arXiv:1905.02383, Cor 2.13: the last iterates are mu-GDP, and exactly so). Sigma and M are propagated
by matrix products at 80 digits; lambda_max of the d x d matrix Q = M^T Sigma^{-1} M by mpmath's
symmetric eigensolver at 80 digits (Q, not H: the method under test works in H's eigenbasis).

Checks, for each run: the reported mu is at or above the reference and within 1e-11 of it (relative);
R(2) = 2 mu^2 / 2 likewise; the reported epsilon at delta is a valid one: the exact mu-GDP delta at it
(delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), DRS Cor 2.13) is at most delta.
Usage: quadratic_wide_start.py RDPDYN   (exit 1 on a failure)
"""
import json
import random
import subprocess
import sys
import tempfile

import mpmath as mp

mp.mp.dps = 80


def reference_mu(H, eta, n, sigma, s0, Sg, K):
    d = len(H)
    Hm = mp.matrix([[mp.mpf(repr(v)) for v in row] for row in H])
    eta, n, sigma, s0, Sg = (mp.mpf(repr(v)) for v in (eta, n, sigma, s0, Sg))
    I = mp.eye(d)
    A = I - eta * Hm
    Sig = s0**2 * I
    M = mp.zeros(d, d)
    for _ in range(K):
        Sig = A * Sig * A.T + 2 * eta * sigma**2 * I
        M = A * M + (eta / n) * I
    Q = M.T * mp.inverse(Sig) * M
    Q = (Q + Q.T) / 2
    return Sg * mp.sqrt(max(mp.eigsy(Q)[0]))


def gdp_delta(mu, eps):
    return mp.ncdf(-eps / mu + mu / 2) - mp.e**eps * mp.ncdf(-eps / mu - mu / 2)


def config(H, eta, n, sigma, s0, Sg, K, delta):
    rows = ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in H)
    return (f"[orders]\nvalues = [2.0]\n[algorithm]\nkind = \"noisy-gd\"\nloss = \"quadratic\"\nsteps = {K}\n"
            f"eta = {eta!r}\nn = {n}\nsensitivity = {Sg!r}\nsigma = {sigma!r}\n[quadratic]\nhessian = [{rows}]\n"
            f"initial_std = {s0!r}\n[lsi]\nkind = \"exact-quadratic\"\n[report]\ndelta = {delta!r}\n")


def random_run(rng, d, K, width):
    """A rotated diagonal Hessian (eigenvalues in [0.5, 20]), eta below 1/h_max, a start `width` times
    the step's noise std."""
    G = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(d)]
    # Gram-Schmidt in floating point: any orthogonal-ish basis; H is then symmetrised exactly.
    Q = []
    for v in G:
        for q in Q:
            dot = sum(a * b for a, b in zip(v, q))
            v = [a - dot * b for a, b in zip(v, q)]
        norm = sum(a * a for a in v) ** 0.5
        Q.append([a / norm for a in v])
    h = [rng.uniform(0.5, 20.0) for _ in range(d)]
    H = [[sum(Q[k][i] * h[k] * Q[k][j] for k in range(d)) for j in range(d)] for i in range(d)]
    H = [[(H[i][j] + H[j][i]) / 2 for j in range(d)] for i in range(d)]
    eta = rng.uniform(0.05, 0.9) / max(h)
    sigma = 10 ** rng.uniform(-3, -1)
    s0 = width * (2 * eta) ** 0.5 * sigma
    return H, eta, rng.randint(50, 5000), sigma, s0, rng.uniform(0.5, 8.0), K


def main():
    binary = sys.argv[1]
    rng = random.Random(2411)
    runs = [([[13.119059880571676, -6.051604055426224], [-6.051604055426224, 5.179923906150588]],
             0.013324394955658842, 226, 0.007541684562955286, 4.785365897750948, 5.658382980450924, 31)]
    runs += [random_run(rng, 4, 3000, 3e4), random_run(rng, 4, 3000, 3e4)]
    runs += [random_run(rng, rng.randint(2, 4), rng.randint(5, 400), 10 ** rng.uniform(1, 4.5)) for _ in range(8)]
    failures = 0
    for i, run in enumerate(runs):
        H, eta, n, sigma, s0, Sg, K = run
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write(config(H, eta, n, sigma, s0, Sg, K, 1e-6))
            path = f.name
        out = subprocess.run([binary, "compare", "--json", path], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"run {i}: rdpdyn failed: {out.stderr.strip()}")
            failures += 1
            continue
        entry = next(e for e in json.loads(out.stdout)["analyses"] if e["name"] == "exact")
        ref = reference_mu(H, eta, n, sigma, s0, Sg, K)
        mu, R2, eps = mp.mpf(entry["mu"]), mp.mpf(entry["R"][0]), mp.mpf(entry["epsilon"])
        rel = (mu - ref) / ref
        ok = mu >= ref and rel <= mp.mpf("1e-11") and R2 >= ref**2 and gdp_delta(ref, eps) <= mp.mpf("1e-6")
        print(f"run {i}: d = {len(H)}, K = {K}, mu - ref = {mp.nstr(rel, 3)} (relative), "
              f"delta at epsilon / 1e-6 - 1 = {mp.nstr(gdp_delta(ref, eps) / mp.mpf('1e-6') - 1, 3)}"
              + ("" if ok else "  FAILED"))
        failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
