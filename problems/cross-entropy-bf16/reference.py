import ml_dtypes
import numpy as np

ELEMENTS_PER_CHUNK = 1 << 23  # float64 temporaries of a few rows, not of the whole matrix


def generate(params, rng):
    tokens, vocab = params["tokens"], params["vocab"]
    # Logits: normal with standard deviation 3, clipped to +-30 around a per-row offset (the check's
    # bound depends on |x - max| <= 60); every third row is offset by 70 to 130, where e^x overflows
    # float32 unless the row maximum is subtracted.
    x = np.clip(3.0 * rng.standard_normal((tokens, vocab), dtype=np.float32), -30.0, 30.0)
    x[1::3] += rng.uniform(70.0, 130.0, ((tokens + 1) // 3, 1)).astype(np.float32)
    targets = rng.integers(0, vocab, tokens, dtype=np.int32)
    # Every fourth token's target is its row's most likely class (a confident, nearly zero loss).
    targets[::4] = x[::4].argmax(axis=1)
    return {"logits": x.astype(ml_dtypes.bfloat16), "targets": targets}


def reference(inputs, params):
    logits, targets = inputs["logits"], inputs["targets"]
    tokens, vocab = logits.shape
    loss = np.empty(tokens, dtype=np.float64)
    step = max(1, ELEMENTS_PER_CHUNK // vocab)
    for start in range(0, tokens, step):
        v = logits[start:start + step].astype(np.float64)
        m = v.max(axis=1)
        lse = np.log(np.exp(v - m[:, None]).sum(axis=1)) + m
        loss[start:start + step] = lse - v[np.arange(v.shape[0]), targets[start:start + step]]
    return {"loss": loss}
