"""Writes DIR/docs.jsonl for compare.sh: the documents of a corpus of
experiments/corpora (one {"id", "label", "text"} per line), with the labels
of all but a stratified, seeded share FRACTION of each class blanked, and
prints the number of classes.

usage: prepare.py CORPUS.jsonl FRACTION SEED DIR
"""
import collections
import json
import random
import sys


def main():
    src, frac, seed, out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    docs = [json.loads(line) for line in open(src, encoding="utf-8")]
    by_class = collections.defaultdict(list)
    for i, d in enumerate(docs):
        by_class[d["label"]].append(i)
    rng = random.Random(seed)
    known = set()
    for label in sorted(by_class):
        idx = by_class[label]
        rng.shuffle(idx)
        known.update(idx[: max(2, int(round(frac * len(idx))))])
    with open(out + "/docs.jsonl", "w", encoding="utf-8") as f:
        for i, d in enumerate(docs):
            label = d["label"] if i in known else ""
            f.write(json.dumps({"id": d["id"], "label": label, "text": d["text"]}) + "\n")
    print(len(by_class))


main()
