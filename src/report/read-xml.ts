/**
 * A small strict XML parser: elements, attributes, text, the five entities and
 * numeric references. Throws on anything malformed (a raw `<` or `&` in text, an
 * unquoted or duplicate attribute, mismatched tags, a character XML 1.0 forbids),
 * so a JUnit report that parses is well-formed. Reads back what junit.ts wrote
 * (verify.ts) and what tests render; not a general XML reader (no comments,
 * CDATA or doctype: junit.ts writes none).
 */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly children: XmlElement[];
  text: string;
}

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

function decode(raw: string, where: number): string {
  if (FORBIDDEN.test(raw)) throw new Error(`character not allowed in XML near offset ${where}`);
  if (/[<]/.test(raw)) throw new Error(`raw < near offset ${where}`);
  return raw.replace(/&([^;]*);|&/g, (match, entity: string | undefined) => {
    if (entity === undefined) throw new Error(`bare & near offset ${where}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (entity in named) return named[entity]!;
    const num = /^#x([0-9a-f]+)$/i.exec(entity) ?? /^#([0-9]+)$/.exec(entity);
    if (!num) throw new Error(`unknown entity &${entity}; near offset ${where}`);
    return String.fromCodePoint(parseInt(num[1]!, entity.startsWith('#x') ? 16 : 10));
  });
}

export function parseXml(xml: string): XmlElement {
  let i = 0;
  if (xml.startsWith('<?xml')) i = xml.indexOf('?>') + 2;
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const textEnd = lt < 0 ? xml.length : lt;
    const text = decode(xml.slice(i, textEnd), i);
    if (stack.length === 1 && text.trim()) throw new Error(`text outside the root element at ${i}`);
    stack[stack.length - 1]!.text += text;
    if (lt < 0) break;
    if (xml.startsWith('</', lt)) {
      const end = xml.indexOf('>', lt);
      const name = xml.slice(lt + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name}> at ${lt}`);
      i = end + 1;
      continue;
    }
    const tag = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"]*")*)\s*(\/?)>/.exec(xml.slice(lt));
    if (!tag) throw new Error(`malformed tag at ${lt}: ${xml.slice(lt, lt + 40)}`);
    const attributes: Record<string, string> = {};
    for (const m of tag[2]!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      if (m[1]! in attributes) throw new Error(`duplicate attribute ${m[1]} at ${lt}`);
      attributes[m[1]!] = decode(m[2]!, lt);
    }
    const element: XmlElement = { name: tag[1]!, attributes, children: [], text: '' };
    if (stack.length === 1 && root.children.length > 0) throw new Error('two root elements');
    stack[stack.length - 1]!.children.push(element);
    if (!tag[3]) stack.push(element);
    i = lt + tag[0].length;
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  return root.children[0]!;
}
