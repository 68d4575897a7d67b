/**
 * The projection's messages as a persistent list: immutable, each change a new
 * list that shares everything it did not change with the old one. A step adds a
 * message or two and rewrites one near the end; with a copied array that cost the
 * whole history every step (a 33,000-message history: a 33,000-element copy per
 * request), here it costs what changed.
 *
 * The structure is the usual persistent vector: a trie of 32-wide nodes holding
 * the messages in order, plus a tail of up to 32 messages not yet in the trie.
 * Reading, writing or removing message `i` walks or copies one root-to-leaf path
 * (at most 4 nodes for a million messages); adding one copies the tail. Nodes and
 * tails are never written once made (every change copies its path) and never
 * leave the class, so they are not frozen: a freeze is a runtime call, and a step
 * made two of them here for arrays nothing outside could reach; unfrozen, the
 * copy loops over them also stay on V8's fast path. `toArray()` gives the
 * messages as a frozen array (a copy) — built once per list, when something asks
 * for it.
 */
import type { Message } from '../model/client.ts';

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

type Node = readonly (Node | Message)[];

const EMPTY_NODE: Node = [];

export class MessageList {
  static readonly EMPTY = new MessageList(0, BITS, EMPTY_NODE, []);

  readonly length: number;
  readonly #shift: number;
  readonly #root: Node;
  readonly #tail: readonly Message[];
  #array: readonly Message[] | undefined;

  private constructor(length: number, shift: number, root: Node, tail: readonly Message[]) {
    this.length = length;
    this.#shift = shift;
    this.#root = root;
    this.#tail = tail;
  }

  /**
   * A list of the messages of `array`, in order: the list `push` would build one
   * message at a time (the same trie and tail), built a leaf and a level at a
   * time — a snapshot's history restored costs one pass, not a tail copy per message.
   */
  static from(array: readonly Message[]): MessageList {
    const length = array.length;
    if (length === 0) return MessageList.EMPTY;
    const tailOffset = length < WIDTH ? 0 : ((length - 1) >>> BITS) << BITS;
    let nodes: Node[] = [];
    for (let i = 0; i < tailOffset; i += WIDTH) nodes.push(array.slice(i, i + WIDTH));
    let shift = BITS;
    while (nodes.length > WIDTH) {
      const up: Node[] = [];
      for (let i = 0; i < nodes.length; i += WIDTH) up.push(nodes.slice(i, i + WIDTH));
      nodes = up;
      shift += BITS;
    }
    const root = nodes.length === 0 ? EMPTY_NODE : nodes;
    return new MessageList(length, shift, root, array.slice(tailOffset));
  }

