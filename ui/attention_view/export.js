// The downloads as text: CSV, JSON and SVG of the shown head, or of every panel as shown. Pure
// (strings in, a string out); the view saves them as files.
import { colorOf, divColorOf, divScale } from "./colors.js";
import { fmtT } from "./numbers.js";

export function fileName(kind, layer, head, T, ext) { return `attention_${kind}_L${layer}_H${head}_T${fmtT(T)}.${ext}`; }

const quote = (x) => `"${String(x).replace(/"/g, '""')}"`;
const esc = (x) => String(x).replace(/&/g, "&amp;").replace(/</g, "&lt;");
const MASKED_FILL = "rgb(180,180,180)";
const rowsOf = (d) => Array.from({ length: d.Q }, (_, r) => Array.from(d.w.subarray(r * d.K, (r + 1) * d.K), (x, j) => (d.masked(r, j) ? null : x)));

// d: {w (Q x K), Q, K, labels, keys, masked(r, j)} of the shown head
export function headCsv(d) {
  const lines = ["query_position,query,key_position,key,weight,masked"];
  for (let r = 0; r < d.Q; r++) for (let j = 0; j < d.K; j++) {
    const m = d.masked(r, j);
    lines.push([r, quote(d.labels[r]), j, quote(d.keys[j]), m ? "" : d.w[r * d.K + j], m ? 1 : 0].join(","));
  }
  return lines.join("\n") + "\n";
}

// scope: where T was applied to the weights written (the view's scopeOf): this layer only, or the
// whole model re-run (in the browser, or on the server) with T where its knobs put it
export function headJson(d, { kind, layer, head, temperature, scope = "this layer only" }) {
  return JSON.stringify({ kind, layer, head, temperature, temperature_scope: scope, query_tokens: d.labels, key_tokens: d.keys, weights: rowsOf(d) });
}

// one rect per cell and the labels as text (a vector file for slides and print); panels side by side
function svgOf(list, top) {
  const cell = 24, lw = 140;
  const widths = list.map(([, d]) => lw + d.K * cell + (list[0][0] ? 20 : 10));
  const W = widths.reduce((a, b) => a + b, 0), H = top + Math.max(...list.map(([, d]) => d.Q)) * cell + 10;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`];
  let x0 = 0;
  list.forEach(([p, d], i) => {
    const s = d.diverging ? divScale(d.w, d.Q, d.K, d.masked) : 1; // as drawn on the canvas (paint.js)
    if (p) parts.push(`<text x="${x0}" y="16" font-weight="bold">${esc(p.title)}${d.diverging ? ` (±${s.toFixed(2)})` : ""}</text>`);
    for (let r = 0; r < d.Q; r++) {
      parts.push(`<text x="${x0 + lw - 6}" y="${top + r * cell + 16}" text-anchor="end">${esc(d.labels[r])}</text>`);
      for (let j = 0; j < d.K; j++) {
        const m = d.masked(r, j), x = d.w[r * d.K + j];
        const fillc = m ? MASKED_FILL : d.diverging ? divColorOf(x / s) : colorOf(x);
        parts.push(`<rect x="${x0 + lw + j * cell}" y="${top + r * cell}" width="${cell}" height="${cell}" fill="${fillc}"><title>${m ? "masked" : x}</title></rect>`);
      }
    }
    for (let j = 0; j < d.K; j++) parts.push(`<text transform="translate(${x0 + lw + j * cell + 16},${top - 6}) rotate(-90)">${esc(d.keys[j])}</text>`);
    x0 += widths[i];
  });
  parts.push("</svg>");
  return parts.join("");
}
export function headSvg(d) { return svgOf([[null, d]], 120); }

// data: [[panel {title, short, diff}, d], ...] with d as above plus diverging and server
const scope = (d) => (d.server ? "the model re-run on the server" : d.browser ? "the model re-run in the browser" : "this layer only");
export function panelsCsv(data) {
  const lines = ["panel,query_position,query,key_position,key,value,masked,temperature_scope"];
  for (const [p, d] of data) for (let r = 0; r < d.Q; r++) for (let j = 0; j < d.K; j++) {
    const m = d.masked(r, j);
    lines.push([quote(p.short), r, quote(d.labels[r]), j, quote(d.keys[j]), m ? "" : d.w[r * d.K + j], m ? 1 : 0, quote(scope(d))].join(","));
  }
  return lines.join("\n") + "\n";
}
export function panelsJson(data, { kind, layer, head, temperature }) {
  const panels = data.map(([p, d]) => ({ title: p.title, short: p.short, difference: !!p.diff, temperature_scope: scope(d), query_tokens: d.labels, key_tokens: d.keys, weights: rowsOf(d) }));
  return JSON.stringify({ kind, layer, head, temperature, panels });
}
export function panelsSvg(data) { return svgOf(data, 140); }
