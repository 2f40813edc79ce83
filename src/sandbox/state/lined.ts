import { open } from 'node:fs/promises';
import type * as z from 'zod';
import { nodeSlicing, type WorkSlicing } from '../../clock';
import { STATE_DEPTH, tooDeepAlong, tooDeepField } from '../../shared/json-depth';
import { compiledOf, firstIssue, freeFormPaths } from '../../shared/validation';
import { STATE_FORMAT_VERSION, STATE_ITEM_SCHEMAS, STATE_LISTS, StateHeadSchema, type StateDocument, type StateList } from './state.schema';

/**
 * What `readLinedState` answers for a file that is not laid out one item a line (a document
 * saved before decision 029, or one a person re-formatted): it is to be read whole, as before.
 */
export const NOT_LINED = Symbol('not lined');

/** A lined document that does not validate: `message` is `field: reason` (CONTRACT §13). */
export class StateIssue extends Error {
  override name = 'StateIssue';
}

/** Where each list's items may nest without bound (their schemas say where): only there is the depth walked. */
const FREE_FORM = Object.fromEntries(STATE_LISTS.map((list) => [list, freeFormPaths(STATE_ITEM_SCHEMAS[list] as z.ZodType)])) as Record<
  StateList,
  string[][]
>;

/** Bytes read at a time; the first line (the document's head, up to its first list) must end within them. */
const READ_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads a state document saved one item of each list a line (decision 029, `documentPieces`)
 * and validates it as it is read (CONTRACT §13): each item is parsed from its own line and
 * checked by its list's item schema at once, so neither the document's text nor its raw tree is
 * ever whole in memory (a state of 200,000 orders is 550 MiB of text), and the event loop runs
 * every `sliceMs` of work. The result is what `StateDocumentSchema` makes of the same text.
 * (zod's output is a copy of each item; the raw one is young garbage, cheap to drop.)
 *
 * Anything that is not that layout, or not JSON, answers NOT_LINED (the caller reads the file
 * whole, which names a syntax error as before); a document that is JSON but does not validate
 * throws a StateIssue naming the field (and the order, quote or delivery by its id).
 */
export async function readLinedState(path: string, slicing: WorkSlicing = nodeSlicing): Promise<StateDocument | typeof NOT_LINED> {
  const file = await open(path, 'r');
  try {
    const reader = new LinedReader();
    let carry: Buffer | undefined;
    let first = true;
    let sliceStart = slicing.now();
    for (;;) {
      // The end of a line cut by the last read (one item at most) is copied to the front, and
      // the next bytes read after it.
      const kept = carry?.length ?? 0;
      const buffer = Buffer.allocUnsafe(Math.max(READ_BYTES, 2 * kept));
      if (carry) carry.copy(buffer, 0);
      const { bytesRead } = await file.read(buffer, kept, buffer.length - kept, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, kept + bytesRead);
      carry = undefined;
      // A byte order mark before the document (an editor's, as JSON.parse's path strips it) is skipped.
      const begin = first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
      let start = begin;
      for (let nl = chunk.indexOf(NEWLINE, start); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
        if (!reader.line(chunk, start, nl)) return NOT_LINED;
        start = nl + 1;
        if (slicing.now() - sliceStart >= slicing.sliceMs) {
          await slicing.yield();
          sliceStart = slicing.now();
        }
      }
      // No line break in the first read: a document of one line (saved before decision 029).
      if (first && start === begin) return NOT_LINED;
      first = false;
      if (start < chunk.length) carry = chunk.subarray(start);
    }
    if (carry && !reader.line(carry, 0, carry.length)) return NOT_LINED;
    return reader.end() ?? NOT_LINED;
  } finally {
    await file.close();
  }
}

/** Not JSON (or not the layout): the reader gives up and the file is read whole. */
const SYNTAX = Symbol('syntax');

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return SYNTAX;
  }
}

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const isList = (key: string): key is StateList => (STATE_LISTS as readonly string[]).includes(key);

/** What names an item in an error besides its index: an order's reference, a quote's or delivery's id. */
function itemName(list: string, item: unknown): string {
  const o = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  const name =
    list === 'orders'
      ? o.reference
      : list === 'quotes'
        ? o.quote_id
        : list === 'deliveries' || list === 'partners'
          ? (o.id ?? o.client_id)
          : undefined;
  const noun = { orders: 'order', quotes: 'quote', deliveries: 'delivery', partners: 'partner' }[list as 'orders'];
  return typeof name === 'string' && noun ? ` (${noun} ${name})` : '';
}

/**
 * The document's lines, one at a time: the head (`{"version":…,"partners":[`), the items of a
 * list (each followed by a comma but the last), and each list's end, which opens the next
 * (`],"orders":[`) or ends the document (`],"faults":{…}}`). It accepts exactly what is JSON in
 * that layout; anything else is `false` (not the layout).
 */
