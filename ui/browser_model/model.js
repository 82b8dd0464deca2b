// The whole model in the browser: our ONNX graphs (`python -m model export-onnx`, model/onnx_export.py)
// run by onnxruntime-web's WebAssembly CPU path, everything loaded from the app's own origin
// (Streamlit's static serving: /app/static/ort/ the runtime, /app/static/models/ the graphs and the
// tokenizer, /app/static/browser_model/ these modules). No CDN, no request elsewhere.
//
//   import { BrowserModel } from "/app/static/browser_model/model.js";
//   const gpt = await BrowserModel.load("/app/static", "gpt");
//   const out = await gpt.forward({ ids }, { temperature: 2, temperatureLayer: 1, headsOff: [["decoder", 0, 2]],
//                                            ablation: "mean", usePosition: false });
//   out.weights.decoder   // {data: Float32Array, dims: [layers, heads, T, T]}; out.scores, out.logits alike
//
// The knobs are the graph's inputs (model/onnx_export.py says which): the temperature of every
// layer or of one, heads switched off (kind, layer, head; 0-based) in one of the ablations, the
// positions on or off. The model's own settings are the defaults.

import { Tokenizer } from "./tokenizer.js";

let runtime = null; // one onnxruntime-web per page

// a module that uses one SIMD instruction (i8x16.popcnt): onnxruntime-web's CPU path is built with SIMD
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);
export const MIN_DEVICE_MEMORY_GB = 1; // navigator.deviceMemory below this: a phone too small to hold runtime and graph

/** Whether this browser can run our models, and if not why: {ok, reason} with reason one of
 * "no-webassembly", "no-simd", "memory" (the page then computes on the server, saying so). */
export function canRun() {
  if (typeof WebAssembly !== "object" || typeof WebAssembly.validate !== "function") {
    return { ok: false, reason: "no-webassembly" };
  }
  if (!WebAssembly.validate(SIMD_PROBE)) return { ok: false, reason: "no-simd" };
  const memory = typeof navigator === "object" ? navigator.deviceMemory : undefined;
  if (typeof memory === "number" && memory < MIN_DEVICE_MEMORY_GB) return { ok: false, reason: "memory" };
  return { ok: true, reason: null };
}

export class CannotRun extends Error {
  constructor(reason) {
    super(`this browser cannot run the model (${reason})`);
    this.reason = reason;
  }
}

