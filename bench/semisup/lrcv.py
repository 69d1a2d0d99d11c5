"""scikit-learn's answer to `neuralnmf fit -labels` for compare.sh: the
TF-IDF of all documents (the same vectoriser settings as the fit:
English stop words, min_df 2, max_df 0.5), LogisticRegressionCV (C from 10
values by 3-fold cross-validation, max_iter 1000) on the documents with a
label, and the predicted class of every document without one.

usage: lrcv.py DOCS.jsonl
"""
import json
import sys

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegressionCV


def main():
    docs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    x = TfidfVectorizer(stop_words="english", min_df=2, max_df=0.5).fit_transform([d["text"] for d in docs])
    known = [i for i, d in enumerate(docs) if d["label"]]
    unknown = [i for i, d in enumerate(docs) if not d["label"]]
    clf = LogisticRegressionCV(Cs=10, cv=3, max_iter=1000).fit(x[known], [docs[i]["label"] for i in known])
    if unknown:
        pred = clf.predict(x[unknown])
        print("predicted %d documents" % len(pred))


main()
