"""scikit-learn baselines of experiments/semisup, on the files that
semisup.WriteBaselineInputs writes (usage: baselines.py DIR SEED...).

For every fraction and seed it prints one JSON line per method:
  sklearn NMF + read-out: NMF(P) of the training documents (scikit-learn's
      defaults, random_state=seed, max_iter=1000), the test documents
      transformed, and the paper's least-squares read-out B = Y S^+ fitted
      on the known labels' columns;
  LogisticRegression: on the TF-IDF of the known training documents
      (scikit-learn's defaults, max_iter=1000);
  LogisticRegression, C by CV: LogisticRegressionCV, C from 10 values by
      stratified 3-fold cross-validation on the known labels (fewer folds
      where a class has fewer than 3 known labels; the defaults' C where
      one has a single one);
  LabelSpreading: scikit-learn's LabelSpreading with the kNN kernel (7
      neighbours) on the TF-IDF of all training documents (made dense: it
      takes no sparse input), the unknown ones marked -1, predicting the
      test documents;
  SelfTraining(LogReg): scikit-learn's SelfTrainingClassifier around
      LogisticRegression with the C that LogisticRegressionCV chose above
      (its defaults otherwise: threshold 0.75, rounds until no unknown
      document is predicted above it), on the TF-IDF of all training
      documents, the unknown ones marked -1.
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
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.model_selection import StratifiedKFold
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier


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
            t0 = time.time()
            counts = np.bincount(ytr[known])
            folds = min(3, int(counts[counts > 0].min()))
            if folds >= 2:
                lr = LogisticRegressionCV(Cs=10, cv=StratifiedKFold(folds, shuffle=True, random_state=seed), max_iter=1000)
            else:
                lr = LogisticRegression(max_iter=1000)
            lr.fit(xtr[known], ytr[known])
            acc = float(np.mean(lr.predict(xev) == yev))
            emit("LogisticRegression, C by CV", f, seed, acc, 0, time.time() - t0)
            c = float(lr.C_[0]) if hasattr(lr, "C_") else lr.C
            t0 = time.time()
            st = SelfTrainingClassifier(LogisticRegression(C=c, max_iter=1000))
            st.fit(xtr, np.where(known, ytr, -1))
            acc = float(np.mean(st.predict(xev) == yev))
            emit("SelfTraining(LogReg)", f, seed, acc, st.n_iter_, time.time() - t0)
            t0 = time.time()
            ls = LabelSpreading(kernel="knn", n_neighbors=7, max_iter=1000)
            ls.fit(xtr.toarray(), np.where(known, ytr, -1))  # it takes dense data only
            acc = float(np.mean(ls.predict(xev.toarray()) == yev))
            emit("LabelSpreading (kNN)", f, seed, acc, 0, time.time() - t0)


def emit(method, frac, seed, acc, epochs, secs):
    print(json.dumps({"Method": method, "Fraction": float(frac), "Seed": seed, "Accuracy": acc,
                      "Epochs": int(epochs), "Seconds": secs}))


if __name__ == "__main__":
    main()
