// The page's one way of making elements.

export type Child = Node | string | false | null | undefined;

// h makes an element: h('p', {class: 'x'}, 'text', child…).
export function h(tag: string, attrs: Record<string, string> = {}, ...kids: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...present(kids));
  return el;
}

// present drops the children that are absent (false, null, undefined, '').
export function present(kids: Child[]): (Node | string)[] {
  return kids.filter((k): k is Node | string => !!k);
}
