// The payload viz/attention_view.pack writes: "AVW1", the JSON header's length (uint32 LE), the
// header, padding to 4 bytes, then the arrays the header names by offset and size. Pure.
export function decode(bytes) {
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
