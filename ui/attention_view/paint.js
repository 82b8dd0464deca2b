// The painters: each draws one tab (or the row of panels) of a View v on its canvas, through
// v.ctx, v.font (which records the smallest text drawn), v.clip and v.sized, with the geometry
// from layout.js, and leaves that geometry in v.geo for hit-testing. The numbers come from v
// (v.headAt, v.panelData); nothing here computes a weight.
import { HIGHLIGHT, MASKED, MASKED_HATCH } from "./shared.js";
import { LUT, cellWords, divScale } from "./colors.js";
import { fill, fmtT, signed } from "./numbers.js";
import { heatmapLayout, labelStep, linesLayout, modelLayout, panelsLayout, valueFont } from "./layout.js";

function widest(ctx, labels) {
  let w = 0;
  for (const l of labels) w = Math.max(w, ctx.measureText(l).width);
  return w;
}

// one panel's cells at g (x0, y0, cw, ch): colours (Blues 0..1, or diverging -1..+1), masked
// cells hatched, and values where they fit at a readable size; returns that size (0: none)
export function paintCells(v, d, g) {
  const ctx = v.ctx, { Q, K, w } = d;
  // the cells as one Q x K image, scaled without smoothing: 262,144 cells in one drawImage
  const { img, data } = v.offscreen(K, Q);
  const s = d.diverging ? d.scale || 1 : 1; // a difference's colours span -scale..+scale
  cellWords(s === 1 ? w : w.map((x) => x / s), Q, K, d.masked, d.diverging, new Uint32Array(data.data.buffer));
  img.getContext("2d").putImageData(data, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(img, g.x0, g.y0, g.cw * K, g.ch * Q);
  // masked cells: a diagonal stroke, so "masked" never reads as "weight 0" (and not by colour alone)
  if (d.hasMask !== false && g.cw >= 8 && g.ch >= 8) {
    ctx.strokeStyle = MASKED_HATCH; ctx.lineWidth = 1; ctx.beginPath();
    for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) if (d.masked(r, j)) {
      const x = g.x0 + j * g.cw, y = g.y0 + r * g.ch;
      ctx.moveTo(x + 2, y + g.ch - 2); ctx.lineTo(x + g.cw - 2, y + 2);
    }
    ctx.stroke();
  }
  const vf = valueFont(v.fontPx, g.cw, g.ch, d.diverging, v.h.present);
  if (!vf) return 0;
  v.font(vf); ctx.textAlign = "center"; ctx.textBaseline = "middle";
  for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) {
    if (d.masked(r, j)) continue;
    const x = w[r * K + j];
    ctx.fillStyle = (d.diverging ? Math.abs(x / s) > 0.6 : x > 0.5) ? "#fff" : "#000";
    ctx.fillText(d.diverging ? signed(x, 2) : x.toFixed(2), g.x0 + (j + 0.5) * g.cw, g.y0 + (r + 0.5) * g.ch);
  }
  return vf;
}

// the key labels above cells g: each one upright and centred where it fits its cell (狗 / 咬 / 人;
// issue 50.6), else turned 90 degrees and clipped to px; every n-th while turned ones would overlap
function paintKeys(ctx, v, keys, g, px) {
  const ks = g.upright ? 1 : labelStep(g.cw, v.fontPx);
  ctx.save();
  for (let j = 0; j < keys.length; j += ks) {
    const up = ctx.measureText(keys[j]).width + 4 <= g.cw;
    ctx.save(); ctx.translate(g.x0 + (j + 0.5) * g.cw, g.y0 - (up ? 3 : 6));
    ctx.textAlign = up ? "center" : "left"; ctx.textBaseline = up ? "bottom" : "middle";
    if (!up) ctx.rotate(-Math.PI / 2);
    ctx.fillText(up ? keys[j] : v.clip(keys[j], px), 0, 0); ctx.restore();
  }
  ctx.restore();
}

