/**
 * Just enough of a DOM to run the HTML report's script in Node, without a
 * browser: elements with attributes, children, text, `style`, `hidden`, `open`
 * and listeners, and a document whose page skeleton is the one html.ts writes.
 * html.browser.test.ts runs the script in Chromium; this lets a test read what
 * the script built (the tree) where no browser is installed.
 */
export class FakeNode {
  parentNode: FakeElement | undefined;
  #text = '';
  get textContent(): string {
    return this.#text;
  }
  set textContent(value: string) {
    this.#text = value;
  }
}

export class FakeText extends FakeNode {
  constructor(text: string) {
    super();
    this.textContent = text;
  }
}

export class FakeElement extends FakeNode {
  readonly tagName: string;
  readonly children: FakeElement[] = [];
  readonly childNodes: FakeNode[] = [];
  readonly attributes = new Map<string, string>();
  readonly style: Record<string, string> = {};
  readonly listeners = new Map<string, (() => void)[]>();
  hidden = false;
  open = false;
  value = '';

  constructor(tag: string) {
    super();
    this.tagName = tag.toUpperCase();
  }

  get className(): string {
    return this.attributes.get('class') ?? '';
  }
  set className(value: string) {
    this.attributes.set('class', value);
  }
  override get textContent(): string {
    return this.childNodes.length ? this.childNodes.map((c) => c.textContent).join('') : super.textContent;
  }
  override set textContent(value: string) {
    this.childNodes.length = 0;
    this.children.length = 0;
    super.textContent = value;
  }

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  append(...nodes: FakeNode[]): void {
    for (const node of nodes) {
      node.parentNode = this;
      this.childNodes.push(node);
      if (node instanceof FakeElement) this.children.push(node);
    }
  }
  addEventListener(type: string, listener: () => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  /** Every element below this one, depth first. */
  descendants(): FakeElement[] {
    return this.children.flatMap((c) => [c, ...c.descendants()]);
  }
  /** Elements below with this tag and every one of these classes. */
  find(tag: string, ...classes: string[]): FakeElement[] {
    return this.descendants().filter((e) => e.tagName === tag.toUpperCase() && classes.every((c) => e.className.split(' ').includes(c)));
  }
}

/** Runs `script` against a fresh page holding `resultsJson`; returns the document's parts. */
export function runReportScript(script: string, resultsJson: string): { readonly byId: (id: string) => FakeElement; readonly body: FakeElement } {
  const ids = ['top', 'regressions', 'controls', 'cases', 'empty', 'shown'];
  const elements = new Map(ids.map((id) => [id, new FakeElement(id === 'cases' ? 'main' : 'div')]));
  const source = new FakeElement('script');
  source.textContent = resultsJson;
  elements.set('loopgate-results', source);
  const body = new FakeElement('body');
  const document = {
    body,
    activeElement: undefined,
    getElementById: (id: string) => elements.get(id) ?? null,
    createElement: (tag: string) => new FakeElement(tag),
    createTextNode: (text: string) => new FakeText(text),
    addEventListener: () => undefined,
  };
  new Function('document', 'Node', script)(document, FakeNode);
  return { byId: (id) => elements.get(id)!, body };
}
