/**
 * Byte-preserving JSON edits (issue 15 "The wire rewrite"): the rewrite works on a parsed copy of
 * the host's body; this module turns the difference between the host's text and that edited copy
 * into splices of the host's text, so every value we did not need to change keeps the host's
 * exact spelling — string escapes (`"\u00e9"`, `"\/"`), number spellings (`1.0`, `1E3`, `-0`),
 * whitespace, key order, and the DMC-12 legacy `error` string, which that page requires be
 * "preserved byte-identically".
 *
 * Supported edits, which are all the rewrite makes: a member added to an object (appended after
 * its last member), a member's value replaced, array elements inserted (anywhere) and elements
 * changed in place. Anything else (a member or element removed, elements reordered) replaces that
 * one object or array with `JSON.stringify` of its new value; its siblings stay as they were.
 * Runs only when a body changed, never on the success path.
 */
import { isObject } from '../../protocol/extract.js';

/** A value's place in the text: UTF-16 offsets `[start, end)`, with its members or elements. */
type Located =
  | { kind: 'value'; start: number; end: number; value: unknown }
  | { kind: 'object'; start: number; end: number; members: Member[] }
  | { kind: 'array'; start: number; end: number; items: Located[] };

interface Member {
  key: string;
  node: Located;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Ends a number or literal: `,` `]` `}` `:` or white space. */
const isDelimiter = (c: number): boolean => c === 0x2c || c === 0x5d || c === 0x7d || c === 0x3a || isWs(c);

/** A small JSON scanner that records where each value sits. Throws SyntaxError on bad input. */
class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Located {
    const node = this.value(0);
    this.ws();
    if (this.i !== this.s.length) throw new SyntaxError('trailing text');
    return node;
  }

  private ws(): void {
    const s = this.s;
    while (this.i < s.length && isWs(s.charCodeAt(this.i))) this.i++;
  }

  private value(depth: number): Located {
    if (depth > 512) throw new SyntaxError('too deep');
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    const start = this.i;
    if (c === '"') {
      const value = this.string();
      return { kind: 'value', start, end: this.i, value };
    }
    // A number or literal: up to the next delimiter; JSON.parse checks its spelling.
    while (this.i < this.s.length && !isDelimiter(this.s.charCodeAt(this.i))) this.i++;
    const end = this.i;
    if (end === start) throw new SyntaxError(`unexpected ${c === undefined ? 'end' : JSON.stringify(c)} at ${start}`);
    return { kind: 'value', start, end, value: JSON.parse(this.s.slice(start, end)) as unknown };
  }

  /** Reads the string at `i` (its value; JSON.parse only when it holds an escape). */
  private string(): string {
    const s = this.s;
    const start = this.i++;
    let escaped = false;
    while (this.i < s.length) {
      const ch = s.charCodeAt(this.i);
      if (ch === 0x5c) {
        escaped = true;
        this.i += 2;
      } else if (ch === 0x22) {
        this.i++;
        return escaped ? (JSON.parse(s.slice(start, this.i)) as string) : s.slice(start + 1, this.i - 1);
      } else this.i++;
    }
    throw new SyntaxError('unterminated string');
  }

  private object(depth: number): Located {
    const start = this.i++;
    const members: Member[] = [];
    this.ws();
    if (this.s[this.i] === '}') return { kind: 'object', start, end: ++this.i, members };
    for (;;) {
      this.ws();
      const keyStart = this.i;
      if (this.s[this.i] !== '"') throw new SyntaxError(`expected a key at ${keyStart}`);
      const key = this.string();
      this.ws();
      if (this.s[this.i++] !== ':') throw new SyntaxError(`expected ':' at ${this.i - 1}`);
      members.push({ key, node: this.value(depth + 1) });
      this.ws();
      const sep = this.s[this.i++];
      if (sep === '}') return { kind: 'object', start, end: this.i, members };
      if (sep !== ',') throw new SyntaxError(`expected ',' or '}' at ${this.i - 1}`);
    }
  }

  private array(depth: number): Located {
    const start = this.i++;
    const items: Located[] = [];
    this.ws();
    if (this.s[this.i] === ']') return { kind: 'array', start, end: ++this.i, items };
    for (;;) {
      items.push(this.value(depth + 1));
      this.ws();
      const sep = this.s[this.i++];
      if (sep === ']') return { kind: 'array', start, end: this.i, items };
      if (sep !== ',') throw new SyntaxError(`expected ',' or ']' at ${this.i - 1}`);
    }
  }
}


/** Members whose value is the live one (the last occurrence of a duplicated key). */
function liveMembers(node: Extract<Located, { kind: 'object' }>): Map<string, Member> {
  const live = new Map<string, Member>();
  for (const m of node.members) live.set(m.key, m);
  return live;
}

/** Objects up to this many members are checked for duplicate keys pairwise, without a Map. */
const SMALL_OBJECT = 16;

/**
 * The live members in text order: `node.members` itself when no key repeats (almost always; a
 * small object is checked pairwise, with no Map built), else the last occurrence of each key.
 */
function liveList(node: Extract<Located, { kind: 'object' }>): Member[] {
  const ms = node.members;
  if (ms.length > SMALL_OBJECT) return [...liveMembers(node).values()];
  for (let i = 1; i < ms.length; i++) {
    const key = (ms[i] as Member).key;
    for (let j = 0; j < i; j++) if ((ms[j] as Member).key === key) return [...liveMembers(node).values()];
  }
  return ms;
}

function hasMember(members: Member[], key: string): boolean {
  for (const m of members) if (m.key === key) return true;
  return false;
}

/** Texts already known for some values (by identity), written instead of `JSON.stringify` of them. */
export type KnownTexts = ReadonlyMap<unknown, string> | null;

