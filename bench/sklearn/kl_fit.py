#!/usr/bin/python3
"""Fit scikit-learn's NMF under the generalised Kullback-Leibler divergence
to a Matrix Market file X (features x samples, as neuralnmf reads it) and
print the divergence D(X || reconstruction); or, given a neuralnmf model's
A1 and S1 exported as .mtx, print that model's divergence by the same
function. Used by compare_kl.sh.

    python3 kl_fit.py X.mtx.gz 10                 # NMF(10, beta_loss='kullback-leibler', solver='mu', init='nndsvda')
    python3 kl_fit.py X.mtx.gz score A1.mtx S1.mtx # D(X || A1 S1) of a neuralnmf model

Needs Debian's python3-sklearn (apt-get install python3-sklearn).
"""
import gzip
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp
from sklearn.decomposition import NMF
from sklearn.decomposition._nmf import _beta_divergence


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return scipy.io.mmread(f)


def main():
    x = read(sys.argv[1])
    xt = sp.csr_matrix(x).T.tocsr()  # samples x features, as scikit-learn takes it
    if sys.argv[2] == "score":
        a = np.asarray(read(sys.argv[3]).todense() if sp.issparse(read(sys.argv[3])) else read(sys.argv[3]))
        s = np.asarray(read(sys.argv[4]).todense() if sp.issparse(read(sys.argv[4])) else read(sys.argv[4]))
        # X ~ A S, so X^T ~ S^T A^T: W = S^T, H = A^T.
        d = _beta_divergence(xt, s.T, a.T, "kullback-leibler")
        print(f"neuralnmf model: KL divergence {d:.6f}")
        return
    k = int(sys.argv[2])
    m = NMF(n_components=k, beta_loss="kullback-leibler", solver="mu", init="nndsvda", random_state=0)
    w = m.fit_transform(xt)
    d = _beta_divergence(xt, w, m.components_, "kullback-leibler")
    print(f"scikit-learn NMF({k}, kullback-leibler, mu, nndsvda): {m.n_iter_} iterations, KL divergence {d:.6f}")


if __name__ == "__main__":
    main()
