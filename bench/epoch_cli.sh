#!/usr/bin/env bash
# The epoch a user gets from the command line, beside another revision's:
# (T(E+1 epochs) − T(1 epoch)) / E of whole `neuralnmf fit -x` processes on
# the dense 2000×2000 matrix of BenchmarkEpoch (bench/densecsv), ranks
# 50,20, -tol -1, the two binaries alternated for several rounds; prints each
# run and the median epoch of each binary with their ratio.
#
#	bash bench/epoch_cli.sh 8eabc84 [rounds] [init] [extra fit flags…]
#
# init defaults to random: both binaries then train from the same start and
# (when the training code agrees) through the same epochs, as BenchmarkEpoch
# does. With a start that changed between the revisions (-init nndsvd) they
# train different trajectories and the ratio measures that too.
set -euo pipefail
base=$1; rounds=${2:-3}; init=${3:-random}; shift $(( $# < 3 ? $# : 3 ))
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/src" 2>/dev/null || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add -q --detach "$tmp/src" "$base"
(cd "$tmp/src" && go build -o "$tmp/base" ./cmd/neuralnmf)
(cd "$root" && go build -o "$tmp/head" ./cmd/neuralnmf)
x=$tmp/x.csv
(cd "$root" && go run ./bench/densecsv -o "$x")
E=120
for r in $(seq "$rounds"); do
  for b in base head; do
    for e in 1 $((E + 1)); do
      /usr/bin/time -f %e -o "$tmp/t$e" "$tmp/$b" fit -x "$x" -ranks 50,20 -init "$init" -tol -1 -epochs $e -quiet "$@" -o "$tmp/m.nnmf" > "$tmp/out" 2>&1
    done
    echo "$b $(tail -1 "$tmp/t1") $(tail -1 "$tmp/t$((E + 1))") $(grep -o 'relative error [0-9.]*' "$tmp/out" | tail -1)" | tee -a "$tmp/runs"
  done
done
python3 - "$tmp/runs" "$E" "$base" <<'PY'
import statistics, sys
runs, E, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ep = {}
for line in open(runs):
    f = line.split()
    ep.setdefault(f[0], []).append((float(f[2]) - float(f[1])) / E * 1000)
m = {b: statistics.median(v) for b, v in ep.items()}
print(f"epoch, median of {len(ep['head'])}: {base} {m['base']:.1f} ms, this tree {m['head']:.1f} ms: {m['head'] / m['base']:.2f}x")
PY