const stringify = (value: unknown, known: KnownTexts): string | undefined => (known?.get(value) ?? JSON.stringify(value)) as string | undefined;

/**
 * True when `cur` is `node`'s value with only members added and elements inserted (deeply): the
 * alignment test for array elements, so an inserted element is not mistaken for a changed one.
 */
function extendsNode(node: Located, cur: unknown): boolean {
  if (node.kind === 'value') return Object.is(node.value, cur);
  if (node.kind === 'object') {
    if (!isObject(cur)) return false;
    for (const [key, m] of liveMembers(node)) if (!Object.hasOwn(cur, key) || !extendsNode(m.node, cur[key])) return false;
    return true;
  }
  if (!Array.isArray(cur) || cur.length < node.items.length) return false;
  let k = 0;
  for (let j = 0; j < cur.length && k < node.items.length; j++) if (extendsNode(node.items[k] as Located, cur[j])) k++;
  return k === node.items.length;
}

const replaceWhole = (node: Located, cur: unknown, edits: Edit[], known: KnownTexts): void => {
  // `undefined` (or a function) has no JSON text; as an element JSON.stringify would write null.
  edits.push({ start: node.start, end: node.end, text: stringify(cur, known) ?? 'null' });
};

/** Appends to `edits` the splices that turn `node`'s text into the text of `cur`. */
function diff(node: Located, cur: unknown, edits: Edit[], known: KnownTexts): void {
  if (node.kind === 'value') {
    if (!Object.is(node.value, cur)) replaceWhole(node, cur, edits, known);
    return;
  }
  if (node.kind === 'object') {
    if (!isObject(cur)) return replaceWhole(node, cur, edits, known);
    const live = liveList(node);
    for (const m of live) if (!Object.hasOwn(cur, m.key) || cur[m.key] === undefined) return replaceWhole(node, cur, edits, known);
    for (const m of live) diff(m.node, cur[m.key], edits, known);
    let text = '';
    for (const k of Object.keys(cur)) {
      const v = cur[k];
      if (v === undefined || hasMember(live, k)) continue;
      text += `${text === '' ? '' : ','}${JSON.stringify(k)}:${stringify(v, known)}`;
    }
    if (text !== '') {
      const last = node.members.at(-1);
      edits.push(last ? { start: last.node.end, end: last.node.end, text: `,${text}` } : { start: node.start + 1, end: node.start + 1, text });
    }
    return;
  }
  if (!Array.isArray(cur)) return replaceWhole(node, cur, edits, known);
  const items = node.items;
  if (cur.length === items.length) {
    items.forEach((item, i) => diff(item, cur[i], edits, known));
    return;
  }
  if (cur.length < items.length) return replaceWhole(node, cur, edits, known);
  // Longer: align the host's elements, in order, with the elements that extend them; the others
  // were inserted. An unaligned host element means a removal or reorder: rewrite this array whole.
  const pairs: number[] = [];
  let k = 0;
  for (let j = 0; j < cur.length; j++) {
    if (k < items.length && extendsNode(items[k] as Located, cur[j])) {
      pairs[j] = k;
      k++;
    }
  }
  if (k !== items.length) return replaceWhole(node, cur, edits, known);
  const own: Edit[] = [];
  let pending: string[] = [];
  let prevEnd = -1;
  for (let j = 0; j < cur.length; j++) {
    const at = pairs[j];
    if (at === undefined) {
      pending.push(stringify(cur[j], known) as string);
      continue;
    }
    const item = items[at] as Located;
    if (pending.length > 0) {
      own.push({ start: item.start, end: item.start, text: `${pending.join(',')},` });
      pending = [];
    }
    diff(item, cur[j], own, known);
    prevEnd = item.end;
  }
  if (pending.length > 0) {
    own.push(prevEnd >= 0 ? { start: prevEnd, end: prevEnd, text: `,${pending.join(',')}` } : { start: node.start + 1, end: node.start + 1, text: pending.join(',') });
  }
  edits.push(...own);
}

/**
 * The text of `edited` written as splices of `original` (the JSON text it was parsed from): the
 * bytes of every value `edited` shares with it are the bytes of `original`. The result always
 * parses to a value deeply equal to `edited`. `known` gives the JSON text of values whose text is
 * already at hand (by identity; it must be what `JSON.stringify` writes for them). Throws
 * SyntaxError when `original` is not JSON.
 */
export function spliceJson(original: string, edited: unknown, known: KnownTexts = null): string {
  const root = new Scanner(original).parse();
  const edits: Edit[] = [];
  diff(root, edited, edits, known);
  if (edits.length === 0) return original;
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += original.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + original.slice(at);
}

/**
 * Where each value of `text` sits, keyed by JSON pointer (`/error/data/0/@type`), for the values
 * that are not objects or arrays: their exact source text. For tests and diagnostics.
 * Throws SyntaxError when `text` is not JSON.
 */
export function valueSpellings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (node: Located, pointer: string): void => {
    if (node.kind === 'value') out.set(pointer, text.slice(node.start, node.end));
    else if (node.kind === 'array') node.items.forEach((n, i) => walk(n, `${pointer}/${i}`));
    else for (const m of liveMembers(node).values()) walk(m.node, `${pointer}/${m.key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  walk(new Scanner(text).parse(), '');
  return out;
}

/**
 * The host's body text `raw` (JSON, already read once by `readJsonBody`) with `edited` spliced
 * in (see `spliceJson`); `raw` itself when nothing changed. Falls back to
 * `JSON.stringify(edited)` only if the scanner cannot read `raw`, which `readJsonBody`
 * accepted, so in practice never.
 */
export function spliceBody(raw: string, edited: unknown, known: KnownTexts = null): string {
  try {
    return spliceJson(raw, edited, known);
  } catch {
    return JSON.stringify(edited);
  }
}
