"""scikit-learn baselines of experiments/semisup, on the files that
semisup.WriteBaselineInputs writes (usage: baselines.py DIR SEED...).

For every fraction and seed it prints one JSON line per method:
  sklearn NMF + read-out: NMF(P) of the training documents (scikit-learn's
      defaults, random_state=seed, max_iter=1000), the test documents
      transformed, and the paper's least-squares read-out B = Y S^+ fitted
      on the known labels' columns;
  LogisticRegression: on the TF-IDF of the known training documents
      (scikit-learn's defaults, max_iter=1000).
Needs python3-sklearn (Debian) and python3-scipy.
"""
import glob
import json
import os
import sys
import time

import numpy as np
import scipy.io
from sklearn.decomposition import NMF
from sklearn.linear_model import LogisticRegression


def main():
    d = sys.argv[1]
    seeds = [int(s) for s in sys.argv[2:]]
    xtr = scipy.io.mmread(os.path.join(d, "XTrain.mtx")).T.tocsr()  # docs x words
    xev = scipy.io.mmread(os.path.join(d, "XEval.mtx")).T.tocsr()
    ytr = np.loadtxt(os.path.join(d, "ytrain.txt"), dtype=int)
    yev = np.loadtxt(os.path.join(d, "yeval.txt"), dtype=int)
    p = int(ytr.max()) + 1
    fracs = sorted({os.path.basename(f).split("-")[1] for f in glob.glob(os.path.join(d, "known-*.txt"))}, key=float)
    for seed in seeds:
        t0 = time.time()
        nmf = NMF(n_components=p, random_state=seed, max_iter=1000)
        htr = nmf.fit_transform(xtr)  # docs x p
        hev = nmf.transform(xev)
        t_nmf = time.time() - t0
        for f in fracs:
            known = np.loadtxt(os.path.join(d, f"known-{f}-{seed}.txt"), dtype=int).astype(bool)
            y = np.zeros((p, len(ytr)))
            y[ytr[known], np.nonzero(known)[0]] = 1
            b = y @ np.linalg.pinv(htr.T)  # p x p
            acc = float(np.mean(np.argmax(b @ hev.T, axis=0) == yev))
            emit("sklearn NMF + read-out", f, seed, acc, nmf.n_iter_, t_nmf)
            t0 = time.time()
            lr = LogisticRegression(max_iter=1000)
            lr.fit(xtr[known], ytr[known])
            acc = float(np.mean(lr.predict(xev) == yev))
            emit("LogisticRegression on TF-IDF", f, seed, acc, 0, time.time() - t0)


def emit(method, frac, seed, acc, epochs, secs):
    print(json.dumps({"Method": method, "Fraction": float(frac), "Seed": seed, "Accuracy": acc,
                      "Epochs": int(epochs), "Seconds": secs}))


if __name__ == "__main__":
    main()
