// Our SentencePiece tokenizer in the browser: the same ids as model/tokenizer.py (SentencePiece's
// own C++), read from the same file, model/weights/tokenizer.model. Nothing here is a copy of
// the vocabulary: the pieces, their scores and types and the normalization rules all come from
// the file's protobuf.
//
//   import { Tokenizer } from "./tokenizer.js";
//   const tok = new Tokenizer(new Uint8Array(await (await fetch(url)).arrayBuffer()));
//   tok.encode("The cat sat on the mat.")   // -> [ids], no specials added (as Tokenizer.encode)
//   tok.labels(ids), tok.wordIds(ids), tok.wordLabels(ids), tok.decode(ids)   // as the Python ones
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

// -- labels: model/tokenizer.py's _surfaces, labels, word_ids, word_labels --------------------
// data/text.py's CJK (Han and kana; not Hangul, not punctuation), as a character class
const CJK = /^[\u2e80-\u2fff\u3005-\u3007\u3040-\u30ff\u3100-\u312f\u31a0-\u31bf\u31c0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\u{20000}-\u{3ffff}]$/u;
export const isCjk = (ch) => CJK.test(ch);
// Python's str.isspace, character by character (JavaScript's \s differs: U+FEFF, U+001C-001F, U+0085)
const PY_SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u;
const isSpaceChar = (ch) => PY_SPACE.test(ch);
const isSpace = (text) => text.length > 0 && Array.from(text).every(isSpaceChar);
function strip(text) {
  const chars = Array.from(text);
  let a = 0, b = chars.length;
  while (a < b && isSpaceChar(chars[a])) a++;
  while (b > a && isSpaceChar(chars[b - 1])) b--;
  return chars.slice(a, b).join("");
}
const INVISIBLE = /^[\p{C}\p{Z}]$/u; // unicodedata.category(ch)[0] in "CZ"
const hex4 = (ch) => "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
const MARK = /^\p{M}$/u; // unicodedata.category(ch)[0] == "M": a combining mark, shown on a dotted circle
const visible = (ch) => (INVISIBLE.test(ch) && ch !== " " ? hex4(ch) : MARK.test(ch) ? "\u25cc" + ch : ch);
const hex2 = (b) => "\\x" + b.toString(16).toUpperCase().padStart(2, "0");
function wordLabel(w) {
  const t = strip(w);
  if (!t) return "\u2423"; // ␣
  const chars = Array.from(t);
  return chars.every((c) => INVISIBLE.test(c)) ? chars.map(visible).join(" ") : t;
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

  specials() {
    // ids 0-5 are <pad> <unk> <s> </s> <2en> <2zh> (model/tokenizer.py's SPECIALS)
    return this.pieces.slice(0, 6);
  }

  byteOf(id) {
    const m = this.types[id] === BYTE && /^<0x([0-9A-Fa-f]{2})>$/.exec(this.pieces[id]);
    return m ? parseInt(m[1], 16) : null;
  }

  /** Per token: [label, the text it stands for, starts a new word] (Tokenizer._surfaces). */
  surfaces(ids) {
    const n = ids.length, specials = this.specials(), out = [];
    let prev = "", blank = false;
    const isSpecial = (i) => i >= 0 && i < specials.length;
    const push = (label, text, isNew, cjk) => {
      if (!out.length) isNew = true;
      else if (cjk && blank) isNew = false;
      else if (cjk || (prev !== "" && isCjk(prev))) isNew = true;
      out.push([label, text, isNew]);
      blank = isNew ? isSpace(text) : blank && isSpace(text);
      const chars = Array.from(text);
      if (chars.length) prev = chars[chars.length - 1];
    };
    let k = 0;
    while (k < n) {
      const i = ids[k];
      if (!(i >= 0 && i < this.pieces.length)) throw new Error(`token id ${i} out of range 0..${this.pieces.length - 1}`);
      if (isSpecial(i)) {
        out.push([specials[i], specials[i], true]);
        prev = "";
        blank = false;
        k++;
        continue;
      }
      const afterSpecial = !out.length || isSpecial(ids[k - 1]);
      const b = this.byteOf(i);
      if (b === null) {
        const piece = this.pieces[i];
        const text = piece.split(SPACE).join(" ");
        const first = Array.from(text)[0] || " ";
        push(strip(text) || "\u2423", text, afterSpecial || piece.startsWith(SPACE), isCjk(first));
        k++;
        continue;
      }
      // a run of byte pieces: grouped into UTF-8 characters
      const need = b < 0x80 ? 1 : b >= 0xc0 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf8 ? 4 : 0;
      const group = [b];
      let j = k + 1;
      while (need > 0 && group.length < need && j < n && ids[j] >= 0 && ids[j] < this.pieces.length) {
        const c = this.byteOf(ids[j]);
        if (c === null || c < 0x80 || c >= 0xc0) break;
        group.push(c);
        j++;
      }
      let ch = null;
      if (need && group.length === need) {
        try {
          ch = new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(group));
        } catch {
          ch = null;
        }
      }
      if (ch === null) { // not a whole character: the byte itself
        push(hex2(b), hex2(b), afterSpecial, false);
        k++;
        continue;
      }
      const shown = visible(ch);
      for (let m = 0; m < group.length; m++) {
        const label = group.length === 1 ? shown : `${shown} ${m + 1}/${group.length}`;
        if (m === 0) push(label, ch, afterSpecial, isCjk(ch));
        else out.push([label, "", false]);
      }
      k += group.length;
    }
    return out;
  }

  /** One readable label per token ("cat", "<s>", "😀 1/4", "␣", "\\xF0"): Tokenizer.labels. */
  labels(ids) {
    return this.surfaces(ids).map(([label]) => label);
  }

  /** Each token's word index: Tokenizer.word_ids. */
  wordIds(ids) {
    let w = -1;
    return this.surfaces(ids).map(([, , isNew]) => Math.max((w += isNew ? 1 : 0), 0));
  }

  /** One label per word ("mat.", "垫子", "😀", "<s>"): Tokenizer.word_labels. */
  wordLabels(ids) {
    const words = [];
    for (const [, text, isNew] of this.surfaces(ids)) {
      if (isNew || !words.length) words.push(text);
      else words[words.length - 1] += text;
    }
    return words.map(wordLabel);
  }

  /** The text of ids, specials (ids 0-5) skipped: Tokenizer.decode (SentencePiece's DecodeIds:
   * leading word-start marks dropped, a run of byte pieces read as UTF-8, each byte of no whole
   * character one U+FFFD). */
  decode(ids) {
    let out = "", bytes = [], bos = true;
    const flush = () => {
      const b = Uint8Array.from(bytes);
      for (let at = 0; at < b.length; ) {
        const n = charLength(b, at);
        out += n ? utf8.decode(b.subarray(at, at + n)) : "\ufffd";
        at += n || 1;
      }
      if (bytes.length) bos = false;
      bytes = [];
    };
    for (const i of ids) {
      if (!(i >= 0 && i < this.pieces.length)) throw new Error(`token id ${i} out of range 0..${this.pieces.length - 1}`);
      if (i < 6) continue;
      const b = this.byteOf(i);
      if (b !== null) {
        bytes.push(b);
        continue;
      }
      flush();
      let piece = this.pieces[i];
      if (bos && piece.startsWith(SPACE)) piece = piece.slice(SPACE.length);
      const text = piece.split(SPACE).join(" ");
      if (text) bos = false;
      out += text;
    }
    flush();
    return out;
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
