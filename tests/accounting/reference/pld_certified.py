"""Tasks 2 and 5: certified lower/upper bounds for k-fold compositions via a discretised
privacy-loss distribution (PLD) on the grid l_i = i*h, h = 2^-17 (exactly representable).

lower bound: mass of L in [l_i, l_{i+1}) placed at l_i (cell boundaries nudged so the rounding is
             always downwards), mass above the cap placed at the cap, mass below the floor dropped.
upper bound: mass placed at l_{i+1} (boundaries nudged the other way), mass above the cap -> +inf
             (contributes 1 - (1-p_inf)^k <= k p_inf), mass below the floor placed at the floor.
Cell masses are differences of normal CDF/SF values (scipy ndtr, relative error <= 8 eps (u^2+20),
empirically checked <= 2 eps (u^2+20) vs mpmath) with per-cell error bounds subtracted/added.
k-fold convolution: exponentially tilted FFT (c = IFFT(FFT(a e^{theta l})^k) e^{-theta l}) with an
a-priori floating-point error bound E on every tilted output entry (see error_bound()), subtracted
(lower) / added (upper) entrywise before un-tilting.  Several tilts theta are tried (chosen to
minimise the propagated bound near each target); every pass is individually certified and the
tightest result per target is reported.
"""
import sys, json, math, time
import numpy as np
import scipy.fft as sfft
from scipy.special import ndtr
from common import Recorder

EPS = 2.0 ** -53
H = 2.0 ** -17
TAILP = 1e-22          # per-step truncated tail probability (cap/floor)
SAFETY = 10.0          # extra factor on the a-priori FFT error bound
WORKERS = 1

def phi_err(u):
    """bound on |ndtr(u) - Phi(u)| / Phi(u) for the float u actually passed (incl. internal rounding)"""
    return 8 * EPS * (u * u + 20)

def cdf_and_err(u):
    """returns (G, errG, use_sf) with G = Phi(u) if u<=0 else Phibar(u) = ndtr(-u)."""
    u = np.asarray(u, dtype=float)
    use_sf = u > 0
    G = np.where(use_sf, ndtr(-u), ndtr(u))
    err = G * phi_err(u) + 1e-300
    return G, err, use_sf

# ---------------------------------------------------------------- single-step arrays
def mix_masses(b, comps):
    """b: increasing boundaries (float, may include -inf/+inf) in the x variable.
    comps: list of (weight, mean, sd) normal components (floats).
    Returns masses m_j of [b_j, b_{j+1}) and error bounds.  Uses SF for cells with b_j >= median-ish."""
    # F and S values of the mixture at every boundary with error bounds
    F = np.zeros_like(b); S = np.zeros_like(b); eF = np.zeros_like(b); eS = np.zeros_like(b)
    for w, mu, sd in comps:
        with np.errstate(invalid='ignore'):
            u = (b - mu) / sd
        u = np.where(np.isnan(u), 0, u)
        f = ndtr(u); s = ndtr(-u)
        F += w * f; S += w * s
        # relative error of ndtr incl. argument rounding (2 eps |u| relative arg error covered by factor)
        eF += w * (f * phi_err(np.where(np.isinf(u), 0, u)) + 1e-300)
        eS += w * (s * phi_err(np.where(np.isinf(u), 0, u)) + 1e-300)
    eF += 4 * EPS * F; eS += 4 * EPS * S
    mF = F[1:] - F[:-1]; mS = S[:-1] - S[1:]
    useS = S[:-1] < F[1:]          # pick the representation with smaller values
    m = np.where(useS, mS, mF)
    e = np.where(useS, eS[:-1] + eS[1:], eF[:-1] + eF[1:]) + 2 * EPS * np.abs(m)
    return m, e

class SingleStep:
    """holds lower array (values l_i, i = ilo..) and upper array + p_inf"""
    pass

