#!/usr/bin/python3
"""Fit scikit-learn's NMF (or a two-layer HNMF of NMFs) to a Matrix Market
file X (features x samples, as neuralnmf reads it) and print the relative
error ||X - reconstruction||_F / ||X||_F. Used by compare_fit.sh, which times
this whole process beside `neuralnmf fit` on the same file.

    python3 nmf_fit.py X.mtx.gz 10        # NMF(10), init='nndsvda', max_iter=1000
    python3 nmf_fit.py X.mtx.gz 10,6      # NMF(6) of NMF(10)'s document loadings

Needs Debian's python3-sklearn (apt-get install python3-sklearn).
"""
import gzip
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp
from sklearn.decomposition import NMF


def main():
    path, ranks = sys.argv[1], [int(r) for r in sys.argv[2].split(",")]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        x = scipy.io.mmread(f)
    xt = sp.csr_matrix(x).T.tocsr() if sp.issparse(x) else np.asarray(x).T  # samples x features
    w = None
    h_chain = []  # H of each layer, finest first
    inp = xt
    for k in ranks:
        m = NMF(n_components=k, init="nndsvda", max_iter=1000, random_state=0)
        w = m.fit_transform(inp)
        h_chain.append(m.components_)
        inp = w
    # X^T ~ W_L H_L ... H_1 H_0; form the k0-wide left factor, then expand.
    left = w
    for h in reversed(h_chain[1:]):
        left = left @ h
    h0 = h_chain[0]
    if sp.issparse(xt):
        xn2 = xt.multiply(xt).sum()
        cross = np.sum((xt @ h0.T) * left)
    else:
        xn2 = np.sum(xt * xt)
        cross = np.sum((xt @ h0.T) * left)
    fit2 = np.sum((left.T @ left) * (h0 @ h0.T))
    rel = np.sqrt(max(xn2 - 2 * cross + fit2, 0) / xn2)
    print(f"scikit-learn {'NMF' if len(ranks) == 1 else 'HNMF'} ranks {sys.argv[2]}: relative error {rel:.6f}")


if __name__ == "__main__":
    main()
