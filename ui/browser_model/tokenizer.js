// Our SentencePiece tokenizer in the browser: the same ids as model/tokenizer.py (SentencePiece's
// own C++), read from the same file, model/weights/tokenizer.model. Nothing here is a copy of
// the vocabulary: the pieces, their scores and types and the normalization rules all come from
// the file's protobuf.
//
//   import { Tokenizer } from "./tokenizer.js";
//   const tok = new Tokenizer(new Uint8Array(await (await fetch(url)).arrayBuffer()));
//   tok.encode("The cat sat on the mat.")   // -> [ids], no specials added (as Tokenizer.encode)
//
// What SentencePiece does, in its order (src/normalizer.cc, src/bpe_model.cc,
// src/sentencepiece_processor.cc):
// 1. normalize: at each position the longest rule of the precompiled character map (a Darts
//    double-array trie over UTF-8 bytes: NFKC and the "nmt" rules) replaces its bytes, else one
//    UTF-8 character is copied; leading spaces dropped, a run of spaces kept once, trailing ones
//    dropped; a space written as U+2581 (the word-start mark); no dummy prefix (our model says so).
// 2. BPE: every character a symbol; repeatedly merge the adjacent pair whose concatenation is a
//    piece with the highest score (the leftmost of equal scores) until no pair is a piece.
// 3. each symbol's id; a symbol that is no piece becomes its UTF-8 bytes, <0xXX> (byte fallback).

const NORMAL = 1, UNKNOWN = 2, CONTROL = 3, USER_DEFINED = 4, UNUSED = 5, BYTE = 6; // ModelProto's types
const SPACE = "\u2581";

// -- the protobuf, as far as a tokenizer needs it -----------------------------------------------
function reader(bytes) {
  let pos = 0;
  const varint = () => {
    let out = 0, mul = 1, b;
    do {
      b = bytes[pos++];
      out += (b & 0x7f) * mul;
      mul *= 128;
    } while (b & 0x80);
    return out;
  };
  return {
    done: () => pos >= bytes.length,
    field() {
      const key = varint();
      return [Math.floor(key / 8), key & 7];
    },
    varint,
    bytes() {
      const n = varint();
      const out = bytes.subarray(pos, pos + n);
      pos += n;
      return out;
    },
    float() {
      const v = new DataView(bytes.buffer, bytes.byteOffset + pos, 4).getFloat32(0, true);
      pos += 4;
      return v;
    },
    skip(wire) {
      if (wire === 0) varint();
      else if (wire === 1) pos += 8;
      else if (wire === 2) {
        const n = varint(); // (not `pos += varint()`: that adds to pos as it was before the length)
        pos += n;
      }
      else if (wire === 5) pos += 4;
      else throw new Error(`tokenizer file: wire type ${wire} not understood`);
    },
  };
}

const utf8 = new TextDecoder("utf-8");

/** The parts of a SentencePiece ModelProto a tokenizer needs (proto2 defaults where absent). */
export function parseModel(bytes) {
  const pieces = [], scores = [], types = [];
  const spec = { charsmap: null, addDummyPrefix: true, removeExtraWhitespaces: true, escapeWhitespaces: true };
  let byteFallback = false;
  const r = reader(bytes);
  while (!r.done()) {
    const [field, wire] = r.field();
    if (field === 1 && wire === 2) { // SentencePiece { piece = 1, score = 2, type = 3 }
      const p = reader(r.bytes());
      let piece = "", score = 0, type = NORMAL;
      while (!p.done()) {
        const [f, w] = p.field();
        if (f === 1 && w === 2) piece = utf8.decode(p.bytes());
        else if (f === 2 && w === 5) score = p.float();
        else if (f === 3 && w === 0) type = p.varint();
        else p.skip(w);
      }
      pieces.push(piece); scores.push(score); types.push(type);
    } else if (field === 2 && wire === 2) { // TrainerSpec: byte_fallback = 35
      const t = reader(r.bytes());
      while (!t.done()) {
        const [f, w] = t.field();
        if (f === 35 && w === 0) byteFallback = t.varint() !== 0;
        else t.skip(w);
      }
    } else if (field === 3 && wire === 2) { // NormalizerSpec
      const n = reader(r.bytes());
      while (!n.done()) {
        const [f, w] = n.field();
        if (f === 2 && w === 2) spec.charsmap = n.bytes();
        else if (f === 3 && w === 0) spec.addDummyPrefix = n.varint() !== 0;
        else if (f === 4 && w === 0) spec.removeExtraWhitespaces = n.varint() !== 0;
        else if (f === 5 && w === 0) spec.escapeWhitespaces = n.varint() !== 0;
        else n.skip(w);
      }
    } else {
      r.skip(wire);
    }
  }
  return { pieces, scores, types, spec, byteFallback };
}

// -- the normalizer: the precompiled character map --------------------------------------------
function charsMap(blob) {
  if (!blob || blob.length <= 4) return null;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.length);
  const trieSize = view.getUint32(0, true);
  const units = new Uint32Array(trieSize / 4);
  for (let i = 0; i < units.length; i++) units[i] = view.getUint32(4 + 4 * i, true);
  return { units, normalized: blob.subarray(4 + trieSize) };
}