def x_of_l_remove(l, q, z):
    """x(l) = z^2 log((expm1(l)+q)/q) + 1/2 and an error bound"""
    em = np.expm1(l)
    s = em + q
    with np.errstate(divide='ignore', invalid='ignore'):
        w = s / q
        lw = np.log(w)
    x = z * z * lw + 0.5
    rho = (2 * EPS * np.abs(em) + EPS * np.abs(s)) / np.abs(s) + EPS
    err = z * z * (1.01 * rho + 2 * EPS * np.abs(lw)) + 4 * EPS * np.abs(z * z * lw) + 2 * EPS * np.abs(x) + 1e-300
    return x, 4 * err

def build_subsampled(q, z, direction, kmax):
    """Poisson-subsampled Gaussian single step.  Returns dict with
    lo: (array, offset index), up: (array, offset index), p_inf (upper bound), info."""
    Lmin_sup = None
    if direction == 'remove':
        # x under P: mixture; L increasing in x; L >= log(1-q)
        comps = [(1 - q, 0.0, z), (q, 1.0, z)]
        i0 = math.floor(math.log1p(-q) / H)
        xcap = 1 + 9.8 * z
        lcap = math.log((1 - q) + q * math.exp((2 * xcap - 1) / (2 * z * z)))
        icap = math.ceil(lcap / H)
        idx = np.arange(i0, icap + 1)                # boundaries l_i, i = i0..icap
        l = idx * H
        xb, xe = x_of_l_remove(l, q, z)
        xb[0] = -np.inf; xe[0] = 0                    # l_{i0} <= log(1-q): boundary at -inf
        # lower: cells [x_i^+, x_{i+1}^+) valued l_i (i=i0..icap-1) ; [x_cap^+, inf) at l_cap
        bl = np.concatenate([xb + xe, [np.inf]]); bl[0] = -np.inf
        m, e = mix_masses(bl, comps)
        lo = np.maximum(m - e, 0.0)                   # indices i0..icap
        # upper: cells [x_i^-, x_{i+1}^-) valued l_{i+1}; [x_cap^-, inf) -> +inf
        bu = np.concatenate([xb - xe, [np.inf]]); bu[0] = -np.inf
        m2, e2 = mix_masses(bu, comps)
        up = (m2 + e2)[:-1]                           # values l_{i0+1}..l_{icap}
        p_inf = float((m2 + e2)[-1])
        return dict(lo=(lo, i0), up=(up, i0 + 1), p_inf=p_inf,
                    info=dict(i0=i0, icap=icap, lcap=icap * H, n=len(lo)))
    elif direction == 'add':
        comps = [(1.0, 0.0, z)]
        Lmax = -math.log1p(-q)
        itop = math.floor(Lmax / H)
        if itop * H >= Lmax: itop -= 1
        # floor: tail-probability floor or exact floor -(kmax-1)*l_{itop+1}
        xfl = 9.8 * z
        lfl_tail = -math.log((1 - q) + q * math.exp((2 * xfl - 1) / (2 * z * z)))
        lfl_exact = -(kmax - 1) * (itop + 1) * H - 2 * H
        ifl = math.floor(max(lfl_tail, lfl_exact) / H)
        idx = np.arange(ifl, itop + 1)                # boundaries for l_i, i = ifl..itop
        l = idx * H
        # x(l) = z^2 log((expm1(-l)+q)/q) + 1/2, decreasing in l
        xb, xe = x_of_l_remove(-l, q, z)
        # lower: value l_i for x in (x_{i+1}^-, x_i^-], i = ifl..itop, x_{itop+1} = -inf; drop x > x_{ifl}^-
        # build increasing boundary list: [-inf, x_itop^-, ..., x_ifl^-]  (cells reversed)
        bl = np.concatenate([[-np.inf], (xb - xe)[::-1]])
        m, e = mix_masses(bl, comps)                  # masses of cells valued l_itop, ..., l_ifl
        lo = np.maximum(m - e, 0.0)[::-1]             # indices ifl..itop
        # upper: value l_{i+1} for x in (x_{i+1}^+, x_i^+]; x > x_{ifl}^+ -> floor l_ifl
        bu = np.concatenate([[-np.inf], (xb + xe)[::-1], [np.inf]])
        m2, e2 = mix_masses(bu, comps)
        mu_ = (m2 + e2)[::-1]                         # [beyond floor, cell ifl (->l_{ifl+1}), ..., cell itop (->l_{itop+1})]
        up = mu_                                      # values l_ifl .. l_{itop+1}
        return dict(lo=(lo, ifl), up=(up, ifl), p_inf=0.0,
                    info=dict(ifl=ifl, itop=itop, n=len(lo), floor_exact=bool(lfl_exact >= lfl_tail)))
    raise ValueError(direction)

