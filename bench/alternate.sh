#!/usr/bin/env bash
# alternate.sh compares benchmarks of two or more git revisions on a noisy,
# shared machine: it builds each revision's bench test binary once, then runs
# the binaries in turn, one benchmark pass each, for several rounds, so that
# a slow spell of the machine hits every revision alike. It prints the
# median, minimum and maximum of every reported metric (ns/op and the
# benchmark's own, such as epoch/gemm-floor) per benchmark and revision.
#
#	bench/alternate.sh 'NNLSCold/90x' 8 fc92449 HEAD
#	bench/alternate.sh 'Epoch/87x90' 5 HEAD~3 HEAD WORKTREE
#
# WORKTREE names the working tree as it is (uncommitted changes included).
# Needs git, go and python3.
set -euo pipefail
re=$1; rounds=$2; shift 2
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bins=()
for rev in "$@"; do
  bin="$tmp/$(echo "$rev" | tr '/~^' '___').test"
  if [ "$rev" = WORKTREE ]; then
    (cd "$root" && go test -c -o "$bin" ./bench/)
  else
    git -C "$root" worktree add -q --detach "$tmp/src-$rev" "$rev"
    (cd "$tmp/src-$rev" && go test -c -o "$bin" ./bench/)
    git -C "$root" worktree remove --force "$tmp/src-$rev"
  fi
  bins+=("$bin")
done
for _ in $(seq "$rounds"); do
  for i in "${!bins[@]}"; do
    (cd "$root/bench" && "${bins[$i]}" -test.run '^$' -test.bench "$re" -test.count 1) |
      awk -v rev="${@:$((i+1)):1}" '/^Benchmark/ {for (f = 3; f < NF; f += 2) print rev, $1, $(f+1), $f}'
  done
done > "$tmp/out"
python3 - "$tmp/out" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    rev, name, unit, v = line.split()
    d[(name, unit, rev)].append(float(v))
for (name, unit, rev), v in sorted(d.items()):
    if unit in ("B/op", "allocs/op"):
        continue
    print(f"{name:45s} {unit:17s} {rev:10s} median {statistics.median(v):12.4g}  min {min(v):12.4g}  max {max(v):12.4g}  runs {len(v)}")
PY
