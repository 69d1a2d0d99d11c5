#!/usr/bin/python3
"""Issue 69's bars against scikit-learn's own HNMF, as the issue names it.

    python3 sklearn_hnmf.py X.mtx OURS.log [SEEDS]

X is the TF-IDF matrix (features x documents) that `go run
./bench/quality/hierarchy` scores on, written by `neuralnmf vectorize` with
its text options (`-stopwords english -min-df 2 -max-df 0.5`, and
`-newsgroups` for the 20 Newsgroups posts); OURS.log is that bench's log,
whose per-seed "ours:" lines give our default fit's measures. For each seed
(default 1-10) it fits scikit-learn's HNMF with the library's defaults:
NMF(20, random_state=seed) of the documents (init None, which is NNDSVDa
for these shapes; solver cd; max_iter 200), then NMF(10, random_state=seed)
of its document loadings W; fine topics H1, broad topics H2.H1, a fine
topic's parent the broad topic of its largest entry in H2. It scores them
here, independently of package quality, with the bench's measures: NPMI of
the top 10 words (bench/quality/npmi.py's topic_npmi), specialization
1 - cos(topic, X's row sums), and hierarchical affinity (mean cosine of each
broad topic with its children, and with the others); and prints the paired
differences ours - scikit-learn's HNMF (broad layer) and ours -
scikit-learn's NMF(20) (fine layer, the first NMF of the HNMF) as mean +-
standard error. Needs python3-sklearn.
"""
import os
import re
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp
import sklearn
from sklearn.decomposition import NMF

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from npmi import topic_npmi  # noqa: E402  the formula neuralnmf quality is checked against


def top_words(t, n=10):
    order = np.argsort(-t, kind="stable")
    return [int(i) for i in order[:n] if t[i] > 0]


def cos(u, v):
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        return float("nan")
    return float(u @ v / (nu * nv))


def measures(b, d, corpus, fine, broad, parent):
    """fine: k1 x F, broad: k2 x F topics; parent[i]: fine topic i's parent."""
    npmi = [np.mean([topic_npmi(b, d, top_words(t)) for t in layer]) for layer in (fine, broad)]
    spec = [np.mean([1 - cos(t, corpus) for t in layer]) for layer in (fine, broad)]
    child, other = [], []
    for i, f in enumerate(fine):
        for j, g in enumerate(broad):
            c = cos(f, g)
            if np.isnan(c):
                continue
            (child if j == parent[i] else other).append(c)
    return npmi, spec, float(np.mean(child)), float(np.mean(other))


def ours_from_log(path):
    pat = re.compile(r"^seed (\d+)$|^\s+ours: NPMI ([\d.]+) ([\d.]+), specialization ([\d.]+) ([\d.]+), affinity ([\d.]+) vs ([\d.]+)")
    out, seed = {}, None
    for line in open(path):
        m = pat.match(line)
        if not m:
            continue
        if m.group(1):
            seed = int(m.group(1))
        else:
            out[seed] = [float(g) for g in m.groups()[1:]]
    return out


def mean_se(v):
    v = np.asarray(v)
    return f"{v.mean():+.4f} ± {v.std(ddof=1) / np.sqrt(len(v)):.4f}"


def main():
    xpath, logpath = sys.argv[1:3]
    lo, hi = (int(s) for s in (sys.argv[3] if len(sys.argv) > 3 else "1-10").split("-"))
    x = sp.csr_matrix(scipy.io.mmread(xpath))  # features x documents
    b = (x > 0).astype(np.float64)
    d = b.shape[1]
    corpus = np.asarray(x.sum(axis=1)).ravel()
    ours = ours_from_log(logpath)
    xt = x.T.tocsr()
    print(f"# {xpath}: {x.shape[0]} words x {d} documents; scikit-learn {sklearn.__version__} HNMF NMF(20) then NMF(10) of W, defaults; ours from {logpath}")
    diffs = {k: [] for k in ("broad", "fine", "spec", "ourgap", "skgap")}
    for seed in range(lo, hi + 1):
        m1 = NMF(n_components=20, random_state=seed)
        w1 = m1.fit_transform(xt)
        h1 = m1.components_
        m2 = NMF(n_components=10, random_state=seed)
        m2.fit_transform(w1)
        h2 = m2.components_  # 10 x 20
        parent = np.argmax(h2, axis=0)
        npmi, spec, affc, affn = measures(b, d, corpus, h1, h2 @ h1, parent)
        o = ours[seed]
        print(f"seed {seed}\n  ours: NPMI {o[0]:.3f} {o[1]:.3f}, specialization {o[2]:.3f} {o[3]:.3f}, affinity {o[4]:.3f} vs {o[5]:.3f}")
        print(f"  scikit-learn HNMF (init {m1.init or 'None: nndsvda'}, {m1.n_iter_} and {m2.n_iter_} iterations): NPMI {npmi[0]:.3f} {npmi[1]:.3f}, specialization {spec[0]:.3f} {spec[1]:.3f}, affinity {affc:.3f} vs {affn:.3f}")
        diffs["broad"].append(o[1] - npmi[1])
        diffs["fine"].append(o[0] - npmi[0])
        diffs["spec"].append(o[3] - spec[1])
        diffs["ourgap"].append(o[4] - o[5])
        diffs["skgap"].append(affc - affn)
    print(f"paired over {hi - lo + 1} seeds (mean ± standard error):")
    print(f"  broad NPMI, ours − scikit-learn HNMF:            {mean_se(diffs['broad'])}")
    print(f"  fine NPMI, ours − scikit-learn NMF(20):          {mean_se(diffs['fine'])}")
    print(f"  broad specialization, ours − scikit-learn HNMF:  {mean_se(diffs['spec'])}")
    print(f"  affinity children − others, ours:                {mean_se(diffs['ourgap'])}")
    print(f"  affinity children − others, scikit-learn HNMF:   {mean_se(diffs['skgap'])}")


if __name__ == "__main__":
    main()