def build_replace(q, z):
    """(1-q) atom at 0 + q * Gaussian PLD with mu = 1/z: L ~ N(mu^2/2, mu^2) under P."""
    mu = 1.0 / z
    m0 = mu * mu / 2
    half = 9.8 * mu
    ifl = math.floor((m0 - half) / H); icap = math.ceil((m0 + half) / H)
    idx = np.arange(ifl, icap + 1); l = idx * H
    u = (l - m0) / mu
    ue = 8 * EPS * (np.abs(l) + m0) / mu + 4 * EPS * np.abs(u) + 1e-300
    comps = [(q, 0.0, 1.0)]
    # lower: cells [u_i^+, u_{i+1}^+) valued l_i; u >= u_cap^+ at l_cap; below u_ifl^+ dropped
    bl = np.concatenate([u + ue, [np.inf]])
    m, e = mix_masses(bl, comps)
    lo = np.maximum(m - e, 0.0)                       # indices ifl..icap
    # upper: cells [u_i^-, u_{i+1}^-) valued l_{i+1}; below u_ifl^- -> floor l_ifl; above cap -> inf
    bu = np.concatenate([[-np.inf], u - ue, [np.inf]])
    m2, e2 = mix_masses(bu, comps)
    mm = m2 + e2                                      # [below floor ->l_ifl, cells ifl..icap-1 -> l_{i+1}, above cap]
    up = mm[:-1].copy()                               # values l_ifl .. l_icap
    p_inf = float(mm[-1])
    # atom at 0 (exactly on the grid; no rounding in either direction)
    a0 = 1.0 - q
    lo[0 - ifl] += a0 * (1 - 2 * EPS)
    up[0 - ifl] += a0 * (1 + 2 * EPS)
    lo *= (1 - 2 * EPS)   # rounding of the additions above
    up *= (1 + 2 * EPS)
    return dict(lo=(lo, ifl), up=(up, ifl), p_inf=p_inf, info=dict(ifl=ifl, icap=icap, n=len(lo)))

def x_of_l_antipodal(l, q, z):
    """The threshold x(l) of the antipodal pair (antipodal_exact.py): k a^2 + (1 - e^l) a - k e^l = 0 with
    a = e^{x/z^2}, k = q e^{-1/(2 z^2)} / (1-q), in the form without cancellation for either sign of l,
    and a generous error bound."""
    k = q * math.exp(-1.0 / (2 * z * z)) / (1 - q)
    em = np.expm1(l)
    root = np.sqrt(em * em + 4 * k * k * np.exp(l))
    with np.errstate(divide='ignore', invalid='ignore'):
        a_pos = (em + root) / (2 * k)
        a_neg = 2 * k * np.exp(l) / (-em + root)
    la = np.where(l >= 0, np.log(a_pos), np.log(a_neg))
    x = z * z * la
    err = 64 * EPS * (z * z * (1 + np.abs(la) + np.abs(l)) + np.abs(x)) + 1e-300
    return x, err

def antipodal_loss(x, q, z):
    s = 2 * z * z
    return math.log((1 - q) + q * math.exp((2 * x - 1) / s)) - math.log((1 - q) + q * math.exp((-2 * x - 1) / s))

