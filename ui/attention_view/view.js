// The attention view: one attention kind's heatmap, model view and head view, drawn on canvas
// and recomputed in the browser. Streamlit 1.67 components v2 (no iframe): the default export is
// called with {data, parentElement, setStateValue} on mount and again whenever `data` changes,
// with the same parentElement, so one View per parentElement keeps the reader's view between
// calls. data is one Uint8Array (viz/attention_view.py packs it): a JSON header, then float32
// weights. Selecting a layer, head, row or tab and moving the temperature redraw here with no
// message to the server; the view is reported once, debounced, when the reader lets go.

const VIEWS = new WeakMap();
// the reader's last view per component key and trace: a rerun that rebuilds the page around the
// view (the language changed, so its tab's label did) mounts a new View, which must not fall
// back to the view the server last imposed. Module state lives as long as the page: Streamlit
// imports the component's code once per content hash.
const MEMORY = new Map();
const REPORT_MS = 350; // one report per gesture: a drag's release, a burst of arrow keys
const T_MIN = 0.05, T_MAX = 20, STEPS = 1000; // the slider is logarithmic: T = 1 sits at its middle
const BLUES = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"];
const MASKED = [180, 180, 180], MASKED_HATCH = "#8c8c8c", HIGHLIGHT = "#e6550d";
const MIN_TEXT = 11; // px: nothing smaller is ever drawn (a phone at 390 px)
const PAGE_ROWS = 6;
const PANEL_MIN = 240; // px: narrower panels go one under the other (A, B, B - A fit beside the sidebar at 1280)
// the table lists every key up to this many; past it, the strongest TABLE_ROWS of the row (a
// 512-row table cost more to update than the 262,144-cell heatmap; the CSV has every key)
const TABLE_ROWS = 64; // layers per page of the model view (a 30-layer model pages through them)

// 251 colours for weights 0..1 (the thumbnails' uint8 0..250) on ColorBrewer Blues, the scale
// viz/colors.py gives every chart, so a weight has one colour on every page.
const LUT = (() => {
  const rgb = BLUES.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
  const out = new Uint8Array(251 * 3);
  for (let i = 0; i <= 250; i++) {
    const x = (i / 250) * (rgb.length - 1), j = Math.min(rgb.length - 2, Math.floor(x)), f = x - j;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(rgb[j][c] + (rgb[j + 1][c] - rgb[j][c]) * f);
  }
  return out;
})();

// the same colours as one little-endian RGBA word each (ImageData's byte order on every browser
// we serve: x86 and ARM are little-endian), so a cell is one store
const RGBA = (() => {
  const out = new Uint32Array(251);
  for (let i = 0; i <= 250; i++) out[i] = (255 << 24) | (LUT[i * 3 + 2] << 16) | (LUT[i * 3 + 1] << 8) | LUT[i * 3];
  return out;
})();
const RGBA_MASKED = (255 << 24) | (MASKED[2] << 16) | (MASKED[1] << 8) | MASKED[0];

// a signed difference (B - A) from -1 to +1 on viz/colors.py's DIVERGING (ColorBrewer RdBu
// reversed: blue below 0, white at 0, red above), the one diverging direction of every page;
// 251 colours, index 125 = 0
const DIVERGING = [[0, "#2166ac"], [0.1, "#4393c3"], [0.2, "#92c5de"], [0.35, "#d1e5f0"], [0.5, "#f7f7f7"], [0.65, "#fddbc7"], [0.8, "#f4a582"], [0.9, "#d6604d"], [1, "#b2182b"]];
const DIV_LUT = (() => {
  const stops = DIVERGING.map(([p, h]) => [p, [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16))]);
  const out = new Uint8Array(251 * 3);
  for (let i = 0; i <= 250; i++) {
    const x = i / 250;
    let j = 0;
    while (j < stops.length - 2 && x > stops[j + 1][0]) j++;
    const [p0, c0] = stops[j], [p1, c1] = stops[j + 1], f = (x - p0) / (p1 - p0);
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(c0[c] + (c1[c] - c0[c]) * f);
  }
  return out;
})();
const RGBA_DIV = (() => {
  const out = new Uint32Array(251);
  for (let i = 0; i <= 250; i++) out[i] = (255 << 24) | (DIV_LUT[i * 3 + 2] << 16) | (DIV_LUT[i * 3 + 1] << 8) | DIV_LUT[i * 3];
  return out;
})();
function divIndex(x) { return x >= 1 ? 250 : x <= -1 ? 0 : ((x + 1) * 125 + 0.5) | 0; }
// a signed difference as read: "+0.12", "−0.03", and "0.00" where it rounds to 0 (no "−0.00")
function signed(x, digits) {
  const t = Math.abs(x).toFixed(digits);
  return Number(t) === 0 ? t : (x > 0 ? "+" : "−") + t;
}
function divColorOf(x) { const i = divIndex(x) * 3; return `rgb(${DIV_LUT[i]},${DIV_LUT[i + 1]},${DIV_LUT[i + 2]})`; }

// softmax(log w / T) row by row over one head's (Q, K) block of log-weights lw starting at base:
// the exact weights at temperature T of that layer alone (the row's constant cancels)
function softmaxRows(lw, base, Q, K, T) {
  const out = new Float32Array(Q * K), inv = 1 / T;
  for (let r = 0; r < Q; r++) {
    const o = base + r * K;
    let m = -Infinity;
    for (let j = 0; j < K; j++) if (lw[o + j] > m) m = lw[o + j];
    let sum = 0;
    for (let j = 0; j < K; j++) { const e = Math.exp((lw[o + j] - m) * inv); out[r * K + j] = e; sum += e; }
    for (let j = 0; j < K; j++) out[r * K + j] /= sum;
  }
  return out;
}

function colorOf(v) {
  const i = Math.max(0, Math.min(250, Math.round(v * 250))) * 3;
  return `rgb(${LUT[i]},${LUT[i + 1]},${LUT[i + 2]})`;
}

// T as the link and the server carry it (3 decimals), so the browser's numbers are the server's
function tFromSlider(s) { return Math.max(T_MIN, Math.round(T_MIN * Math.pow(T_MAX / T_MIN, s / STEPS) * 1000) / 1000); }
function sliderFromT(t) { return Math.round((Math.log(t / T_MIN) / Math.log(T_MAX / T_MIN)) * STEPS); }
function fmtT(t) { return t >= 10 ? t.toFixed(1) : t >= 1 ? t.toFixed(2) : t.toPrecision(2); }
function fill(template, values) { return template.replace(/\{(\w+)\}/g, (_, k) => (k in values ? values[k] : `{${k}}`)); }

function decode(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  if (String.fromCharCode(u8[0], u8[1], u8[2], u8[3]) !== "AVW1") throw new Error("attention view: bad payload");
  const n = dv.getUint32(4, true);
  const headerText = new TextDecoder().decode(u8.subarray(8, 8 + n));
  const header = JSON.parse(headerText);
  const base = 8 + n + ((4 - ((8 + n) % 4)) % 4);
  // slice() copies into a fresh, 4-aligned buffer: the proto's Uint8Array may start anywhere
  const arrays = {};
  for (const [name, [off, size]] of Object.entries(header.arrays)) arrays[name] = u8.slice(base + off, base + off + size).buffer;
  return { header, headerText, arrays };
}

