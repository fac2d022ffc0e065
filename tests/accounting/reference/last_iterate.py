"""Task 3: linear-loss last-iterate pair (Steinke et al. 2025 heuristic).
P = sum_j Binom(j;T,q) N(j, T z^2), Q = N(0, T z^2).  'forward' = (P,Q), 'reverse' = (Q,P).
R(x) = dP/dQ(x) = sum_j b_j exp((2 j x - j^2)/(2 s2)), increasing in x.
forward: L = log R, {L>eps} = {x > x*}, R(x*) = e^eps,
    delta = sum_j b_j Phibar((x*-j)/s) - e^eps Phibar(x*/s)
reverse: L = -log R, {L>eps} = {x < x*}, R(x*) = e^-eps  (delta = 0 if eps >= -log b_0)
    delta = Phi(x*/s) - e^eps sum_j b_j Phi((x*-j)/s)
epsilon(delta): root in the threshold x* (delta is monotone in x*), eps = +-log R(x*).
Binomial terms with b_j < 1e-90 are dropped (changes delta by < total dropped mass < 1e-85).
"""
import sys, mpmath as M
from common import Recorder

OUT = 'reference_output/last_iterate.json'
DPS = 60

def fmt(x, n=40):
    return M.nstr(x, n, min_fixed=-5, max_fixed=5, strip_zeros=False)

class Pair:
    def __init__(self, T, q, z):
        self.T = T; q = M.mpf(q); z = M.mpf(z)
        self.s2 = T * z * z; self.s = M.sqrt(self.s2)
        js, bs = [], []
        for j in range(T + 1):
            b = M.binomial(T, j) * q**j * (1 - q)**(T - j)
            if b > M.mpf('1e-90'):
                js.append(j); bs.append(b)
        self.js, self.bs = js, bs
        self.b0 = (1 - q)**T
        self.dropped = 1 - M.fsum(bs)
    def logR(self, x):
        terms = [M.log(b) + (2 * j * x - j * j) / (2 * self.s2) for j, b in zip(self.js, self.bs)]
        m = max(terms)
        return m + M.log(M.fsum(M.exp(t - m) for t in terms))
    def fwd_delta_x(self, x):
        eps = self.logR(x)
        P = M.fsum(b * M.ncdf(-(x - j) / self.s) for j, b in zip(self.js, self.bs))
        return eps, P - M.exp(eps) * M.ncdf(-x / self.s)
    def rev_delta_x(self, x):
        eps = -self.logR(x)
        Qm = M.fsum(b * M.ncdf((x - j) / self.s) for j, b in zip(self.js, self.bs))
        return eps, M.ncdf(x / self.s) - M.exp(eps) * Qm
    # threshold for given eps
    def x_of_eps(self, eps, direction):
        target = eps if direction == 'forward' else -eps
        f = lambda x: self.logR(x) - target
        lo, hi = M.mpf(-1), M.mpf(1)
        while f(lo) > 0: lo *= 2
        while f(hi) < 0: hi *= 2
        for _ in range(30):
            mid = (lo + hi) / 2
            if f(mid) > 0: hi = mid
            else: lo = mid
        return M.findroot(f, (lo, hi), solver='anderson', tol=M.mpf(10)**(-2*M.mp.dps+10), maxsteps=300)
    def delta_at_eps(self, eps, direction):
        eps = M.mpf(eps)
        if direction == 'reverse' and eps >= -M.log(self.b0):
            return M.mpf(0)
        x = self.x_of_eps(eps, direction)
        return (self.fwd_delta_x(x) if direction == 'forward' else self.rev_delta_x(x))[1]
    def eps_of_delta(self, target, direction):
        target = M.mpf(target)
        fn = self.fwd_delta_x if direction == 'forward' else self.rev_delta_x
        # x at eps=0
        x0 = self.x_of_eps(M.mpf(0), direction)
        e0, d0 = fn(x0)
        if d0 <= target:
            return M.mpf(0), d0
        # forward: increasing x -> larger eps, smaller delta; reverse: decreasing x
        sgn = 1 if direction == 'forward' else -1
        step = M.mpf(1)
        a = x0; b = x0 + sgn * step
        while True:
            e, d = fn(b)
            if d <= target or (direction == 'reverse' and e >= -M.log(self.b0)):
                break
            a = b; step *= 2; b = x0 + sgn * step
        for _ in range(40):
            mid = (a + b) / 2
            e, d = fn(mid)
            if d > target: a = mid
            else: b = mid
        g = lambda x: M.log(fn(x)[1]) - M.log(target)
        r = M.findroot(g, (a, b), solver='anderson', tol=M.mpf(10)**(-2*M.mp.dps+10), maxsteps=300)
        e, d = fn(r)
        return e, d

def run():
    rec = Recorder(OUT, meta={"script": "last_iterate.py", "dps": DPS})
    done = rec.keys()
    import json
    for T in [1, 10, 100, 1000]:
        for q in ['0.01', '0.1']:
            for z in ['0.8', '1', '2']:
                setting = {"mechanism": "linear_loss_last_iterate", "T": T, "q": q, "z": z}
                results = {}
                for dps in ([DPS, DPS + 30] if T <= 100 else [DPS]):
                    with M.workdps(dps):
                        pr = Pair(T, q, z)
                        res = {}
                        for d in ['forward', 'reverse']:
                            for t in ['1e-5', '1e-8']:
                                res[(d, 'epsilon', t)] = pr.eps_of_delta(t, d)[0]
                            res[(d, 'delta', '1')] = pr.delta_at_eps('1', d)
                        results[dps] = res
                    print('T', T, q, z, 'dps', dps, flush=True)
                res = results[DPS + 30] if (DPS + 30) in results else results[DPS]
                for key, v in res.items():
                    d, qty, at = key
                    acc = "exact (1-D integral via monotone threshold); mpmath dps %d" % (max(results))
                    if len(results) == 2:
                        v0 = results[DPS][key]
                        with M.workdps(DPS + 30):
                            ag = M.inf if v == v0 else -M.log10(abs(v - v0) / abs(v)) if v != 0 else M.inf
                        acc += "; dps %d vs %d agree to %s digits" % (DPS, DPS + 30, M.nstr(ag, 3))
                    else:
                        acc += "; root tol 1e-%d; 40 digits claimed (T<=100 rows show ~%d-digit agreement across dps)" % (2*DPS-10, DPS-10)
                    rec.add({"task": 3, "setting": setting, "direction": d, "quantity": qty,
                             "at": {"delta": at} if qty == 'epsilon' else {"eps": at},
                             "value": fmt(v), "method": "mpmath root of threshold x*, normal tails via ncdf; binomial terms <1e-90 dropped",
                             "accuracy": acc})
                for t in ['1e-5', '1e-8']:
                    v = max(res[('forward', 'epsilon', t)], res[('reverse', 'epsilon', t)])
                    rec.add({"task": 3, "setting": setting, "direction": "max", "quantity": "epsilon", "at": {"delta": t},
                             "value": fmt(v), "method": "max of the two directions", "accuracy": "as the directional values"})
                v = max(res[('forward', 'delta', '1')], res[('reverse', 'delta', '1')])
                rec.add({"task": 3, "setting": setting, "direction": "max", "quantity": "delta", "at": {"eps": "1"},
                         "value": fmt(v), "method": "max of the two directions", "accuracy": "as the directional values"})

if __name__ == '__main__':
    run()
