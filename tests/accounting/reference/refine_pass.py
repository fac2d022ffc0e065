"""Extra certified tilted pass for a single (replace q, z, k) case whose bracket at a small delta was loose
because the run was limited to two tilted passes.  Updates partial/pld_replace.json in place
(keeps the tighter of old/new bound for each target)."""
import sys, json, math, os
sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from pld_certified import *
q, z, k, eps_target = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
ss = build_replace(q, z)
a_lo, o_lo = ss['lo']; a_up, o_up = ss['up']
th = choose_thetas(a_lo, k, [eps_target], k * o_lo, k * (len(a_lo) - 1) + 1, None)[0]
print('theta', th, flush=True)
pinf_k = min(1.0, k * ss['p_inf'] * (1 + 1e-12))
c_lo, dlo = kfold_certified(a_lo, k, th, 'lo'); Clo = Curve(c_lo, k * o_lo, 'lo')
c_up, dup = kfold_certified(a_up, k, th, 'up'); Cup = Curve(c_up, k * o_up, 'up', extra=pinf_k)
p = 'reference_output/pld_replace.json'
d = json.load(open(p))
for r in d['records']:
    s = r['setting']
    if s['q'] != q or s['z'] != z or s['k'] != k: continue
    if r['quantity'] == 'diagnostics':
        r['value']['passes'].append(dict(theta=th, E_lo=dlo['E'], E_up=dup['E'], N=dlo['N'], note='refine_pass.py'))
        continue
    if r['quantity'] == 'epsilon':
        t = r['at']['delta']; nl = Clo.eps_for(t); nu = Cup.eps_for(t)
    else:
        e = r['at']['eps']; nl = Clo.delta(e); nu = Cup.delta(e)
    ol = float(r['lower']) if r['lower'] else None; ou = float(r['upper']) if r['upper'] else None
    if nl is not None and (ol is None or nl > ol): r['lower'] = repr(float(nl)); r['theta_used'][0] = th
    if nu is not None and (ou is None or nu < ou): r['upper'] = repr(float(nu)); r['theta_used'][1] = th
    print(r['quantity'], r['at'], ol, ou, '->', r['lower'], r['upper'], flush=True)
json.dump(d, open(p + '.tmp', 'w'), indent=1); os.replace(p + '.tmp', p)