class View {
  constructor(root) {
    this.root = root;
    this.el = root.querySelector(".av");
    this.el.__view = this; // the screens tests measure the text sizes it drew
    this.frames = []; // performance.now() around each redraw, read back by tests and the bench
    this.reported = null;
    this.timer = null;
    this.page = 0;
    this.hover = null;
    this.q = 0;
    this.build();
    // redraw when the width changes (a phone turned, the sidebar closed), not when our own height does
    this.width = 0;
    this.resize = new ResizeObserver(() => {
      const w = this.el.clientWidth;
      if (w && w !== this.width) { this.width = w; this.chartWidth = this.$(".av-chart").clientWidth; this.draw(); }
    });
    this.resize.observe(this.el);
  }

  $(sel) { return this.el.querySelector(sel); }

  build() {
    this.el.innerHTML = `
      <div class="av-bar">
        <div class="av-tabs" role="tablist"></div>
        <label class="av-field"><span class="av-layer-label"></span><select class="av-layer"></select></label>
        <label class="av-field"><span class="av-head-label"></span><select class="av-head"></select></label>
        <label class="av-field av-temp-field"><span class="av-temp-label"></span>
          <input class="av-temp" type="range" min="0" max="${STEPS}" step="1">
          <output class="av-temp-value"></output></label>
        <button type="button" class="av-temp-reset"></button>
      </div>
      <p class="av-temp-note"></p>
      <div class="av-main">
        <div class="av-chart">
          <div class="av-pager" hidden><button type="button" class="av-prev">‹</button><span class="av-page"></span><button type="button" class="av-next">›</button></div>
          <div class="av-scroll"><canvas class="av-canvas" tabindex="0" role="img"></canvas></div>
          <div class="av-tip" role="status" hidden></div>
          <p class="av-keys"></p>
        </div>
        <div class="av-side">
          <p class="av-caption"></p>
          <p class="av-table-note" hidden></p><div class="av-table-wrap"><table class="av-table"><thead><tr><th scope="col" class="av-c-pos"></th><th scope="col" class="av-c-tok"></th><th scope="col" class="av-c-w"></th></tr></thead><tbody></tbody></table></div>
        </div>
      </div>
      <div class="av-export"></div>`;
    this.canvas = this.$(".av-canvas");
    this.ctx = this.canvas.getContext("2d");
    const layerSel = this.$(".av-layer"), headSel = this.$(".av-head"), temp = this.$(".av-temp");
    layerSel.addEventListener("change", () => { this.setView({ layer: +layerSel.value }); this.schedule(); });
    headSel.addEventListener("change", () => { this.setView({ head: headSel.value === "mean" ? "mean" : +headSel.value }); this.schedule(); });
    // input: every move of the thumb redraws here, sends nothing; change: the thumb was let go
    temp.addEventListener("input", () => this.setView({ temp: tFromSlider(+temp.value) }));
    temp.addEventListener("change", () => this.schedule());
    this.$(".av-temp-reset").addEventListener("click", () => { this.setView({ temp: 1 }); this.schedule(); });
    this.$(".av-prev").addEventListener("click", () => { this.page--; this.draw(); });
    this.$(".av-next").addEventListener("click", () => { this.page++; this.draw(); });
    this.canvas.addEventListener("pointermove", (e) => this.onPointer(e, false));
    this.canvas.addEventListener("pointerleave", () => { if (this.hover && !this.hover.tap) { this.hover = null; this.showTip(); } });
    this.canvas.addEventListener("pointerup", (e) => this.onPointer(e, true));
    this.canvas.addEventListener("keydown", (e) => this.onKey(e));
  }

  load(bytes, setStateValue) {
    this.setStateValue = setStateValue;
    const { header, headerText, arrays } = decode(bytes);
    if (headerText === this.headerText) return; // the same trace and imposed view: keep the reader's view
    const sameTrace = this.h && header.trace === this.h.trace;
    this.headerText = headerText;
    this.h = header;
    // tests and the bench read the numbers and frame times back through this
    (window.__attentionViews = window.__attentionViews || {})[header.key] = this;
    const [L, H, Q, K] = header.shape;
    this.L = L; this.H = H; this.Q = Q; this.K = K;
    this.w = {};
    for (const la of header.layers) this.w[la] = new Float32Array(arrays[`w${la}`]);
    this.mask = arrays.mask ? new Uint8Array(arrays.mask) : null;
    this.thumbs = new Uint8Array(arrays.thumbs);
    this.logs = {};
    this.cache = null;
    // further runs (compare's B, the temperature page's model re-run at T): source 0 is the above
    this.srcs = [{ w: this.w, mask: this.mask, Q, K, q_labels: header.q_labels, k_tokens: header.k_tokens, logs: this.logs }];
    (header.sources || []).forEach((src, i) => {
      const w = {}, si = i + 1;
      for (const la of src.layers) w[la] = new Float32Array(arrays[`s${si}w${la}`]);
      const m = arrays[`s${si}mask`];
      this.srcs.push({ w, mask: m ? new Uint8Array(m) : null, Q: src.shape[2], K: src.shape[3], q_labels: src.q_labels, k_tokens: src.k_tokens, logs: {} });
    });
    this.panels = header.panels || null;
    this.pcache = new Map();
    const s = header.strings;
    this.s = s;
    // the view the server sent is applied when it is new (a link, a room, another widget); the
    // same view again with other bytes (the language changed) leaves the reader's own view
    const v = header.view, imposed = JSON.stringify(v);
    this.memKey = `${header.key}|${header.trace}`;
    const mem = MEMORY.get(this.memKey);
    if (sameTrace && imposed === this.imposed && this.view) {
      // keep the reader's view
    } else if (mem && mem.imposed === imposed) {
      this.view = { ...mem.view };
      this.q = Math.max(0, Math.min(Q - 1, mem.q));
      this.reported = mem.reported;
    } else {
      this.view = { tab: v.tab || "head", layer: v.layer, head: v.head, temp: v.temp || 1 };
      this.q = Math.max(0, Math.min(Q - 1, v.q || 0));
      this.reported = JSON.stringify(this.viewOut());
    }
    this.imposed = imposed;
    if (!this.w[this.view.layer]) this.view.layer = v.layer; // only the sent layer travelled
    if (!sameTrace) this.page = Math.floor(this.view.layer / this.pageRows());
    this.el.classList.toggle("av-present", !!header.present);
    this.fillControls();
    this.draw();
  }

