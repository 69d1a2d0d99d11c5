#!/usr/bin/env bash
# Prepares the split that docs/semi-supervised.md's "Topics trained with
# the labels" measured: the 20 Newsgroups training posts (10 groups) with
# 5 % of their groups kept (Python's random.Random(1)), vectorised, the
# known labels (-1 unknown) and every post's true group.
#
#   bash bench/semisup/joint/prepare.sh DIR
#   go run ./bench/semisup/joint DIR/n5.mtx DIR/n5-y.txt DIR/n5-true.txt
#
# Needs ../shared/data (20 Newsgroups) and python3 (no packages).
set -euo pipefail
dir=${1:?usage: prepare.sh DIR}
root=$(cd "$(dirname "$0")/../../.." && pwd)
posts=$root/../shared/data/20news/raw/train_10groups.jsonl.gz
mkdir -p "$dir"
zcat "$posts" | python3 -c '
import json, random, sys
r = random.Random(1)
for line in sys.stdin:
    d = json.loads(line)
    if r.random() > 0.05:
        d.pop("group")
    print(json.dumps(d))
' > "$dir/n5.jsonl"
python3 - "$posts" "$dir" <<'PY'
import gzip, json, sys
posts, d = sys.argv[1], sys.argv[2]
full = [json.loads(l) for l in gzip.open(posts, "rt")]
names = sorted({p["group"] for p in full})
kept = [json.loads(l) for l in open(d + "/n5.jsonl")]
open(d + "/n5-y.txt", "w").write("".join(f"{names.index(p['group']) if 'group' in p else -1}\n" for p in kept))
open(d + "/n5-true.txt", "w").write("".join(f"{names.index(p['group'])}\n" for p in full))
PY
(cd "$root" && go run ./cmd/neuralnmf vectorize -text "$dir/n5.jsonl" -stopwords english -min-df 5 -max-df 0.5 -o "$dir/n5.mtx")
