#!/usr/bin/env bash
# Which of the default one-layer fit and scikit-learn's NMF (init='nndsvda',
# coordinate descent to tol 1e-4, random_state 0) ends at the lower
# reconstruction error, on each Matrix Market file given and each rank in
# RANKS (default 10,20,50): both start from an NNDSVDa of their own
# randomized SVD and descend to a local minimum of a non-convex objective,
# so which minimum each reaches is a property of the path, not only of the
# method. Prints one line per fit pair and a count (issue 68). No timing:
# run it on the validation corpora, where no reported result is measured.
#
#   bash bench/sklearn/minima.sh X1.mtx X2.mtx ...
#
# Needs Debian's python3-sklearn (apt-get install python3-sklearn).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/neuralnmf" ./cmd/neuralnmf)
lower=0 higher=0 same=0
for x in "$@"; do
  for k in ${RANKS:-10 20 50}; do
    ours=$("$work/neuralnmf" fit -x "$x" -ranks "$k" -quiet -o "$work/m.nnmf" | grep -o 'relative error [0-9.]*' | head -1 | awk '{print $3}')
    theirs=$(/usr/bin/python3 "$root/bench/sklearn/nmf_fit.py" "$x" "$k" | grep -o 'relative error [0-9.]*' | awk '{print $3}')
    verdict=$(awk -v a="$ours" -v b="$theirs" 'BEGIN{print (a<b)?"lower":(a>b)?"higher":"same"}')
    case $verdict in lower) lower=$((lower+1));; higher) higher=$((higher+1));; *) same=$((same+1));; esac
    echo "$(basename "$x" .mtx) rank $k: ours $ours, scikit-learn $theirs: ours $verdict"
  done
done
echo "ours lower in $lower, the same (6 digits) in $same, higher in $higher"
