// What is under the pointer: canvas coordinates (x, y) to a cell, a panel's cell, a model-view tile
// or a head-view row, from the geometry layout.js computed. Pure: hit.test.mjs checks it.
// dims: {Q, K, H} of the shown weights. Returns {r, j} (a cell), {r, j, pi} (panel pi's cell),
// {la, h} (a tile), {r} (a query row of the head view), each with x, y; or null.
export function cellAt(geo, x, y, dims) {
  const g = geo;
  if (!g) return null;
  if (g.kind === "heat") {
    const j = Math.floor((x - g.x0) / g.cw), r = Math.floor((y - g.y0) / g.ch);
    return r >= 0 && r < dims.Q && j >= 0 && j < dims.K ? { r, j, x, y } : null;
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
    return h >= 0 && h < dims.H && la >= g.first && la < g.last ? { la, h, x, y } : null;
  }
  const r = Math.floor((y - 5) / g.rh);
  if (x < (g.xl + g.xr) / 2) return r >= 0 && r < dims.Q ? { r, x, y } : null;
  return null;
}

// the centre of a model-view tile in canvas coordinates; null when not on the shown page
export function tileCentre(geo, la, h) {
  const g = geo;
  if (!g || g.kind !== "model" || la < g.first || la >= g.last) return null;
  return { x: g.x0 + h * (g.tile + g.gap) + g.tile / 2, y: g.y0 + (la - g.first) * (g.tile + g.gap) + g.tile / 2 };
}