  fillControls() {
    const s = this.s;
    const tabs = this.$(".av-tabs");
    tabs.setAttribute("aria-label", s.tabs_label);
    tabs.innerHTML = "";
    for (const id of ["head", "model", "lines"]) {
      const b = document.createElement("button");
      b.type = "button"; b.setAttribute("role", "tab"); b.dataset.tab = id; b.textContent = s[`tab_${id}`];
      b.addEventListener("click", () => { this.setView({ tab: id }); this.schedule(); });
      tabs.appendChild(b);
    }
    const h = this.h, noTemp = !h.temperature || h.compact;
    tabs.hidden = !!h.compact || !!this.panels;
    for (const sel of [".av-layer", ".av-head"]) this.$(sel).parentElement.hidden = !!h.compact;
    for (const sel of [".av-temp-field", ".av-temp-reset", ".av-temp-note"]) this.$(sel).hidden = noTemp;
    this.$(".av-layer-label").textContent = s.layer;
    this.$(".av-head-label").textContent = s.head;
    this.$(".av-temp-label").textContent = s.temperature;
    this.$(".av-temp-reset").textContent = s.temp_reset;
    const layerSel = this.$(".av-layer");
    layerSel.innerHTML = "";
    for (let i = 0; i < this.L; i++) layerSel.add(new Option(fill(s.layer_n, { n: i + 1, total: this.L }), String(i)));
    const headSel = this.$(".av-head");
    headSel.innerHTML = "";
    if (h.mean !== false) headSel.add(new Option(s.mean_heads, "mean"));
    for (let i = 0; i < this.H; i++) headSel.add(new Option(fill(s.head_n, { n: i + 1, total: this.H }), String(i)));
    this.$(".av-c-pos").textContent = s.col_position;
    this.$(".av-c-tok").textContent = s.col_token;
    this.$(".av-c-w").textContent = s.col_weight;
    // a row of heatmaps: one column per panel (T = 1 | T; A | B | B - A), the table under them
    const head = this.$(".av-table thead tr");
    for (const th of head.querySelectorAll(".av-c-panel")) th.remove();
    this.$(".av-c-w").hidden = !!this.panels;
    this.el.classList.toggle("av-panels", !!this.panels);
    this.chartWidth = 0; // the chart's width changes with the layout (panels: the table goes under it)
    for (const p of this.panels || []) {
      const th = document.createElement("th");
      th.scope = "col"; th.className = "av-c-panel"; th.textContent = p.short; th.dataset.template = p.short;
      head.appendChild(th);
    }
    // one head of one layer (the steps page's A, a lesson's reveal), or the compact view (home:
    // no head or layer picker shows what a key would change): only the row moves, so the help
    // names no head or layer keys (on the steps page ← → are its Previous / Next)
    const single = this.rowsOnly();
    this.$(".av-keys").textContent = single ? s.keys_help_rows : s.keys_help;
    const ex = this.$(".av-export");
    ex.innerHTML = "";
    for (const [id, label] of [["png", s.export_png], ["svg", s.export_svg], ["csv", s.export_csv], ["json", s.export_json]]) {
      const b = document.createElement("button");
      b.type = "button"; b.className = `av-x-${id}`; b.textContent = "⬇ " + label;
      b.addEventListener("click", () => this.exportAs(id));
      ex.appendChild(b);
    }
    this.tbody = this.$(".av-table tbody");
    this.tbody.innerHTML = "";
    this.rows = [];
    for (let j = 0; j < Math.min(this.K, TABLE_ROWS); j++) {
      const tr = document.createElement("tr");
      const cells = this.panels ? this.panels.map(() => `<td class="av-pv"></td>`).join("") : `<td class="av-w"><span class="av-bar-fill"></span><span class="av-num"></span></td>`;
      tr.innerHTML = `<td class="av-pos"></td><th scope="row" class="av-tok"></th>${cells}`;
      this.tbody.appendChild(tr);
      this.rows.push([tr, tr.children[0], tr.children[1], tr.querySelector(".av-bar-fill"), tr.querySelector(".av-num"), Array.from(tr.querySelectorAll(".av-pv"))]);
    }
    this.$(".av-table-note").hidden = this.K <= TABLE_ROWS;
    this.$(".av-table-note").textContent = fill(s.table_top, { n: TABLE_ROWS, total: this.K });
  }

  pageRows() { return this.L > PAGE_ROWS ? PAGE_ROWS : this.L; }

  viewOut() {
    const v = this.view;
    return { tab: v.tab, layer: v.layer, head: v.head, q: this.q, temp: Math.round(v.temp * 1000) / 1000 };
  }

  setView(patch) {
    Object.assign(this.view, patch);
    if ("layer" in patch) this.page = Math.floor(this.view.layer / this.pageRows());
    this.draw();
  }

