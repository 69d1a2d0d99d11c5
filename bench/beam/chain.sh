#!/usr/bin/env bash
# Times one pass of neuralnmf-beam train on in-process Prism at two
# commits side by side — by default 26f85b8, the last with a pipeline job
# a step, and HEAD, whose pass is one job — on the same 16 shards, alternating, ROUNDS rounds, and checks that the
# two write the same model. The difference between the two passes is what
# 15 more job starts cost on Prism.
#
#   bash bench/beam/chain.sh [OLDREV] [DOCS] [ROUNDS]    # default 26f85b8 100000 2
set -euo pipefail
cd "$(dirname "$0")/../.."
old=${1:-26f85b8}
docs=${2:-100000}
rounds=${3:-2}
dir=${BEAM_BENCH_DIR:-/tmp/neuralnmf-beam-bench}
mkdir -p "$dir"
if [ ! -e "$dir/c$docs-15.mtx.gz" ]; then
  go run ./bench/gencorpus -docs "$docs" -shards 16 -o "$dir/c$docs.mtx.gz"
fi
(cd beam && go build -o "$dir/neuralnmf-beam-new" ./cmd/neuralnmf-beam)
rm -rf "$dir/old-tree"
git worktree add -q "$dir/old-tree" "$old"
(cd "$dir/old-tree/beam" && go build -o "$dir/neuralnmf-beam-old" ./cmd/neuralnmf-beam)
git worktree remove --force "$dir/old-tree"
echo "# $(date -u +%FT%TZ) old $(git rev-parse --short "$old") new $(git rev-parse --short HEAD); $(nproc) cores; $docs documents in 16 shards, ranks 20,5, 16 steps, one pass, in-process Prism"
for r in $(seq "$rounds"); do
  for v in old new; do
    rm -rf "$dir/work-$v" "$dir/$v.nnmf"
    "$dir/neuralnmf-beam-$v" train -shards "$dir/c$docs-*.mtx.gz" -ranks 20,5 -epochs 1 \
      -work "$dir/work-$v" -o "$dir/$v.nnmf" 2>&1 | grep -E "steps took" | sed "s/^/round $r, $v: /"
  done
  cmp -s "$dir/old.nnmf" "$dir/new.nnmf" && echo "round $r: the two models are the same bytes"
done