/** Darts-clone's commonPrefixSearch: the longest rule matching bytes from `at`: [length, value] or null. */
function longestRule(map, bytes, at) {
  const a = map.units;
  const offset = (u) => (u >>> 10) << ((u & (1 << 9)) >>> 6);
  let node = offset(a[0]);
  let best = null;
  for (let i = at; i < bytes.length; i++) {
    node ^= bytes[i];
    const unit = a[node];
    if (unit === undefined || (unit & 0x800000ff) >>> 0 !== bytes[i]) break; // label: (1 << 31) | 0xff
    node ^= offset(unit);
    if ((unit >>> 8) & 1) best = [i + 1 - at, a[node] & 0x7fffffff]; // a leaf: its value
  }
  return best;
}

function charLength(bytes, at) {
  // SentencePiece's IsValidDecodeUTF8: the length of a well-formed character here, or 0
  const b = bytes[at];
  const cont = (k) => at + k < bytes.length && (bytes[at + k] & 0xc0) === 0x80;
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    const c = ((b & 0x0f) << 12) | ((bytes[at + 1] & 0x3f) << 6) | (bytes[at + 2] & 0x3f);
    return c >= 0x800 && !(c >= 0xd800 && c <= 0xdfff) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const c = ((b & 0x07) << 18) | ((bytes[at + 1] & 0x3f) << 12) | ((bytes[at + 2] & 0x3f) << 6) | (bytes[at + 3] & 0x3f);
    return c >= 0x10000 && c <= 0x10ffff ? 4 : 0;
  }
  return 0;
}

const encoder = new TextEncoder();
const REPLACEMENT = encoder.encode("\ufffd");
const SPACE_BYTES = encoder.encode(SPACE);

export class Tokenizer {
  constructor(bytes) {
    const m = parseModel(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
    this.pieces = m.pieces;
    this.scores = m.scores;
    this.types = m.types;
    this.spec = m.spec;
    this.byteFallback = m.byteFallback;
    this.map = charsMap(m.spec.charsmap);
    this.mergeable = new Map(); // SentencePiece's pieces_: what a merge may make
    this.reserved = new Map(); // control, unknown and byte pieces: an id, never made by a merge
    this.byteIds = new Array(256).fill(-1);
    this.unk = m.types.indexOf(UNKNOWN);
    m.pieces.forEach((p, id) => {
      const t = m.types[id];
      if (t === NORMAL || t === USER_DEFINED || t === UNUSED) this.mergeable.set(p, id);
      else this.reserved.set(p, id);
      const byte = t === BYTE && /^<0x([0-9A-Fa-f]{2})>$/.exec(p);
      if (byte) this.byteIds[parseInt(byte[1], 16)] = id;
    });
  }

  get vocabSize() {
    return this.pieces.length;
  }

  /** The text as the model reads it: spaces as U+2581 (SentencePiece's Normalize). */
  normalize(text) {
    const input = encoder.encode(text);
    const out = [];
    const prefix = (at) => {
      const rule = this.map && longestRule(this.map, input, at);
      if (rule) {
        let end = rule[1];
        while (this.map.normalized[end] !== 0 && end < this.map.normalized.length) end++;
        return [this.map.normalized.subarray(rule[1], end), rule[0]];
      }
      const n = charLength(input, at);
      return n ? [input.subarray(at, at + n), n] : [REPLACEMENT, 1];
    };
    const isSpace = (piece) => piece.length === 1 && piece[0] === 0x20;
    let at = 0;
    if (this.spec.removeExtraWhitespaces) {
      while (at < input.length) {
        const [piece, n] = prefix(at);
        if (!isSpace(piece)) break;
        at += n;
      }
    }
    if (at >= input.length) return "";
    const pushSpace = () => (this.spec.escapeWhitespaces ? out.push(...SPACE_BYTES) : out.push(0x20));
    if (this.spec.addDummyPrefix) pushSpace();
    let prevSpace = this.spec.removeExtraWhitespaces;
    while (at < input.length) {
      const [piece, n] = prefix(at);
      let k = 0;
      while (prevSpace && k < piece.length && piece[k] === 0x20) k++;
      if (k < piece.length) {
        for (; k < piece.length; k++) (piece[k] === 0x20 && this.spec.escapeWhitespaces ? pushSpace() : out.push(piece[k]));
        prevSpace = piece[piece.length - 1] === 0x20;
      }
      at += n;
      if (!this.spec.removeExtraWhitespaces) prevSpace = false;
    }
    let norm = utf8.decode(new Uint8Array(out));
    if (this.spec.removeExtraWhitespaces) {
      const space = this.spec.escapeWhitespaces ? SPACE : " ";
      while (norm.endsWith(space)) norm = norm.slice(0, -space.length);
    }
    return norm;
  }

  /** The ids of text, no specials added (model/tokenizer.py's Tokenizer.encode). */
  encode(text) {
    const symbols = Array.from(this.normalize(text)); // one symbol a character (code point)
    if (!symbols.length) return [];
    // BPE: merge the best adjacent pair (highest score, then leftmost) while any pair is a piece
    for (;;) {
      let best = -1, bestScore = -Infinity;
      for (let i = 0; i + 1 < symbols.length; i++) {
        const id = this.mergeable.get(symbols[i] + symbols[i + 1]);
        if (id !== undefined && this.scores[id] > bestScore) {
          best = i;
          bestScore = this.scores[id];
        }
      }
      if (best < 0) break;
      symbols.splice(best, 2, symbols[best] + symbols[best + 1]);
    }
    const ids = [];
    for (const s of symbols) {
      let id = this.mergeable.get(s);
      if (id === undefined) id = this.reserved.get(s);
      if ((id === undefined || id === this.unk) && this.byteFallback) {
        for (const b of encoder.encode(s)) ids.push(this.byteIds[b]);
      } else {
        ids.push(id === undefined ? this.unk : id);
      }
    }
    return ids;
  }
}