class LinedReader {
  private head: Record<string, unknown> = {};
  private lists = new Map<StateList, unknown[]>();
  private list = '';
  private items: unknown[] = [];
  private state: 'start' | 'opened' | 'more' | 'last' | 'ended' = 'start';

  line(buffer: Buffer, from: number, to: number): boolean {
    let i = from;
    let j = to - 1;
    while (i <= j && isSpace(buffer[i])) i++;
    while (j >= i && isSpace(buffer[j])) j--;
    if (i > j) return true;
    const firstByte = buffer[i];
    const lastByte = buffer[j];
    switch (this.state) {
      case 'ended':
        return false;
      case 'start':
        return firstByte === 0x7b /* { */ && lastByte === 0x5b /* [ */ && this.fields(`${buffer.toString('utf8', i, j + 1)}]}`, true);
      default:
        break;
    }
    if (firstByte === 0x5d /* ] */) {
      if (this.state === 'more') return false; // a comma before the end of a list
      const rest = buffer.toString('utf8', i + 1, j + 1).trim();
      if (rest === '}') return this.close();
      if (!rest.startsWith(',')) return false;
      if (lastByte === 0x5b) return this.fields(`{${rest.slice(1)}]}`, true);
      if (lastByte === 0x7d /* } */) return this.fields(`{${rest.slice(1)}`, false) && this.close();
      return false;
    }
    if (this.state === 'last') return false; // two items without a comma
    const comma = lastByte === 0x2c; /* , */
    const item = parse(buffer.toString('utf8', i, comma ? j : j + 1));
    if (item === SYNTAX) return false;
    this.item(item);
    this.state = comma ? 'more' : 'last';
    return true;
  }

  /** The document's fields on a line (`opens`: its last one is a list, opened here, its items to come). */
  private fields(text: string, opens: boolean): boolean {
    const value = parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    const opened = opens ? keys.at(-1) : undefined;
    if (opens) {
      const empty = (value as Record<string, unknown>)[opened!];
      if (!Array.isArray(empty) || empty.length > 0) return false;
    }
    for (const key of keys) {
      if (key === opened) continue;
      const field = (value as Record<string, unknown>)[key];
      // A list of the document's written inline (`"orders":[{…}]` on a line of fields) is not the
      // layout: its items would pass no item schema here. Only an empty one is; the rest is read whole.
      if (isList(key)) {
        if (!Array.isArray(field) || field.length > 0) return false;
        this.lists.delete(key);
      }
      this.head[key] = field; // the last of a repeated key wins, as in JSON.parse
    }
    // A document of another format is named by its version first, not by what differs in its orders.
    if (this.state === 'start' && this.head.version !== undefined && this.head.version !== STATE_FORMAT_VERSION) {
      const checked = StateHeadSchema.shape.version.safeParse(this.head.version);
      if (!checked.success) throw new StateIssue(`version: ${firstIssue(checked.error).message}`);
    }
    if (opened !== undefined) {
      this.list = opened;
      this.items = [];
      // A list of the document's: its items validated as they come; any other field as it is.
      if (isList(opened)) this.lists.set(opened, this.items);
      else this.head[opened] = this.items;
      this.state = 'opened';
    }
    return true;
  }

  private item(item: unknown): void {
    const list = this.list;
    if (!isList(list)) {
      this.items.push(item);
      return;
    }
    const at = `${list}.${this.items.length}`;
    // The document's depth limit, counted from the document (an item is at its third level),
    // where its schema lets it nest (anywhere else, a value nested deeper fails the schema).
    const deep = tooDeepAlong(item, FREE_FORM[list], STATE_DEPTH - 2);
    if (deep !== undefined)
      throw new StateIssue(`${deep === 'body' ? at : `${at}.${deep}`}: nested deeper than ${STATE_DEPTH} levels${itemName(list, item)}`);
    // The item schema compiled by zod (decision 022; compiled at the first document read, kept):
    // uncompiled, zod's parse took about twice as long here (decision 029).
    const parsed = compiledOf(STATE_ITEM_SCHEMAS[list] as z.ZodType).safeParse(item);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error, at);
      throw new StateIssue(`${issue.path}: ${issue.message}${itemName(list, item)}`);
    }
    this.items.push(parsed.data);
  }

  private close(): boolean {
    this.state = 'ended';
    return true;
  }

  /** The document, validated; undefined when the text ended before the document did. */
  end(): StateDocument | undefined {
    if (this.state !== 'ended') return undefined;
    const doc: Record<string, unknown> = { ...this.head };
    for (const [key, items] of this.lists) doc[key] = items;
    const deep = tooDeepField(this.head, STATE_DEPTH);
    if (deep !== undefined) throw new StateIssue(`${deep}: nested deeper than ${STATE_DEPTH} levels`);
    const parsed = StateHeadSchema.safeParse(doc);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      throw new StateIssue(`${issue.path || '(root)'}: ${issue.message}`);
    }
    return parsed.data as StateDocument;
  }
}