// the heatmap of the selected head at T: cells, values where they fit, labels, the selected row
export function paintHeatmap(v, width) {
  const { Q, K } = v, ctx = v.ctx, f = v.fontPx, s = v.s, labels = v.h.q_labels;
  const w = v.headAt(v.view.layer, v.view.head);
  v.font(f);
  const g = heatmapLayout({ width, Q, K, labelW: widest(ctx, labels), keyW: widest(ctx, v.h.k_tokens), font: f, viewH: window.innerHeight, present: v.h.present });
  v.sized(width, g.height);
  v.geo = g;
  const { x0: lw, y0: top, cw: cell, ch } = g;
  const vf = paintCells(v, { w, Q, K, masked: (r, j) => v.masked(r, j), diverging: false, hasMask: !!v.mask }, g);
  v.valuesShown = vf > 0;
  // labels: every row and column while they fit at the font size, else every n-th
  ctx.fillStyle = "#000"; v.font(f); ctx.textBaseline = "middle"; ctx.textAlign = "right";
  const rs = labelStep(ch, f);
  for (let r = 0; r < Q; r += rs) ctx.fillText(v.clip(labels[r], lw - 8), lw - 6, top + (r + 0.5) * ch);
  paintKeys(ctx, v, v.h.k_tokens, g, top - f - 12);
  ctx.textAlign = "left"; ctx.textBaseline = "top"; v.font(f);
  ctx.fillText(`${s.axis_y} ↓   ${s.axis_x} →`, 0, 2);
  ctx.strokeStyle = HIGHLIGHT; ctx.lineWidth = 3;
  ctx.strokeRect(lw - 1.5, top + v.q * ch - 1.5, cell * K + 3, ch + 3);
  v.canvas.setAttribute("aria-label", v.describe());
}

// a row of heatmaps (panels), each with its title, row labels, key labels and values where they fit
export function paintPanels(v, width) {
  const ctx = v.ctx, f = v.fontPx;
  const data = v.panels.map((_, i) => v.panelData(i));
  v.font(f);
  const sizes = data.map((d) => (d ? { labelW: widest(ctx, d.labels), keyW: widest(ctx, d.keys), Q: d.Q, K: d.K } : null));
  const lay = panelsLayout({ width, sizes, font: f, viewH: window.innerHeight, present: v.h.present });
  v.sized(width, lay.height);
  v.geo = { kind: "panels", list: [] };
  let minVals = Infinity;
  lay.panels.forEach((o, i) => {
    const p = v.panels[i], d = data[i];
    if (d && d.diverging) d.scale = divScale(d.w, d.Q, d.K, d.masked);
    const scale = d && d.diverging ? ` · ${fill(v.s.diff_scale, { m: d.scale.toFixed(2) })}` : "";
    ctx.fillStyle = "#000"; v.font(f, true); ctx.textAlign = "left"; ctx.textBaseline = "top";
    const room = lay.pw - (scale ? ctx.measureText(scale).width : 0); // the scale is never cut
    ctx.fillText(v.clip(fill(p.title, { t: fmtT(v.view.t) }), room) + scale, o.x, o.y + 2);
    if (!d) { v.font(f); ctx.fillText(v.s.layer_loading, o.x, o.y + lay.title + 4); return; }
    const g = { x0: o.x0, y0: o.y0, cw: o.cw, ch: o.ch, Q: d.Q, K: d.K, i };
    v.geo.list.push(g);
    minVals = Math.min(minVals, paintCells(v, d, g));
    ctx.fillStyle = "#000"; v.font(f); ctx.textBaseline = "middle"; ctx.textAlign = "right";
    const rs = labelStep(o.ch, f);
    for (let r = 0; r < d.Q; r += rs) ctx.fillText(v.clip(d.labels[r], o.lw - 8), g.x0 - 6, g.y0 + (r + 0.5) * o.ch);
    paintKeys(ctx, v, d.keys, { ...g, upright: o.upright }, o.top - lay.title - 12);
    if (v.q < d.Q) {
      ctx.strokeStyle = d.diverging ? "#000" : HIGHLIGHT; ctx.lineWidth = 3;
      ctx.strokeRect(g.x0 - 1.5, g.y0 + v.q * o.ch - 1.5, o.cw * d.K + 3, o.ch + 3);
    }
  });
  v.valuesShown = minVals > 0 && minVals !== Infinity;
  v.canvas.setAttribute("aria-label", v.describe());
}

