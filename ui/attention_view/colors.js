// Colour lookup tables: a weight 0..1 on ColorBrewer Blues, a signed difference -1..+1 on the
// diverging scale, both from shared.js (generated from viz/colors.py, so a weight has one colour on
// every page). Pure: no DOM.
import { BLUES, DIVERGING, MASKED } from "./shared.js";

function rgbOf(h) { return [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)); }

// 251 colours for weights 0..1 (the thumbnails' uint8 0..250)
export const LUT = (() => {
  const rgb = BLUES.map(rgbOf);
  const out = new Uint8Array(251 * 3);
  for (let i = 0; i <= 250; i++) {
    const x = (i / 250) * (rgb.length - 1), j = Math.min(rgb.length - 2, Math.floor(x)), f = x - j;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(rgb[j][c] + (rgb[j + 1][c] - rgb[j][c]) * f);
  }
  return out;
})();

// one little-endian RGBA word per colour (ImageData's byte order on every browser we serve: x86 and
// ARM are little-endian), so a cell is one store
function words(lut) {
  const out = new Uint32Array(251);
  for (let i = 0; i <= 250; i++) out[i] = ((255 << 24) | (lut[i * 3 + 2] << 16) | (lut[i * 3 + 1] << 8) | lut[i * 3]) >>> 0;
  return out;
}
export const RGBA = words(LUT);
export const RGBA_MASKED = ((255 << 24) | (MASKED[2] << 16) | (MASKED[1] << 8) | MASKED[0]) >>> 0;

// 251 colours for a signed difference -1..+1, index 125 = 0
export const DIV_LUT = (() => {
  const stops = DIVERGING.map(([p, h]) => [p, rgbOf(h)]);
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
export const RGBA_DIV = words(DIV_LUT);

// the LUT index of a weight 0..1 and of a difference -1..+1
export function blueIndex(x) { return x >= 1 ? 250 : x <= 0 ? 0 : (x * 250 + 0.5) | 0; }
export function divIndex(x) { return x >= 1 ? 250 : x <= -1 ? 0 : ((x + 1) * 125 + 0.5) | 0; }

export function colorOf(v) {
  const i = Math.max(0, Math.min(250, Math.round(v * 250))) * 3;
  return `rgb(${LUT[i]},${LUT[i + 1]},${LUT[i + 2]})`;
}
export function divColorOf(x) { const i = divIndex(x) * 3; return `rgb(${DIV_LUT[i]},${DIV_LUT[i + 1]},${DIV_LUT[i + 2]})`; }

// the diverging scale of a difference panel: its largest |B - A| over the cells not masked, rounded
// up to 0.01 (the number the chart states), so the largest difference takes the scale's end colour
// (issue 50.8: on a fixed -1..+1 a largest difference of +0.11 was nearly white)
export function divScale(w, Q, K, masked) {
  let m = 0;
  for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) if (!masked(r, j)) m = Math.max(m, Math.abs(w[r * K + j]));
  return Math.max(0.01, Math.ceil(m * 100 - 1e-9) / 100);
}

// one panel's (Q, K) cells as RGBA words into px (a new array if none): masked grey, else Blues
// (or diverging)
export function cellWords(w, Q, K, masked, diverging, px = new Uint32Array(Q * K)) {
  for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) {
    const i = r * K + j, x = w[i];
    px[i] = masked(r, j) ? RGBA_MASKED : diverging ? RGBA_DIV[divIndex(x)] : RGBA[blueIndex(x)];
  }
  return px;
}