def build_antipodal(q, z):
    """(1-q) N(0, z^2) + q N(1, z^2) against (1-q) N(0, z^2) + q N(-1, z^2): replace-one, Poisson,
    per-record norms <= 1 (docs/derivations/replace_one_poisson_antipodal.md). L increasing in x."""
    comps = [(1 - q, 0.0, z), (q, 1.0, z)]
    ifl = math.floor(antipodal_loss(-9.8 * z, q, z) / H)
    icap = math.ceil(antipodal_loss(1 + 9.8 * z, q, z) / H)
    idx = np.arange(ifl, icap + 1); l = idx * H
    xb, xe = x_of_l_antipodal(l, q, z)
    # lower: cells [x_i^+, x_{i+1}^+) valued l_i; [x_cap^+, inf) at l_cap; below x_ifl^+ dropped
    bl = np.concatenate([xb + xe, [np.inf]])
    m, e = mix_masses(bl, comps)
    lo = np.maximum(m - e, 0.0)                       # indices ifl..icap
    # upper: below x_ifl^- -> floor l_ifl; cells [x_i^-, x_{i+1}^-) valued l_{i+1}; above cap -> inf
    bu = np.concatenate([[-np.inf], xb - xe, [np.inf]])
    m2, e2 = mix_masses(bu, comps)
    mm = m2 + e2
    return dict(lo=(lo, ifl), up=(mm[:-1].copy(), ifl), p_inf=float(mm[-1]), info=dict(ifl=ifl, icap=icap, n=len(lo)))

# ---------------------------------------------------------------- k-fold with certified error
def log2c(N):
    return math.ceil(math.log2(N))

def cpow(A, k):
    res = None; base = A; nm = 0
    first = True
    while k:
        if k & 1:
            res = base.copy() if res is None else res * base
            nm += 0 if res is base else 1
        k >>= 1
        if k:
            base = base * base; nm += 1
    return res, nm

def kfold_certified(a, k, theta, side):
    """a: nonnegative float array (treated as exact masses at relative indices 0..n-1).
    returns certified bound array (lower if side=='lo', upper if 'up') for the k-fold convolution
    (relative indices 0..k(n-1)), plus diagnostics."""
    n = len(a)
    if k == 1:
        return a.copy(), dict(E=0.0, N=n)
    Lout = k * (n - 1) + 1
    N = sfft.next_fast_len(Lout, real=True)
    th = theta * H                                   # exact (power of two scaling)
    if theta > 0:
        t = np.exp(th * np.arange(n))
        at = a * t
        del t
    else:
        at = a.copy()
    eta_t = EPS * (2 * theta * H * n + 4)
    M1 = float(np.sum(at)) * (1 + n * EPS) * (1 + 1e-12)
    A2 = float(np.sqrt(np.sum(at * at))) * (1 + n * EPS) * (1 + 1e-12)
    A = sfft.rfft(at, N, workers=WORKERS)
    del at
    Y, nm = cpow(A, k)
    del A
    c = sfft.irfft(Y, N, workers=WORKERS)[:Lout]
    del Y
    g = 6 * log2c(N) * EPS
    gam = (1 + math.sqrt(5) * EPS) ** (nm + 1) - 1
    sN = math.sqrt(N)
    Mp = M1 + g * sN * A2
    dY = k * Mp ** (k - 1) * g * sN * A2 + gam * sN * Mp ** k * (1 + gam)
    E = SAFETY * (math.sqrt(2) * dY / sN * (1 + g) + g * M1 ** k * (1 + g))
    if theta > 0:
        ex = th * np.arange(Lout)
        u = np.exp(-ex)
        eta_u = EPS * (2 * theta * H * Lout + 4)
    else:
        u = 1.0; eta_u = 0.0
    if side == 'lo':
        out = np.maximum(c - E, 0.0) * u * ((1 - eta_u) * (1 - eta_t) ** k * (1 - 4 * EPS))
    else:
        out = (c + E) * u * ((1 + eta_u) * (1 + eta_t) ** k * (1 + 4 * EPS))
        if theta > 0:
            out = np.where(ex > 700, np.maximum(out, (np.abs(c) + E) * 2.3e-308), out)
            del ex
    del c
    return out, dict(E=E, N=N, M1=M1, A2=A2, g=g, gam=gam)

# ---------------------------------------------------------------- evaluation
SUMREL = 1e-12   # relative error bound of np.sum on nonnegative terms (pairwise; generous)

def delta_eval(c, off, eps, side):
    """sum_{l_n > eps} c_n (1 - e^{eps-l_n}), l_n = (off+n)h, with rounding made directional."""
    m = max(0, math.floor(eps / H) - off + 1)
    if m >= len(c):
        return 0.0
    l = (off + np.arange(m, len(c))) * H
    s = float(np.sum(c[m:] * (-np.expm1(eps - l))))
    if side == 'lo':
        return s * (1 - SUMREL) * (1 - 8 * EPS)
    return s * (1 + SUMREL) * (1 + 8 * EPS)