  // One report after the reader stops: the server then updates the link, the room and what it
  // computes itself; a layer that did not travel (a very large model) is asked for at once.
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.report(), REPORT_MS);
  }

  report() {
    const out = this.viewOut();
    const text = JSON.stringify(out);
    if (text === this.reported || !this.setStateValue) return;
    this.reported = text;
    const mem = MEMORY.get(this.memKey);
    if (mem) mem.reported = text;
    this.setStateValue("view", out);
  }

  // -- numbers ----------------------------------------------------------------------------------

  hasLayer(la) { return !!this.w[la]; }

  // log w of one layer, computed once: a temperature move is then one exp per cell
  logOf(la) {
    if (!this.logs[la]) {
      const w = this.w[la], out = new Float32Array(w.length);
      for (let i = 0; i < w.length; i++) out[i] = Math.log(w[i]);
      this.logs[la] = out;
    }
    return this.logs[la];
  }

  // (Q, K) weights of head h in layer la at temperature T: softmax(log(w) / T) row by row, which
  // equals softmax(s / T) for w = softmax(s) (the row's normaliser cancels). Cells w = 0 (masked)
  // stay 0: log 0 = -Infinity, exp(-Infinity) = 0.
  headAt(la, h) {
    const T = this.view.temp, Q = this.Q, K = this.K, n = Q * K;
    if (!this.cache || this.cache.la !== la || this.cache.T !== T) this.cache = { la, T, heads: {} };
    if (this.cache.heads[h]) return this.cache.heads[h];
    let out;
    if (h === "mean") {
      out = new Float32Array(n);
      for (let k = 0; k < this.H; k++) {
        const x = this.headAt(la, k);
        for (let i = 0; i < n; i++) out[i] += x[i];
      }
      for (let i = 0; i < n; i++) out[i] /= this.H;
    } else if (T === 1) {
      out = this.w[la].subarray(h * n, (h + 1) * n);
    } else {
      out = softmaxRows(this.logOf(la), h * n, Q, K, T);
    }
    this.cache.heads[h] = out;
    return out;
  }

  // what the chart shows now, for tests and exports: the selected head's (Q, K) at T as a list;
  // with panels, panel i's (its own rows and keys)
  shown(i) {
    const { layer, head } = this.view;
    if (!this.hasLayer(layer)) return null;
    if (this.panels && i !== undefined) { const d = this.panelData(i); return d ? Array.from(d.w) : null; }
    return Array.from(this.headAt(layer, head));
  }

  // head h of layer la of source si at temperature T: softmax(log w / T) row by row (as headAt);
  // the mean of the heads is the mean of each head's softmax
  headOf(si, la, h, T) {
    if (si === 0 && T === this.view.temp) return this.headAt(la, h);
    const src = this.srcs[si];
    if (!src || !src.w[la]) return null;
    const id = `${si}|${la}|${h}|${T}`;
    const hit = this.pcache.get(id);
    if (hit) return hit;
    const Q = src.Q, K = src.K, n = Q * K, H = src.w[la].length / n;
    let out;
    if (h === "mean") {
      out = new Float32Array(n);
      for (let k = 0; k < H; k++) { const x = this.headOf(si, la, k, T); for (let i = 0; i < n; i++) out[i] += x[i]; }
      for (let i = 0; i < n; i++) out[i] /= H;
    } else if (T === 1) {
      out = src.w[la].subarray(h * n, (h + 1) * n);
    } else {
      if (!src.logs[la]) src.logs[la] = Float32Array.from(src.w[la], Math.log);
      out = softmaxRows(src.logs[la], h * n, Q, K, T);
    }
    if (this.pcache.size > 64) this.pcache.clear();
    this.pcache.set(id, out);
    return out;
  }

  // whether a panel draws the server's run at T (the model re-run) rather than the browser's
  // softmax(log w / T) of the shown layer: whenever the server computed this T. With T in the
  // shown layer alone the two agree (to float32) while the model reads the same tokens; a
  // translator may write another translation at T, which only the re-run has
  fromServer(p) {
    const v = this.view;
    if (p.hot == null || !this.srcs[p.hot] || !this.srcs[p.hot].w[v.layer]) return false;
    return Math.abs(v.temp - p.hot_t) < 5e-4;
  }

  // what panel i draws: {w (Q x K), Q, K, labels, keys, mask(r, j) -> masked, diverging, server}
  panelData(i) {
    const p = this.panels[i], v = this.view;
    if (p.diff) {
      const b = this.panelData(p.diff[0]), a = this.panelData(p.diff[1]);
      if (!a || !b) return null;
      const Q = Math.min(a.Q, b.Q), K = Math.min(a.K, b.K), w = new Float32Array(Q * K);
      for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) w[r * K + j] = b.w[r * b.K + j] - a.w[r * a.K + j];
      return { w, Q, K, labels: a.labels.slice(0, Q), keys: a.keys.slice(0, K), masked: (r, j) => a.masked(r, j) || b.masked(r, j), diverging: true, server: a.server || b.server };
    }
    const server = this.fromServer(p);
    const si = server ? p.hot : p.src, src = this.srcs[si];
    const w = this.headOf(si, v.layer, v.head, server ? 1 : p.temp === "view" ? v.temp : p.temp);
    if (!w) return null;
    const K = src.K, mask = src.mask;
    return { w, Q: src.Q, K, labels: src.q_labels, keys: src.k_tokens, masked: (r, j) => !!mask && !mask[r * K + j], diverging: false, server };
  }

  // the note under the slider: which of the two the chart shows (the browser's exact
  // softmax(log w / T) of this layer alone, or the server's run with T where the page applies it)
  panelNote() {
    const v = this.view, vals = { t: fmtT(v.temp), layer: this.layerNo(v) };
    for (const p of this.panels) {
      if (p.diff || p.temp !== "view" || !p.notes) continue;
      const n = p.notes;
      if (v.temp === 1) return fill(n.one, vals);
      if (this.fromServer(p)) return fill(n.server, vals);
      // exact: the layers where T in this attention alone is what the page's scope applies
      if (p.scope == null || (p.exact || []).includes(v.layer)) return fill(n.browser, vals);
      return fill(n.pending, vals);
    }
    return "";
  }

  masked(r, j) { return this.mask && !this.mask[r * this.K + j]; }

  // -- drawing ----------------------------------------------------------------------------------

  draw() {
    if (!this.h) return;
    const t0 = performance.now();
    const v = this.view, s = this.s;
    this.minTextPx = Infinity;
    for (const b of this.$(".av-tabs").children) {
      const on = b.dataset.tab === v.tab;
      b.setAttribute("aria-selected", String(on));
      b.tabIndex = on ? 0 : -1;
    }
    this.$(".av-layer").value = String(v.layer);
    this.$(".av-head").value = String(v.head);
    this.$(".av-temp").value = String(sliderFromT(v.temp));
    this.$(".av-temp").setAttribute("aria-valuetext", fmtT(v.temp));
    this.$(".av-temp-value").textContent = fmtT(v.temp);
    this.$(".av-temp-note").textContent = this.panels
      ? this.panelNote()
      : fill(v.temp === 1 ? s.temp_note_one : s.temp_note, { t: fmtT(v.temp), layer: this.layerNo(v) });
    // the chart's width, measured when the view's width changes (reading it here would force a
    // layout of the page on every move)
    if (!this.chartWidth) this.chartWidth = this.$(".av-chart").clientWidth;
    const width = Math.max(240, this.chartWidth || 600);
    this.fontPx = this.h.present ? 18 : width < 480 ? 12 : 14;
    this.$(".av-pager").hidden = !(v.tab === "model" && this.L > this.pageRows());
    if (!this.hasLayer(v.layer)) {
      this.sized(width, 60);
      this.ctx.font = `${this.fontPx}px sans-serif`;
      this.ctx.fillStyle = "#000";
      this.ctx.fillText(s.layer_loading, 8, 30);
      this.report(); // this layer's weights are on the server: ask for them now
    } else if (this.panels) this.drawPanels(width);
    else if (v.tab === "model") this.drawModel(width);
    else if (v.tab === "lines") this.drawLines(width);
    else this.drawHeatmap(width);
    this.fillTable();
    this.showTip();
    MEMORY.set(this.memKey, { view: { ...v }, q: this.q, imposed: this.imposed, reported: this.reported });
    const ms = performance.now() - t0;
    this.frames.push(ms);
    if (this.frames.length > 500) this.frames.shift();
    this.el.dataset.lastFrameMs = ms.toFixed(3);
  }

  sized(w, h) {
    const dpr = window.devicePixelRatio || 1;
    const c = this.canvas;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
      c.style.width = `${w}px`; c.style.height = `${h}px`;
    }
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.ctx.clearRect(0, 0, w, h);
  }

  // every text drawn goes through here, so the smallest size drawn is known (tests: >= 11 px on a
  // phone, >= 16 px on a projector; canvas text is invisible to the DOM's computed styles)
  font(px, bold = false) {
    this.ctx.font = `${bold ? "bold " : ""}${px}px sans-serif`;
    if (px < this.minTextPx) this.minTextPx = px;
  }

  // the page position of a model-view tile's centre (tests click it); null when not on this page
  tileCenter(la, h) {
    const g = this.geo;
    if (!g || g.kind !== "model" || la < g.first || la >= g.last) return null;
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + g.x0 + h * (g.tile + g.gap) + g.tile / 2, y: r.top + g.y0 + (la - g.first) * (g.tile + g.gap) + g.tile / 2 };
  }

  labelStep(n, px, font) { return Math.max(1, Math.ceil((font + 3) / Math.max(px, 0.01))); }

  drawHeatmap(width) {
    const { Q, K } = this, ctx = this.ctx, f = this.fontPx, s = this.s;
    const w = this.headAt(this.view.layer, this.view.head);
    const labels = this.h.q_labels;
    this.font(f);
    let lw = 0;
    for (const l of labels) lw = Math.max(lw, ctx.measureText(l).width);
    let kw = 0;
    for (const l of this.h.k_tokens) kw = Math.max(kw, ctx.measureText(l).width);
    lw = Math.min(lw + 10, width * 0.38);
    const top = Math.min(kw + 10, 140) + f + 6;
    const cell = Math.max(0.5, Math.min(64, (width - lw - 4) / K));
    // on a projector the cells end on the first screen under the page's title, its step controls
    // and the step's heading (the steps page's softmax at 1280 x 800: 0.72 of the height put its
    // last row below the fold, where the Plotly heatmap it replaced had ended at y 776)
    const maxH = Math.max(240, Math.min(window.innerHeight * (this.h.present ? 0.55 : 0.72), 900));
    const ch = Math.max(0.5, Math.min(cell, (maxH - top) / Q));
    const height = Math.ceil(top + ch * Q + 4);
    this.sized(width, height);
    this.geo = { kind: "heat", x0: lw, y0: top, cw: cell, ch };
    // the cells as one Q x K image, scaled without smoothing: 262,144 cells in one drawImage
    if (!this.img || this.img.width !== K || this.img.height !== Q) {
      this.img = new OffscreenCanvas(K, Q);
      this.imgData = new ImageData(K, Q);
    }
    const px = new Uint32Array(this.imgData.data.buffer), mask = this.mask, n = Q * K;
    for (let i = 0; i < n; i++) {
      const x = w[i];
      px[i] = mask && !mask[i] ? RGBA_MASKED : RGBA[x >= 1 ? 250 : x <= 0 ? 0 : (x * 250 + 0.5) | 0];
    }
    this.img.getContext("2d").putImageData(this.imgData, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.img, lw, top, cell * K, ch * Q);
    // masked cells: a diagonal stroke, so "masked" never reads as "weight 0" (and not by colour alone)
    if (this.mask && cell >= 8 && ch >= 8) {
      ctx.strokeStyle = MASKED_HATCH; ctx.lineWidth = 1; ctx.beginPath();
      for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) if (this.masked(r, j)) {
        const x = lw + j * cell, y = top + r * ch;
        ctx.moveTo(x + 2, y + ch - 2); ctx.lineTo(x + cell - 2, y + 2);
      }
      ctx.stroke();
    }
    // values in the cells where they fit at a readable size; else on hover or tap
    const vf = Math.floor(Math.min(f, cell / 2.9, ch * 0.6));
    this.valuesShown = vf >= (this.h.present ? 16 : MIN_TEXT);
    if (this.valuesShown) {
      this.font(vf); ctx.textAlign = "center"; ctx.textBaseline = "middle";
      for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) {
        if (this.masked(r, j)) continue;
        const x = w[r * K + j];
        ctx.fillStyle = x > 0.5 ? "#fff" : "#000";
        ctx.fillText(x.toFixed(2), lw + (j + 0.5) * cell, top + (r + 0.5) * ch);
      }
    }
    // labels: every row and column while they fit at the font size, else every n-th
    ctx.fillStyle = "#000"; this.font(f); ctx.textBaseline = "middle"; ctx.textAlign = "right";
    const rs = this.labelStep(Q, ch, f);
    for (let r = 0; r < Q; r += rs) ctx.fillText(this.clip(labels[r], lw - 8), lw - 6, top + (r + 0.5) * ch);
    const ks = this.labelStep(K, cell, f);
    ctx.save(); ctx.textAlign = "left";
    for (let j = 0; j < K; j += ks) {
      ctx.save(); ctx.translate(lw + (j + 0.5) * cell, top - 6); ctx.rotate(-Math.PI / 2);
      ctx.fillText(this.clip(this.h.k_tokens[j], top - f - 12), 0, 0); ctx.restore();
    }
    ctx.restore();
    ctx.textAlign = "left"; ctx.textBaseline = "top"; this.font(f);
    ctx.fillText(`${s.axis_y} ↓   ${s.axis_x} →`, 0, 2);
    // the selected row
    ctx.strokeStyle = HIGHLIGHT; ctx.lineWidth = 3;
    ctx.strokeRect(lw - 1.5, top + this.q * ch - 1.5, cell * K + 3, ch + 3);
    this.canvas.setAttribute("aria-label", this.describe());
  }

  // a row of heatmaps (panels): side by side while each gets PANEL_MIN px, else one under the
  // other (a phone); each with its title, row labels, key labels and values where they fit
  drawPanels(width) {
    const ctx = this.ctx, f = this.fontPx, n = this.panels.length, gap = 14;
    const data = this.panels.map((_, i) => this.panelData(i));
    const side = (width - gap * (n - 1)) / n >= PANEL_MIN;
    const pw = side ? (width - gap * (n - 1)) / n : width;
    this.font(f);
    const lays = data.map((d) => {
      if (!d) return null;
      let lw = 0, kw = 0;
      for (const l of d.labels) lw = Math.max(lw, ctx.measureText(l).width);
      for (const l of d.keys) kw = Math.max(kw, ctx.measureText(l).width);
      lw = Math.min(lw + 10, pw * 0.38);
      const cell = Math.max(0.5, Math.min(64, (pw - lw - 4) / d.K));
      return { lw, kw, cell };
    });
    // side by side: one top (the longest key label), one cell height, so the rows line up
    const title = f + 10;
    const tops = lays.map((l) => (l ? title + Math.min(l.kw + 10, 140) + 6 : title));
    // on a projector the cells' bottom edge stays on the first screen under the title, a room's
    // banner and the view's controls (issue 37): the cells get at most 45 % of the window's height
    const maxH = Math.max(200, Math.min(window.innerHeight * (this.h.present ? 0.45 : side ? 0.6 : 0.5), 700));
    const out = [];
    let y = 0, height = 0;
    for (let i = 0; i < n; i++) {
      const l = lays[i], d = data[i];
      const top = side ? Math.max(...tops) : tops[i];
      const ch = l ? Math.max(0.5, Math.min(l.cell, (maxH - top) / d.Q)) : 0;
      const h = Math.ceil(top + (l ? ch * d.Q : 20) + 4);
      out.push({ x: side ? i * (pw + gap) : 0, y: side ? 0 : y, top, ch, h });
      y += h + 12;
      height = side ? Math.max(height, h) : y;
    }
    this.sized(width, Math.ceil(height));
    this.geo = { kind: "panels", list: [] };
    let minVals = Infinity;
    for (let i = 0; i < n; i++) {
      const p = this.panels[i], d = data[i], l = lays[i], o = out[i];
      ctx.fillStyle = "#000"; this.font(f, true); ctx.textAlign = "left"; ctx.textBaseline = "top";
      ctx.fillText(this.clip(fill(p.title, { t: fmtT(this.view.temp) }), pw), o.x, o.y + 2);
      if (!d) { this.font(f); ctx.fillText(this.s.layer_loading, o.x, o.y + title + 4); continue; }
      const g = { x0: o.x + l.lw, y0: o.y + o.top, cw: l.cell, ch: o.ch, Q: d.Q, K: d.K, i };
      this.geo.list.push(g);
      const vf = this.paintCells(d, g);
      minVals = Math.min(minVals, vf);
      ctx.fillStyle = "#000"; this.font(f); ctx.textBaseline = "middle"; ctx.textAlign = "right";
      const rs = this.labelStep(d.Q, o.ch, f);
      for (let r = 0; r < d.Q; r += rs) ctx.fillText(this.clip(d.labels[r], l.lw - 8), g.x0 - 6, g.y0 + (r + 0.5) * o.ch);
      const ks = this.labelStep(d.K, l.cell, f);
      ctx.textAlign = "left";
      for (let j = 0; j < d.K; j += ks) {
        ctx.save(); ctx.translate(g.x0 + (j + 0.5) * l.cell, g.y0 - 6); ctx.rotate(-Math.PI / 2);
        ctx.fillText(this.clip(d.keys[j], o.top - title - 12), 0, 0); ctx.restore();
      }
      if (this.q < d.Q) {
        ctx.strokeStyle = d.diverging ? "#000" : HIGHLIGHT; ctx.lineWidth = 3;
        ctx.strokeRect(g.x0 - 1.5, g.y0 + this.q * o.ch - 1.5, l.cell * d.K + 3, o.ch + 3);
      }
    }
    this.valuesShown = minVals >= (this.h.present ? 16 : MIN_TEXT);
    this.canvas.setAttribute("aria-label", this.describe());
  }

  // one panel's cells at g (x0, y0, cw, ch): colours (Blues 0..1, or diverging -1..+1), masked
  // cells hatched, and values where they fit at a readable size; returns that size (0: none)
  paintCells(d, g) {
    const ctx = this.ctx, { Q, K, w } = d, f = this.fontPx;
    const img = new OffscreenCanvas(K, Q), data = new ImageData(K, Q), px = new Uint32Array(data.data.buffer);
    for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) {
      const i = r * K + j, x = w[i];
      px[i] = d.masked(r, j) ? RGBA_MASKED : d.diverging ? RGBA_DIV[divIndex(x)] : RGBA[x >= 1 ? 250 : x <= 0 ? 0 : (x * 250 + 0.5) | 0];
    }
    img.getContext("2d").putImageData(data, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(img, g.x0, g.y0, g.cw * K, g.ch * Q);
    if (g.cw >= 8 && g.ch >= 8) {
      ctx.strokeStyle = MASKED_HATCH; ctx.lineWidth = 1; ctx.beginPath();
      for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) if (d.masked(r, j)) {
        const x = g.x0 + j * g.cw, y = g.y0 + r * g.ch;
        ctx.moveTo(x + 2, y + g.ch - 2); ctx.lineTo(x + g.cw - 2, y + 2);
      }
      ctx.stroke();
    }
    // a signed value is one character wider ("+0.12")
    const vf = Math.floor(Math.min(f, g.cw / (d.diverging ? 3.2 : 2.9), g.ch * 0.6));
    if (vf < (this.h.present ? 16 : MIN_TEXT)) return 0;
    this.font(vf); ctx.textAlign = "center"; ctx.textBaseline = "middle";
    for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) {
      if (d.masked(r, j)) continue;
      const x = w[r * K + j];
      ctx.fillStyle = (d.diverging ? Math.abs(x) > 0.6 : x > 0.5) ? "#fff" : "#000";
      ctx.fillText(d.diverging ? signed(x, 2) : x.toFixed(2), g.x0 + (j + 0.5) * g.cw, g.y0 + (r + 0.5) * g.ch);
    }
    return vf;
  }

  clip(text, px) {
    const ctx = this.ctx;
    if (ctx.measureText(text).width <= px) return text;
    let t = text;
    while (t.length > 1 && ctx.measureText(t + "…").width > px) t = t.slice(0, -1);
    return t + "…";
  }

  // every layer x head as a thumbnail; the shown layer at T from its float32 weights, the others
  // from the pooled uint8 thumbnails; paged by PAGE_ROWS layers so 30 x 9 heads stay usable
  drawModel(width) {
    const ctx = this.ctx, f = this.fontPx, s = this.s, H = this.H, L = this.L;
    const per = this.pageRows(), pages = Math.ceil(L / per);
    this.page = Math.max(0, Math.min(pages - 1, this.page));
    const first = this.page * per, last = Math.min(L, first + per);
    this.$(".av-page").textContent = fill(s.page_n, { first: first + 1, last, total: L });
    this.font(f);
    const lw = ctx.measureText(fill(s.layer_n, { n: L, total: L })).width + 12;
    const gap = 6, top = f + 10;
    const tile = Math.max(24, Math.min(120, Math.floor((width - lw) / H) - gap));
    const height = top + (last - first) * (tile + gap) + 4;
    this.sized(Math.max(width, lw + H * (tile + gap)), height);
    this.geo = { kind: "model", x0: lw, y0: top, tile, gap, first, last };
    const [tq, tk] = this.h.thumb;
    const small = new OffscreenCanvas(tk, tq), sctx = small.getContext("2d"), img = new ImageData(tk, tq);
    ctx.imageSmoothingEnabled = false;
    for (let la = first; la < last; la++) {
      for (let h = 0; h < H; h++) {
        const cells = la === this.view.layer && this.view.temp !== 1 && this.hasLayer(la) ? this.pooled(la, h, tq, tk) : this.thumbs.subarray((la * H + h) * tq * tk, (la * H + h + 1) * tq * tk);
        for (let i = 0; i < tq * tk; i++) {
          const p = i * 4, c = cells[i];
          if (c === 255) { img.data[p] = MASKED[0]; img.data[p + 1] = MASKED[1]; img.data[p + 2] = MASKED[2]; }
          else { img.data[p] = LUT[c * 3]; img.data[p + 1] = LUT[c * 3 + 1]; img.data[p + 2] = LUT[c * 3 + 2]; }
          img.data[p + 3] = 255;
        }
        sctx.putImageData(img, 0, 0);
        const x = lw + h * (tile + gap), y = top + (la - first) * (tile + gap);
        ctx.drawImage(small, x, y, tile, tile);
        if (la === this.view.layer && h === this.view.head) {
          ctx.strokeStyle = HIGHLIGHT; ctx.lineWidth = 4; ctx.strokeRect(x - 2, y - 2, tile + 4, tile + 4);
        }
      }
      ctx.fillStyle = "#000"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      ctx.fillText(fill(s.layer_n, { n: la + 1, total: L }), lw - 8, top + (la - first) * (tile + gap) + tile / 2);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    const hs = Math.max(1, Math.ceil((ctx.measureText(fill(s.head_n, { n: H, total: H })).width + 6) / (tile + gap)));
    for (let h = 0; h < H; h += hs) ctx.fillText(fill(s.head_n_short, { n: h + 1 }), lw + h * (tile + gap) + tile / 2, 2);
    this.canvas.setAttribute("aria-label", fill(s.model_alt, { layers: L, heads: H }) + " " + this.describe());
  }

  pooled(la, h, tq, tk) {
    const w = this.headAt(la, h), Q = this.Q, K = this.K, out = new Uint8Array(tq * tk);
    const rq = Array.from({ length: tq + 1 }, (_, i) => Math.floor((i * Q) / tq));
    const rk = Array.from({ length: tk + 1 }, (_, i) => Math.floor((i * K) / tk));
    for (let a = 0; a < tq; a++) for (let b = 0; b < tk; b++) {
      let m = -1;
      for (let r = rq[a]; r < rq[a + 1]; r++) for (let j = rk[b]; j < rk[b + 1]; j++) if (!this.masked(r, j) && w[r * K + j] > m) m = w[r * K + j];
      out[a * tk + b] = m < 0 ? 255 : Math.round(Math.min(1, m) * 250);
    }
    return out;
  }

  // the head view: each query (left) joined to its keys (right), line opacity = weight; at most
  // 5 keys per query with weight >= 0.02 past 5 keys (the Plotly-era head view's rule)
  drawLines(width) {
    const ctx = this.ctx, f = this.fontPx, Q = this.Q, K = this.K;
    const w = this.headAt(this.view.layer, this.view.head);
    const n = Math.max(Q, K), rh = Math.max(f + 6, Math.min(40, 600 / n));
    const height = Math.ceil(rh * n + 10);
    this.sized(width, height);
    this.font(f);
    const colW = Math.min(width * 0.3, 220);
    const xl = colW, xr = width - colW;
    this.geo = { kind: "lines", rh, xl, xr };
    const few = K <= 5;
    ctx.lineCap = "round";
    for (const pass of [0, 1]) for (let r = 0; r < Q; r++) {
      if ((r === this.q) !== (pass === 1)) continue;
      const row = w.subarray(r * K, (r + 1) * K);
      let keep = null;
      if (!few) keep = Array.from(row, (x, j) => [x, j]).filter(([x, j]) => x >= 0.02 && !this.masked(r, j)).sort((a, b) => b[0] - a[0]).slice(0, 5);
      else keep = Array.from(row, (x, j) => [x, j]).filter(([, j]) => !this.masked(r, j));
      for (const [x, j] of keep) {
        ctx.strokeStyle = r === this.q ? HIGHLIGHT : "#2171b5";
        ctx.globalAlpha = Math.min(1, x) * (r === this.q ? 1 : 0.45);
        ctx.lineWidth = r === this.q ? 1 + 5 * x : 1 + 3 * x;
        ctx.beginPath(); ctx.moveTo(xl + 6, 5 + (r + 0.5) * rh); ctx.lineTo(xr - 6, 5 + (j + 0.5) * rh); ctx.stroke();
      }
    }
    ctx.globalAlpha = 1; ctx.textBaseline = "middle";
    for (let r = 0; r < Q; r++) {
      ctx.fillStyle = r === this.q ? HIGHLIGHT : "#000"; ctx.textAlign = "right";
      this.font(f, r === this.q);
      ctx.fillText(this.clip(this.h.q_labels[r], colW - 10), xl, 5 + (r + 0.5) * rh);
    }
    this.font(f); ctx.fillStyle = "#000"; ctx.textAlign = "left";
    for (let j = 0; j < K; j++) ctx.fillText(this.clip(this.h.k_tokens[j], colW - 10), xr, 5 + (j + 0.5) * rh);
    this.canvas.setAttribute("aria-label", this.describe());
  }

  // the layer and head a reader sees: a page may send a slice of the model (home: its last layer;
  // a lesson's reveal: one head, or the heads' mean), numbered as the model numbers them
  layerNo(v) { return (this.h.first_layer || 0) + v.layer + 1; }
  headNo(v) { return this.h.head_as != null ? this.h.head_as : v.head === "mean" ? "mean" : v.head + 1; }

  describe() {
    const v = this.view, s = this.s, head = this.headNo(v);
    return fill(s.alt, {
      layer: this.layerNo(v),
      head: head === "mean" ? s.mean_heads : fill(s.head_n, { n: head, total: this.H }),
      t: fmtT(v.temp),
      row: this.h.q_labels[this.q],
    });
  }

  // the tutorial's table for the selected row: visible, and the chart's text alternative
  fillTable() {
    const s = this.s, r = this.q, K = this.K;
    const written = this.h.q_written ? this.h.q_written[r] : null;
    this.$(".av-caption").textContent = written == null
      ? fill(s.caption, { token: this.h.q_tokens[r] })
      : fill(s.caption_written, { token: this.h.q_tokens[r], written });
    if (!this.hasLayer(this.view.layer)) return;
    if (this.panels) { this.fillPanelTable(); return; }
    const w = this.headAt(this.view.layer, this.view.head);
    let keys = null; // which key each table row shows: all in order, or the strongest first
    if (K > TABLE_ROWS) {
      keys = Array.from({ length: K }, (_, j) => j).sort((a, b) => w[r * K + b] - w[r * K + a]).slice(0, TABLE_ROWS);
    }
    for (let i = 0; i < this.rows.length; i++) {
      const j = keys ? keys[i] : i;
      const [tr, pos, tok, bar, num] = this.rows[i];
      if (pos.textContent !== String(j)) { pos.textContent = String(j); tok.textContent = this.h.k_tokens[j]; }
      if (this.masked(r, j)) { num.textContent = s.masked_short; bar.style.transform = "scaleX(0)"; tr.classList.add("av-masked"); continue; }
      tr.classList.remove("av-masked");
      const x = w[r * K + j];
      num.textContent = x.toFixed(4);
      bar.style.transform = `scaleX(${Math.max(0, Math.min(1, x)).toFixed(4)})`; // no layout, only paint
    }
  }

  // the selected row in every panel, one column each (a panel without that row or key: blank)
  fillPanelTable() {
    const r = this.q, data = this.panels.map((_, i) => this.panelData(i)), first = data[0];
    for (const th of this.$(".av-table thead tr").querySelectorAll(".av-c-panel")) th.textContent = fill(th.dataset.template, { t: fmtT(this.view.temp) });
    for (let i = 0; i < this.rows.length; i++) {
      const [tr, pos, tok, , , cells] = this.rows[i];
      const j = i;
      if (pos.textContent !== String(j)) { pos.textContent = String(j); tok.textContent = this.h.k_tokens[j]; }
      tr.classList.toggle("av-masked", !!first && first.masked(r, j));
      data.forEach((d, pi) => {
        let text = "";
        if (d && r < d.Q && j < d.K) {
          const x = d.w[r * d.K + j];
          text = d.masked(r, j) ? this.s.masked_short : d.diverging ? signed(x, 4) : x.toFixed(4);
        }
        cells[pi].textContent = text;
      });
    }
  }

  // -- interaction --------------------------------------------------------------------------------

  cellAt(e) {
    const rect = this.canvas.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top, g = this.geo;
    if (!g) return null;
    if (g.kind === "heat") {
      const j = Math.floor((x - g.x0) / g.cw), r = Math.floor((y - g.y0) / g.ch);
      return r >= 0 && r < this.Q && j >= 0 && j < this.K ? { r, j, x, y } : null;
    }
    if (g.kind === "panels") {
      for (const p of g.list) {
        const j = Math.floor((x - p.x0) / p.cw), r = Math.floor((y - p.y0) / p.ch);
        if (r >= 0 && r < p.Q && j >= 0 && j < p.K) return { r, j, x, y, pi: p.i };
      }
      return null;
    }
    if (g.kind === "model") {
      const h = Math.floor((x - g.x0) / (g.tile + g.gap)), la = g.first + Math.floor((y - g.y0) / (g.tile + g.gap));
      return h >= 0 && h < this.H && la >= g.first && la < g.last ? { la, h, x, y } : null;
    }
    const r = Math.floor((y - 5) / g.rh);
    if (x < (g.xl + g.xr) / 2) return r >= 0 && r < this.Q ? { r, x, y } : null;
    return null;
  }

  onPointer(e, up) {
    const c = this.cellAt(e);
    if (up) {
      if (!c) return;
      if (c.la !== undefined) { this.setView({ layer: c.la, head: c.h }); this.schedule(); return; }
      this.q = c.r;
      this.hover = c.j === undefined ? null : { ...c, tap: e.pointerType !== "mouse" };
      this.draw(); this.schedule();
      return;
    }
    if (e.pointerType !== "mouse") return;
    this.hover = c && c.j !== undefined ? c : null;
    this.showTip();
  }

  showTip() {
    const tip = this.$(".av-tip"), c = this.hover;
    if (!c || this.view.tab !== "head" || !this.hasLayer(this.view.layer)) { tip.hidden = true; return; }
    if (c.pi !== undefined) {
      const d = this.panelData(c.pi);
      if (!d || c.r >= d.Q || c.j >= d.K) { tip.hidden = true; return; }
      const x = d.w[c.r * d.K + c.j];
      const val = d.masked(c.r, c.j) ? this.s.masked : d.diverging ? signed(x, 4) : x.toFixed(4);
      tip.textContent = `${fill(this.panels[c.pi].short, { t: fmtT(this.view.temp) })}: ${d.labels[c.r]} · ${d.keys[c.j]}: ${val}`;
    } else {
      const w = this.headAt(this.view.layer, this.view.head);
      const val = this.masked(c.r, c.j) ? this.s.masked : w[c.r * this.K + c.j].toFixed(4);
      tip.textContent = `${this.h.q_labels[c.r]} · ${this.h.k_tokens[c.j]}: ${val}`;
    }
    tip.hidden = false;
    tip.style.left = `${Math.min(c.x + 12, this.canvas.clientWidth - 160)}px`;
    tip.style.top = `${c.y + 36}px`;
  }

  // arrows: up/down the row, left/right the head (or, in the model view, the tile), PageUp/PageDown
  // the layer; Home/End the first and last row
  rowsOnly() { return !!this.h.compact || (this.L === 1 && this.H === 1 && this.h.mean === false); }

  onKey(e) {
    const v = this.view;
    if (this.rowsOnly() && !["ArrowDown", "ArrowUp", "Home", "End"].includes(e.key)) return;
    const heads = [...(this.h.mean === false ? [] : ["mean"]), ...Array.from({ length: this.H }, (_, i) => i)];
    let hi = heads.indexOf(v.head), handled = true;
    switch (e.key) {
      case "ArrowDown": if (v.tab === "model") this.setView({ layer: Math.min(this.L - 1, v.layer + 1) }); else { this.q = Math.min(this.Q - 1, this.q + 1); this.hover = null; this.draw(); } break;
      case "ArrowUp": if (v.tab === "model") this.setView({ layer: Math.max(0, v.layer - 1) }); else { this.q = Math.max(0, this.q - 1); this.hover = null; this.draw(); } break;
      case "ArrowRight": this.setView({ head: heads[Math.min(heads.length - 1, hi + 1)] }); break;
      case "ArrowLeft": this.setView({ head: heads[Math.max(0, hi - 1)] }); break;
      case "PageDown": this.setView({ layer: Math.min(this.L - 1, v.layer + 1) }); break;
      case "PageUp": this.setView({ layer: Math.max(0, v.layer - 1) }); break;
      case "Home": this.q = 0; this.draw(); break;
      case "End": this.q = this.Q - 1; this.draw(); break;
      default: handled = false;
    }
    if (handled) { e.preventDefault(); this.schedule(); }
  }

  // -- export -------------------------------------------------------------------------------------

  fileName(ext) {
    const v = this.view;
    return `attention_${this.h.kind}_L${this.layerNo(v)}_H${this.headNo(v)}_T${fmtT(v.temp)}.${ext}`;
  }

  save(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob); a.download = name;
    this.el.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  }

  exportAs(kind) {
    if (kind === "png") { this.canvas.toBlob((b) => this.save(b, this.fileName("png")), "image/png"); return; }
    if (this.panels) { this.exportPanels(kind); return; }
    const w = this.headAt(this.view.layer, this.view.head), Q = this.Q, K = this.K, h = this.h, v = this.view;
    if (kind === "csv") {
      const q = (x) => `"${String(x).replace(/"/g, '""')}"`;
      const lines = ["query_position,query,key_position,key,weight,masked"];
      for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) lines.push([r, q(h.q_labels[r]), j, q(h.k_tokens[j]), this.masked(r, j) ? "" : w[r * K + j], this.masked(r, j) ? 1 : 0].join(","));
      this.save(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }), this.fileName("csv"));
      return;
    }
    if (kind === "json") {
      const rows = [];
      for (let r = 0; r < Q; r++) rows.push(Array.from(w.subarray(r * K, (r + 1) * K), (x, j) => (this.masked(r, j) ? null : x)));
      const out = { kind: h.kind, layer: this.layerNo(v), head: this.headNo(v), temperature: v.temp, temperature_scope: "this layer only", query_tokens: h.q_labels, key_tokens: h.k_tokens, weights: rows };
      this.save(new Blob([JSON.stringify(out)], { type: "application/json" }), this.fileName("json"));
      return;
    }
    // SVG: one rect per cell and the labels as text (a vector file for slides and print)
    const cell = 24, lw = 140, top = 120, esc = (x) => String(x).replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${lw + K * cell + 10}" height="${top + Q * cell + 10}" font-family="sans-serif" font-size="12">`];
    for (let r = 0; r < Q; r++) {
      parts.push(`<text x="${lw - 6}" y="${top + r * cell + 16}" text-anchor="end">${esc(h.q_labels[r])}</text>`);
      for (let j = 0; j < K; j++) {
        const m = this.masked(r, j), x = w[r * K + j];
        parts.push(`<rect x="${lw + j * cell}" y="${top + r * cell}" width="${cell}" height="${cell}" fill="${m ? "rgb(180,180,180)" : colorOf(x)}"><title>${m ? "masked" : x}</title></rect>`);
      }
    }
    for (let j = 0; j < K; j++) parts.push(`<text transform="translate(${lw + j * cell + 16},${top - 6}) rotate(-90)">${esc(h.k_tokens[j])}</text>`);
    parts.push("</svg>");
    this.save(new Blob([parts.join("")], { type: "image/svg+xml" }), this.fileName("svg"));
  }

  // every panel's numbers as shown (CSV, JSON) or drawn (SVG: the panels side by side)
  exportPanels(kind) {
    const v = this.view, data = this.panels.map((_, i) => this.panelData(i)).map((d, i) => [this.panels[i], d]).filter(([, d]) => d);
    const q = (x) => `"${String(x).replace(/"/g, '""')}"`;
    const scope = (d) => (d.server ? "the model re-run on the server" : "this layer only");
    if (kind === "csv") {
      const lines = ["panel,query_position,query,key_position,key,value,masked,temperature_scope"];
      for (const [p, d] of data) for (let r = 0; r < d.Q; r++) for (let j = 0; j < d.K; j++) {
        const m = d.masked(r, j);
        lines.push([q(p.short), r, q(d.labels[r]), j, q(d.keys[j]), m ? "" : d.w[r * d.K + j], m ? 1 : 0, q(scope(d))].join(","));
      }
      this.save(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }), this.fileName("csv"));
      return;
    }
    if (kind === "json") {
      const panels = data.map(([p, d]) => ({
        title: p.title, short: p.short, difference: !!p.diff, temperature_scope: scope(d), query_tokens: d.labels, key_tokens: d.keys,
        weights: Array.from({ length: d.Q }, (_, r) => Array.from(d.w.subarray(r * d.K, (r + 1) * d.K), (x, j) => (d.masked(r, j) ? null : x))),
      }));
      const out = { kind: this.h.kind, layer: this.layerNo(v), head: this.headNo(v), temperature: v.temp, panels };
      this.save(new Blob([JSON.stringify(out)], { type: "application/json" }), this.fileName("json"));
      return;
    }
    const cell = 24, lw = 140, top = 140, esc = (x) => String(x).replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const widths = data.map(([, d]) => lw + d.K * cell + 20);
    const W = widths.reduce((a, b) => a + b, 0), Hh = top + Math.max(...data.map(([, d]) => d.Q)) * cell + 10;
    const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${Hh}" font-family="sans-serif" font-size="12">`];
    let x0 = 0;
    data.forEach(([p, d], i) => {
      parts.push(`<text x="${x0}" y="16" font-weight="bold">${esc(p.title)}</text>`);
      for (let r = 0; r < d.Q; r++) {
        parts.push(`<text x="${x0 + lw - 6}" y="${top + r * cell + 16}" text-anchor="end">${esc(d.labels[r])}</text>`);
        for (let j = 0; j < d.K; j++) {
          const m = d.masked(r, j), x = d.w[r * d.K + j];
          const fillc = m ? "rgb(180,180,180)" : d.diverging ? divColorOf(x) : colorOf(x);
          parts.push(`<rect x="${x0 + lw + j * cell}" y="${top + r * cell}" width="${cell}" height="${cell}" fill="${fillc}"><title>${m ? "masked" : x}</title></rect>`);
        }
      }
      for (let j = 0; j < d.K; j++) parts.push(`<text transform="translate(${x0 + lw + j * cell + 16},${top - 6}) rotate(-90)">${esc(d.keys[j])}</text>`);
      x0 += widths[i];
    });
    parts.push("</svg>");
    this.save(new Blob([parts.join("")], { type: "image/svg+xml" }), this.fileName("svg"));
  }

  destroy() {
    clearTimeout(this.timer);
    this.resize.disconnect();
  }
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let view = VIEWS.get(parentElement);
  if (!view) {
    view = new View(parentElement);
    VIEWS.set(parentElement, view);
  }
  if (data) view.load(data, setStateValue);
  return () => { view.destroy(); VIEWS.delete(parentElement); };
}
