// The attention view: one attention kind's heatmap, model view and head view, drawn on canvas
// and recomputed in the browser. Streamlit 1.67 components v2 (no iframe): the default export is
// called with {data, parentElement, setStateValue} on mount and again whenever `data` changes,
// with the same parentElement, so one View per parentElement keeps the reader's view between
// calls. data is one Uint8Array (viz/attention_view.py packs it; decode.js reads it): a JSON
// header, then float32 weights. Selecting a layer, head, row or tab and moving the temperature
// redraw here with no message to the server; the view is reported once, debounced, when the
// reader lets go.
//
// This file holds the View (state, DOM, events); the numbers, layout, painting, hit-testing and
// export are pure modules beside it, joined into the component's one script by
// ui/attention_view/__init__.py (bundle); docs/architecture.md lists them.
import { STEPS, difference, fill, fmtT, headAtT, logOf, pooled, roundT, signed, sliderFromT, tFromSlider } from "./numbers.js";
import { decode } from "./decode.js";
import { pageRows } from "./layout.js";
import { cellAt, tileCentre } from "./hit.js";
import { fileName, headCsv, headJson, headSvg, panelsCsv, panelsJson, panelsSvg } from "./export.js";
import { paintHeatmap, paintLines, paintModel, paintPanels } from "./paint.js";
import { liveCannot, liveKnobs, liveLoaded, liveRun, loadLive } from "./live.js";
import { LINK_TEXT_MAX, PHONE_MAX_PX } from "./shared.js";

const VIEWS = new WeakMap();
// the reader's last view per component key and trace: a rerun that rebuilds the page around the
// view (the language changed, so its tab's label did) mounts a new View, which must not fall
// back to the view the server last imposed. Module state lives as long as the page: Streamlit
// imports the component's code once per content hash.
const MEMORY = new Map();
const REPORT_MS = 350; // one report per gesture: a drag's release, a burst of arrow keys
// the table lists every key up to this many; past it, the strongest TABLE_ROWS of the row (a
// 512-row table cost more to update than the 262,144-cell heatmap; the CSV has every key)
const TABLE_ROWS = 64;
// what a reader does to reach for the in-browser model (armReach), listened to on the view and on
// the document (the sidebar's box); passive: a touch that starts a scroll is never held up by it
const REACH = ["pointerover", "pointerdown", "touchstart", "focusin", "keydown"];
const REACH_OPTIONS = { capture: true, passive: true };
const THUMB = 48; // viz/attention_view.THUMB: the model view's thumbnails of a sentence the browser ran

// the sidebar's box applied as Streamlit applies it on Ctrl+Enter (a rerun)
function applyBox(el) {
  el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", ctrlKey: true, bubbles: true, cancelable: true }));
}

// The tabs, in order: a new view is one entry here (its id, as the link and the server's view
// carry it, ui/attention_view/__init__.py TABS; its label, a key of the header's strings; its
// painter, paint.js). Panels (a row of heatmaps) draw with paintPanels whatever the tab.
export const TABS = [
  { id: "heatmap", label: "tab_heatmap", paint: paintHeatmap },
  { id: "model", label: "tab_model", paint: paintModel },
  { id: "head", label: "tab_head", paint: paintLines },
];

