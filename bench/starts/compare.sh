#!/usr/bin/env bash
# The start of a fit below halsWork (issue 68): `neuralnmf fit -ranks K -init hnmf`
# (random starts by multiplicative updates, sized to X, then epochs: the
# default there for a dense X and for a hierarchy, and for one layer of a
# sparse X before the sparseShare rule) beside `-init nndsvd` (HALS from NNDSVDa, then epochs; for one
# layer it is the fit), each a whole process, on sparse validation corpora
# (godoc, info and pydoc of experiments/corpora, vectorised with
# `neuralnmf vectorize -stopwords english -min-df 5 -max-df 0.5`, in DIR;
# two generated corpora of 2,000 documents) and small dense matrices (the
# paper's synthetic X when ../shared/data is there, three products of
# uniform factors plus noise). Prints the relative error (through the
# deepest layer) and the seconds of each. With its default ranks it chose
# neuralnmf's sparseShare rule for one layer
# (results/bench/starts/onelayer-validation.log); for hierarchies, with
#
#   CORPUS_RANKS="5,3 10,5 15,8 10,5,3" GEN_RANKS="5,3 8,4 8,4,2" SYN_RANKS="9,4 9,4,2" DENSE_RANKS="10,5 15,8,4"
#
# it measured a rule that was not adopted: HALS's lower error came with
# worse topics on some corpora (results/bench/starts/hierarchy-validation.log,
# docs/defaults.md).
#
#   bash bench/starts/compare.sh DIR
#
# Needs python3 with numpy (Debian's python3-numpy; PYTHON names another
# interpreter) for the dense matrices.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: compare.sh DIR (holding godoc.mtx, info.mtx, pydoc.mtx)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/neuralnmf" ./cmd/neuralnmf)
for s in 11 12; do
  (cd "$root" && go run ./bench/gencorpus -docs 2000 -words 4000 -seed $s -o "$work/gen$s.mtx" > /dev/null)
done
"${PYTHON:-python3}" - "$work" <<'PY'
import sys, numpy as np
for i, (n, m, k, noise) in enumerate([(200, 300, 10, 0.1), (500, 400, 15, 0.3), (120, 800, 8, 0.05)]):
    r = np.random.default_rng(100 + i)
    x = r.random((n, k)) @ r.random((k, m))
    x += noise * x.mean() * r.random((n, m))
    np.savetxt(f"{sys.argv[1]}/dense{i}.csv", x, delimiter=",")
PY
fit() { # file rank flags...
  local f=$1 k=$2; shift 2
  local t0 t1 e
  t0=$(date +%s.%N)
  e=$("$work/neuralnmf" fit -x "$f" -ranks "$k" "$@" -quiet -o "$work/m.nnmf" | grep -o 'relative error [0-9.]*' | head -1 | awk '{print $3}')
  t1=$(date +%s.%N)
  echo "$e $(echo "$t1 - $t0" | bc)"
}
run() { # file ranks...
  local f=$1; shift
  for k in "$@"; do
    read -r e1 t1 <<< "$(fit "$f" "$k" -init hnmf)"
    read -r e2 t2 <<< "$(fit "$f" "$k" -init nndsvd)"
    v=$(awk -v a="$e1" -v b="$e2" 'BEGIN{print (b<a)?"HALS lower":(b>a)?"HALS higher":"same"}')
    printf '%s ranks %s: multiplicative updates %s in %.2f s, HALS from NNDSVDa %s in %.2f s: %s, time ratio %.2f\n' \
      "$(basename "$f")" "$k" "$e1" "$t1" "$e2" "$t2" "$v" "$(echo "$t1 / $t2" | bc -l)"
  done
}
echo "# sparse"
# shellcheck disable=SC2086 # the rank lists split into words
for c in godoc info pydoc; do run "$dir/$c.mtx" ${CORPUS_RANKS:-5 10 15}; done
for s in 11 12; do run "$work/gen$s.mtx" ${GEN_RANKS:-5 8}; done
echo "# dense"
if [ -f "$root/../shared/data/synthetic/X.csv" ]; then run "$root/../shared/data/synthetic/X.csv" ${SYN_RANKS:-3 6 9}; fi
for i in 0 1 2; do run "$work/dense$i.csv" ${DENSE_RANKS:-5 10 15}; done
