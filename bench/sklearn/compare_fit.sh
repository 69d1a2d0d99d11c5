#!/usr/bin/env bash
# Times a default `neuralnmf fit` beside scikit-learn's NMF (one layer) and a
# two-layer HNMF of scikit-learn NMFs, as whole processes, alternating, on the
# same Matrix Market file, and prints each run's time and relative error and
# the median time ratio. Opt-in: needs Debian's python3-sklearn
# (apt-get install python3-sklearn).
#
#   bash bench/sklearn/compare_fit.sh [X.mtx.gz] [runs]
#
# Default X: the paper's 20 Newsgroups matrix in ../shared/data; 5 runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
X=${1:-../shared/data/20news/paper_subset/X_tfidf.mtx.gz}
RUNS=${2:-5}
PY=${PYTHON:-/usr/bin/python3}
"$PY" -c 'import sklearn' 2>/dev/null || { echo "needs scikit-learn for $PY: apt-get install python3-sklearn" >&2; exit 1; }
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
go build -o "$BIN/neuralnmf" ./cmd/neuralnmf
secs() { # prints elapsed seconds of "$@", its stdout to $BIN/out
  local t0 t1
  t0=$(date +%s.%N); "$@" > "$BIN/out"; t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for ranks in 10 10,6; do
  : > "$BIN/ours"; : > "$BIN/theirs"
  for ((i = 1; i <= RUNS; i++)); do
    t=$(secs "$BIN/neuralnmf" fit -x "$X" -ranks "$ranks" -o "$BIN/m.nnmf" -quiet)
    e=$(grep -o 'relative error [0-9.]*' "$BIN/out" | awk '{print $3}')
    stop=$(grep -o '([a-z ]*:' "$BIN/out" | head -1)
    echo "$t" >> "$BIN/ours"
    printf 'ranks %-5s run %d  neuralnmf fit     %6.2f s  relative error %s  %s\n' "$ranks" "$i" "$t" "$e" "$stop"
    t=$(secs "$PY" bench/sklearn/nmf_fit.py "$X" "$ranks")
    e=$(grep -o 'relative error [0-9.]*' "$BIN/out" | awk '{print $3}')
    echo "$t" >> "$BIN/theirs"
    printf 'ranks %-5s run %d  scikit-learn      %6.2f s  relative error %s\n' "$ranks" "$i" "$t" "$e"
  done
  o=$(median < "$BIN/ours"); s=$(median < "$BIN/theirs")
  printf 'ranks %-5s median: neuralnmf %.2f s, scikit-learn %.2f s, ratio neuralnmf/scikit-learn %.2f\n' "$ranks" "$o" "$s" "$(echo "$o / $s" | bc -l)"
done