class Curve:
    def __init__(self, c, off, side, extra=0.0):
        self.c, self.off, self.side, self.extra = c, off, side, extra
        # approximate suffix sums for bracketing
        self.S1 = np.cumsum(c[::-1])[::-1]
        l = (off + np.arange(len(c))) * H
        with np.errstate(over='ignore'):
            self.S2 = np.cumsum((c * np.exp(-l))[::-1])[::-1]
    def delta(self, eps):
        v = delta_eval(self.c, self.off, eps, self.side)
        return v + self.extra if self.side == 'up' else v
    def approx_delta_grid(self):
        # D at eps = l_m : sum_{n>m}
        S1n = np.append(self.S1[1:], 0.0); S2n = np.append(self.S2[1:], 0.0)
        l = (self.off + np.arange(len(self.c))) * H
        with np.errstate(over='ignore', invalid='ignore'):
            D = S1n - np.exp(l) * S2n
        return D + (self.extra if self.side == 'up' else 0.0)
    def eps_for(self, target):
        """lo side: largest-ish eps with certified delta_lo(eps) > target (=> eps_true > eps).
           up side: smallest-ish eps with certified delta_up(eps) <= target (=> eps_true <= eps).
           Returns None when not certifiable."""
        if self.side == 'up' and self.extra > target:
            return math.inf
        D = self.approx_delta_grid()
        l = (self.off + np.arange(len(self.c))) * H
        # restrict to eps >= 0
        m0 = max(0, -self.off)
        Dm = D[m0:]
        idx = np.nonzero(Dm > target)[0]
        if len(idx) == 0:
            # delta(0) <= target approx
            if self.side == 'up':
                return 0.0 if self.delta(0.0) <= target else None
            return None
        m = m0 + idx[-1]
        # candidate in [l_m, l_{m+1}]
        S1n = self.S1[m + 1] if m + 1 < len(self.c) else 0.0
        S2n = self.S2[m + 1] if m + 1 < len(self.c) else 0.0
        S1n += 0 if self.side == 'lo' else self.extra
        try:
            e = math.log((S1n - target) / S2n)
        except (ValueError, ZeroDivisionError):
            e = l[m]
        e = min(max(e, l[m]), l[m] + H)
        e = max(e, 0.0)
        # Newton refinement with exact slice evaluations
        for _ in range(3):
            d = self.delta(e)
            mm = max(0, math.floor(e / H) - self.off + 1)
            ll = (self.off + np.arange(mm, len(self.c))) * H
            deriv = -math.exp(e) * float(np.sum(self.c[mm:] * np.exp(-ll)))
            if deriv == 0 or d <= 0: break
            step = (d - target) / -deriv
            e_new = e + step
            if abs(step) < 1e-15 * max(1, abs(e)): e = max(e_new, 0.0); break
            e = max(e_new, 0.0)
        # certify by backing off
        bump = 1e-12 * max(1.0, abs(e))
        for _ in range(60):
            d = self.delta(e)
            if self.side == 'lo':
                if d > target: return e
                e -= bump
                if e < 0: return None
            else:
                if d <= target: return e
                e += bump
            bump *= 4
        return None

# ---------------------------------------------------------------- driver
def choose_thetas(a, k, targets_eps, off_out, nout, max_range):
    """for each approximate eps target pick theta minimising the propagated FFT error bound"""
    th_grid = np.concatenate([[0.0], np.geomspace(0.02, 400, 160)])
    n = len(a)
    idx = np.arange(n) * H
    res = []
    with np.errstate(divide='ignore'):
        la = np.log(a)
    ok = a > 0
    for eps in targets_eps:
        best = None
        for th in th_grid:
            if th * H * n > 600: continue
            v = la[ok] + th * idx[ok]
            mx = v.max(); logM = mx + math.log(np.sum(np.exp(v - mx)))
            if k * logM > 600: continue
            if th == 0:
                lsum = math.log(max(1, nout - max(0, math.floor(eps / H) - off_out)))
            else:
                lsum = -th * (eps - off_out * H) - math.log(-math.expm1(-th * H))
                lsum = max(lsum, -700)
            val = k * logM + lsum
            if best is None or val < best[0]: best = (val, th)
        res.append(best[1])
    return res

