# torch's sum(A, 1) and A @ x on the shapes of rows.cu, timed alike (CUDA events, 3 warm-up, 20 timed).
import json, torch
print("#", torch.cuda.get_device_name(0), torch.__version__)
for rows, cols in [(32768, 4096), (32768, 32768), (16384, 16384), (10000000, 32)]:
    A = torch.rand(rows, cols, dtype=torch.float64, device="cuda")
    x = torch.rand(cols, dtype=torch.float64, device="cuda")
    for name, f in [("torch_sum1", lambda: A.sum(1)), ("torch_mv", lambda: A @ x)]:
        for _ in range(3): f()
        torch.cuda.synchronize()
        ts = []
        for _ in range(20):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); f(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
        ms = sum(ts) / len(ts)
        print(json.dumps({"kernel": name, "rows": rows, "cols": cols, "ms_mean": round(ms, 4), "ms_min": round(min(ts), 4), "TBps_mean": round(rows * cols * 8 / ms / 1e9, 3)}), flush=True)
    del A
    torch.cuda.empty_cache()
