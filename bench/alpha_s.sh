#!/usr/bin/env bash
# Sparsity against error of the elastic-net layers: runs
# `neuralnmf fit -x X -ranks K -alpha-s A -l1-ratio R` for each A given and
# prints the share of zero entries in the first layer's S (from
# `export -matrix S1`) and the fit's relative error ‖X − A⁽⁰⁾S⁽⁰⁾‖/‖X‖.
#
#   bash bench/alpha_s.sh [X.mtx.gz] [K] [R] [A ...]
#
# Defaults: the paper's 20 Newsgroups TF-IDF matrix in ../shared/data,
# K = 10, R = 1 (the pure ℓ₁ penalty), A = 0 1e-6 3e-6 1e-5 3e-5.
set -euo pipefail
cd "$(dirname "$0")/.."
X=${1:-../shared/data/20news/paper_subset/X_tfidf.mtx.gz}
K=${2:-10}
R=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
ALPHAS=("$@")
[ ${#ALPHAS[@]} -gt 0 ] || ALPHAS=(0 1e-6 3e-6 1e-5 3e-5)
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
go build -o "$BIN/neuralnmf" ./cmd/neuralnmf
printf '| -alpha-s | zeros in S | relative error | epochs |\n|---|---|---|---|\n'
for a in "${ALPHAS[@]}"; do
  "$BIN/neuralnmf" fit -x "$X" -ranks "$K" -alpha-s "$a" -l1-ratio "$R" -o "$BIN/m.nnmf" -quiet > "$BIN/out"
  e=$(grep -o 'relative error [0-9.]*' "$BIN/out" | awk '{print $3}')
  ep=$(grep -o 'trained [0-9]* epochs' "$BIN/out" | awk '{print $2}')
  "$BIN/neuralnmf" export -model "$BIN/m.nnmf" -matrix S1 -o "$BIN/S1.csv" > /dev/null 2>&1
  z=$(tr ',' '\n' < "$BIN/S1.csv" | awk 'NF {n++; if ($1 + 0 == 0) z++} END {printf "%.1f %%", 100 * z / n}')
  printf '| %s | %s | %s | %s |\n' "$a" "$z" "$e" "$ep"
done