def cluster(ths):
    out = []
    for t in sorted(set(ths)):
        if t == 0 or not out or out[-1] == 0 or t / out[-1] > 1.25:
            out.append(t)
    return out

DELTAS = [1e-3, 1e-5, 1e-8, 1e-10]
EPSV = [0.5, 1.0, 2.0]

def run_case(rec, task, setting, direction, ss, k, tag):
    a_lo, o_lo = ss['lo']; a_up, o_up = ss['up']
    pinf_k = min(1.0, k * ss['p_inf'] * (1 + 1e-12))
    best = {}   # key -> (lo, up, info)
    t0 = time.time()
    def consider(c_lo, c_up, th, E_lo, E_up):
        Clo = Curve(c_lo, k * o_lo, 'lo'); Cup = Curve(c_up, k * o_up, 'up', extra=pinf_k)
        for t in DELTAS:
            el = Clo.eps_for(t); eu = Cup.eps_for(t)
            key = ('epsilon', t)
            cur = best.get(key, [None, None, None, None])
            if el is not None and (cur[0] is None or el > cur[0]): cur[0] = el; cur[2] = th
            if eu is not None and (cur[1] is None or eu < cur[1]): cur[1] = eu; cur[3] = th
            best[key] = cur
        for e in EPSV:
            dl = Clo.delta(e); du = Cup.delta(e)
            key = ('delta', e)
            cur = best.get(key, [None, None, None, None])
            if cur[0] is None or dl > cur[0]: cur[0] = dl; cur[2] = th
            if cur[1] is None or du < cur[1]: cur[1] = du; cur[3] = th
            best[key] = cur
        return Clo, Cup
    # pass 0 : theta = 0
    c_lo, dlo = kfold_certified(a_lo, k, 0.0, 'lo')
    c_up, dup = kfold_certified(a_up, k, 0.0, 'up')
    Clo, Cup = consider(c_lo, c_up, 0.0, dlo['E'], dup['E'])
    passes = [dict(theta=0.0, E_lo=dlo['E'], E_up=dup['E'], N=dlo['N'])]
    if k > 1:
        # approximate eps for delta targets from the theta=0 curves (midpoint of bounds)
        tg = []
        for t in DELTAS:
            b = best[('epsilon', t)]
            if b[0] is not None and b[1] is not None and math.isfinite(b[1]) and b[1] > 0:
                rel = (b[1] - b[0]) / max(b[1], 1e-300)
                if rel > (k * H * 1.05 + 1e-9) / max(b[1], 1e-300):
                    tg.append(0.5 * (b[0] + b[1]))
            elif b[1] is None or not math.isfinite(b[1]) or b[0] is None:
                # crude: use eps where approximate delta curve crosses
                D = Cup.approx_delta_grid(); l = (Cup.off + np.arange(len(D))) * H
                ii = np.nonzero(D > t)[0]
                if len(ii): tg.append(max(0.0, l[ii[-1]]))
        for e in EPSV:
            b = best[('delta', e)]
            if b[1] > 0 and (b[1] - b[0]) > 1e-6 * b[1]:
                tg.append(e)
        del c_lo, c_up, Clo, Cup
        # at most two tilted passes (time budget): theta for the middle delta target and for eps=1
        tl = choose_thetas(a_lo, k, tg, k * o_lo, k * (len(a_lo) - 1) + 1, None)
        cand = [t for t in tl if t > 0]
        if len(cand) > 2:
            cand = [cand[min(len(cand) - 1, 1)], cand[-1]] if len(cand) else []
        ths = cluster(cand)
        for th in ths:
            c_lo, dlo = kfold_certified(a_lo, k, th, 'lo')
            c_up, dup = kfold_certified(a_up, k, th, 'up')
            consider(c_lo, c_up, th, dlo['E'], dup['E'])
            passes.append(dict(theta=th, E_lo=dlo['E'], E_up=dup['E'], N=dlo['N']))
            del c_lo, c_up
    method = ("certified PLD discretisation h=2^-17 (lower: round loss down, upper: round up), "
              "tilted-FFT k-fold convolution with a-priori float error bound (x%g safety) subtracted/added; "
              "cell masses from scipy ndtr with per-cell error bounds; tails: per-step mass <= %g truncated "
              "(lower: dropped/at cap, upper: at floor/+inf)" % (SAFETY, TAILP))
    for (qty, at), (lo, up, thl, thu) in best.items():
        r = {"task": task, "setting": setting, "direction": direction, "quantity": qty,
             "at": {"delta": at} if qty == 'epsilon' else {"eps": at},
             "lower": None if lo is None else repr(float(lo)),
             "upper": None if up is None else repr(float(up)),
             "method": method, "theta_used": [thl, thu],
             "accuracy": "certified bracket: exact value in [lower, upper] (modulo the stated assumptions on "
                         "FFT/ndtr error bounds); expected gap in eps ~ k*h = %.3g" % (k * H)}
        rec.add(r, flush=False)
    rec.add({"task": task, "setting": setting, "direction": direction, "quantity": "diagnostics",
             "at": None, "value": {"passes": passes, "single_step": ss['info'], "p_inf_k": pinf_k,
                                   "seconds": time.time() - t0}})
    print(tag, setting, direction, 'k', k, 'passes', [(p['theta'], p['N']) for p in passes],
          '%.1fs' % (time.time() - t0), flush=True)

