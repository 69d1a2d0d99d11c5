"""Reference results of scikit-learn for classify's tests (testdata/sklearn.json).

Regenerate with `/usr/bin/python3 classify/testdata/gen.py > classify/testdata/sklearn.json`
(Debian: apt-get install python3-sklearn). The data are generated here with
NumPy's seeded generator: three classes of sparse nonnegative samples, each
class favouring its own third of the features, every sample at unit length.
"""
import json

import numpy as np
import sklearn
from scipy import sparse
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.model_selection import PredefinedSplit
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier

rng = np.random.default_rng(7)
n_features, n_samples, classes = 40, 90, 3
X = np.zeros((n_samples, n_features))
y = np.arange(n_samples) % classes
for j in range(n_samples):
    third = y[j] * (n_features // classes)
    for i in range(n_features):
        own = third <= i < third + n_features // classes
        if rng.random() < (0.35 if own else 0.08):
            X[j, i] = rng.random() * (2.0 if own else 1.0)
X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-300)
Xs = sparse.csr_matrix(X)

out = {"sklearn": sklearn.__version__, "features": n_features, "classes": classes,
       "X": X.tolist(), "y": y.tolist(), "fits": []}
for C in [0.1, 1.0, 10.0]:
    m = LogisticRegression(C=C, tol=1e-10, max_iter=10000).fit(Xs, y)
    out["fits"].append({"C": C, "coef": m.coef_.tolist(), "intercept": m.intercept_.tolist()})

fold = np.arange(n_samples) % 5  # five folds of 18, three classes each
cv = LogisticRegressionCV(Cs=10, cv=PredefinedSplit(fold), scoring="accuracy", tol=1e-4, max_iter=1000).fit(Xs, y)
out["cv"] = {"fold": fold.tolist(), "C": float(cv.C_[0])}

known = y.copy()
known[np.arange(n_samples) % 5 != 0] = -1  # 18 known labels, 6 a class
ls = LabelSpreading(kernel="knn", n_neighbors=7, alpha=0.2, max_iter=30).fit(X, known)
out["spreading"] = {"known": known.tolist(), "pred": ls.transduction_.tolist()}

st = SelfTrainingClassifier(LogisticRegression(C=10.0, tol=1e-10, max_iter=10000), threshold=0.75).fit(Xs, known)
out["selftraining"] = {"C": 10.0, "threshold": 0.75, "labels": st.transduction_.tolist(),
                       "round": st.labeled_iter_.tolist(), "rounds": int(st.n_iter_)}
print(json.dumps(out))
