#!/usr/bin/env bash
# Times `neuralnmf fit -loss kl -ranks 10` beside scikit-learn's
# NMF(10, beta_loss='kullback-leibler', solver='mu', init='nndsvda'), as
# whole processes, alternating, on the same Matrix Market file of counts, and
# prints each run's time and generalised KL divergence D(X || reconstruction)
# (ours from the saved model's A1 and S1, computed by scikit-learn's own
# _beta_divergence, so both numbers come from one function) and the median
# time ratio. Opt-in: needs Debian's python3-sklearn
# (apt-get install python3-sklearn).
#
#   bash bench/sklearn/compare_kl.sh [X.mtx.gz] [runs]
#
# Default X: the paper's 20 Newsgroups word counts in ../shared/data; 3 runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
X=${1:-../shared/data/20news/paper_subset/X_counts.mtx.gz}
RUNS=${2:-3}
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
: > "$BIN/ours"; : > "$BIN/theirs"
for ((i = 1; i <= RUNS; i++)); do
  t=$(secs "$BIN/neuralnmf" fit -x "$X" -ranks 10 -loss kl -o "$BIN/m.nnmf" -quiet)
  stop=$(grep -o 'trained [0-9]* epochs ([a-z ]*' "$BIN/out" | head -1)
  echo "$t" >> "$BIN/ours"
  "$BIN/neuralnmf" export -model "$BIN/m.nnmf" -matrix A1 -o "$BIN/A1.mtx" > /dev/null 2>&1
  "$BIN/neuralnmf" export -model "$BIN/m.nnmf" -matrix S1 -o "$BIN/S1.mtx" > /dev/null 2>&1
  d=$("$PY" bench/sklearn/kl_fit.py "$X" score "$BIN/A1.mtx" "$BIN/S1.mtx" | grep -o 'divergence [0-9.]*' | awk '{print $2}')
  printf 'run %d  neuralnmf fit -loss kl  %6.2f s  KL divergence %s  (%s)\n' "$i" "$t" "$d" "$stop"
  t=$(secs "$PY" bench/sklearn/kl_fit.py "$X" 10)
  d=$(grep -o 'divergence [0-9.]*' "$BIN/out" | awk '{print $2}')
  it=$(grep -o '[0-9]* iterations' "$BIN/out")
  echo "$t" >> "$BIN/theirs"
  printf 'run %d  scikit-learn NMF KL     %6.2f s  KL divergence %s  (%s)\n' "$i" "$t" "$d" "$it"
done
o=$(median < "$BIN/ours"); s=$(median < "$BIN/theirs")
printf 'median: neuralnmf %.2f s, scikit-learn %.2f s, ratio neuralnmf/scikit-learn %.2f\n' "$o" "$s" "$(echo "$o / $s" | bc -l)"
