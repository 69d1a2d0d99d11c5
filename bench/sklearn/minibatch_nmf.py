#!/usr/bin/python3
"""Fit scikit-learn's MiniBatchNMF to a Matrix Market file X (features x
samples, as neuralnmf reads it) and print the time of the fit alone (the
file is read first, untimed), its passes, and the relative error
||X - W H||_F / ||X||_F on all samples. Used by compare_minibatch.sh.

    python3 minibatch_nmf.py X.mtx.gz 20 1000    # n_components=20, batch_size=1000

Needs Debian's python3-sklearn (apt-get install python3-sklearn), 1.1 or later.
"""
import gzip
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from sklearn.decomposition import MiniBatchNMF


def main():
    path, k, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    opener = gzip.open if path.endswith(".gz") else open
    t0 = time.time()
    with opener(path, "rb") as f:
        x = scipy.io.mmread(f)
    xt = sp.csr_matrix(x).T.tocsr()  # samples x features
    t1 = time.time()
    m = MiniBatchNMF(n_components=k, batch_size=batch, random_state=1)
    w = m.fit_transform(xt)
    t2 = time.time()
    h = m.components_
    # ||X - WH||^2 = ||X||^2 - 2 <X, WH> + ||W^T W * H H^T||, without forming WH
    xn = sp.linalg.norm(xt) ** 2
    cross = np.sum((xt @ h.T) * w)
    quad = np.sum((w.T @ w) * (h @ h.T))
    rel = np.sqrt(max(xn - 2 * cross + quad, 0.0) / xn)
    print(f"read {t1 - t0:.2f} s, fit {t2 - t1:.2f} s, {m.n_steps_} steps ({m.n_iter_} passes), relative error {rel:.6f}")


if __name__ == "__main__":
    main()
