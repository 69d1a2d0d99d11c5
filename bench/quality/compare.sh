#!/usr/bin/env bash
# NPMI per layer of a default `neuralnmf fit` beside scikit-learn's NMF,
# HNMF and LDA at the same K, on one corpus of documents (NPMI of the top
# 10 words, co-occurrence in the corpus's documents):
#
#   bash bench/quality/compare.sh docs.jsonl 20,10 [seed] [field]
#
# Vectorises with -stopwords english -min-df 5 -max-df 0.5. Needs Debian's
# python3-sklearn.
set -euo pipefail
cd "$(dirname "$0")/../.."
DOCS=$1; RANKS=$2; SEED=${3:-1}; FIELD=${4:-text}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
go build -o "$T/neuralnmf" ./cmd/neuralnmf
V=(-stopwords english -min-df 5 -max-df 0.5 -field "$FIELD")
"$T/neuralnmf" vectorize -text "$DOCS" "${V[@]}" -o "$T/x.mtx.gz" -vocab "$T/vocab.txt" > /dev/null
"$T/neuralnmf" vectorize -text "$DOCS" "${V[@]}" -counts -o "$T/c.mtx.gz" > /dev/null
"$T/neuralnmf" fit -text "$DOCS" "${V[@]}" -ranks "$RANKS" -seed "$SEED" -quiet -o "$T/m.nnmf" > /dev/null
"$T/neuralnmf" quality -model "$T/m.nnmf" -text "$DOCS" -field "$FIELD" -format csv > "$T/q.csv"
echo "# $(basename "$DOCS"), ranks $RANKS, seed $SEED"
"$PY" bench/quality/npmi.py "$T/x.mtx.gz" "$T/vocab.txt" "$T/q.csv" | tail -1
"$PY" bench/quality/sklearn_npmi.py "$T/x.mtx.gz" "$T/c.mtx.gz" "$T/vocab.txt" "$T/q.csv" "$RANKS" "$SEED"
