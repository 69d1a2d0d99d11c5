"""Writes scipy_conditioning.json: NNLS problems of prescribed conditioning
with scipy.optimize.nnls's solutions, for TestAgainstScipyByConditioning.

Run with Debian's python3-scipy (scipy 1.10.1):
    apt-get install python3-scipy && /usr/bin/python3 gen_scipy_conditioning.py
"""
import json

import numpy as np
import scipy
from scipy.optimize import nnls

rng = np.random.default_rng(20261123)
N, K, M = 30, 10, 8
cases = []
for kind in ("signed", "nonneg"):
    for e in (0, 2, 4, 6, 8, 10, 12):
        cond = 10.0 ** e
        if kind == "signed":
            # A = U diag(sigma) V^T with singular values from 1 to 1/cond;
            # X = A S0 + noise with S0 of both signs, so constraints bind.
            u, _ = np.linalg.qr(rng.standard_normal((N, K)))
            v, _ = np.linalg.qr(rng.standard_normal((K, K)))
            sig = np.logspace(0, -e, K)
            a = u @ np.diag(sig) @ v.T
            s0 = rng.standard_normal((K, M))
            x = a @ s0 + 1e-3 * rng.standard_normal((N, M))
        else:
            # Nonnegative columns that differ from a common column by
            # 10^-e (cond grows like 10^e); X = A S0 + small nonnegative
            # noise with S0 >= 0 half zeros.
            w = rng.uniform(0, 1, (N, 1))
            z = rng.uniform(0, 1, (N, K))
            a = w + 10.0 ** (-e) * z if e > 0 else z
            s0 = rng.uniform(0, 1, (K, M)) * (rng.uniform(0, 1, (K, M)) < 0.5)
            x = a @ s0 + rng.uniform(0, 1e-3, (N, M))
        s = np.column_stack([nnls(a, x[:, j])[0] for j in range(M)])
        an = a / np.linalg.norm(a, axis=0)
        cases.append({
            "name": f"{kind}-1e{e}",
            "cond": float(np.linalg.cond(an)),
            "A": a.tolist(), "X": x.tolist(), "S": s.tolist(),
        })
with open("scipy_conditioning.json", "w") as fh:
    json.dump({"generator": f"scipy {scipy.__version__} scipy.optimize.nnls, numpy {np.__version__}, seed 20261123", "cases": cases}, fh)
