// Where everything goes on the canvas, as numbers: each tab's geometry from the width, the text
// widths measured by the painter and the window's height. Pure: layout.test.mjs checks it.
export const PAGE_ROWS = 6; // layers per page of the model view (a 30-layer model pages through them)
export const PANEL_MIN = 240; // px: narrower panels go one under the other (A, B, B - A fit beside the sidebar at 1280)
export const MIN_TEXT = 11; // px: nothing smaller is ever drawn (a phone at 390 px)
export const PRESENT_TEXT = 16; // px: the least a projector shows
// the widest a cell gets: 64 px on a screen a reader leans into; on a projector the room reads it
// from metres away and the window is wide (a 1920 projector showed six tokens 424 px wide, 22 %),
// so a cell may take up to 160 px of width while its height stays within the first screen's share
export function cellMax(present) { return present ? 160 : 64; }

// the font of the chart's labels: 18 px on a projector, 12 on a phone, else 14
export function fontPx(width, present) { return present ? 18 : width < 480 ? 12 : 14; }

// every n-th label, so labels of font px never overlap cells px high
export function labelStep(px, font) { return Math.max(1, Math.ceil((font + 3) / Math.max(px, 0.01))); }

// the key labels' height above the cells: one line where the widest fits its cell upright (狗 / 咬 /
// 人, or any short label; issue 50.6), else the widest turned 90 degrees (at most 140 px); the
// painter turns only the labels that do not fit their cell (paint.js, paintKeys)
export function keyLabels(keyW, cell, font) {
  const upright = keyW + 4 <= cell;
  return { upright, h: upright ? font + 4 : Math.min(keyW + 10, 140) };
}

// the heatmap: labelW / keyW the widest row / key label; viewH the window's height. On a projector
// the cells end on the first screen under the page's title, its step controls and the step's
// heading (the steps page's softmax at 1280 x 800: 0.72 of the height put its last row below the
// fold). Returns the geometry hit-testing reads: {kind, x0, y0, cw, ch}, and the canvas height.
export function heatmapLayout({ width, Q, K, labelW, keyW, font, viewH, present }) {
  const lw = Math.min(labelW + 10, width * 0.38);
  const cell = Math.max(0.5, Math.min(cellMax(present), (width - lw - 4) / K));
  const keys = keyLabels(keyW, cell, font);
  const top = keys.h + font + 6;
  const maxH = Math.max(240, Math.min(viewH * (present ? 0.55 : 0.72), 900));
  const ch = Math.max(0.5, Math.min(cell, (maxH - top) / Q));
  return { kind: "heat", x0: lw, y0: top, cw: cell, ch, upright: keys.upright, height: Math.ceil(top + ch * Q + 4) };
}

// the size values are written in, in cells cw x ch (0 where they would be unreadable)
export function valueFont(font, cw, ch, diverging, present) {
  const vf = Math.floor(Math.min(font, cw / (diverging ? 3.2 : 2.9), ch * 0.6)); // "+0.12" is one character wider
  return vf >= (present ? PRESENT_TEXT : MIN_TEXT) ? vf : 0;
}

// a row of heatmaps: side by side while each gets PANEL_MIN px, else one under the other (a
// phone). sizes: per panel {labelW, keyW, Q, K}, or null (not loaded). On a projector the cells'
// bottom edge stays on the first screen under the title, a room's banner and the view's controls
// (issue 37): the cells get at most 45 % of the window's height.
export function panelsLayout({ width, sizes, font, viewH, present }) {
  const n = sizes.length, gap = 14, title = font + 10;
  const side = (width - gap * (n - 1)) / n >= PANEL_MIN;
  const pw = side ? (width - gap * (n - 1)) / n : width;
  const lays = sizes.map((d) => {
    if (!d) return null;
    const lw = Math.min(d.labelW + 10, pw * 0.38), cell = Math.max(0.5, Math.min(cellMax(present), (pw - lw - 4) / d.K));
    return { lw, cell, keys: keyLabels(d.keyW, cell, font) };
  });
  const tops = lays.map((l) => (l ? title + l.keys.h + 6 : title));
  const maxH = Math.max(200, Math.min(viewH * (present ? 0.45 : side ? 0.6 : 0.5), 700));
  const panels = [];
  let y = 0, height = 0;
  for (let i = 0; i < n; i++) {
    const l = lays[i], d = sizes[i], top = side ? Math.max(...tops) : tops[i];
    const ch = l ? Math.max(0.5, Math.min(l.cell, (maxH - top) / d.Q)) : 0;
    const h = Math.ceil(top + (l ? ch * d.Q : 20) + 4);
    const x = side ? i * (pw + gap) : 0, py = side ? 0 : y;
    panels.push(l ? { i, x, y: py, top, lw: l.lw, x0: x + l.lw, y0: py + top, cw: l.cell, ch, Q: d.Q, K: d.K, upright: l.keys.upright } : { i, x, y: py, top });
    y += h + 12;
    height = side ? Math.max(height, h) : y;
  }
  return { side, pw, title, panels, height: Math.ceil(height) };
}

// the model view: every layer x head a tile, PAGE_ROWS layers a page; labelW the widest layer label
export function modelLayout({ width, L, H, page, font, labelW }) {
  const per = pageRows(L), pages = Math.ceil(L / per);
  const p = Math.max(0, Math.min(pages - 1, page));
  const first = p * per, last = Math.min(L, first + per);
  const lw = labelW + 12, gap = 6, top = font + 10;
  const tile = Math.max(24, Math.min(120, Math.floor((width - lw) / H) - gap));
  return { kind: "model", x0: lw, y0: top, tile, gap, first, last, page: p, width: Math.max(width, lw + H * (tile + gap)), height: top + (last - first) * (tile + gap) + 4 };
}
export function pageRows(L) { return L > PAGE_ROWS ? PAGE_ROWS : L; }

// the head view: queries on the left joined to keys on the right, one row each
export function linesLayout({ width, Q, K, font }) {
  const n = Math.max(Q, K), rh = Math.max(font + 6, Math.min(40, 600 / n));
  const colW = Math.min(width * 0.3, 220);
  return { kind: "lines", rh, xl: colW, xr: width - colW, colW, height: Math.ceil(rh * n + 10) };
}