// every layer x head as a thumbnail; the shown layer at T from its float32 weights, the others
// from the pooled uint8 thumbnails (a sentence the browser ran: every layer from its weights); paged by PAGE_ROWS layers so 30 x 9 heads stay usable
export function paintModel(v, width) {
  const ctx = v.ctx, f = v.fontPx, s = v.s, H = v.H, L = v.L;
  v.font(f);
  const g = modelLayout({ width, L, H, page: v.page, font: f, labelW: ctx.measureText(fill(s.layer_n, { n: L, total: L })).width });
  v.page = g.page;
  const { first, last, x0: lw, y0: top, tile, gap } = g;
  v.$(".av-page").textContent = fill(s.page_n, { first: first + 1, last, total: L });
  v.sized(g.width, g.height);
  v.geo = g;
  const [tq, tk] = v.h.thumb;
  const small = new OffscreenCanvas(tk, tq), sctx = small.getContext("2d"), img = new ImageData(tk, tq);
  ctx.imageSmoothingEnabled = false;
  for (let la = first; la < last; la++) {
    for (let h = 0; h < H; h++) {
      const cells = ((v.live && v.live.on) || (la === v.view.layer && v.view.t !== 1)) && v.hasLayer(la) ? v.pooled(la, h, tq, tk) : v.thumbs.subarray((la * H + h) * tq * tk, (la * H + h + 1) * tq * tk);
      for (let i = 0; i < tq * tk; i++) {
        const p = i * 4, c = cells[i];
        if (c === 255) { img.data[p] = MASKED[0]; img.data[p + 1] = MASKED[1]; img.data[p + 2] = MASKED[2]; }
        else { img.data[p] = LUT[c * 3]; img.data[p + 1] = LUT[c * 3 + 1]; img.data[p + 2] = LUT[c * 3 + 2]; }
        img.data[p + 3] = 255;
      }
      sctx.putImageData(img, 0, 0);
      const x = lw + h * (tile + gap), y = top + (la - first) * (tile + gap);
      ctx.drawImage(small, x, y, tile, tile);
      if (la === v.view.layer && h === v.view.head) {
        ctx.strokeStyle = HIGHLIGHT; ctx.lineWidth = 4; ctx.strokeRect(x - 2, y - 2, tile + 4, tile + 4);
      }
    }
    ctx.fillStyle = "#000"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ctx.fillText(fill(s.layer_n, { n: la + 1, total: L }), lw - 8, top + (la - first) * (tile + gap) + tile / 2);
  }
  ctx.textAlign = "center"; ctx.textBaseline = "top";
  const hs = Math.max(1, Math.ceil((ctx.measureText(fill(s.head_n, { n: H, total: H })).width + 6) / (tile + gap)));
  for (let h = 0; h < H; h += hs) ctx.fillText(fill(s.head_n_short, { n: h + 1 }), lw + h * (tile + gap) + tile / 2, 2);
  v.canvas.setAttribute("aria-label", fill(s.model_alt, { layers: L, heads: H }) + " " + v.describe());
}

// the head view: each query (left) joined to its keys (right), line opacity = weight; at most
// 5 keys per query with weight >= 0.02 past 5 keys (the Plotly-era head view's rule)
export function paintLines(v, width) {
  const ctx = v.ctx, f = v.fontPx, Q = v.Q, K = v.K;
  const w = v.headAt(v.view.layer, v.view.head);
  const g = linesLayout({ width, Q, K, font: f });
  v.sized(width, g.height);
  v.font(f);
  const { rh, xl, xr, colW } = g;
  v.geo = g;
  const few = K <= 5;
  ctx.lineCap = "round";
  for (const pass of [0, 1]) for (let r = 0; r < Q; r++) {
    if ((r === v.q) !== (pass === 1)) continue;
    const row = w.subarray(r * K, (r + 1) * K);
    let keep = null;
    if (!few) keep = Array.from(row, (x, j) => [x, j]).filter(([x, j]) => x >= 0.02 && !v.masked(r, j)).sort((a, b) => b[0] - a[0]).slice(0, 5);
    else keep = Array.from(row, (x, j) => [x, j]).filter(([, j]) => !v.masked(r, j));
    for (const [x, j] of keep) {
      ctx.strokeStyle = r === v.q ? HIGHLIGHT : "#2171b5";
      ctx.globalAlpha = Math.min(1, x) * (r === v.q ? 1 : 0.45);
      ctx.lineWidth = r === v.q ? 1 + 5 * x : 1 + 3 * x;
      ctx.beginPath(); ctx.moveTo(xl + 6, 5 + (r + 0.5) * rh); ctx.lineTo(xr - 6, 5 + (j + 0.5) * rh); ctx.stroke();
    }
  }
  ctx.globalAlpha = 1; ctx.textBaseline = "middle";
  for (let r = 0; r < Q; r++) {
    ctx.fillStyle = r === v.q ? HIGHLIGHT : "#000"; ctx.textAlign = "right";
    v.font(f, r === v.q);
    ctx.fillText(v.clip(v.h.q_labels[r], colW - 10), xl, 5 + (r + 0.5) * rh);
  }
  v.font(f); ctx.fillStyle = "#000"; ctx.textAlign = "left";
  for (let j = 0; j < K; j++) ctx.fillText(v.clip(v.h.k_tokens[j], colW - 10), xr, 5 + (j + 0.5) * rh);
  v.canvas.setAttribute("aria-label", v.describe());
}
