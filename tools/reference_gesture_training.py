#!/usr/bin/env python3
"""Reference of Model Maker's gesture classifier training recipe, in NumPy (float64).

Writes Tests/Fixtures/training/gesture_head_reference.json: synthetic 128-d embeddings, and for
a few option sets the weights after training and the per-epoch figures, which
GestureClassifierTrainingTests compares with TasksVisionTraining's trainer.

The recipe, from mediapipe/model_maker/python/vision/gesture_recognizer/ and core/:
  head:   per hidden width BatchNorm -> ReLU -> Dropout -> Dense(width); then BatchNorm -> ReLU ->
          Dropout -> Dense(classes) -> softmax (Keras 2: BN momentum 0.99, epsilon 1e-3, biased
          batch variance, moving stats moved by (moving - batch) * (1 - momentum); inverted
          dropout; glorot-uniform kernels, zero biases)
  loss:   FocalLoss(gamma): p clipped to [1e-7, 1 - 1e-7], sum(-(1-p)^gamma log p) / batch
  optim:  Keras (2.11+) Adam, beta1 0.9, beta2 0.999, epsilon 1e-7
  rate:   lr * decay^epoch (LearningRateScheduler), batches in order, remainder dropped
Random numbers (initial kernels, the one shuffle, dropout masks) come from SplitMix64 streams
derived from the seed, as in TrainingRandom.swift, so both sides start from the same weights and
see the same order and masks. Only the arithmetic is written independently here: vectorized
float64 NumPy against the trainer's loops.

  python3 tools/reference_gesture_training.py   # needs numpy
"""
import json
import os

import numpy as np

MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def index(self, n):
        return min(n - 1, int(self.uniform() * n))


def streams(seed):
    return (SplitMix64(seed), SplitMix64(seed ^ 0x6F72646572736565), SplitMix64(seed ^ 0x64726F706F757473))


MOMENTUM, BN_EPS = 0.99, 1e-3
CLIP = 1e-7


def init_head(d, widths, classes, rng):
    blocks = []
    for out in widths + [classes]:
        limit = np.sqrt(6.0 / (d + out))
        kernel = np.array([(2 * rng.uniform() - 1) * limit for _ in range(d * out)]).reshape(d, out)
        blocks.append(dict(gamma=np.ones(d), beta=np.zeros(d), mean=np.zeros(d), var=np.ones(d),
                           kernel=kernel, bias=np.zeros(out)))
        d = out
    return blocks


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def focal(p, gamma):
    q = np.clip(p, CLIP, 1 - CLIP)
    return -((1 - q) ** gamma) * np.log(q)


def focal_grad(p, gamma):
    inside = (p >= CLIP) & (p <= 1 - CLIP)
    g = (gamma * (1 - p) ** (gamma - 1) * np.log(p) if gamma else 0) - (1 - p) ** gamma / p
    return np.where(inside, g, 0.0)


def train_step(blocks, x, y, rate, dropout, gamma, rng, adam):
    n = x.shape[0]
    caches = []
    a = x
    for b in blocks:
        mu, var = a.mean(axis=0), a.var(axis=0)  # biased
        inv = 1 / np.sqrt(var + BN_EPS)
        xhat = (a - mu) * inv
        pre = b["gamma"] * xhat + b["beta"]
        if dropout > 0:
            u = np.array([[rng.uniform() for _ in range(a.shape[1])] for _ in range(n)])
            mask = np.where(u >= dropout, 1 / (1 - dropout), 0.0)
        else:
            mask = np.ones_like(a)
        h = np.maximum(pre, 0) * mask
        caches.append((xhat, pre, mask, h, inv))
        b["mean"] = b["mean"] - (b["mean"] - mu) * (1 - MOMENTUM)
        b["var"] = b["var"] - (b["var"] - var) * (1 - MOMENTUM)
        a = h @ b["kernel"] + b["bias"]
    p = softmax(a)
    onehot = np.eye(p.shape[1])[y]
    pt = p[np.arange(n), y]
    loss = focal(pt, gamma).sum() / n
    correct = int((p.argmax(axis=1) == y).sum())
    dp = onehot * (focal_grad(pt, gamma) / n)[:, None]
    dz = p * (dp - (dp * p).sum(axis=1, keepdims=True))
    grads = []
    for i in reversed(range(len(blocks))):
        b = blocks[i]
        xhat, pre, mask, h, inv = caches[i]
        dk, db = h.T @ dz, dz.sum(axis=0)
        if i + 1 < len(blocks):
            db = np.zeros_like(db)  # a bias before a training-mode BatchNorm: exactly zero gradient
        dy = (dz @ b["kernel"].T) * mask * (pre > 0)
        dg, dbeta = (dy * xhat).sum(axis=0), dy.sum(axis=0)
        grads = [dg, dbeta, dk, db] + grads
        dz = b["gamma"] * inv / n * (n * dy - dbeta - xhat * dg)
    params = [blk[k] for blk in blocks for k in ("gamma", "beta", "kernel", "bias")]
    adam["t"] += 1
    t = adam["t"]
    if not adam["m"]:
        adam["m"] = [np.zeros_like(q) for q in params]
        adam["v"] = [np.zeros_like(q) for q in params]
    alpha = rate * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
    for q, g, m, v in zip(params, grads, adam["m"], adam["v"]):
        m += (g - m) * (1 - 0.9)
        v += (g * g - v) * (1 - 0.999)
        q -= m * alpha / (np.sqrt(v) + 1e-7)
    return loss, correct