// A large file the app keeps gzipped beside it (NAME.gz: ui/browser_model/install.sh for the
// runtime, model/onnx_export.publish for the graphs and the tokenizer), fetched as it is stored and
// unpacked here. Streamlit gzips /app/static/ again at every request otherwise, at level 9: about
// 1 s of the server's CPU for each new browser (0.83 s for the runtime's 14 MB), which a class
// joining at once pays thirty times over. The .gz is served as application/gzip, which Streamlit
// leaves as it is. The plain file where this browser cannot unpack gzip or the copy is missing.
export async function fetchBytes(url) {
  if (typeof DecompressionStream === "function") {
    const packed = await fetch(`${url}.gz`);
    if (packed.ok && packed.body) {
      const stream = packed.body.pipeThrough(new DecompressionStream("gzip"));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    }
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

export const RUNTIME_WASM = "ort-wasm-simd-threaded.wasm"; // the one .wasm the CPU path loads

export async function loadRuntime(base) {
  const can = canRun();
  if (!can.ok) throw new CannotRun(can.reason);
  if (!runtime) {
    runtime = (async () => {
      const [ort, wasm] = await Promise.all([import(`${base}/ort/ort.wasm.min.mjs`), fetchBytes(`${base}/ort/${RUNTIME_WASM}`)]);
      ort.env.wasm.wasmPaths = `${base}/ort/`; // its loader, from this origin
      ort.env.wasm.wasmBinary = wasm; // the .wasm, fetched above (gzipped on the wire)
      ort.env.wasm.numThreads = 1; // threads need cross-origin isolation; one is enough for these sizes
      ort.env.wasm.proxy = false;
      return ort;
    })();
  }
  return runtime;
}

export async function loadTokenizer(base) {
  return new Tokenizer(await fetchBytes(`${base}/models/tokenizer.model`));
}

/** The file name model/onnx_export.file_name gives NAME ("gpt@10" -> "gpt-at-10"). */
export function fileName(name) {
  return name.replace("@", "-at-");
}

export class BrowserModel {
  static async load(base, name) {
    const ort = await loadRuntime(base);
    const stem = `${base}/models/${fileName(name)}`;
    const res = await fetch(`${stem}.json`);
    if (!res.ok) throw new Error(`${name}: no export at ${stem}.json (${res.status})`);
    const meta = await res.json();
    const session = await ort.InferenceSession.create(await fetchBytes(`${stem}.onnx`), { executionProviders: ["wasm"] });
    ort.env.wasm.wasmBinary = undefined; // instantiated by the first session: its 14 MB need not stay
    return new BrowserModel(ort, session, meta);
  }

  constructor(ort, session, meta) {
    this.ort = ort;
    this.session = session;
    this.meta = meta; // layers, heads, kinds, ablations, inputs, outputs, max_seq_len ...
  }

  /** The graph's knob inputs for knobs (see the file's head). */
  knobs({ temperature = 1, temperatureLayer = null, headsOff = [], ablation = "zero", usePosition = true } = {}) {
    const { Tensor } = this.ort;
    const m = this.meta;
    const temps = new Float32Array(m.layers).fill(temperatureLayer === null ? temperature : 1);
    if (temperatureLayer !== null) temps[temperatureLayer] = temperature;
    const off = new Uint8Array(m.kinds.length * m.layers * m.heads);
    for (const [kind, layer, head] of headsOff) {
      const k = m.kinds.indexOf(kind);
      if (k < 0 || layer < 0 || layer >= m.layers || head < 0 || head >= m.heads) {
        throw new Error(`${m.model} has no head ${kind}:${layer}:${head}`);
      }
      off[(k * m.layers + layer) * m.heads + head] = 1;
    }
    const how = m.ablations.indexOf(ablation);
    if (how < 0) throw new Error(`unknown ablation ${ablation}`);
    return {
      temperature: new Tensor("float32", temps, [m.layers]),
      head_off: new Tensor("bool", off, [m.kinds.length, m.layers, m.heads]),
      ablation: new Tensor("int64", BigInt64Array.from([BigInt(how)]), []),
      use_position: new Tensor("bool", Uint8Array.from([usePosition ? 1 : 0]), []),
    };
  }

  ids(list) {
    return new this.ort.Tensor("int64", BigInt64Array.from(list, (i) => BigInt(i)), [1, list.length]);
  }

  /** One forward: tokens {ids} (a GPT, <s> first) or {src, tgt} (the translator). */
  async forward(tokens, knobs = {}) {
    const feeds = this.knobs(knobs);
    for (const [name, list] of Object.entries(tokens)) {
      if (!list.length || list.length > this.meta.max_seq_len) {
        throw new Error(`${name}: ${list.length} tokens (this model reads 1 to ${this.meta.max_seq_len})`);
      }
      feeds[name] = this.ids(list);
    }
    const out = await this.session.run(feeds);
    const plain = (t) => ({ data: t.data, dims: t.dims.slice() });
    const result = { logits: plain(out.logits), weights: {}, scores: {} };
    for (const kind of this.meta.kinds) {
      result.weights[kind] = plain(out[`${kind}_weights`]);
      result.scores[kind] = plain(out[`${kind}_scores`]);
    }
    return result;
  }

  /** The translator's greedy output (start token first, without </s>), as the app decodes it. */
  async translate(src, start, eos, knobs = {}) {
    const tgt = [start];
    while (tgt.length < this.meta.max_seq_len) {
      const { logits } = await this.forward({ src, tgt }, knobs);
      const V = logits.dims[2], row = logits.data.subarray((tgt.length - 1) * V, tgt.length * V);
      let best = 0;
      for (let i = 1; i < V; i++) if (row[i] > row[best]) best = i;
      if (best === eos) break;
      tgt.push(best);
    }
    return tgt;
  }
}
