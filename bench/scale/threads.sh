#!/usr/bin/env bash
# The default fit on a generated corpus of 10^5 documents at GOMAXPROCS 1,
# 2, 4, 8 and 16 (those up to the machine's cores), as whole processes,
# three runs each, alternated, beside scikit-learn's NMF (one thread: its
# coordinate descent is serial) in the same run; prints the median time of
# each and its ratio to scikit-learn's.
#
#   bash bench/scale/threads.sh [X.mtx.gz] [ranks]
#
# Default X: bench/gencorpus -docs 100000 -words 50000 (written to /tmp).
# Needs Debian's python3-sklearn. Not needed by tests or CI: on a machine of
# 16 cores it measures what a 2-core machine cannot (docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
X=${1:-/tmp/neuralnmf-g100k.mtx.gz}
RANKS=${2:-20}
PY=${PYTHON:-/usr/bin/python3}
[ -f "$X" ] || go run ./bench/gencorpus -docs 100000 -words 50000 -o "$X" > /dev/null
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
go build -o "$BIN/neuralnmf" ./cmd/neuralnmf
cores=$(nproc)
procs=()
for p in 1 2 4 8 16; do [ "$p" -le "$cores" ] && procs+=("$p"); done
secs() { local t0 t1; t0=$(date +%s.%N); "$@" > "$BIN/out" 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for _ in 1 2 3; do
  for p in "${procs[@]}"; do
    GOMAXPROCS=$p secs "$BIN/neuralnmf" fit -x "$X" -ranks "$RANKS" -o "$BIN/m.nnmf" -quiet >> "$BIN/p$p"
  done
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 secs "$PY" bench/sklearn/nmf_fit.py "$X" "$RANKS" >> "$BIN/sk"
done
sk=$(median < "$BIN/sk")
printf 'scikit-learn NMF (one thread): %.2f s\n' "$sk"
for p in "${procs[@]}"; do
  t=$(median < "$BIN/p$p")
  printf 'neuralnmf fit, GOMAXPROCS %2d: %6.2f s  (%.2f of scikit-learn)\n' "$p" "$t" "$(echo "$t / $sk" | bc -l)"
done
