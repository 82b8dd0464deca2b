// node --test: the attention view's numbers (ui/attention_view/numbers.js) against values worked
// out by hand and an independent float64 softmax. Run by ./scripts/test through
// tests/test_attention_view_js.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { STEPS, difference, fill, fmtT, headAtT, logOf, pooled, roundT, signed, sliderFromT, softmaxAt, tFromSlider } from "../../ui/attention_view/numbers.js";
import { T_MAX, T_MIN } from "../../ui/attention_view/shared.js";

const close = (a, b, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);

// a seeded generator: the same arrays on every run
function rng(seed) { let s = seed >>> 0; return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32); }

// the oracle: softmax(s / T) of one row in float64, written out
function oracle(row, T) {
  const m = Math.max(...row.filter((x) => x !== -Infinity));
  const e = row.map((x) => (x === -Infinity ? 0 : Math.exp((x - m) / T)));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

test("softmax at T: worked by hand (scores 0 and ln 2)", () => {
  const s = new Float32Array([0, Math.log(2)]);
  const at = (T) => Array.from(softmaxAt(s, 0, 1, 2, T));
  at(1).forEach((x, j) => close(x, [1 / 3, 2 / 3][j]));
  at(0.5).forEach((x, j) => close(x, [1 / 5, 4 / 5][j])); // weights 1 : 2^(1/T) = 1 : 4
  at(2).forEach((x, j) => close(x, [1 / (1 + Math.SQRT2), Math.SQRT2 / (1 + Math.SQRT2)][j]));
});

test("softmax at T matches a float64 oracle on random rows, masked keys 0", () => {
  const r = rng(7);
  for (const T of [0.05, 0.3, 1, 2.5, 20]) {
    const Q = 5, K = 9, s = new Float32Array(Q * K).map(() => (r() - 0.5) * 8);
    for (let q = 0; q < Q; q++) for (let j = q + 1; j < K; j++) if (j % 3 === 0) s[q * K + j] = -Infinity;
    const out = softmaxAt(s, 0, Q, K, T);
    for (let q = 0; q < Q; q++) {
      const want = oracle(Array.from(s.subarray(q * K, (q + 1) * K)), T);
      want.forEach((x, j) => close(out[q * K + j], x, 2e-6));
      close(out.subarray(q * K, (q + 1) * K).reduce((a, b) => a + b, 0), 1, 1e-5);
      for (let j = 0; j < K; j++) if (s[q * K + j] === -Infinity) assert.equal(out[q * K + j], 0);
    }
  }
});

test("softmax of log w at T is w^(1/T) normalised; T = 1 gives w back", () => {
  const w = new Float32Array([0.1, 0.2, 0.7, 0, 0.5, 0.5]);
  const lw = logOf(w);
  const one = softmaxAt(lw, 0, 2, 3, 1);
  w.forEach((x, i) => close(one[i], x));
  const T = 0.5, got = softmaxAt(lw, 0, 2, 3, T);
  const p = [0.1, 0.2, 0.7].map((x) => x ** (1 / T)), z = p.reduce((a, b) => a + b, 0);
  p.forEach((x, j) => close(got[j], x / z));
  assert.equal(got[3], 0); // a weight 0 (masked) stays 0 at any T
});

test("temperature's limits: small T one-hot on the largest, large T near uniform", () => {
  const s = new Float32Array([1, 3, 2, 0]);
  const cold = softmaxAt(s, 0, 1, 4, T_MIN), hot = softmaxAt(s, 0, 1, 4, 1e6);
  close(cold[1], 1, 1e-6);
  hot.forEach((x) => close(x, 0.25, 1e-5));
});

test("a head at T: T = 1 is the weights themselves; the mean is the mean of each head's softmax", () => {
  const H = 3, Q = 2, K = 4, r = rng(3);
  const w = new Float32Array(H * Q * K);
  for (let i = 0; i < H * Q; i++) { const row = oracle(Array.from({ length: K }, () => r() * 4), 1); row.forEach((x, j) => (w[i * K + j] = x)); }
  const logs = logOf(w);
  assert.deepEqual(Array.from(headAtT(w, logs, H, Q, K, 1, 1)), Array.from(w.subarray(Q * K, 2 * Q * K)));
  const T = 1.7, mean = headAtT(w, () => logs, H, Q, K, "mean", T);
  for (let i = 0; i < Q * K; i++) {
    let m = 0;
    for (let h = 0; h < H; h++) m += softmaxAt(logs, h * Q * K, Q, K, T)[i];
    close(mean[i], m / H);
  }
});

test("the slider: logarithmic from T_MIN to T_MAX, T = 1 at its middle, 3 decimals", () => {
  assert.equal(tFromSlider(0), T_MIN);
  assert.equal(tFromSlider(STEPS), T_MAX);
  assert.equal(sliderFromT(1), STEPS / 2);
  close(tFromSlider(STEPS / 2), 1, 1e-9);
  for (const s of [1, 100, 333, 750, 999]) assert.ok(Math.abs(sliderFromT(tFromSlider(s)) - s) <= 1);
  assert.equal(roundT(1.23456), 1.235);
});

test("B - A on the rows and keys both have; pooled thumbnails; number text", () => {
  const a = { w: new Float32Array([0.5, 0.5, 0.2, 0.8]), Q: 2, K: 2 };
  const b = { w: new Float32Array([1, 0, 0, 0.3, 0.7, 0]), Q: 2, K: 3 };
  const d = difference(b, a);
  assert.equal(d.K, 2);
  Array.from(d.w).forEach((x, i) => close(x, [0.5, -0.5, 0.1, -0.1][i]));
  const t = pooled(new Float32Array([0.1, 0.9, 0.4, 0.2]), 2, 2, 1, 1, () => false);
  assert.equal(t[0], Math.round(0.9 * 250));
  assert.equal(pooled(new Float32Array([0.1]), 1, 1, 1, 1, () => true)[0], 255);
  assert.equal(signed(-0.00001, 2), "0.00");
  assert.equal(signed(0.125, 2), "+0.13");
  assert.equal(signed(-0.5, 2), "−0.50");
  assert.equal(fmtT(0.05), "0.050");
  assert.equal(fmtT(12.34), "12.3");
  assert.equal(fill("{n} of {total} {x}", { n: 1, total: 2 }), "1 of 2 {x}");
});
