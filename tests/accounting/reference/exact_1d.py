"""Tasks 1 and 4: exact single-step subsampled Gaussian (remove/add) and k-fold Gaussian.
All parameters are interpreted as exact decimal numbers (mpf from strings).
Computed at working precision DPS and re-checked at DPS2; reported to 40 significant digits.
"""
import sys, mpmath as M
from common import Recorder

DPS, DPS2 = 70, 110
OUT = 'reference_output/exact_1d.json'

def fmt(x, n=40):
    return M.nstr(x, n, min_fixed=-5, max_fixed=5, strip_zeros=False)

# ---------- subsampled Gaussian single step ----------
def sg_delta(q, z, eps, direction):
    q, z, eps = M.mpf(q), M.mpf(z), M.mpf(eps)
    if direction == 'remove':
        # L(x) = log(1-q+q exp((2x-1)/(2z^2))) increasing; L>eps <=> x > xs
        xs = z**2 * M.log((M.expm1(eps) + q) / q) + M.mpf(1) / 2
        P = (1 - q) * M.ncdf(-xs / z) + q * M.ncdf(-(xs - 1) / z)
        Q = M.ncdf(-xs / z)
        return P - M.exp(eps) * Q
    else:
        # L(x) = -log(1-q+q exp((2x-1)/(2z^2))) decreasing; L>eps <=> x < xs
        if eps >= -M.log1p(-q):
            return M.mpf(0)
        xs = z**2 * M.log((M.expm1(-eps) + q) / q) + M.mpf(1) / 2
        P = M.ncdf(xs / z)
        Q = (1 - q) * M.ncdf(xs / z) + q * M.ncdf((xs - 1) / z)
        return P - M.exp(eps) * Q

def gauss_delta(mu, eps):
    mu, eps = M.mpf(mu), M.mpf(eps)
    return M.ncdf(-eps / mu + mu / 2) - M.exp(eps) * M.ncdf(-eps / mu - mu / 2)

def eps_of_delta(fdelta, target, hi0, eps_sup=None):
    """smallest eps>=0 with delta(eps)<=target; delta is continuous decreasing.
    Bisection to bracket then anderson/illinois root of log delta - log target."""
    target = M.mpf(target)
    if fdelta(M.mpf(0)) <= target:
        return M.mpf(0)
    lo, hi = M.mpf(0), M.mpf(hi0)
    if eps_sup is not None:
        hi = min(hi, eps_sup * (1 - M.mpf(10) ** (-M.mp.dps + 5)))
    while fdelta(hi) > target:
        lo = hi; hi = 2 * hi
        if eps_sup is not None and hi >= eps_sup:
            hi = (lo + eps_sup) / 2
    # coarse bisection
    for _ in range(40):
        mid = (lo + hi) / 2
        if fdelta(mid) > target: lo = mid
        else: hi = mid
    g = lambda e: M.log(fdelta(e)) - M.log(target)
    r = M.findroot(g, (lo, hi), solver='anderson', tol=M.mpf(10) ** (-2 * M.mp.dps + 20), maxsteps=200)
    if not (lo <= r <= hi):
        raise RuntimeError('root outside bracket')
    return r

QS = ['0.001', '0.01', '0.1', '0.5']
ZS = ['0.6', '1', '2']
EPSS = ['0.1', '0.5', '1', '2']
DELTAS = ['1e-3', '1e-5', '1e-8', '1e-10']

def run():
    rec = Recorder(OUT, meta={"script": "exact_1d.py", "dps": DPS, "check_dps": DPS2})
    rec.data["records"] = []
    rec.flush()
    # ---- task 1
    for q in QS:
        for z in ZS:
            for d in ['remove', 'add']:
                setting = {"mechanism": "poisson_subsampled_gaussian", "q": q, "z": z, "k": 1}
                for e in EPSS:
                    vals = []
                    for dps in (DPS, DPS2):
                        with M.workdps(dps):
                            vals.append(sg_delta(q, z, e, d))
                    with M.workdps(DPS2):
                        agree = M.inf if vals[0] == vals[1] else -M.log10(abs(vals[0] - vals[1]) / abs(vals[1])) if vals[1] != 0 else M.inf
                    rec.add({"task": 1, "setting": setting, "direction": d, "quantity": "delta", "at": {"eps": e},
                             "value": fmt(vals[1]), "method": "closed-form threshold x* + mpmath ncdf",
                             "accuracy": "exact; 40 significant digits (dps %d vs %d agree to %s digits)" % (DPS, DPS2, M.nstr(agree, 3))})
                for t in DELTAS:
                    vals = []
                    for dps in (DPS, DPS2):
                        with M.workdps(dps):
                            sup = None if d == 'remove' else -M.log1p(-M.mpf(q))
                            vals.append(eps_of_delta(lambda e: sg_delta(q, z, e, d), t, 1, sup))
                    with M.workdps(DPS2):
                        agree = M.inf if vals[0] == vals[1] else -M.log10(abs(vals[0] - vals[1]) / abs(vals[1]))
                        chk = sg_delta(q, z, vals[1], d)
                    rec.add({"task": 1, "setting": setting, "direction": d, "quantity": "epsilon", "at": {"delta": t},
                             "value": fmt(vals[1]), "method": "root in eps of exact delta(eps) (mpmath anderson)",
                             "check_delta_at_value": M.nstr(chk, 45),
                             "accuracy": "exact; 40 significant digits (dps %d vs %d agree to %s digits)" % (DPS, DPS2, M.nstr(agree, 3))})
            print('task1', q, z, flush=True)
    # ---- task 4
    for z in ['0.5', '1', '2']:
        for k in [1, 10, 1000]:
            setting = {"mechanism": "gaussian_kfold", "z": z, "k": k, "mu_total": "sqrt(k)/z"}
            def mu():
                return M.sqrt(k) / M.mpf(z)
            for e in ['0.5', '1', '2', '5', '10']:
                vals = []
                for dps in (DPS, DPS2):
                    with M.workdps(dps):
                        vals.append(gauss_delta(mu(), e))
                with M.workdps(DPS2):
                    agree = M.inf if vals[0] == vals[1] else -M.log10(abs(vals[0] - vals[1]) / abs(vals[1]))
                rec.add({"task": 4, "setting": setting, "direction": "symmetric", "quantity": "delta", "at": {"eps": e},
                         "value": fmt(vals[1]), "method": "closed form Phi(-eps/mu+mu/2)-e^eps Phi(-eps/mu-mu/2), mpmath",
                         "accuracy": "exact; 40 significant digits (dps %d vs %d agree to %s digits)" % (DPS, DPS2, M.nstr(agree, 3))})
            for t in DELTAS:
                vals = []
                for dps in (DPS, DPS2):
                    with M.workdps(dps):
                        m = mu()
                        vals.append(eps_of_delta(lambda e: gauss_delta(m, e), t, m * m / 2 + 1))
                with M.workdps(DPS2):
                    agree = M.inf if vals[0] == vals[1] else -M.log10(abs(vals[0] - vals[1]) / abs(vals[1]))
                    chk = gauss_delta(mu(), vals[1])
                rec.add({"task": 4, "setting": setting, "direction": "symmetric", "quantity": "epsilon", "at": {"delta": t},
                         "value": fmt(vals[1]), "method": "root in eps of closed-form delta (mpmath anderson)",
                         "check_delta_at_value": M.nstr(chk, 45),
                         "accuracy": "exact; 40 significant digits (dps %d vs %d agree to %s digits)" % (DPS, DPS2, M.nstr(agree, 3))})
            print('task4', z, k, flush=True)

if __name__ == '__main__':
    run()
