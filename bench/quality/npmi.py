#!/usr/bin/python3
"""An independent NPMI computation for `neuralnmf quality`'s CSV output.

    python3 npmi.py X.mtx.gz vocab.txt quality.csv

X (features x documents, Matrix Market) and vocab.txt (one word per line,
line i naming row i) come from `neuralnmf vectorize` with the options the
model was fitted with; quality.csv from `neuralnmf quality -format csv`.
For each topic it recomputes the NPMI of its words from X with numpy
(document frequencies from a 0/1 matrix product: p(i) = df_i/D,
p(i,j) = df_ij/D, NPMI = log(p(i,j)/(p(i)p(j))) / -log p(i,j), a pair
never together -1, a pair in every document 1), averages per layer, and
prints the largest difference from quality's numbers per topic and per
layer. Needs numpy and scipy (Debian's python3-scipy).
"""
import csv
import gzip
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def topic_npmi(b, d, rows):
    """The mean NPMI of the pairs of rows (words) of the 0/1 matrix b
    (features x d documents)."""
    sub = b[rows].toarray()
    df = sub.sum(axis=1)
    co = sub @ sub.T
    vals = []
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if co[i, j] == 0:
                vals.append(-1.0)
            elif co[i, j] == d:
                vals.append(1.0)
            else:
                pij, pi, pj = co[i, j] / d, df[i] / d, df[j] / d
                vals.append(np.log(pij / (pi * pj)) / -np.log(pij))
    return float(np.mean(vals))


def main():
    xpath, vpath, qpath = sys.argv[1:4]
    opener = gzip.open if xpath.endswith(".gz") else open
    with opener(xpath, "rb") as f:
        x = sp.csr_matrix(scipy.io.mmread(f))
    b = (x > 0).astype(np.float64)  # features x documents, 0/1
    d = b.shape[1]
    with open(vpath) as f:
        row = {w.rstrip("\n"): i for i, w in enumerate(f)}
    layers = {}
    worst_topic = 0.0
    for rec in csv.DictReader(open(qpath)):
        npmi = topic_npmi(b, d, [row[w] for w in rec["words"].split(" ")])
        worst_topic = max(worst_topic, abs(npmi - float(rec["npmi"])))
        layers.setdefault(rec["layer"], []).append((npmi, float(rec["layer_npmi"])))
    worst_layer = max(abs(np.mean([a for a, _ in v]) - v[0][1]) for v in layers.values())
    for k, v in layers.items():
        print(f"layer {k}: NPMI {np.mean([a for a, _ in v]):.6f} (quality: {v[0][1]:.6f})")
    print(f"largest difference: per topic {worst_topic:.2e}, per layer {worst_layer:.2e}")


if __name__ == "__main__":
    main()
