"""Comparing a model's outputs with eager PyTorch's, with the corpus tolerance (numpy only, so
that both the torch 2.x environment and Debian's torch 1.13 can import it)."""

import numpy as np


def compare_outputs(want, got):
    """(shapes equal, values close, max |got - want|) of two lists of arrays: floats by
    np.allclose(got, want, rtol=1e-3, atol=1e-4 + 1e-3 * max|want|) over their finite entries,
    integers and booleans exactly."""
    if len(got) != len(want) or any(g.shape != w.shape for g, w in zip(got, want)):
        return False, False, None
    close, diff = True, 0.0
    for g, w in zip(got, want):
        if w.size == 0:
            continue
        if w.dtype.kind in "fc":
            fin = np.isfinite(w) & np.isfinite(g)
            if fin.any():
                diff = max(diff, float(np.max(np.abs(g[fin].astype(np.float64) - w[fin]))))
            scale = float(np.max(np.abs(w[np.isfinite(w)]))) if np.isfinite(w).any() else 0.0
            close = close and bool(np.allclose(g, w, rtol=1e-3, atol=1e-4 + 1e-3 * scale,
                                               equal_nan=True))
        elif not np.array_equal(g.astype(w.dtype), w):
            close = False
            diff = max(diff, float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    return True, close, diff
