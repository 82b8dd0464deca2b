// node --test: the colour scales (ui/attention_view/colors.js) read shared.js's stops, the ones
// viz/colors.py gives every chart; and the exports' text (export.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { BLUES, DIVERGING, MASKED } from "../../ui/attention_view/shared.js";
import { LUT, RGBA, RGBA_DIV, RGBA_MASKED, blueIndex, cellWords, colorOf, divColorOf, divIndex, divScale } from "../../ui/attention_view/colors.js";
import { headCsv, headJson } from "../../ui/attention_view/export.js";

const rgb = (h) => `rgb(${[1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)).join(",")})`;

test("the ends and the middle of the scales are the shared stops", () => {
  assert.equal(colorOf(0), rgb(BLUES[0]));
  assert.equal(colorOf(1), rgb(BLUES[BLUES.length - 1]));
  assert.equal(colorOf(0.5), rgb(BLUES[(BLUES.length - 1) / 2]));
  assert.equal(divColorOf(-1), rgb(DIVERGING[0][1]));
  assert.equal(divColorOf(0), rgb(DIVERGING.find(([p]) => p === 0.5)[1]));
  assert.equal(divColorOf(1), rgb(DIVERGING[DIVERGING.length - 1][1]));
  assert.deepEqual([divIndex(-2), divIndex(0), divIndex(2)], [0, 125, 250]);
  assert.deepEqual([blueIndex(-1), blueIndex(0.5), blueIndex(3)], [0, 125, 250]);
});

test("a cell's RGBA word is its LUT colour, masked cells grey", () => {
  const px = cellWords(new Float32Array([0, 1, 0.3]), 1, 3, (r, j) => j === 2, false);
  assert.equal(px[0], RGBA[0]);
  assert.equal(px[1] & 0xff, LUT[250 * 3]);
  assert.equal(px[2], RGBA_MASKED);
  assert.equal(RGBA_MASKED & 0xff, MASKED[0]);
});

test("CSV and JSON of a head: every cell, masked ones empty / null", () => {
  const d = { w: new Float32Array([1, 0, 0.25, 0.75]), Q: 2, K: 2, labels: ['a"', "b"], keys: ["a", "b"], masked: (r, j) => j > r };
  const lines = headCsv(d).trim().split("\n");
  assert.equal(lines.length, 1 + 4);
  assert.equal(lines[1], '0,"a""",0,"a",1,0');
  assert.equal(lines[2], '0,"a""",1,"b",,1');
  const j = JSON.parse(headJson(d, { kind: "decoder", layer: 1, head: 2, temperature: 0.5 }));
  assert.deepEqual(j.weights, [[1, null], [0.25, 0.75]]);
  assert.equal(j.temperature, 0.5);
  // where T was applied: the view says (the whole model re-run in the browser, with every layer's T)
  assert.equal(j.temperature_scope, "this layer only");
  const re = JSON.parse(headJson(d, { kind: "decoder", layer: 1, head: 2, temperature: 0.5, scope: "the model re-run in the browser" }));
  assert.equal(re.temperature_scope, "the model re-run in the browser");
});

test("a difference's scale is its largest |B - A| not masked, rounded up to 0.01 (issue 50.8)", () => {
  const w = Float32Array.from([0.03, -0.104, 0.5, 0.0]), none = () => false;
  assert.equal(divScale(w, 2, 2, none), 0.5);
  assert.equal(divScale(w, 2, 2, (r, j) => r === 1 && j === 0), 0.11, "the masked 0.5 does not count; 0.104 rounds up");
  assert.equal(divScale(new Float32Array(4), 2, 2, none), 0.01, "all equal: a scale that still draws");
  // scaled by it, the largest difference takes the scale's end colour (on -1..+1 it was near white)
  const s = divScale(w, 2, 2, (r, j) => r === 1 && j === 0);
  assert.equal(cellWords(w.map((x) => x / s), 2, 2, none, true)[1], RGBA_DIV[divIndex(-0.104 / 0.11)]);
  assert.ok(divIndex(-0.104 / 0.11) < 10 && divIndex(-0.104) > 100);
});
