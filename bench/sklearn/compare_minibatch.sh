#!/usr/bin/env bash
# Runs a streamed `neuralnmf fit -batch-size` (one layer, rank K) and
# scikit-learn's MiniBatchNMF (n_components K, the same batch size) on the
# same Matrix Market file, alternating, and prints each run's time and
# relative error on all documents. neuralnmf's time is the whole process
# (it re-reads the file every pass); scikit-learn's fit time excludes
# reading the file, which it prints separately. Opt-in: needs Debian's
# python3-sklearn (apt-get install python3-sklearn).
#
#   go run ./bench/gencorpus -docs 250000 -o /tmp/c.mtx.gz
#   bash bench/sklearn/compare_minibatch.sh /tmp/c.mtx.gz [K] [batch] [passes] [runs]
#
# passes "default" runs the defaults' stopping rule (no -epochs, no -tol);
# a number N runs exactly N passes (-epochs N -tol -1).
# NEURALNMF_FLAGS adds flags to neuralnmf fit (e.g. "-init nndsvd").
set -euo pipefail
cd "$(dirname "$0")/../.."
X=$1; K=${2:-20}; B=${3:-1000}; P=${4:-3}; RUNS=${5:-1}
PY=${PYTHON:-/usr/bin/python3}
"$PY" -c 'import sklearn' 2>/dev/null || { echo "needs scikit-learn for $PY: apt-get install python3-sklearn" >&2; exit 1; }
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
go build -o "$BIN/neuralnmf" ./cmd/neuralnmf
PASSES=(-epochs "$P" -tol -1)
[ "$P" = default ] && PASSES=()
for ((i = 1; i <= RUNS; i++)); do
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086 # NEURALNMF_FLAGS is a list of flags
  "$BIN/neuralnmf" fit -x "$X" -ranks "$K" -batch-size "$B" "${PASSES[@]}" ${NEURALNMF_FLAGS:-} -quiet -o "$BIN/m.nnmf" > "$BIN/out"
  t1=$(date +%s.%N)
  printf 'run %d  neuralnmf fit -batch-size %s %s, %s passes  %7.1f s (whole process)  %s\n' "$i" "$B" "${NEURALNMF_FLAGS:-}" "$(grep -o 'trained [0-9]* passes' "$BIN/out" | grep -o '[0-9]*') of $P" "$(echo "$t1 - $t0" | bc -l)" "$(grep -o 'relative error [0-9.]*' "$BIN/out")"
  printf 'run %d  scikit-learn MiniBatchNMF           %s\n' "$i" "$("$PY" bench/sklearn/minibatch_nmf.py "$X" "$K" "$B")"
done
