#!/usr/bin/env bash
# Times a default `neuralnmf fit -labels` (the choice on held-out known
# labels included) beside scikit-learn's TF-IDF + LogisticRegressionCV, as
# whole processes, alternating, on the same documents with the same known
# labels, and prints each run's time and the median ratio. Opt-in: needs
# Debian's python3-sklearn (apt-get install python3-sklearn) and a corpus
# of experiments/corpora (go run ./experiments/corpora/build -out DIR).
#
#   bash bench/semisup/compare.sh CORPUS.jsonl [FRACTION] [runs]
#
# FRACTION is the share of each class whose labels are known (default
# 0.3); runs defaults to 3. Ranks are 2P,P for P classes, as in
# experiments/semisup.
set -euo pipefail
cd "$(dirname "$0")/../.."
CORPUS=${1:?usage: compare.sh CORPUS.jsonl [FRACTION] [runs]}
FRAC=${2:-0.3}
RUNS=${3:-3}
PY=${PYTHON:-/usr/bin/python3}
"$PY" -c 'import sklearn' 2>/dev/null || { echo "needs scikit-learn for $PY: apt-get install python3-sklearn" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/neuralnmf" ./cmd/neuralnmf
P=$("$PY" bench/semisup/prepare.py "$CORPUS" "$FRAC" 1 "$TMP")
secs() { # prints elapsed seconds of "$@", its stdout to $TMP/out
  local t0 t1
  t0=$(date +%s.%N); "$@" > "$TMP/out"; t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
: > "$TMP/ours"; : > "$TMP/theirs"
name=$(basename "$CORPUS" .jsonl)
for ((i = 1; i <= RUNS; i++)); do
  t=$(secs "$TMP/neuralnmf" fit -text "$TMP/docs.jsonl" -field text -label-field label -stopwords english -min-df 2 -max-df 0.5 \
    -ranks "$((2 * P)),$P" -o "$TMP/m.nnmf" -quiet)
  chose=$(grep -o 'labels: chose .*' "$TMP/out" | sed 's/labels: chose //; s/ by its accuracy.*//; s/, the prior, .*//; s/ (C [^)]*)//g')
  echo "$t" >> "$TMP/ours"
  printf '%s %g run %d  neuralnmf fit -labels      %7.2f s  chose %s\n' "$name" "$FRAC" "$i" "$t" "$chose"
  t=$(secs "$PY" bench/semisup/lrcv.py "$TMP/docs.jsonl")
  echo "$t" >> "$TMP/theirs"
  printf '%s %g run %d  TF-IDF + LogisticRegressionCV %7.2f s\n' "$name" "$FRAC" "$i" "$t"
done
o=$(median < "$TMP/ours"); s=$(median < "$TMP/theirs")
printf '%s %g median: neuralnmf %.2f s, scikit-learn %.2f s, ratio %.2f (target: at most 2)\n' "$name" "$FRAC" "$o" "$s" "$(echo "$o / $s" | bc -l)"
