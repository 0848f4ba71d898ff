/** Text escaped for an XML element. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** A value of an XML response: text, elements by name, or a list (written as `<member>` elements). */
export type XmlValue = string | number | boolean | undefined | XmlValue[] | { readonly [name: string]: XmlValue };

/**
 * Elements as an AWS Query response writes them: a list as `<member>` elements, an undefined member left out.
 *
 * @example
 * ```ts
 * xmlElements({ MessageId: 'm-1' }) // '<MessageId>m-1</MessageId>'
 * ```
 */
export function xmlElements(value: XmlValue): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.map((item) => `<member>${xmlElements(item)}</member>`).join('');
  if (typeof value === 'object') {
    return Object.entries(value).filter(([, child]) => child !== undefined).map(([name, child]) => `<${name}>${xmlElements(child)}</${name}>`).join('');
  }
  return escapeXml(String(value));
}
