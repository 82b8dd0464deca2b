// The GPT's next-token distribution in the browser, as model/gpt.py's sampling_distribution
// computes it on the server: the sampling temperature (0 = greedy: all the probability on the
// most likely token), then top-k and top-p (both measured on the tempered distribution), the kept
// probabilities renormalized. Not the attention temperature: that one is a graph input.
//
//   import { samplingDistribution } from "./sampling.js";
//   const { probs, kept } = samplingDistribution(lastLogits, { temperature: 0.8, topK: 40, topP: 0.9 });

function argmax(x) {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}

export function samplingDistribution(logits, { temperature = 1, topK = null, topP = null } = {}) {
  const V = logits.length;
  if (!(Number.isFinite(temperature) && temperature >= 0)) {
    throw new Error(`sampling temperature must be a finite number >= 0, got ${temperature}`);
  }
  if (topK !== null && !(topK >= 1)) throw new Error(`top-k must be at least 1, got ${topK}`);
  if (topP !== null && !(topP > 0 && topP <= 1)) throw new Error(`top-p must be in (0, 1], got ${topP}`);
  const greedy = () => {
    const probs = new Float64Array(V);
    probs[argmax(logits)] = 1;
    return { probs, kept: probs.map((p) => (p > 0 ? 1 : 0)) };
  };
  if (temperature === 0) return greedy();
  const scaled = Float64Array.from(logits, (l) => Math.fround(l / temperature));
  if (!scaled.every(Number.isFinite)) return greedy(); // a temperature so small that logits / T overflow
  const top = scaled[argmax(scaled)];
  const probs = scaled.map((s) => Math.exp(s - top));
  const total = probs.reduce((a, b) => a + b, 0);
  for (let i = 0; i < V; i++) probs[i] /= total;
  const kept = new Uint8Array(V).fill(1);
  const order = Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a] || a - b);
  if (topK !== null) for (let r = topK; r < V; r++) kept[order[r]] = 0;
  if (topP !== null) {
    let before = 0; // the mass of the tokens more likely than this one
    for (const i of order) {
      if (before >= topP) kept[i] = 0;
      before += probs[i];
    }
  }
  let mass = 0;
  for (let i = 0; i < V; i++) mass += kept[i] ? probs[i] : 0;
  for (let i = 0; i < V; i++) probs[i] = kept[i] ? probs[i] / mass : 0;
  return { probs, kept };
}
