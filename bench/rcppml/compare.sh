#!/usr/bin/env bash
# RcppML's NMF beside a default one-layer `neuralnmf fit`, on the same Matrix
# Market file, alternated in one run (issue 68; no default is chosen from
# it). Ours is timed as a whole process (reading included); RcppML's fit
# alone (Matrix::readMM before the clock, once a round), at tol 1e-4 for
# seeds 1-4 (its start is random). Each prints the relative error ‖X − W·D·H‖_F/‖X‖_F, which
# for RcppML is computed without forming W·D·H (‖X‖² − 2·tr(Wᵀ X Hᵀ) +
# ‖W·D·H‖², W scaled by D). Both on THREADS threads (OMP_NUM_THREADS and
# RcppML::setRcppMLthreads; GOMAXPROCS).
#
#   bash bench/rcppml/compare.sh X.mtx[.gz] RANK [ROUNDS] [THREADS]
#
# OURS, if set, is a list of fit flag sets separated by '|' that each round
# runs too (an empty set is the default), such as OURS='|-init-iters 10'.
# BASE, if set, is another neuralnmf binary run the same way (the code
# before a change). SKLEARN=1 also times scikit-learn's NMF (whole process,
# bench/sklearn/nmf_fit.py; apt-get install python3-sklearn). RANK may be a
# list (20,10: two layers); RcppML, one layer only, is then left out.
#
# Needs Debian's r-cran-rcppml and r-cran-matrix
# (apt-get install r-cran-rcppml r-cran-matrix).
set -euo pipefail
x=${1:?usage: compare.sh X.mtx RANK [ROUNDS] [THREADS]}
k=${2:?rank}
rounds=${3:-2}
threads=${4:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/neuralnmf" ./cmd/neuralnmf)
mtx=$x
if [[ $x == *.gz ]]; then
  mtx=$work/x.mtx
  zcat "$x" > "$mtx"
fi
cat > "$work/rcppml.R" <<'REOF'
args <- commandArgs(TRUE)
suppressMessages({library(Matrix); library(RcppML)})
A <- as(readMM(args[1]), "CsparseMatrix")
k <- as.integer(args[2])
setRcppMLthreads(as.integer(args[4]))
xx <- sum(A@x^2)
for (seed in as.integer(strsplit(args[3], ",")[[1]])) {
  t0 <- Sys.time()
  m <- RcppML::nmf(A, k, tol = 1e-4, seed = seed, verbose = FALSE)
  t1 <- Sys.time()
  w <- m$w %*% diag(m$d); h <- m$h
  cross <- sum(as.matrix(crossprod(w, A)) * h)
  wh <- sum(crossprod(w) * tcrossprod(h))
  cat(sprintf("rcppml seed %d: %.2f s, relative error %.6f, %d iterations\n", seed, as.numeric(t1 - t0, units = "secs"),
      sqrt(max(xx - 2 * cross + wh, 0) / xx), if (is.null(m$iter)) NA_integer_ else as.integer(m$iter)))
}
REOF
echo "# $x, rank $k, $threads threads, $(nproc) cores"
for r in $(seq "$rounds"); do
  IFS='|' read -r -a sets <<< "${OURS:-}"
  [ ${#sets[@]} -eq 0 ] && sets=("")
  bins=("$work/neuralnmf")
  [ -n "${BASE:-}" ] && bins+=("$BASE")
  for bin in "${bins[@]}"; do
    name=ours
    [ "$bin" != "$work/neuralnmf" ] && name=base
    for flags in "${sets[@]}"; do
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      out=$(GOMAXPROCS=$threads "$bin" fit -x "$x" -ranks "$k" $flags -quiet -o "$work/m.nnmf")
      t1=$(date +%s.%N)
      echo "$name${flags:+ ($flags)} round $r: $(echo "$t1 - $t0" | bc) s (whole process), $(echo "$out" | grep -o 'relative error [0-9.]*' | head -1)"
    done
  done
  if [ -n "${SKLEARN:-}" ]; then
    t0=$(date +%s.%N)
    out=$(OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads /usr/bin/python3 "$root/bench/sklearn/nmf_fit.py" "$mtx" "$k")
    t1=$(date +%s.%N)
    echo "sklearn round $r: $(echo "$t1 - $t0" | bc) s (whole process), $(echo "$out" | grep -o 'relative error [0-9.]*' | head -1)"
  fi
  if [[ $k != *,* ]]; then
    OMP_NUM_THREADS=$threads Rscript "$work/rcppml.R" "$mtx" "$k" 1,2,3,4 "$threads"
  fi
done
