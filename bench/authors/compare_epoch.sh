#!/usr/bin/env bash
# Times one Neural NMF epoch of the authors' code (../shared/reference) and
# of ours in the same run, on the same X and the same initial A's (the
# authors' net's own start), alternating the two codes for several rounds
# so that a slow spell of the shared machine hits both; prints the medians
# and their ratio per shape. Both run on one thread (OMP_NUM_THREADS=1,
# GOMAXPROCS=1), the authors' figures' setting; ours is also timed on all
# cores (the library's default). The algorithm is the paper's Algorithm 1
# (unsupervised, reconstruction loss, fixed-step projected GD).
#
#   bash bench/authors/compare_epoch.sh [rounds]      # default 3 rounds
#
# Opt-in. Needs Debian's packages for the authors' code:
#   apt-get install -y python3-torch python3-scipy python3-numpy python3-matplotlib python3-tqdm
# and ../shared/reference (REFERENCE=dir to point elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
REF=${REFERENCE:-../shared/reference}
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$REF:$REF/shims" OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
"$PY" -c 'import torch, NeuralNMF' 2>/dev/null || {
  echo "needs the authors' package in $REF and python3-torch: see the comment at the top of $0" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/ours" ./bench/authors
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# n m ranks epochs-timed
while read -r n m ranks epochs; do
  d="$TMP/$n-$m"; mkdir -p "$d"
  : > "$d/theirs"; : > "$d/mine"; : > "$d/all"
  for ((r = 1; r <= ROUNDS; r++)); do
    "$PY" bench/authors/epoch.py "$n" "$m" "$ranks" "$d" "$epochs" | awk '{print $3}' >> "$d/theirs"
    GOMAXPROCS=1 "$TMP/ours" -dir "$d" -epochs "$epochs" | awk '{print $3}' >> "$d/mine"
    "$TMP/ours" -dir "$d" -epochs "$epochs" | awk '{print $3}' >> "$d/all"
  done
  t=$(median < "$d/theirs"); o=$(median < "$d/mine"); a=$(median < "$d/all")
  printf '%dx%d ranks %-6s authors %10.3f ms/epoch [%s]  ours, 1 thread %8.3f ms/epoch [%s]  authors/ours %.0fx  ours, %d cores %8.3f ms/epoch (authors/ours %.0fx)\n' \
    "$n" "$m" "$ranks" "$t" "$(sort -g "$d/theirs" | paste -sd' ')" "$o" "$(sort -g "$d/mine" | paste -sd' ')" \
    "$(awk -v a="$t" -v b="$o" 'BEGIN {print a / b}')" "$(getconf _NPROCESSORS_ONLN)" "$a" "$(awk -v a="$t" -v b="$a" 'BEGIN {print a / b}')"
done <<'SHAPES'
87 90 9,4,2 50
500 1000 20,10 5
2000 2000 50,20 2
SHAPES