def probabilities(blocks, x):
    a = x
    for b in blocks:
        pre = b["gamma"] * (a - b["mean"]) / np.sqrt(b["var"] + BN_EPS) + b["beta"]
        a = np.maximum(pre, 0) @ b["kernel"] + b["bias"]
    return softmax(a)


def train(x, y, classes, o):
    init, order, drop = streams(o["seed"])
    idx = list(range(len(x)))
    if o["shuffle"]:
        for i in range(len(idx) - 1, 0, -1):
            j = order.index(i + 1)
            idx[i], idx[j] = idx[j], idx[i]
    n_train = int(np.floor(len(idx) * (1 - o["validation_split"])))
    xs, ys = x[idx].astype(np.float64), y[idx]
    blocks = init_head(x.shape[1], o["hidden_widths"], classes, init)
    initial_kernels = [b["kernel"].copy() for b in blocks]
    adam = dict(t=0, m=[], v=[])
    steps = n_train // o["batch_size"]
    history = []
    for e in range(o["epochs"]):
        rate = o["learning_rate"] * o["decay"] ** e
        tot, cor = 0.0, 0
        for s in range(steps):
            sl = slice(s * o["batch_size"], (s + 1) * o["batch_size"])
            l, c = train_step(blocks, xs[sl], ys[sl], rate, o["dropout"], o["gamma"], drop, adam)
            tot += l
            cor += c
        h = dict(loss=tot / steps, accuracy=cor / (steps * o["batch_size"]))
        if n_train < len(idx):
            p = probabilities(blocks, xs[n_train:])
            pt = p[np.arange(len(p)), ys[n_train:]]
            h["validation_loss"] = float(focal(pt, o["gamma"]).mean())
            h["validation_accuracy"] = float((p.argmax(axis=1) == ys[n_train:]).mean())
        history.append(h)
    return dict(order=idx, initial_kernels=[k.ravel().tolist() for k in initial_kernels], history=history,
                blocks=[{k: v.ravel().tolist() for k, v in b.items()} for b in blocks],
                probabilities=probabilities(blocks, x.astype(np.float64)).tolist())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "Tests", "Fixtures", "training", "gesture_head_reference.json")
    data = np.random.default_rng(20261205)
    classes, per_class, dim = 4, 6, 128
    centers = data.normal(0, 1, size=(classes, dim))
    x = np.concatenate([centers[c] + data.normal(0, 1.5, size=(per_class, dim)) for c in range(classes)])
    x = x.astype(np.float32)
    y = np.repeat(np.arange(classes), per_class)
    base = dict(epochs=10, batch_size=2, learning_rate=0.001, decay=0.99, dropout=0.05, hidden_widths=[],
                gamma=2.0, validation_split=0.0, seed=0, shuffle=True)
    cases = [
        dict(base, name="model maker defaults", seed=1),
        dict(base, name="hidden layers, validation, batch 3", hidden_widths=[16, 8], dropout=0.1, batch_size=3,
             validation_split=0.25, epochs=6, seed=42, learning_rate=0.01),
        dict(base, name="cross-entropy, no dropout, no shuffle", gamma=0.0, dropout=0.0, shuffle=False, epochs=3,
             seed=7, decay=0.9),
    ]
    results = []
    for c in cases:
        results.append(dict(options=c, result=train(x, y, classes, c)))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(dict(embeddings=x.tolist(), labels=y.tolist(), label_names=["none", "a", "b", "c"],
                       cases=results), f)
    print(f"wrote {os.path.relpath(out)}")


if __name__ == "__main__":
    main()
