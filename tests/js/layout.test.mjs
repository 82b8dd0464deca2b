// node --test: the attention view's layout (ui/attention_view/layout.js) and hit-testing
// (hit.js): every cell, panel cell, tile and row found again from its own centre.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MIN_TEXT, PAGE_ROWS, PRESENT_TEXT, cellMax, fontPx, heatmapLayout, keyLabels, labelStep, linesLayout, modelLayout, panelsLayout, valueFont } from "../../ui/attention_view/layout.js";
import { cellAt, tileCentre } from "../../ui/attention_view/hit.js";

test("the heatmap fits the width and the window's height", () => {
  for (const [width, Q, K, viewH, present] of [[600, 5, 5, 800, false], [1200, 512, 512, 800, false], [360, 12, 30, 844, false], [1280, 8, 8, 800, true]]) {
    const g = heatmapLayout({ width, Q, K, labelW: 50, keyW: 60, font: fontPx(width, present), viewH, present });
    assert.ok(g.x0 + g.cw * K <= width - 4 + 1e-9, "the cells end inside the width");
    assert.ok(g.ch <= g.cw + 1e-9, "cells are never taller than wide");
    const cap = Math.max(240, Math.min(viewH * (present ? 0.55 : 0.72), 900));
    assert.ok(g.y0 + g.ch * Q <= Math.max(cap, g.y0 + 0.5 * Q) + 1e-9, `cells end within ${cap}px`);
    assert.equal(g.height, Math.ceil(g.y0 + g.ch * Q + 4));
  }
  assert.equal(heatmapLayout({ width: 600, Q: 3, K: 3, labelW: 1000, keyW: 10, font: 14, viewH: 800 }).x0, 600 * 0.38, "long labels are cut at 38 %");
});

test("a projector's heatmap uses its width: six tokens on a 1920 x 1080 projector", () => {
  // the reader-facing figure of issue 50 item 9: 64 px cells drew them 424 px wide (22 %)
  const width = 1856, viewH = 1080, font = fontPx(width, true); // 1920 less the page's padding
  const g = heatmapLayout({ width, Q: 6, K: 6, labelW: 40, keyW: 30, font, viewH, present: true });
  assert.ok(g.x0 + g.cw * 6 >= 0.5 * width, `the cells span ${g.x0 + g.cw * 6} px of ${width}`);
  assert.ok(g.y0 + g.ch * 6 <= viewH * 0.55 + 1e-9, "and still end within the projector's first-screen share");
  assert.ok(valueFont(font, g.cw, g.ch, false, true) >= PRESENT_TEXT, "the values are written at a projector's size");
  const p = panelsLayout({ width, sizes: [0, 1, 2].map(() => ({ labelW: 40, keyW: 30, Q: 6, K: 6 })), font, viewH, present: true });
  assert.ok(p.panels.every((q) => q.cw > 64), "compare's panels too");
  // a screen a reader leans into keeps its 64 px cells (square, as the tutorials draw them)
  const n = heatmapLayout({ width, Q: 6, K: 6, labelW: 40, keyW: 30, font: fontPx(width, false), viewH, present: false });
  assert.equal(n.cw, cellMax(false));
  assert.equal(n.ch, n.cw);
});

test("values are written only where readable; labels thin out so they never overlap", () => {
  assert.equal(valueFont(14, 64, 64, false, false), 14);
  assert.equal(valueFont(14, 20, 20, false, false), 0); // 20 / 2.9 < 11 px
  assert.ok(valueFont(14, 40, 40, false, false) >= MIN_TEXT);
  assert.equal(valueFont(18, 40, 40, false, true), 0); // a projector: 16 px or nothing
  assert.equal(labelStep(20, 14), 1);
  assert.equal(labelStep(2, 14), Math.ceil(17 / 2));
});

test("panels side by side at 1280, one under the other on a phone", () => {
  const sizes = [0, 1, 2].map(() => ({ labelW: 40, keyW: 40, Q: 6, K: 6 }));
  const wide = panelsLayout({ width: 1000, sizes, font: 14, viewH: 800, present: false });
  assert.ok(wide.side);
  assert.equal(new Set(wide.panels.map((p) => p.y0)).size, 1, "rows line up");
  const phone = panelsLayout({ width: 360, sizes, font: 12, viewH: 844, present: false });
  assert.ok(!phone.side);
  for (let i = 1; i < 3; i++) assert.ok(phone.panels[i].y >= phone.panels[i - 1].y0 + 6 * phone.panels[i - 1].ch);
  const missing = panelsLayout({ width: 1000, sizes: [sizes[0], null], font: 14, viewH: 800, present: false });
  assert.equal(missing.panels[1].cw, undefined);
});

