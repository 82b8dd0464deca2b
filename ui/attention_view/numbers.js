// The view's numbers: the softmax at a temperature, the heads' mean, pooled thumbnails, B - A, and
// the temperature slider's scale. Pure functions on typed arrays (no DOM): numbers.test.mjs runs
// them under `node --test`, and tests/test_attention_view_js.py checks softmaxAt against Python's.
import { T_MIN, T_MAX } from "./shared.js";

export const STEPS = 1000; // the slider is logarithmic: T = 1 sits at its middle

// THE softmax at a temperature of the browser (model/attention.py's softmax_at is Python's):
// softmax(s / T) row by row over the (Q, K) block of scores starting at base. Scores -Infinity
// (masked) give 0. Called with log w for weights w = softmax(s): the row's constant cancels, so
// this is the exact weights at T of that layer alone.
export function softmaxAt(s, base, Q, K, T) {
  const out = new Float32Array(Q * K), inv = 1 / T;
  for (let r = 0; r < Q; r++) {
    const o = base + r * K;
    let m = -Infinity;
    for (let j = 0; j < K; j++) if (s[o + j] > m) m = s[o + j];
    let sum = 0;
    for (let j = 0; j < K; j++) { const e = m === -Infinity ? 0 : Math.exp((s[o + j] - m) * inv); out[r * K + j] = e; sum += e; }
    if (sum > 0) for (let j = 0; j < K; j++) out[r * K + j] /= sum;
  }
  return out;
}

// log of every weight (masked 0 -> -Infinity), computed once a layer: a temperature move is then
// one exp per cell
export function logOf(w) { return Float32Array.from(w, Math.log); }

// head h (or "mean") of one layer's (H, Q, K) weights w at T; logs: logOf(w), or a function that
// returns it (computed on first need). The mean of the heads is the mean of each head's softmax.
export function headAtT(w, logs, H, Q, K, h, T) {
  const n = Q * K;
  if (h === "mean") {
    const out = new Float32Array(n);
    for (let k = 0; k < H; k++) { const x = headAtT(w, logs, H, Q, K, k, T); for (let i = 0; i < n; i++) out[i] += x[i]; }
    for (let i = 0; i < n; i++) out[i] /= H;
    return out;
  }
  if (T === 1) return w.subarray(h * n, (h + 1) * n);
  return softmaxAt(typeof logs === "function" ? logs() : logs, h * n, Q, K, T);
}

// panel b minus panel a on the rows and keys both have
export function difference(b, a) {
  const Q = Math.min(a.Q, b.Q), K = Math.min(a.K, b.K), w = new Float32Array(Q * K);
  for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) w[r * K + j] = b.w[r * b.K + j] - a.w[r * a.K + j];
  return { w, Q, K };
}

// a (Q, K) head max-pooled to a (tq, tk) thumbnail of uint8 0..250 (255: every cell masked)
export function pooled(w, Q, K, tq, tk, masked) {
  const out = new Uint8Array(tq * tk);
  const rq = Array.from({ length: tq + 1 }, (_, i) => Math.floor((i * Q) / tq));
  const rk = Array.from({ length: tk + 1 }, (_, i) => Math.floor((i * K) / tk));
  for (let a = 0; a < tq; a++) for (let b = 0; b < tk; b++) {
    let m = -1;
    for (let r = rq[a]; r < rq[a + 1]; r++) for (let j = rk[b]; j < rk[b + 1]; j++) if (!masked(r, j) && w[r * K + j] > m) m = w[r * K + j];
    out[a * tk + b] = m < 0 ? 255 : Math.round(Math.min(1, m) * 250);
  }
  return out;
}

// T as the link and the server carry it (3 decimals), so the browser's numbers are the server's
export function roundT(t) { return Math.round(t * 1000) / 1000; }
export function tFromSlider(s) { return Math.max(T_MIN, roundT(T_MIN * Math.pow(T_MAX / T_MIN, s / STEPS))); }
export function sliderFromT(t) { return Math.round((Math.log(t / T_MIN) / Math.log(T_MAX / T_MIN)) * STEPS); }
export function fmtT(t) { return t >= 10 ? t.toFixed(1) : t >= 1 ? t.toFixed(2) : t.toPrecision(2); }
// a signed difference as read: "+0.12", "−0.03", and "0.00" where it rounds to 0 (no "−0.00")
export function signed(x, digits) {
  const t = Math.abs(x).toFixed(digits);
  return Number(t) === 0 ? t : (x > 0 ? "+" : "−") + t;
}
export function fill(template, values) { return template.replace(/\{(\w+)\}/g, (_, k) => (k in values ? values[k] : `{${k}}`)); }
