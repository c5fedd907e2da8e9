"""cuNumeric's Black-Scholes on the peers, as tessera-bench black_scholes defines it (bench/workloads.hpp):
S, X, T are ts::random's arrays (seeds 1, 2, 3) scaled to [5, 30), [1, 100), [0.25, 10); rate
0.02, volatility 0.3; call and put written into preallocated outputs each iteration (JAX
donates them). Checked on sampled options against plain Python; 40 bytes per option at least.

    python3 bench/peers/black_scholes.py --system jax,cupy --n 134217728 --iters 20 --json
"""

import math
import sys

import common

RATE, VOLATILITY = 0.02, 0.3
SEED_S, SEED_X, SEED_T = 1, 2, 3
BYTES_PER_OPTION = 40


def cnd(xp, d):
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * xp.abs(d))
    tail = (0.39894228040143267793994605993438 * xp.exp(-0.5 * d * d) *
            (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))))
    return xp.where(d > 0.0, 1.0 - tail, tail)


def price(xp, S, X, T):
    sqrt_t = xp.sqrt(T)
    d1 = xp.log(S / X) + (RATE + 0.5 * VOLATILITY * VOLATILITY) * T / (VOLATILITY * sqrt_t)
    d2 = d1 - VOLATILITY * sqrt_t
    cnd_d1 = cnd(xp, d1)
    cnd_d2 = cnd(xp, d2)
    exp_rt = xp.exp(-RATE * T)
    return S * cnd_d1 - X * exp_rt * cnd_d2, X * exp_rt * (1.0 - cnd_d2) - S * (1.0 - cnd_d1)


def price_python(i):
    """Option i in plain Python, written out apart from price() so that each checks the other."""
    s = common.uniform_int(SEED_S, i) * 25.0 + 5.0
    x = common.uniform_int(SEED_X, i) * 99.0 + 1.0
    t = common.uniform_int(SEED_T, i) * 9.75 + 0.25

    def normal_cdf(d):
        k = 1.0 / (1.0 + 0.2316419 * abs(d))
        poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
        tail = math.exp(-0.5 * d * d) / math.sqrt(2.0 * math.pi) * poly
        return 1.0 - tail if d > 0.0 else tail

    # cuNumeric's d1: the log term is not divided by V sqrt(T) (kept as the benchmark has it).
    d1 = math.log(s / x) + (RATE + 0.5 * VOLATILITY ** 2) * t / (VOLATILITY * math.sqrt(t))
    d2 = d1 - VOLATILITY * math.sqrt(t)
    discounted = x * math.exp(-RATE * t)
    return (s * normal_cdf(d1) - discounted * normal_cdf(d2),
            discounted * (1.0 - normal_cdf(d2)) - s * (1.0 - normal_cdf(d1)))


def run(o, env):
    xp, n = env.xp, o.n
    S = env.uniform(SEED_S, (n,)) * 25.0 + 5.0
    X = env.uniform(SEED_X, (n,)) * 99.0 + 1.0
    T = env.uniform(SEED_T, (n,)) * 9.75 + 0.25
    out = [env.zeros((n,)), env.zeros((n,))]
    if env.functional:
        f = env.compile(lambda S, X, T, call, put: price(xp, S, X, T), donate=(3, 4))

        def step():
            out[:] = f(S, X, T, *out)
    else:
        def body(S, X, T, call, put):
            c, p = price(xp, S, X, T)
            call[...] = c
            put[...] = p

        f = env.compile(body)

        def step():
            f(S, X, T, *out)

    ms, ms_min = common.measure(o, step, lambda: env.sync(*out))
    call, put = out
    k = min(n // 3, 256)
    worst, bad = 0.0, None
    for start in (0, n // 2, n - k):
        cs, ps = env.host(call[start:start + k]), env.host(put[start:start + k])
        for j in range(k):
            cr, pr = price_python(start + j)
            err = max(abs(cs[j] - cr) / max(1.0, abs(cr)), abs(ps[j] - pr) / max(1.0, abs(pr)))
            if not err <= 1e-9 and bad is None:
                bad = f"option {start + j}: call {cs[j]!r} put {ps[j]!r}, Python {cr!r} {pr!r}"
            worst = max(worst, err)
    detail = bad or f"{3 * k} sampled options match plain Python (max rel. error {worst:.1e})"
    checksum = float(call.sum()) + float(put.sum())
    return common.record(o, env, ms, ms_min, BYTES_PER_OPTION * n, bad is None, detail, checksum)


if __name__ == "__main__":
    sys.exit(common.main(common.parse("black_scholes", 1 << 20, 20, grid=False), run))