test("the model view pages by PAGE_ROWS layers", () => {
  const g = modelLayout({ width: 800, L: 30, H: 9, page: 99, font: 14, labelW: 60 });
  assert.equal(g.page, Math.ceil(30 / PAGE_ROWS) - 1);
  assert.equal(g.last - g.first, 30 - g.first);
  assert.ok(g.tile >= 24 && g.tile <= 120);
  const small = modelLayout({ width: 800, L: 2, H: 4, page: 0, font: 14, labelW: 60 });
  assert.deepEqual([small.first, small.last], [0, 2]);
});

test("hit-testing finds every heatmap cell from its centre, and nothing outside", () => {
  const Q = 7, K = 11, g = heatmapLayout({ width: 700, Q, K, labelW: 40, keyW: 40, font: 14, viewH: 800 });
  for (let r = 0; r < Q; r++) for (let j = 0; j < K; j++) {
    const c = cellAt(g, g.x0 + (j + 0.5) * g.cw, g.y0 + (r + 0.5) * g.ch, { Q, K });
    assert.deepEqual([c.r, c.j], [r, j]);
  }
  assert.equal(cellAt(g, g.x0 - 1, g.y0 + 1, { Q, K }), null);
  assert.equal(cellAt(g, g.x0 + g.cw * K + 1, g.y0 + 1, { Q, K }), null);
  assert.equal(cellAt(g, g.x0 + 1, g.y0 + g.ch * Q + 1, { Q, K }), null);
  assert.equal(cellAt(null, 1, 1, { Q, K }), null);
});

test("hit-testing: each panel's cells, each model tile, each head-view row", () => {
  const sizes = [{ labelW: 40, keyW: 40, Q: 4, K: 5 }, { labelW: 40, keyW: 40, Q: 3, K: 6 }];
  const lay = panelsLayout({ width: 1000, sizes, font: 14, viewH: 800 });
  const geo = { kind: "panels", list: lay.panels };
  for (const p of lay.panels) for (let r = 0; r < p.Q; r++) for (let j = 0; j < p.K; j++) {
    const c = cellAt(geo, p.x0 + (j + 0.5) * p.cw, p.y0 + (r + 0.5) * p.ch, {});
    assert.deepEqual([c.pi, c.r, c.j], [p.i, r, j]);
  }
  const m = modelLayout({ width: 800, L: 14, H: 4, page: 1, font: 14, labelW: 60 });
  for (let la = 0; la < 14; la++) for (let h = 0; h < 4; h++) {
    const at = tileCentre(m, la, h);
    if (la < m.first || la >= m.last) { assert.equal(at, null); continue; }
    const c = cellAt(m, at.x, at.y, { H: 4 });
    assert.deepEqual([c.la, c.h], [la, h]);
  }
  const l = linesLayout({ width: 600, Q: 6, K: 6, font: 14 });
  for (let r = 0; r < 6; r++) assert.equal(cellAt(l, l.xl - 10, 5 + (r + 0.5) * l.rh, { Q: 6 }).r, r);
  assert.equal(cellAt(l, l.xr, 5 + 0.5 * l.rh, { Q: 6 }), null, "the keys' side picks no row");
});

test("key labels stay upright where they fit their cell, else turn (issue 50.6)", () => {
  // 狗 / 咬 / 人 at 14 px: one em wide, in 3 columns of a 600 px heatmap
  const g = heatmapLayout({ width: 600, Q: 3, K: 3, labelW: 14, keyW: 14, font: 14, viewH: 800, present: false });
  assert.ok(g.upright, "three Chinese characters fit upright");
  assert.equal(g.y0, 14 + 4 + 14 + 6, "upright labels take one line of text above the cells");
  const long = heatmapLayout({ width: 600, Q: 3, K: 30, labelW: 14, keyW: 60, font: 14, viewH: 800, present: false });
  assert.ok(!long.upright && long.y0 === 60 + 10 + 14 + 6, "a label wider than its cell turns");
  assert.deepEqual(keyLabels(20, 24, 14), { upright: true, h: 18 });
  assert.equal(keyLabels(21, 24, 14).upright, false, "4 px to spare or it turns");
  const sizes = [{ labelW: 14, keyW: 14, Q: 3, K: 3 }, { labelW: 14, keyW: 80, Q: 3, K: 12 }];
  const p = panelsLayout({ width: 1000, sizes, font: 14, viewH: 800, present: false });
  assert.deepEqual(p.panels.map((o) => o.upright), [true, false]);
});
