#!/usr/bin/env bash
# Bit-identity of a refactoring (issue 51): builds neuralnmf and
# neuralnmf-beam at a base commit and at the working tree, runs the same
# fits with both, and compares the model files byte for byte with cmp:
# a dense fit, a sparse fit, a one-layer sparse fit large enough for the
# HALS start (whose start is the fit), fit -labels (the choice), -loss kl,
# a streamed fit (-batch-size) and a sharded neuralnmf-beam train (-local
# and in-process Prism).
#
#   bash bench/refactor/bitident.sh BASE_COMMIT
#
# Needs ../shared/data (the synthetic matrix and 20 Newsgroups); about
# five minutes on two cores.
set -euo pipefail
base=${1:?usage: bitident.sh BASE_COMMIT}
root=$(cd "$(dirname "$0")/../.." && pwd)
data=$root/../shared/data
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/base" "$base" >/dev/null
for side in base head; do
  src=$root; [ "$side" = base ] && src=$work/base
  mkdir -p "$work/$side"
  (cd "$src" && go build -o "$work/$side/neuralnmf" ./cmd/neuralnmf)
  (cd "$src/beam" && go build -o "$work/$side/neuralnmf-beam" ./cmd/neuralnmf-beam)
done
# Inputs: 2,000 generated documents (sorted by column, for streaming, and
# as 4 shards), 400 posts of 20 Newsgroups with their groups.
(cd "$root" && go run ./bench/gencorpus -docs 2000 -words 3000 -o "$work/c.mtx.gz" >/dev/null \
  && go run ./bench/gencorpus -docs 2000 -words 3000 -shards 4 -o "$work/s.mtx.gz" >/dev/null)
(zcat "$data/20news/raw/train_10groups.jsonl.gz" || true) | head -400 > "$work/posts.jsonl"
for side in base head; do
  b=$work/$side
  run() { name=$1; shift; "$b/neuralnmf" fit "$@" -o "$b/$name.nnmf" -quiet > "$b/$name.out"; }
  run dense -x "$data/synthetic/X.csv" -ranks 9,4
  run sparse -x "$data/20news/paper_subset/X_tfidf.mtx.gz" -ranks 10,6
  run one -x "$data/20news/paper_subset/X_tfidf.mtx.gz" -ranks 20
  run labels -text "$work/posts.jsonl" -label-field group -stopwords english -ranks 20,10
  run kl -x "$data/20news/paper_subset/X_counts.mtx.gz" -ranks 10 -loss kl
  run stream -x "$work/c.mtx.gz" -ranks 10 -batch-size 500
  "$b/neuralnmf-beam" train -shards "$work/s-*.mtx.gz" -ranks 10 -steps 4 -epochs 2 -work "$b/w1" -o "$b/beam-local.nnmf" -local > /dev/null
  "$b/neuralnmf-beam" train -shards "$work/s-*.mtx.gz" -ranks 10 -steps 4 -epochs 2 -work "$b/w2" -o "$b/beam-prism.nnmf" > /dev/null 2>&1
done
status=0
for m in dense sparse one labels kl stream beam-local beam-prism; do
  if cmp -s "$work/base/$m.nnmf" "$work/head/$m.nnmf"; then
    echo "same   $m.nnmf ($(stat -c %s "$work/head/$m.nnmf") bytes)"
  else
    echo "DIFFER $m.nnmf"; status=1
  fi
done
exit $status
