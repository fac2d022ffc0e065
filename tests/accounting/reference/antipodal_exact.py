"""One step of the antipodal pair (replace-one, Poisson sampling, per-record gradient norms <= 1):
P = (1-q) N(0, z^2) + q N(1, z^2) against Q = (1-q) N(0, z^2) + q N(-1, z^2), z the noise
multiplier (dp_accounting's REPLACE_ONE pair with sensitivity 1; docs/derivations/
replace_one_poisson_antipodal.md). In rdpdyn's units mu = S_g / sigma = 2 / z and C = mu / 2.

The loss L(x) = log((1-q) + q e^{(2x-1)/(2z^2)}) - log((1-q) + q e^{(-2x-1)/(2z^2)}) is increasing and
odd, so {L > eps} = {x > x*} with x* in closed form: with a = e^{x/z^2} and k = q e^{-1/(2z^2)}/(1-q),
e^L = a (1 + k a) / (a + k), i.e. k a^2 + (1 - e^eps) a - k e^eps = 0, and
    delta(eps) = (1-q) Phibar(x*/z) + q Phibar((x*-1)/z) - e^eps [(1-q) Phibar(x*/z) + q Phibar((x*+1)/z)].
Any real eps (the profile at negative eps is what composition needs). Computed at 70 and 110 digits,
reported to 40.
"""
import mpmath as M
from common import Recorder
from exact_1d import eps_of_delta, fmt

DPS, DPS2 = 70, 110
OUT = 'reference_output/antipodal_exact.json'


def threshold(q, z, eps):
    k = q * M.exp(-1 / (2 * z * z)) / (1 - q)
    b = -M.expm1(eps)  # 1 - e^eps
    a = (-b + M.sqrt(b * b + 4 * k * k * M.exp(eps))) / (2 * k)
    return z * z * M.log(a)


def delta(q, z, eps):
    q, z, eps = M.mpf(q), M.mpf(z), M.mpf(eps)
    x = threshold(q, z, eps)
    sf = lambda m: M.ncdf(-(x - m) / z)
    return (1 - q) * sf(0) + q * sf(1) - M.exp(eps) * ((1 - q) * sf(0) + q * sf(-1))


QS = ['0.001', '0.01', '0.1', '0.5']
ZS = ['0.6', '1', '2']
EPSS = ['-2', '-0.5', '0.1', '0.5', '1', '2']
DELTAS = ['1e-3', '1e-5', '1e-8', '1e-10']


def run():
    rec = Recorder(OUT, meta={"script": "antipodal_exact.py", "dps": DPS, "check_dps": DPS2})
    rec.data["records"] = []
    for q in QS:
        for z in ZS:
            setting = {"mechanism": "antipodal_replace_one", "q": q, "z": z, "k": 1}
            for e in EPSS:
                vals = []
                for dps in (DPS, DPS2):
                    with M.workdps(dps):
                        vals.append(delta(q, z, e))
                with M.workdps(DPS2):
                    agree = -M.log10(abs(vals[0] - vals[1]) / abs(vals[1])) if vals[0] != vals[1] else M.inf
                rec.add({"setting": setting, "quantity": "delta", "at": {"eps": e}, "value": fmt(vals[1]),
                         "method": "closed-form threshold x* + mpmath ncdf",
                         "accuracy": "40 digits (dps %d vs %d agree to %s)" % (DPS, DPS2, M.nstr(agree, 3))}, flush=False)
            for t in DELTAS:
                vals = []
                for dps in (DPS, DPS2):
                    with M.workdps(dps):
                        vals.append(eps_of_delta(lambda e: delta(q, z, e), t, 1))
                with M.workdps(DPS2):
                    agree = -M.log10(abs(vals[0] - vals[1]) / abs(vals[1])) if vals[0] != vals[1] else M.inf
                rec.add({"setting": setting, "quantity": "epsilon", "at": {"delta": t}, "value": fmt(vals[1]),
                         "method": "root in eps of exact delta(eps) (mpmath anderson)",
                         "accuracy": "40 digits (dps %d vs %d agree to %s)" % (DPS, DPS2, M.nstr(agree, 3))}, flush=False)
            print(q, z, flush=True)
    rec.flush()


if __name__ == '__main__':
    run()