class View {
  constructor(root) {
    this.root = root;
    this.el = root.querySelector(".av");
    this.el.__attentionView = this.api(); // the test API (below): drive/browser.py finds it by element
    this.frames = []; // performance.now() around each redraw, read back by tests and the bench
    this.reported = null;
    this.timer = null;
    this.page = 0;
    this.hover = null;
    this.q = 0;
    this.live = null; // the in-browser model (live.js): {spec, lm, reason, ms, output, on}
    this.liveMs = []; // performance.now() around each of its answers: the forward and the redraw
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

  // under the chart: which side computed it and the in-browser model's knobs (a projector's first
  // screen ends with the chart: tests/browser/test_projector.py)
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
      <p class="av-live-output" hidden></p>
      <p class="av-source" role="status"></p>
      <div class="av-live" hidden>
        <label class="av-check"><input type="checkbox" class="av-all"> <span class="av-all-label"></span></label>
        <label class="av-check"><input type="checkbox" class="av-nopos"> <span class="av-nopos-label"></span></label>
        <button type="button" class="av-off"></button>
        <label class="av-field"><span class="av-how-label"></span><select class="av-how"></select></label>
        <span class="av-off-list"></span><button type="button" class="av-off-clear"></button>
      </div>
      <div class="av-export"></div>`;
    this.canvas = this.$(".av-canvas");
    this.ctx = this.canvas.getContext("2d");
    const layerSel = this.$(".av-layer"), headSel = this.$(".av-head"), temp = this.$(".av-temp");
    layerSel.addEventListener("change", () => { this.setView({ layer: +layerSel.value }); this.schedule(); });
    headSel.addEventListener("change", () => { this.setView({ head: headSel.value === "mean" ? "mean" : +headSel.value }); this.schedule(); });
    // input: every move of the thumb redraws here, sends nothing; change: the thumb was let go
    temp.addEventListener("input", () => this.setView({ t: tFromSlider(+temp.value) }));
    temp.addEventListener("change", () => this.schedule());
    this.$(".av-temp-reset").addEventListener("click", () => { this.setView({ t: 1 }); this.schedule(); });
    this.$(".av-prev").addEventListener("click", () => { this.page--; this.draw(); });
    this.$(".av-next").addEventListener("click", () => { this.page++; this.draw(); });
    this.canvas.addEventListener("pointermove", (e) => this.onPointer(e, false));
    this.canvas.addEventListener("pointerleave", () => { if (this.hover && !this.hover.tap) { this.hover = null; this.showTip(); } });
    this.canvas.addEventListener("pointerup", (e) => this.onPointer(e, true));
    this.canvas.addEventListener("keydown", (e) => this.onKey(e));
    // the knobs the in-browser model answers: each change runs it at the next frame, reported on release
    const knob = (patch) => { this.setView(patch); this.liveAgain(); this.schedule(); };
    this.$(".av-all").addEventListener("change", (e) => knob({ all: e.target.checked }));
    this.$(".av-nopos").addEventListener("change", (e) => knob({ nopos: e.target.checked }));
    this.$(".av-how").addEventListener("change", (e) => knob({ how: e.target.value }));
    this.$(".av-off").addEventListener("click", () => {
      const name = this.headName(), off = this.view.off || [];
      if (name) knob({ off: off.includes(name) ? off.filter((x) => x !== name) : [...off, name] });
    });
    this.$(".av-off-clear").addEventListener("click", () => knob({ off: [] }));
  }

  // -- the in-browser model (live.js) -----------------------------------------------------------

  // "kind:layer:head" (1-based) of the shown head, or null for the heads' mean
  headName() {
    const v = this.view;
    return v.head === "mean" ? null : `${this.h.kind}:${this.layerNo(v)}:${v.head + 1}`;
  }

  // the header's live spec: listen to the sidebar's sentence box; load the model (once per page)
  // when the reader reaches for what it answers (reach, below), or at once where this page has it
  startLive(spec) {
    const same = this.live && this.live.spec.model === spec.model && this.live.spec.base === spec.base;
    // a new spec is a new run of the page: the sentence it was drawn for is the one the server knows
    this.live = same ? { ...this.live, spec, said: null } : { spec, lm: null, reason: null, ms: null, output: null, on: false, said: null };
    this.listenBox(spec.box);
    if (same && this.live.lm) { this.liveAgain(); return; }
    if (this.reached || liveLoaded(spec.base, spec.model)) { this.fetchLive(); return; }
    this.armReach();
    this.drawSource();
    const live = this.live;
    // a browser that cannot run the model says so before anyone reaches for it (model.js alone)
    liveCannot(spec.base).then((reason) => {
      if (this.live !== live || !reason || live.lm) return;
      live.reason = reason;
      this.drawSource();
      this.report();
    });
  }

  fetchLive() {
    const live = this.live, spec = live.spec;
    live.asked = true;
    this.drawSource();
    loadLive(spec.base, spec.model).then((lm) => {
      if (this.live !== live && (!this.live || this.live.spec.model !== spec.model)) return;
      this.live.lm = lm.reason ? null : lm;
      this.live.reason = lm.reason;
      if (lm.error) console.warn("in-browser model:", lm.error);
      // a browser that cannot run the model says so once: the server then draws every sentence
      if (this.live.lm) this.liveAgain(); else { this.drawSource(); this.report(); }
    });
  }

  // The model (the runtime's 14 MB and a graph of 4-6 MB: a home page load cost Chromium 2.4 s of
  // CPU with it and 0.8 s without, on the 2-core development machine, docs/architecture.md) loads when the reader first reaches for what it answers: a pointer over the view or its
  // controls, a touch, a key, focus in the view or in the sidebar's sentence box. A page that is
  // only looked at (a class following the teacher's projector, a link opened to be read) costs the
  // browser none of it; until then the server computes the chart, as it does for every move. Once
  // reached, the view loads every later model of the page at once.
  armReach() {
    if (this.onReach) return;
    // on the view itself (it may sit in a shadow root, whose events reach the document retargeted
    // to its host) and on the document for the sidebar's box
    this.onReach = (e) => {
      const t = e.target;
      if (e.currentTarget === document && !(this.boxKey && t && t.closest && t.closest(`.st-key-${CSS.escape(this.boxKey)}`))) return;
      this.reached = true;
      this.disarmReach();
      if (this.live && !this.live.lm && !this.live.asked && !this.live.reason) this.fetchLive();
    };
    for (const type of REACH) {
      this.el.addEventListener(type, this.onReach, REACH_OPTIONS);
      document.addEventListener(type, this.onReach, REACH_OPTIONS);
    }
  }

  disarmReach() {
    if (!this.onReach) return;
    for (const type of REACH) {
      this.el.removeEventListener(type, this.onReach, REACH_OPTIONS);
      document.removeEventListener(type, this.onReach, REACH_OPTIONS);
    }
    this.onReach = null;
  }

  // the sidebar's sentence box (its widget key's container, st-key-KEY): every keystroke runs the
  // model at the next frame. One listener on the document (React may replace the box's element on
  // any rerun). Leaving the box with a sentence the server has not taken applies it: posted to the
  // server's own route where the page draws it here alone (say: no rerun; ui/said.py), else as
  // Ctrl+Enter applies it (a run of the box, or the page), so the link, the room and the
  // server's figures follow
  listenBox(key) {
    this.boxKey = key;
    if (!this.onBox) {
      const inBox = (e) => this.boxKey && e.target.closest && e.target.closest(`.st-key-${CSS.escape(this.boxKey)}`);
      this.onBox = (e) => { if (inBox(e)) this.liveAgain(); };
      this.onBoxLeft = (e) => {
        const text = inBox(e) ? this.typed() : null;
        if (text == null) return;
        const route = this.saidRoute();
        if (!route) { applyBox(e.target); return; }
        // Streamlit's box commits on leaving (a rerun): it must not see this focusout. The event is
        // stopped here, on the document, before React's listener on its root
        e.stopPropagation();
        this.say(route, text);
      };
      document.addEventListener("input", this.onBox, true);
      document.addEventListener("focusout", this.onBoxLeft, true);
    }
  }

  // where this page may post the box's sentence (ui/said.py: the sidebar's style element carries
  // the route and this session's token), or null: no route on this server, or the page draws the
  // sentence elsewhere too (the live spec's whole)
  saidRoute() {
    if (!this.live || !this.live.spec.whole) return null;
    const el = document.querySelector("style[data-said-token]");
    return el ? { url: el.dataset.saidUrl, token: el.dataset.saidToken } : null;
  }

  // post the sentence; taken (204): the link written here (Streamlit's own copy of it follows at
  // the session's next run, which applies the sentence); anything else: applied as Ctrl+Enter does
  async say(route, text) {
    let taken = false;
    try {
      const r = await fetch(route.url, {
        method: "POST", body: text, cache: "no-store", credentials: "same-origin",
        headers: { "X-Attn-Said": route.token, "Content-Type": "text/plain;charset=UTF-8" },
      });
      taken = r.status === 204;
    } catch (err) { console.warn("the sentence was not posted:", err); }
    const box = this.box;
    if (!taken) { if (box && box.value === text) applyBox(box); return; }
    if (this.live) this.live.said = text;
    const url = new URL(window.location.href);
    if (text && text.length <= LINK_TEXT_MAX) url.searchParams.set("text", text); else url.searchParams.delete("text");
    window.history.replaceState(window.history.state, "", url);
    // on a phone the sidebar covers the chart: closed, as after a sentence applied by a run
    // (ui/context.py's _close_sidebar_on_phone; Streamlit's own button, so its state stays right)
    if (window.innerWidth <= PHONE_MAX_PX) {
      const close = document.querySelector("[data-testid='stSidebarCollapseButton'] button");
      if (close && document.querySelector("[data-testid='stSidebar'][data-collapsed='false']")) close.click();
    }
  }

  get box() {
    return this.boxKey ? document.querySelector(`.st-key-${CSS.escape(this.boxKey)} textarea`) : null;
  }

  // the box's sentence where the browser ran one the server has not taken (else null): neither
  // the one the page was drawn for nor the last one posted
  typed() {
    const box = this.live && this.live.lm && this.live.on ? this.box : null;
    const known = this.live && this.live.said != null ? this.live.said : this.live && this.live.spec.text;
    return box && box.value !== known ? box.value : null;
  }

  boxText() {
    const box = this.box;
    return box ? box.value : this.live.spec.text;
  }

  // one run at the next animation frame, however many keystrokes or moves came before it
  liveAgain() {
    if (!this.live || !this.live.lm || this.liveFrame) return;
    this.liveFrame = requestAnimationFrame(() => { this.liveFrame = 0; this.runLive(); });
  }

  async runLive() {
    const live = this.live;
    if (!live || !live.lm) return;
    if (this.liveBusy) { this.liveQueued = true; return; }
    this.liveBusy = true;
    const t0 = performance.now();
    let answered = false;
    try {
      const v = this.view, spec = live.spec;
      const args = { text: this.boxText(), kind: spec.kind, first: this.h.first_layer || 0, maxChars: spec.max_chars, ids: spec.special };
      if (this.panels) {
        const runs = await this.livePanels(live, args);
        if (runs && this.live === live) { this.liveUsed = { t: 1, all: true, layer: v.layer }; this.applyLive(runs.base, runs.hot, runs.more); answered = true; }
      } else {
        const used = { t: v.t, all: !!v.all, layer: v.layer };
        const r = await liveRun(live.lm, {
          ...args, knobs: liveKnobs({ ...used, layer: (this.h.first_layer || 0) + v.layer, off: v.off, how: v.how, pos: !v.nopos }),
        });
        if (r && this.live === live) { this.liveUsed = used; this.applyLive(r); answered = true; }
      }
    } catch (e) {
      console.warn("in-browser model:", e);
    } finally {
      this.liveBusy = false;
    }
    if (answered) {
      live.ms = performance.now() - t0;
      this.liveMs.push(live.ms);
      if (this.liveMs.length > 500) this.liveMs.shift();
      this.drawSource();
    }
    if (this.liveQueued) { this.liveQueued = false; this.runLive(); }
  }

  // the panels' runs, each a source the page declared (spec.runs: {src, model, text, temp, nopos};
  // model null: the page's, text null: the box's sentence, temp: T in every layer), the first
  // source 0 (the temperature page: the model at T = 1; compare: A, then B), each kept while its
  // sentence and settings are the same; and, where a panel shows the slider's T with a scope (the
  // temperature page), the model again with that T where the scope puts it (every layer, or one)
  async livePanels(live, args) {
    const v = this.view, scope = this.liveScope(), spec = live.spec, out = [];
    this.liveRuns = this.liveRuns || new Map();
    if (this.liveRuns.size > 16) this.liveRuns.clear();
    for (const run of spec.runs || [{ src: 0 }]) {
      const name = run.model || spec.model, text = run.text == null ? args.text : run.text;
      const key = JSON.stringify([spec.base, name, spec.kind, text, run.temp || 1, !!run.nopos]);
      let r = this.liveRuns.get(key);
      if (r === undefined) {
        const lm = name === spec.model ? live.lm : await loadLive(spec.base, name);
        if (!lm || lm.reason) return null; // B's model cannot run here: the chart stays the server's
        r = await liveRun(lm, { ...args, text, knobs: liveKnobs({ t: run.temp || 1, all: true, pos: !run.nopos }) });
        this.liveRuns.set(key, r);
      }
      if (!r) return null; // a sentence with nothing to read
      out.push([run.src, r]);
    }
    const base = out.find(([si]) => si === 0);
    if (!base) return null;
    let hot = null;
    if (scope != null && v.t !== 1) {
      const T = v.t, r = await liveRun(live.lm, { ...args, knobs: liveKnobs({ t: T, all: scope === "all", layer: scope === "all" ? 0 : scope }) });
      hot = r ? { T, scope, r } : null;
    }
    return { base: base[1], hot, more: out.filter(([si]) => si !== 0) };
  }

  // where the panels' page applies T ("all", or the model's layer from 0), or null: no panel at the slider's T
  liveScope() {
    const p = (this.panels || []).find((x) => x.temp === "view" && x.scope != null);
    return p ? p.scope : null;
  }

  // the browser's run replaces the weights shown (every layer, at the knobs already: T = 1 on top);
  // hot: the panels' run at T, a source of its own (this.liveIdx) beside the server's
  applyLive(r, hot = null, more = []) {
    this.h = { ...this.h, q_tokens: r.q_tokens, k_tokens: r.k_tokens, q_labels: r.q_labels, q_written: r.q_written, thumb: [Math.min(r.Q, THUMB), Math.min(r.K, THUMB)] };
    const shapeChanged = r.Q !== this.Q || r.K !== this.K;
    this.Q = r.Q; this.K = r.K;
    this.w = r.w; this.mask = r.mask; this.logs = {};
    this.srcs[0] = { w: this.w, mask: this.mask, Q: r.Q, K: r.K, q_labels: r.q_labels, k_tokens: r.k_tokens, logs: this.logs };
    this.cache = null; this.pcache.clear();
    this.q = Math.max(0, Math.min(r.Q - 1, this.q));
    if (this.panels) {
      for (const [si, x] of more) this.srcs[si] = { w: x.w, mask: x.mask, Q: x.Q, K: x.K, q_labels: x.q_labels, k_tokens: x.k_tokens, logs: {} };
      const x = hot && hot.r;
      if (x) this.srcs[this.liveIdx] = { w: x.w, mask: x.mask, Q: x.Q, K: x.K, q_labels: x.q_labels, k_tokens: x.k_tokens, logs: {} };
      this.liveHot = x ? { T: hot.T, scope: hot.scope, output: x.output } : null;
    }
    this.live.on = true;
    this.live.output = r.output;
    this.live.text = r.text;
    if (shapeChanged) this.fillRows();
    this.draw();
  }

  // which side computed the chart, in the reader's language; why not the browser, where it cannot
  drawSource() {
    const el = this.$(".av-source"), s = this.s, live = this.live;
    if (!live) { el.textContent = ""; el.hidden = true; return; }
    el.hidden = false;
    if (live.on && live.lm) el.textContent = fill(s.src_browser, { ms: live.ms == null ? "–" : live.ms.toFixed(1) });
    else if (live.reason) el.textContent = `${s.src_server} ${fill(s.cannot, { reason: s[`cannot_${live.reason}`] || live.reason })}`;
    else el.textContent = live.asked ? s.src_loading : s.src_waiting;
    el.dataset.source = live.on && live.lm ? "browser" : "server";
    const out = this.$(".av-live-output"), lines = [];
    if (live.on && live.output != null && live.text !== live.spec.text) lines.push(fill(s.live_output, { text: live.output }));
    // the panels' run at T: the translator's greedy output at that T (the model re-run here)
    const hot = live.on && this.panels ? this.liveHot : null;
    if (hot && hot.output != null && s.live_output_t) lines.push(fill(s.live_output_t, { t: fmtT(hot.T), text: hot.output }));
    out.hidden = !lines.length;
    out.textContent = lines.join(" · ");
  }

  load(bytes, setStateValue) {
    this.setStateValue = setStateValue;
    const { header, headerText, arrays } = decode(bytes);
    // tests and the bench read the numbers and frame times back through this. Registered at every
    // payload, an unchanged one too: where an element is replaced, the view leaving may load once
    // more after the one arriving, and the key must end on the view the page shows
    (window.__attentionViews = window.__attentionViews || {})[header.key] = this.el.__attentionView;
    if (headerText === this.headerText) return; // the same trace and imposed view: keep the reader's view
    const sameTrace = this.h && header.trace === this.h.trace;
    this.headerText = headerText;
    this.h = header;
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
    this.liveIdx = this.srcs.length; // the browser's run at the slider's T (panels), a source after the server's
    this.liveHot = null;
    this.pcache = new Map();
    const s = header.strings;
    this.s = s;
    // the view the server sent is applied when it is new (a link, a room, another widget); the
    // same view again with other bytes (the language changed) leaves the reader's own view
    const v = header.view, imposed = JSON.stringify(v);
    this.memKey = `${header.key}|${header.trace}`;
    const mem = MEMORY.get(this.memKey);
    this.imposedNow = false;
    if (sameTrace && imposed === this.imposed && this.view) {
      // keep the reader's view
    } else if (mem && mem.imposed === imposed) {
      this.view = { ...mem.view };
      this.q = Math.max(0, Math.min(Q - 1, mem.q));
      this.reported = mem.reported;
    } else {
      // t: the slider's T, the shown layer's (ltemp) or, with all (the in-browser model), every layer's
      this.view = { tab: v.tab || TABS[0].id, layer: v.layer, head: v.head, t: v.ltemp || 1, off: v.off || [], how: v.how || "zero", nopos: !!v.nopos };
      this.imposedNow = true;
      this.q = Math.max(0, Math.min(Q - 1, v.q || 0));
      this.reported = JSON.stringify(this.viewOut());
    }
    this.imposed = imposed;
    if (!this.w[this.view.layer]) this.view.layer = v.layer; // only the sent layer travelled
    if (!sameTrace) this.page = Math.floor(this.view.layer / this.pageRows());
    this.el.classList.toggle("av-present", !!header.present);
    for (const k of ["temp", "off", "how", "nopos"]) if (!(k in this.view)) this.view[k] = v[k];
    // a view from the server with T in every layer (a link's ?temp=): the slider is that T, in every layer
    if (header.live && header.live.knobs && (this.view.all === undefined || this.imposedNow)) this.view.all = (v.temp || 1) !== 1;
    if (header.live && this.view.all && (v.temp || 1) !== 1 && this.imposedNow) this.view.t = v.temp;
    if (this.live) { this.live.on = false; } // the server's weights, until the browser answers again
    this.fillControls();
    this.draw();
    if (header.live) this.startLive(header.live); else { this.live = null; this.drawSource(); }
  }

  fillControls() {
    const s = this.s;
    const tabs = this.$(".av-tabs");
    tabs.setAttribute("aria-label", s.tabs_label);
    tabs.innerHTML = "";
    for (const { id, label } of TABS) {
      const b = document.createElement("button");
      b.type = "button"; b.setAttribute("role", "tab"); b.dataset.tab = id; b.textContent = s[label];
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
    // the in-browser model's knobs: where the page offers them (not the compact view, not panels)
    const knobs = !!(h.live && h.live.knobs) && !h.compact && !this.panels;
    this.$(".av-live").hidden = !knobs;
    this.$(".av-all-label").textContent = s.live_all;
    this.$(".av-nopos-label").textContent = s.live_nopos;
    this.$(".av-how-label").textContent = s.live_how;
    this.$(".av-off-clear").textContent = s.live_clear;
    const how = this.$(".av-how");
    how.innerHTML = "";
    for (const id of ["zero", "mean", "uniform"]) how.add(new Option(s[`how_${id}`], id));
    this.fillRows();
  }

  // the table's rows, one per key up to TABLE_ROWS (again when the browser's run has another length)
  fillRows() {
    const s = this.s;
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

  pageRows() { return pageRows(this.L); }

  viewOut() {
    const v = this.view;
    // the slider's T (view.t) travels as the link names it: T in every layer as temp (the page
    // re-runs the model with it), T in the shown layer alone as ltemp; heads off, how, positions
    // off as the page's link has them
    const all = !!v.all && !!this.live;
    return {
      tab: v.tab, layer: v.layer, head: v.head, q: this.q,
      ltemp: all ? 1 : roundT(v.t), temp: all ? roundT(v.t) : this.live ? 1 : v.temp ?? 1,
      off: v.off || [], how: v.how || "zero", nopos: !!v.nopos,
      ...(this.typed() != null ? { text: this.typed() } : {}),
      ...(this.live && this.live.reason ? { cannot: true } : {}),
    };
  }

  setView(patch) {
    Object.assign(this.view, patch);
    // the browser's run holds T in the layer it was run for: another layer, or another T, runs again
    if (this.live && this.live.lm && ("t" in patch || ("layer" in patch && !this.panels && !this.view.all && this.view.t !== 1))) this.liveAgain();
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


  // -- numbers (numbers.js computes; the View caches) ---------------------------------------------

  hasLayer(la) { return !!this.w[la]; }

  // (Q, K) weights of head h in layer la at the view's temperature: softmax(log(w) / T) row by
  // row, which equals softmax(s / T) for w = softmax(s) (the row's normaliser cancels). Cells w = 0
  // (masked) stay 0.
  headAt(la, h) {
    const T = this.effT(la);
    if (!this.cache || this.cache.la !== la || this.cache.T !== T) this.cache = { la, T, heads: {} };
    return (this.cache.heads[h] ??= this.headOf(0, la, h, T, true));
  }

  // the T to apply to the weights held for layer la: the view's T over the T they were computed
  // at. The browser's run holds its knobs' T (every layer, or the layer it ran for), the server's
  // run every layer's T (temp); until the next run answers, softmax(log w / T) of that layer
  // alone stands in (exact for the shown layer when the layers before it are unchanged), then 1
  effT(la) {
    const v = this.view;
    if (this.live && this.live.on) {
      const k = this.liveUsed, at = k.all ? k.t : la === k.layer ? k.t : 1;
      return (v.all || la === v.layer ? v.t : 1) / at;
    }
    if (this.live && v.all) return v.t / ((this.h.served || {}).temp || 1);
    return v.t;
  }

  // where the T of layer la's weights was applied, for the exports: the whole model re-run (the
  // browser's run, or the server's at every layer's T) where effT leaves nothing to apply, else
  // softmax(log w / T) of that layer alone
  scopeOf(la) {
    if (this.effT(la) !== 1) return "this layer only";
    if (this.live && this.live.on) return "the model re-run in the browser";
    return this.live && this.view.all ? "the model re-run on the server" : "this layer only";
  }

  // what the chart shows now: the selected head's (Q, K) at T as a list; with panels, panel i's
  shown(i) {
    const { layer, head } = this.view;
    if (!this.hasLayer(layer)) return null;
    if (this.panels && i !== undefined) { const d = this.panelData(i); return d ? Array.from(d.w) : null; }
    return Array.from(this.headAt(layer, head));
  }

  // head h of layer la of source si at temperature T (numbers.headAtT), cached
  headOf(si, la, h, T, fresh = false) {
    if (si === 0 && T === this.view.t && !fresh && !this.panels) return this.headAt(la, h);
    const src = this.srcs[si];
    if (!src || !src.w[la]) return null;
    const id = `${si}|${la}|${h}|${T}`, hit = this.pcache.get(id);
    if (hit) return hit;
    const n = src.Q * src.K, H = src.w[la].length / n;
    const out = headAtT(src.w[la], () => (src.logs[la] ??= logOf(src.w[la])), H, src.Q, src.K, h, T);
    if (this.pcache.size > 64) this.pcache.clear();
    this.pcache.set(id, out);
    return out;
  }

  pooled(la, h, tq, tk) { return pooled(this.headAt(la, h), this.Q, this.K, tq, tk, (r, j) => this.masked(r, j)); }

  // whether a panel draws the server's run at T (the model re-run) rather than the browser's
  // softmax(log w / T) of the shown layer: whenever the server computed this T. With T in the
  // shown layer alone the two agree (to float32) while the model reads the same tokens; a
  // translator may write another translation at T, which only the re-run has
  fromServer(p) {
    const v = this.view;
    if (p.hot == null || !this.srcs[p.hot] || !this.srcs[p.hot].w[v.layer]) return false;
    return Math.abs(v.t - p.hot_t) < 5e-4;
  }

  // the source that holds the model run at the slider's T for panel p, or null (the panel then
  // shows softmax(log w / T) of the weights at T = 1, the shown layer alone): where the browser
  // runs the model, its own run at this T (the server's is of the sentence the server last ran,
  // which the box may have left); else the server's re-run at this T
  runAt(p) {
    if (this.live && this.live.on) {
      const hot = this.liveHot, v = this.view;
      const same = hot && p.temp === "view" && p.scope != null && String(hot.scope) === String(p.scope);
      return same && Math.abs(v.t - hot.T) < 5e-4 && this.srcs[this.liveIdx] ? this.liveIdx : null;
    }
    return this.fromServer(p) ? p.hot : null;
  }

  // which side computed what panel i draws: "browser" (the model run here at T), "server" (the
  // server's re-run at T), "view" (softmax(log w / T) of the weights held, or T fixed by the page)
  panelSource(i) {
    const p = this.panels[i];
    if (p.diff) return null;
    const at = this.runAt(p);
    return at == null ? "view" : at === this.liveIdx ? "browser" : "server";
  }

  // what panel i draws for layer la, head h (the view's by default): {w (Q x K), Q, K, labels,
  // keys, mask(r, j) -> masked, diverging, server}
  panelData(i, la = this.view.layer, h = this.view.head) {
    const p = this.panels[i], v = this.view;
    if (p.diff) {
      const b = this.panelData(p.diff[0], la, h), a = this.panelData(p.diff[1], la, h);
      if (!a || !b) return null;
      const { w, Q, K } = difference(b, a);
      return { w, Q, K, labels: a.labels.slice(0, Q), keys: a.keys.slice(0, K), masked: (r, j) => a.masked(r, j) || b.masked(r, j), diverging: true, server: a.server || b.server };
    }
    const at = this.runAt(p), server = at != null && at !== this.liveIdx;
    const si = at != null ? at : p.src, src = this.srcs[si];
    const w = this.headOf(si, la, h, at != null ? 1 : p.temp === "view" ? v.t : p.temp);
    if (!w) return null;
    const K = src.K, mask = src.mask;
    return { w, Q: src.Q, K, labels: src.q_labels, keys: src.k_tokens, masked: (r, j) => !!mask && !mask[r * K + j], diverging: false, server, browser: at != null && at === this.liveIdx };
  }

  // the note under the slider: which of the two the chart shows (the browser's exact
  // softmax(log w / T) of this layer alone, or the server's run with T where the page applies it)
  panelNote() {
    const v = this.view, vals = { t: fmtT(v.t), layer: this.layerNo(v), attention: this.h.attention };
    for (const p of this.panels) {
      if (p.diff || p.temp !== "view" || !p.notes) continue;
      const n = p.notes;
      if (v.t === 1) return fill(n.one, vals);
      const at = this.runAt(p);
      if (at != null) return fill(at === this.liveIdx && n.live ? n.live : n.server, vals);
      // exact: the layers where T in this attention alone is what the page's scope applies
      if (p.scope == null || (p.exact || []).includes(v.layer)) return fill(n.browser, vals);
      // the model's run at this T is on its way: from this browser (the next frame), or the server's on release
      return fill(this.live && this.live.lm && n.live_pending ? n.live_pending : n.pending, vals);
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
    this.$(".av-temp").value = String(sliderFromT(v.t));
    this.$(".av-temp").setAttribute("aria-valuetext", fmtT(v.t));
    this.$(".av-temp-value").textContent = fmtT(v.t);
    const live = this.live && this.live.on;
    this.$(".av-temp-note").textContent = this.panels
      ? this.panelNote()
      : fill(v.t === 1 ? s.temp_note_one : live ? (v.all ? s.live_note_all : s.live_note_layer) : s.temp_note, { t: fmtT(v.t), layer: this.layerNo(v), attention: this.h.attention });
    if (!this.$(".av-live").hidden) {
      this.$(".av-all").checked = !!v.all;
      this.$(".av-nopos").checked = !!v.nopos;
      this.$(".av-how").value = v.how || "zero";
      const name = this.headName(), off = v.off || [];
      const b = this.$(".av-off");
      b.disabled = !name;
      b.textContent = name && off.includes(name) ? s.live_on : s.live_off;
      b.setAttribute("aria-pressed", String(!!name && off.includes(name)));
      const heads = off.map((n) => { const [, la, hh] = n.split(":"); return fill(s.live_off_head, { layer: la, head: hh }); });
      this.$(".av-off-list").textContent = off.length ? fill(s.live_off_list, { heads: heads.join(", ") }) : "";
      this.$(".av-off-clear").hidden = !off.length;
    }
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
    } else (this.panels ? paintPanels : (TABS.find((t) => t.id === v.tab) || TABS[0]).paint)(this, width);
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

  // one Q x K offscreen image and its pixels, kept while the shape is the same
  offscreen(K, Q) {
    if (!this.img || this.img.img.width !== K || this.img.img.height !== Q) this.img = { img: new OffscreenCanvas(K, Q), data: new ImageData(K, Q) };
    return this.img;
  }

  // the page position of a model-view tile's centre (tests click it); null when not on this page
  tileCenter(la, h) {
    const c = tileCentre(this.geo, la, h);
    if (!c) return null;
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + c.x, y: r.top + c.y };
  }

  clip(text, px) {
    const ctx = this.ctx;
    if (ctx.measureText(text).width <= px) return text;
    let t = text;
    while (t.length > 1 && ctx.measureText(t + "…").width > px) t = t.slice(0, -1);
    return t + "…";
  }

  // every layer x head as a thumbnail; the shown layer at T from its float32 weights, the others

  // a lesson's reveal: one head, or the heads' mean), numbered as the model numbers them
  layerNo(v) { return (this.h.first_layer || 0) + v.layer + 1; }
  headNo(v) { return this.h.head_as != null ? this.h.head_as : v.head === "mean" ? "mean" : v.head + 1; }

  describe() {
    const v = this.view, s = this.s, head = this.headNo(v);
    return fill(s.alt, {
      layer: this.layerNo(v),
      head: head === "mean" ? s.mean_heads : fill(s.head_n, { n: head, total: this.H }),
      t: fmtT(v.t),
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
      if (pos.textContent !== String(j)) pos.textContent = String(j);
      if (tok.textContent !== this.h.k_tokens[j]) tok.textContent = this.h.k_tokens[j]; // the browser's run: another sentence
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
    for (const th of this.$(".av-table thead tr").querySelectorAll(".av-c-panel")) th.textContent = fill(th.dataset.template, { t: fmtT(this.view.t) });
    for (let i = 0; i < this.rows.length; i++) {
      const [tr, pos, tok, , , cells] = this.rows[i];
      const j = i;
      if (pos.textContent !== String(j)) pos.textContent = String(j);
      if (tok.textContent !== this.h.k_tokens[j]) tok.textContent = this.h.k_tokens[j]; // the browser's run: another sentence
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
    const rect = this.canvas.getBoundingClientRect();
    return cellAt(this.geo, e.clientX - rect.left, e.clientY - rect.top, this);
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
    if (!c || this.view.tab !== "heatmap" || !this.hasLayer(this.view.layer)) { tip.hidden = true; return; }
    if (c.pi !== undefined) {
      const d = this.panelData(c.pi);
      if (!d || c.r >= d.Q || c.j >= d.K) { tip.hidden = true; return; }
      const x = d.w[c.r * d.K + c.j];
      const val = d.masked(c.r, c.j) ? this.s.masked : d.diverging ? signed(x, 4) : x.toFixed(4);
      tip.textContent = `${fill(this.panels[c.pi].short, { t: fmtT(this.view.t) })}: ${d.labels[c.r]} · ${d.keys[c.j]}: ${val}`;
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


  // -- export (export.js writes the text) ---------------------------------------------------------

  save(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob); a.download = name;
    this.el.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  }

  exportAs(kind) {
    const v = this.view, name = fileName(this.h.kind, this.layerNo(v), this.headNo(v), v.t, kind);
    if (kind === "png") { this.canvas.toBlob((b) => this.save(b, name), "image/png"); return; }
    const about = { kind: this.h.kind, layer: this.layerNo(v), head: this.headNo(v), temperature: v.t, scope: this.scopeOf(v.layer) };
    let text;
    if (this.panels) {
      const data = this.panels.map((p, i) => [p, this.panelData(i)]).filter(([, d]) => d);
      text = kind === "csv" ? panelsCsv(data) : kind === "json" ? panelsJson(data, about) : panelsSvg(data);
    } else {
      const d = { w: this.headAt(v.layer, v.head), Q: this.Q, K: this.K, labels: this.h.q_labels, keys: this.h.k_tokens, masked: (r, j) => this.masked(r, j), diverging: false };
      text = kind === "csv" ? headCsv(d) : kind === "json" ? headJson(d, about) : headSvg(d);
    }
    const type = { csv: "text/csv", json: "application/json", svg: "image/svg+xml" }[kind];
    this.save(new Blob([text], { type }), name);
  }

  // -- the test API -------------------------------------------------------------------------------
  // What tests, the bench and drive/browser.py read of a view: window.__attentionViews[key] (and
  // the .av element's __attentionView) is this object; nothing else of the View is read from
  // outside (docs/architecture.md, "The attention view's test API").
  api() {
    const v = this;
    return {
      element: v.el, // the view's DOM (its controls, table and canvas)
      get canvas() { return v.canvas; },
      get ready() { return !!v.h; }, // a payload is loaded
      get state() { return v.h ? v.viewOut() : null; }, // {tab, layer, head, q, ltemp, temp, ...}, as reported (viewOut)
      get shape() { return v.h ? { L: v.L, H: v.H, Q: v.Q, K: v.K } : null; },
      get labels() { return v.h ? { q: v.h.q_labels, k: v.h.k_tokens } : null; }, // rows, keys
      get strings() { return v.s; }, // the wording it was sent (the reader's language)
      get layersLoaded() { return v.h ? v.h.layers.length : 0; }, // layers whose weights travelled
      get frames() { return v.frames.slice(); }, // ms of each redraw
      get minTextPx() { return v.minTextPx; }, // the smallest text drawn on the canvas
      get valuesShown() { return !!v.valuesShown; }, // the cells carry their values
      get drawnWidth() { return v.width; }, // the width it last drew at (0: not yet)
      get geo() { return v.geo ? { kind: v.geo.kind, panels: v.geo.list ? v.geo.list.length : 0 } : null; },
      shown: (i) => v.shown(i), // the shown (Q x K) weights as a flat list; panel i's with panels
      weightsAt: (si, la, h, T) => { const w = v.headOf(si, la, h, T); return w ? Array.from(w) : null; },
      panelFromServer: (i) => !!v.panels && v.panelSource(i) === "server",
      // panels: which side computed panel i as drawn ("browser", "server", "view"); its (Q x K) for any layer and head
      panelSource: (i) => (v.panels ? v.panelSource(i) : null),
      panelAt: (i, la, h) => { const d = v.panels ? v.panelData(i, la, h) : null; return d ? Array.from(d.w) : null; },
      masked: (r, j) => !!v.masked(r, j),
      // turn the model view's page to layer la; the page position of tile (la, h)
      tile: (la, h) => { v.page = Math.floor(la / v.pageRows()); v.draw(); v.canvas.scrollIntoView({ block: "center" }); return v.tileCenter(la, h); },
      clearCache: () => { v.cache = null; v.pcache.clear(); }, // the bench: time a cold recompute
      // the in-browser model (live.js): which side computed the chart, why not the browser, each
      // answer's ms (its forward and redraw), and a move to time (bench/moves.py, the tests):
      // move({text, temp | ltemp, layer, head, off, how, nopos}) sets the box's text and the knobs as
      // the reader would, runs the model once and resolves to that answer's ms (null: no model here)
      get source() { return v.live && v.live.on && v.live.lm ? "browser" : "server"; },
      get liveReason() { return v.live ? v.live.reason : "off"; },
      get liveReady() { return !!(v.live && v.live.lm); },
      get drawnFor() { return v.live ? v.live.spec.text : null; }, // the sentence the server's run drew the page for
      get posted() { return v.live ? v.live.said : null; }, // the box's sentence the server took without a run (ui/said.py)
      get liveFrames() { return v.liveMs.slice(); },
      get liveOutput() { return v.live && v.live.on ? v.live.output : null; }, // the translator's greedy output
      move: async (patch) => {
        if (!v.live || !v.live.lm) return null;
        const { text, temp, ltemp, ...view } = patch;
        // the slider's T as the link names it: every layer's (temp) or the shown layer's alone
        // (ltemp); given both, read as a view with both is: temp unless it is 1
        if (temp !== undefined && (temp !== 1 || ltemp === undefined)) Object.assign(view, { t: temp, all: true });
        else if (ltemp !== undefined) Object.assign(view, { t: ltemp, all: false });
        const box = v.box;
        if (text !== undefined && box) box.value = text;
        else if (text !== undefined) v.live.spec = { ...v.live.spec, text };
        Object.assign(v.view, view);
        const before = v.liveMs.length;
        await v.runLive();
        return v.liveMs.length > before ? v.liveMs[v.liveMs.length - 1] : null;
      },
    };
  }

  destroy() {
    // its window.__attentionViews entry stays until the next view of its key loads: tests wait on
    // that entry's fields, and a missing entry throws where a stale one reads false
    clearTimeout(this.timer);
    if (this.onBox) document.removeEventListener("input", this.onBox, true);
    if (this.onBoxLeft) document.removeEventListener("focusout", this.onBoxLeft, true);
    this.disarmReach();
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
