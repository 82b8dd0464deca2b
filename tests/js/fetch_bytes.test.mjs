// ui/browser_model/model.js's fetchBytes: a file's .gz copy fetched as stored and unpacked in the
// browser (the server then compresses nothing per request), the plain file where the copy is missing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { fetchBytes } from "../../ui/browser_model/model.js";

const plain = new Uint8Array(Array.from({ length: 70000 }, (_, i) => (i * 7919) % 251));

function serve(files) {
  const asked = [];
  globalThis.fetch = async (url) => {
    asked.push(url);
    return url in files ? new Response(files[url], { status: 200 }) : new Response("", { status: 404 });
  };
  return asked;
}

test("the .gz copy is fetched and unpacked to the file's own bytes", async () => {
  const asked = serve({ "/m.onnx.gz": gzipSync(plain, { level: 9 }), "/m.onnx": new Uint8Array([1]) });
  assert.deepEqual(await fetchBytes("/m.onnx"), plain);
  assert.deepEqual(asked, ["/m.onnx.gz"]);
});

test("no copy: the plain file", async () => {
  const asked = serve({ "/m.onnx": plain });
  assert.deepEqual(await fetchBytes("/m.onnx"), plain);
  assert.deepEqual(asked, ["/m.onnx.gz", "/m.onnx"]);
});

test("neither: an error naming the file", async () => {
  serve({});
  await assert.rejects(fetchBytes("/gone.onnx"), /gone\.onnx: 404/);
});
