#!/usr/bin/env python3
"""diag_reference.py: reference values for tests/t_core_diag.c.

An independent implementation (numpy/scipy, FFT autocovariance, scipy
ranks) of the diagnostics of Vehtari, Gelman, Simpson, Carpenter and
Buerkner (2021), written from the paper's formulas (section 3 and
appendix A), not from hetui's C code.  Run it with numpy and scipy
available; it prints the constants pasted into t_core_diag.c:

    /usr/bin/python3 tests/diag_reference.py
"""
import numpy as np
from scipy.stats import norm, rankdata

# Case B: 3 chains x 20 draws (AR(1)-like, shifted, with a 3-way tie).
B = np.array([
    [0.351, 3.706, 2.817, 1.072, 1.908, 1.235, 0.254, 1.989, 2.357, 1.511,
     -0.370, -0.118, 0.011, 1.493, 1.461, 2.727, 2.431, 2.369, 2.297, 1.159],
    [-1.171, -0.259, -0.348, -1.756, -1.575, 1.072, -3.690, -1.493, -0.607,
     -0.951, 0.575, -0.057, 0.273, -0.647, 1.230, 1.768, 2.227, 2.771,
     -0.553, 0.465],
    [0.655, 1.352, -1.150, 0.379, 0.176, 0.683, 0.867, 1.072, 2.440, 1.987,
     1.386, 2.609, 1.316, 0.198, -0.330, -0.594, -1.467, -1.146, 0.434,
     -0.880]])
# Case C: odd chains (2 x 19): the middle draw of each chain is dropped.
C = B[[0, 2], :19]
ENERGY = np.array([50.269, 50.717, 49.033, 50.456, 50.992, 52.151, 53.612,
                   53.262, 50.626, 50.668, 52.077, 53.980])


def split(x):
    h = x.shape[1] // 2
    return np.concatenate([x[:, :h], x[:, x.shape[1] - h:]], axis=0)


def rhat(x):
    m, n = x.shape
    w = x.var(axis=1, ddof=1).mean()
    b = n * x.mean(axis=1).var(ddof=1)
    return np.sqrt(((n - 1) / n * w + b / n) / w)


def zscale(x):
    r = rankdata(x, method="average").reshape(x.shape)
    return norm.ppf((r - 3 / 8) / (x.size + 1 / 4))


def autocov(y):
    n = len(y)
    d = y - y.mean()
    f = np.fft.rfft(d, 2 * n)
    return np.fft.irfft(f * np.conj(f))[:n] / n


def ess(x):
    m, n = x.shape
    acov = np.array([autocov(c) for c in x])
    w = acov[:, 0].mean() * n / (n - 1)
    vplus = w * (n - 1) / n + x.mean(axis=1).var(ddof=1)
    rho = 1 - (w - acov.mean(axis=0)) / vplus
    rho[0] = 1
    # Geyer: pair sums P_k = rho_2k + rho_2k+1.  Pairs are examined while
    # the previous one is positive and rho_2k+1 exists below lag n - 1;
    # the last pair examined (L) contributes only its even term (Stan's
    # "improved" truncation: the even term once, and only if positive when
    # P_L < 0); the full pairs before it are made monotone (running min).
    pairs = [rho[0] + rho[1]]
    while pairs[-1] > 0 and 2 * len(pairs) + 1 <= n - 2:
        k = len(pairs)
        pairs.append(rho[2 * k] + rho[2 * k + 1])
    L = len(pairs) - 1
    full = pairs[:L]
    for i in range(1, len(full)):
        full[i] = min(full[i], full[i - 1])
    last_even = rho[2 * L]
    if pairs[L] < 0:
        last_even = max(last_even, 0)
    tau = -1 + 2 * sum(full) + last_even
    tau = max(tau, 1 / np.log10(m * n))
    return m * n / tau


def q7(x, p):
    return np.quantile(x.ravel(), p)  # numpy's default is type 7


def report(name, x):
    s = split(x)
    med = np.median(x)
    rb = rhat(zscale(s))
    rt = rhat(zscale(split(np.abs(x - med))))
    eb = ess(zscale(s))
    e5 = ess(split((x <= q7(x, 0.05)).astype(float)))
    e95 = ess(split((x <= q7(x, 0.95)).astype(float)))
    vals = dict(split_rhat=rhat(s), rhat_bulk=rb, rhat_tail=rt,
                ess_bulk=eb, ess_tail=min(e5, e95), ess_basic=ess(s),
                mean=x.mean(), sd=x.std(ddof=1), q5=q7(x, 0.05),
                q50=q7(x, 0.5), q95=q7(x, 0.95))
    for k, v in vals.items():
        print("#define %s_%s %.15g" % (name, k.upper(), v))


report("REF_B", B)
report("REF_C", C)
d = np.diff(ENERGY)
print("#define REF_BFMI %.15g" % (np.mean(d ** 2) / np.var(ENERGY)))