  /** Index of the first message in the tail. */
  #tailOffset(): number {
    return this.length < WIDTH ? 0 : ((this.length - 1) >>> BITS) << BITS;
  }

  /** The message at `index` (undefined outside the list; a negative index counts from the end, as `Array.at`). */
  at(index: number): Message | undefined {
    const i = index < 0 ? this.length + index : index;
    if (i < 0 || i >= this.length || !Number.isInteger(i)) return undefined;
    if (i >= this.#tailOffset()) return this.#tail[i & MASK];
    let node = this.#root;
    for (let level = this.#shift; level > 0; level -= BITS) node = node[(i >>> level) & MASK] as Node;
    return node[i & MASK] as Message;
  }

  /** The list with `message` added at the end. */
  push(message: Message): MessageList {
    const tailLength = this.length - this.#tailOffset();
    if (tailLength < WIDTH) return new MessageList(this.length + 1, this.#shift, this.#root, copyWith(this.#tail, message));
    // The tail is full: it goes into the trie, and a new tail starts.
    let shift = this.#shift;
    let root: Node;
    if (this.length >>> BITS > 1 << shift) {
      // The root is full: one level more.
      root = [this.#root, newPath(shift, this.#tail)];
      shift += BITS;
    } else {
      root = pushTail(this.length, shift, this.#root, this.#tail);
    }
    return new MessageList(this.length + 1, shift, root, [message]);
  }

  /** The list with the message at `index` (which must exist) replaced. */
  set(index: number, message: Message): MessageList {
    if (!(index >= 0 && index < this.length && Number.isInteger(index))) throw new RangeError(`message ${index} is not in a list of ${this.length}`);
    if (index >= this.#tailOffset()) {
      const tail = sliceOf(this.#tail, 0, this.#tail.length);
      tail[index & MASK] = message;
      return new MessageList(this.length, this.#shift, this.#root, tail);
    }
    return new MessageList(this.length, this.#shift, assoc(this.#shift, this.#root, index, message), this.#tail);
  }

  /** The list without its last message. */
  pop(): MessageList {
    if (this.length === 0) throw new RangeError('pop of an empty message list');
    if (this.length === 1) return MessageList.EMPTY;
    if (this.length - this.#tailOffset() > 1) return new MessageList(this.length - 1, this.#shift, this.#root, sliceOf(this.#tail, 0, this.#tail.length - 1));
    // The tail held one message: the trie's last leaf becomes the tail.
    const tail = this.#leafFor(this.length - 2);
    let root = popTail(this.length, this.#shift, this.#root) ?? EMPTY_NODE;
    let shift = this.#shift;
    if (shift > BITS && root.length === 1) {
      root = root[0] as Node;
      shift -= BITS;
    }
    return new MessageList(this.length - 1, shift, root, tail);
  }

  /** The first `length` messages. */
  truncate(length: number): MessageList {
    if (length >= this.length) return this;
    if (length <= 0) return MessageList.EMPTY;
    let list: MessageList = this;
    // Whole leaves at a time would be faster for long cuts; a turn's rollback removes a few messages.
    while (list.length > length) list = list.pop();
    return list;
  }

  /** The messages as a frozen array (built once for this list). */
  toArray(): readonly Message[] {
    if (this.#array) return this.#array;
    const out = new Array<Message>(this.length);
    const tailOffset = this.#tailOffset();
    let i = 0;
    while (i < tailOffset) {
      const leaf = this.#leafFor(i);
      for (let k = 0; k < leaf.length; k++) out[i++] = leaf[k]!;
    }
    for (let k = 0; k < this.#tail.length; k++) out[i++] = this.#tail[k]!;
    this.#array = Object.freeze(out);
    return this.#array;
  }

  /** The leaf (or the tail) holding message `i`. */
  #leafFor(i: number): readonly Message[] {
    if (i >= this.#tailOffset()) return this.#tail;
    let node = this.#root;
    for (let level = this.#shift; level > 0; level -= BITS) node = node[(i >>> level) & MASK] as Node;
    return node as readonly Message[];
  }
}

/**
 * `array.slice(from, to)` (within bounds), element by element: `from` may be
 * given a frozen array, and `slice` of a frozen array leaves V8's fast path (a
 * runtime call, ~20× the cost of this loop for a short one).
 */
function sliceOf<T>(array: readonly T[], from: number, to: number): T[] {
  const out = new Array<T>(to - from);
  for (let i = from; i < to; i++) out[i - from] = array[i]!;
  return out;
}

/**
 * `array` and `item` after it, in a new array, index by index: the arrays here
 * are never frozen, so the loads stay on V8's fast path (from a frozen array each
 * was a generic IC call; a spread is slower than this loop on unfrozen arrays and
 * regrows its result for the item).
 */
function copyWith<T>(array: readonly T[], item: T): readonly T[] {
  const out = new Array<T>(array.length + 1);
  for (let i = 0; i < array.length; i++) out[i] = array[i]!;
  out[array.length] = item;
  return out;
}

/** A path of single-child nodes from `level` down to `leaf`. */
function newPath(level: number, leaf: Node): Node {
  return level === 0 ? leaf : [newPath(level - BITS, leaf)];
}

/** The trie (of a list of `length` messages whose tail is full) with the tail added as its last leaf. */
function pushTail(length: number, level: number, parent: Node, tail: Node): Node {
  const sub = ((length - 1) >>> level) & MASK;
  let insert: Node;
  if (level === BITS) insert = tail;
  else {
    const child = parent[sub] as Node | undefined;
    insert = child !== undefined ? pushTail(length, level - BITS, child, tail) : newPath(level - BITS, tail);
  }
  return sub < parent.length ? withChild(parent, sub, insert) : copyWith(parent, insert);
}

function withChild(parent: Node, index: number, child: Node): Node {
  const out = sliceOf(parent, 0, parent.length);
  out[index] = child;
  return out;
}

function assoc(level: number, node: Node, i: number, message: Message): Node {
  const out = sliceOf(node, 0, node.length);
  if (level === 0) out[i & MASK] = message;
  else {
    const sub = (i >>> level) & MASK;
    out[sub] = assoc(level - BITS, node[sub] as Node, i, message);
  }
  return out;
}

/** The trie (of a list of `length` messages whose tail holds one) without its last leaf; undefined when that empties it. */
function popTail(length: number, level: number, node: Node): Node | undefined {
  const sub = ((length - 2) >>> level) & MASK;
  if (level > BITS) {
    const child = popTail(length, level - BITS, node[sub] as Node);
    if (child === undefined && sub === 0) return undefined;
    const out = sliceOf(node, 0, child === undefined ? sub : sub + 1);
    if (child !== undefined) out[sub] = child;
    return out;
  }
  if (sub === 0) return undefined;
  return sliceOf(node, 0, sub);
}