GROUPS = [
    (0.01, 1.0, [1, 2, 5, 10, 20]),
    (0.1, 1.0, [5, 20]),
    (0.5, 1.0, [1, 5]),
    (0.1, 2.0, [5]),
    (0.001, 2.0, [5]),
    (0.5, 2.0, [20]),
    (0.1, 0.6, [10]),
    (0.5, 0.6, [2, 10]),
    (0.001, 0.6, [20]),
    (0.01, 0.6, [20]),
]

# replace-one, Poisson, norm-bounded gradients (z: the noise multiplier, norms <= 1)
ANTIPODAL_GROUPS = [
    (0.01, 1.0, [1, 2, 5, 20]),
    (0.1, 1.0, [1, 5, 20]),
    (0.5, 2.0, [1, 10]),
    (0.001, 0.6, [1, 20]),
]

def main(which):
    if which in ('remove', 'add'):
        rec = Recorder('reference_output/pld_%s.json' % which, meta={"script": "pld_certified.py", "h": H})
        for q, z, ks in GROUPS:
            ss = build_subsampled(q, z, which, max(ks))
            for k in ks:
                setting = {"mechanism": "poisson_subsampled_gaussian", "q": q, "z": z, "k": k}
                if rec.has(2, setting, which, 'diagnostics', None):
                    continue
                run_case(rec, 2, setting, which, ss, k, which)
    elif which == 'replace':
        rec = Recorder('reference_output/pld_replace.json', meta={"script": "pld_certified.py", "h": H})
        for q, z, ks in [(0.01, 1.0, [1, 5, 20]), (0.1, 1.0, [1, 5, 20]), ]:
            ss = build_replace(q, z)
            for k in ks:
                setting = {"mechanism": "replace_difference_bounded_subsampled_gaussian" if q < 1 else
                           "gaussian_validation(q=1 replace == Gaussian mu=1/z)", "q": q, "z": z, "k": k}
                if rec.has(5, setting, 'replace', 'diagnostics', None):
                    continue
                run_case(rec, 5, setting, 'replace', ss, k, 'replace')
    elif which == 'antipodal':
        rec = Recorder('reference_output/pld_antipodal.json', meta={"script": "pld_certified.py", "h": H})
        for q, z, ks in ANTIPODAL_GROUPS:
            ss = build_antipodal(q, z)
            for k in ks:
                setting = {"mechanism": "antipodal_replace_one", "q": q, "z": z, "k": k}
                if rec.has(6, setting, 'antipodal', 'diagnostics', None):
                    continue
                run_case(rec, 6, setting, 'antipodal', ss, k, 'antipodal')

if __name__ == '__main__':
    main(sys.argv[1])
