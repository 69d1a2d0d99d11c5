#!/usr/bin/env bash
# Times one pass of distributed training (neuralnmf-beam train on
# in-process Prism) beside the single-process run of the same algorithm
# on the same 16 shards (train -local), alternating, ROUNDS rounds, each
# run a process of its own, and checks that the two write the same model.
#
#   bash bench/beam/pass.sh [DOCS] [ROUNDS]      # default 1000000 2
#
# The corpus (go run ./bench/gencorpus -shards 16; 10⁵ words, about 70
# words a document) is generated into $BEAM_BENCH_DIR (default
# /tmp/neuralnmf-beam-bench) unless it is there. "the pass's steps took"
# is the time of the pass's 16 steps, the number to compare; "trained …
# in" includes splitting the shards, the start and the final pass.
set -euo pipefail
cd "$(dirname "$0")/../.."
docs=${1:-1000000}
rounds=${2:-2}
dir=${BEAM_BENCH_DIR:-/tmp/neuralnmf-beam-bench}
mkdir -p "$dir"
if [ ! -e "$dir/c$docs-15.mtx.gz" ]; then
  go run ./bench/gencorpus -docs "$docs" -shards 16 -o "$dir/c$docs.mtx.gz"
fi
(cd beam && go build -o "$dir/neuralnmf-beam" ./cmd/neuralnmf-beam)
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) cores; $docs documents in 16 shards, ranks 20,5, 16 steps, one pass"
for r in $(seq "$rounds"); do
  for mode in prism local; do
    flag=""
    [ "$mode" = local ] && flag=-local
    rm -rf "$dir/work-$mode" "$dir/$mode.nnmf"
    /usr/bin/time -f "peak memory %M KiB" "$dir/neuralnmf-beam" train $flag -shards "$dir/c$docs-*.mtx.gz" \
      -ranks 20,5 -epochs 1 -work "$dir/work-$mode" -o "$dir/$mode.nnmf" 2>&1 |
      grep -E "steps took|^trained|peak memory" | sed "s/^/round $r, $mode: /"
  done
  cmp -s "$dir/prism.nnmf" "$dir/local.nnmf" && echo "round $r: the two models are the same bytes"
done
