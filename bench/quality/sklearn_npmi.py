#!/usr/bin/python3
"""NPMI per layer of scikit-learn's topic models beside neuralnmf's, on the
same documents and the same formula (bench/quality/npmi.py's topic_npmi).

    python3 sklearn_npmi.py X.mtx.gz C.mtx.gz vocab.txt quality.csv K1,K2 SEED

X is the TF-IDF matrix (features x documents) the model was fitted on
(`neuralnmf vectorize` with the fit's options), C the same documents'
counts (`-counts`), for LDA; vocab.txt names X's rows; quality.csv is
`neuralnmf quality -format csv` of the model. Prints, per layer K, the NPMI
of the model's topics and of NMF(K), HNMF (NMF(K2) of NMF(K1)'s document
loadings; topics H2·H1) and LDA(K), the top 10 words each, co-occurrence
in X's documents. Needs python3-sklearn.
"""
import csv
import gzip
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp
from sklearn.decomposition import NMF, LatentDirichletAllocation

from npmi import topic_npmi  # the same formula as the check of neuralnmf quality


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return sp.csr_matrix(scipy.io.mmread(f))


def layer_npmi(b, d, topics):  # topics: k x features
    return float(np.mean([topic_npmi(b, d, list(np.argsort(-t)[:10])) for t in topics]))


def main():
    xpath, cpath, vpath, qpath, ranks, seed = sys.argv[1:7]
    ks = [int(k) for k in ranks.split(",")]
    seed = int(seed)
    x = read(xpath)
    c = read(cpath)
    b = (x > 0).astype(np.float64)
    d = b.shape[1]
    ours = {}
    for rec in csv.DictReader(open(qpath)):
        ours[int(rec["layer"])] = float(rec["layer_npmi"])
    xt = x.T.tocsr()  # documents x features
    hs, inp = [], xt
    for k in ks:
        m = NMF(n_components=k, init="nndsvda", max_iter=1000, random_state=seed)
        w = m.fit_transform(inp)
        hs.append(m.components_)
        inp = w
    for l, k in enumerate(ks):
        flat = NMF(n_components=k, init="nndsvda", max_iter=1000, random_state=seed).fit(xt).components_
        hier = hs[0]
        for h in hs[1:l + 1]:
            hier = h @ hier
        lda = LatentDirichletAllocation(n_components=k, random_state=seed, learning_method="batch", max_iter=20).fit(c.T.tocsr()).components_
        print(f"layer {l + 1}, K {k}: neuralnmf {ours[l + 1]:.3f}  NMF {layer_npmi(b, d, flat):.3f}  HNMF {layer_npmi(b, d, hier):.3f}  LDA {layer_npmi(b, d, lda):.3f}")


if __name__ == "__main__":
    main()
