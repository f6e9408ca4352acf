import ml_dtypes
import numpy as np


def generate(params, rng):
    T, H, E, k = params["T"], params["H"], params["E"], params["topk"]
    # Each token picks topk distinct experts, popular ones more often (a router's load is uneven):
    # expert popularity ~ 1 / rank^0.8 over a random ranking, sampled without replacement by the
    # Gumbel top-k trick.
    popularity = np.log(1.0 / np.arange(1, E + 1) ** 0.8)[rng.permutation(E)]
    keys = popularity + rng.gumbel(size=(T, E))
    ids = np.argsort(-keys, axis=1)[:, :k].astype(np.int32)
    x = rng.standard_normal((T, H), dtype=np.float32).astype(ml_dtypes.bfloat16)
    return {"x": x, "topk_ids": ids}


def reference(inputs, params):
    T, E, k = params["T"], params["E"], params["topk"]
    flat = inputs["topk_ids"].reshape(-1)
    order = np.argsort(flat, kind="stable")  # pairs (t, j) by expert, then by t * topk + j
    row_of = np.empty(T * k, dtype=np.int32)
    row_of[order] = np.arange(T * k, dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=E))]).astype(np.int32)
    return {"x_sorted": inputs["x"][order // k], "expert_offsets": offsets, "row_of": row_of.reshape(T, k)}
