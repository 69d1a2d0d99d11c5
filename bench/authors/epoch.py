#!/usr/bin/python3
"""Time epochs of the authors' Neural NMF code (../shared/reference) on
X = W·H + 0.1·U, n × m, from the net's own initial A's, and write X and
those A's as CSV so that `go run ./bench/authors` trains ours from the same
start. Used by compare_epoch.sh.

    epoch.py N M RANKS DIR EPOCHS     # RANKS like 9,4,2

Prints "authors ms/epoch X" for one unsupervised epoch (reconstruction
loss, plain GD, one thread): (time of 1+EPOCHS epochs − time of 1 epoch) /
EPOCHS, each from a fresh net with the same seed, so set-up cancels.
"""
import os
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
from NeuralNMF import Neural_NMF, train_unsupervised  # noqa: E402


def net_for(n, ranks):
    torch.manual_seed(1)
    return Neural_NMF([n] + ranks)


def timed(x, n, ranks, epochs, lr):
    net = net_for(n, ranks)
    t0 = time.perf_counter()
    train_unsupervised(net, x, epoch=epochs, lr=lr, verbose=False)
    return time.perf_counter() - t0


def main():
    n, m = int(sys.argv[1]), int(sys.argv[2])
    ranks = [int(k) for k in sys.argv[3].split(",")]
    out, epochs = sys.argv[4], int(sys.argv[5])
    rng = np.random.default_rng(n * m + len(ranks))
    w, h = rng.random((n, ranks[0])), rng.random((ranks[0], m))
    xn = w @ h + 0.1 * rng.random((n, m))
    x = torch.from_numpy(xn)
    if not os.path.exists(os.path.join(out, "X.csv")):
        np.savetxt(os.path.join(out, "X.csv"), xn, delimiter=",", fmt="%.17g")
        net = net_for(n, ranks)
        for i, layer in enumerate(net.lsqnonneglst):
            np.savetxt(os.path.join(out, "A%d.csv" % i), layer.A.data.numpy(), delimiter=",", fmt="%.17g")
    lr = 1e-3  # on the authors' mean-squared loss: lr/(n·m) on ||X − A·S||²
    one = timed(x, n, ranks, 1, lr)
    more = timed(x, n, ranks, 1 + epochs, lr)
    print("authors ms/epoch %.6g" % ((more - one) / epochs * 1e3))


if __name__ == "__main__":
    main()
