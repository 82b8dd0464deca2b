// The model in the student's browser, for the attention view: the sentence as it is typed, the
// temperature of every layer (or of one), heads switched off and positions off answered by our
// own model's ONNX graph run here (ui/browser_model: onnxruntime-web and the tokenizer, served by
// the app itself at /app/static/), with no message to the server. The server stays the authority:
// what the reader leaves (the sentence on blur, the knobs on release) is reported as before, and
// the server's run, byte for byte the same numbers (tests/browser/test_live_model.py), replaces
// the browser's.
//
// These functions are pure but for the model's loading: the View (view.js) calls them.

// one loaded model per page and name: {tok, model, isCjk, reason} (reason: null, or why the browser
// cannot run it: "no-webassembly", "no-simd", "memory", "error")
const LOADED = new Map();

// a full address: the component's own script has no base to resolve "/app/static/..." against
function rootOf(base) {
  return new URL(base, location.href).href.replace(/\/$/, "");
}

// Why this browser cannot run our models ("no-webassembly", "no-simd", "memory"), or null: model.js
// alone (a few kB), so a page says so at once, before the reader reaches for the model
export async function liveCannot(base) {
  try {
    const can = (await import(`${rootOf(base)}/browser_model/model.js`)).canRun();
    return can.ok ? null : can.reason;
  } catch (e) {
    return "error";
  }
}

// whether this page has loaded (or is loading) the model already: a view asking again costs nothing
export function liveLoaded(base, name) {
  return LOADED.has(`${base}|${name}`);
}

export function loadLive(base, name) {
  const key = `${base}|${name}`;
  if (!LOADED.has(key)) {
    LOADED.set(key, (async () => {
      const root = rootOf(base);
      const mod = await import(`${root}/browser_model/model.js`);
      const can = mod.canRun();
      if (!can.ok) return { reason: can.reason };
      const [tok, model, words] = await Promise.all([mod.loadTokenizer(root), mod.BrowserModel.load(root, name), import(`${root}/browser_model/tokenizer.js`)]);
      return { tok, model, isCjk: words.isCjk, reason: null };
    })().catch((e) => ({ reason: "error", error: String(e) })));
  }
  return LOADED.get(key);
}

// model/runner.py's clean_text: the first maxChars characters, control characters (not tab or
// newline) and lone surrogates dropped, whitespace runs (Python's isspace) one space; "" when no
// character would make a token (has_ordinary)
const CONTROL = /^[\p{Cc}\p{Cs}]$/u;
const PY_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
const NOT_ORDINARY = /^[\p{Cc}\p{Cf}\p{Cs}\p{Cn}\p{Zs}\p{Zl}\p{Zp}\ufffd]$/u;
export function cleanText(text, maxChars) {
  const chars = Array.from(String(text)).slice(0, maxChars).filter((ch) => !(CONTROL.test(ch) && ch !== "\t" && ch !== "\n"));
  const out = chars.join("").split(PY_SPACE).filter((w) => w.length).join(" ");
  return Array.from(out).some((ch) => !NOT_ORDINARY.test(ch)) ? out : "";
}

// the graph's knobs for the view's settings: T (t) in every layer (all) or in the shown layer alone,
// heads off as "kind:layer:head" (1-based, model/intervention.head_name), their ablation, positions
export function liveKnobs({ t, all, layer, off, how, pos }) {
  const headsOff = (off || []).map((name) => {
    const [kind, la, h] = name.split(":");
    return [kind, +la - 1, +h - 1];
  });
  return {
    temperature: t,
    temperatureLayer: all || t === 1 ? null : layer,
    headsOff,
    ablation: how || "zero",
    usePosition: pos !== false,
  };
}

function argmaxRows(logits) {
  const [, T, V] = logits.dims, out = [];
  for (let r = 0; r < T; r++) {
    const row = logits.data.subarray(r * V, (r + 1) * V);
    let best = 0;
    for (let i = 1; i < V; i++) if (row[i] > row[best]) best = i;
    out.push(best);
  }
  return out;
}

// One run of the model on text with the view's knobs, as the server's trace has it for the kind
// shown (model/runner.py: a GPT reads <s> and the text, cut to max_seq_len; the translator decodes
// greedily, then reads its output teacher-forced): {w: {layer: Float32Array(H*Q*K)}, mask, Q, K,
// q_tokens, k_tokens, q_labels, q_written, output, ids} for layers first..L-1 (renumbered from 0),
// or null for a text with nothing to read.
export async function liveRun(live, { text, kind, first = 0, knobs, maxChars, ids: special }) {
  const { tok, model, isCjk } = live, meta = model.meta;
  const clean = cleanText(text, maxChars);
  if (!clean) return null;
  let ids = tok.encode(clean);
  if (!ids.length) return null;
  let qIds, kIds, out, written = null, output = null;
  if (meta.kind === "translator") {
    ids = ids.slice(0, meta.max_seq_len);
    const start = Array.from(clean).some(isCjk) ? special.to_en : special.to_zh;
    const tgt = await model.translate(ids, start, special.eos, knobs);
    out = await model.forward({ src: ids, tgt }, knobs);
    written = argmaxRows(out.logits);
    output = tok.decode(tgt.slice(1));
    qIds = kind === "encoder" ? ids : tgt;
    kIds = kind === "decoder" ? tgt : ids;
    if (kind === "encoder") written = null;
  } else {
    ids = [special.bos, ...ids.slice(0, meta.max_seq_len - 1)];
    out = await model.forward({ ids }, knobs);
    written = argmaxRows(out.logits);
    qIds = kIds = ids;
  }
  const wt = out.weights[kind], [L, H, Q, K] = wt.dims, w = {};
  for (let la = first; la < L; la++) w[la - first] = wt.data.slice(la * H * Q * K, (la + 1) * H * Q * K);
  let mask = null;
  if (kind === "decoder") {
    const win = meta.window || 0;
    mask = new Uint8Array(Q * K);
    for (let r = 0; r < Q; r++) for (let j = 0; j <= r; j++) mask[r * K + j] = win && r - j >= win ? 0 : 1;
  }
  const q_tokens = tok.labels(qIds), k_tokens = tok.labels(kIds);
  // each written token labelled alone, as model/runner.py's _attention does
  const writes = written ? written.slice(0, Q).map((i) => tok.labels([i])[0]) : null;
  return {
    w, mask, L: L - first, H, Q, K, q_tokens, k_tokens,
    q_labels: writes ? q_tokens.map((a, i) => `${a} → ${writes[i]}`) : q_tokens,
    q_written: writes,
    output, text: clean, ids,
  };
}
