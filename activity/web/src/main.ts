// Les Clefs du Trésor scratched by hand: the Activity's page. It shows the
// player's card from the bot's State and sends each step (buy, reveal,
// Auto, open the chest, daily) as the /play card's buttons do. The bot
// decides everything; the page draws what it is told, and never learns a
// cell before its row is revealed.

import { Client, Failure, State, opID } from './api';
import { Layer, enough, glimpse } from './scratch';
import { Lang, Words, credits, fill, langOf, words } from './text';

const app = document.getElementById('app')!;
const top = h('header');
const grid = h('div', { class: 'grid' });
const below = h('div');
let lang: Lang = langOf(navigator.language);
let client: Client;
let state: State;
let note = ''; // the last refusal or error, until the next step
let hidden: HTMLImageElement;
let busy = 0; // steps sent and not answered
let chain: Promise<void> = Promise.resolve(); // one step at a time, in order

// The open ticket's scratch layers: one per row hidden when the page first
// saw the ticket; cleared once the row is revealed and scratched enough
// (or revealed by a button, a key or Auto).
let card: { id: number; layers: (Layer | null)[]; cleared: boolean[]; asked: boolean[]; want: boolean[] } | null = null;

type Child = Node | string | false | null | undefined;

// h makes an element: h('p', {class: 'x'}, 'text', child…).
function h(tag: string, attrs: Record<string, string> = {}, ...kids: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const k of kids) if (k) el.append(k);
  return el;
}

function button(act: string, label: string, run: () => void, primary = false): HTMLElement {
  const b = h('button', { type: 'button', 'data-act': act, class: primary ? 'primary' : '' }, label);
  b.addEventListener('click', run);
  return b;
}

const picture = (s: number | null) =>
  h('img', {
    src: s === null ? 'art/hidden.png' : `art/${s}.png`,
    alt: s === null ? words(lang).hidden : words(lang).symbol[s],
  });

// step sends one player action; its operation ID is made once, here, and
// re-sent unchanged by every retry of the same request. undo runs if it fails.
function step(path: string, body: Record<string, number> = {}, undo?: () => void) {
  const op = opID();
  busy++;
  app.dataset.busy = String(busy);
  chain = chain.then(async () => {
    try {
      const s = await client.call('POST', path, { op, ...body });
      note = '';
      show(s);
    } catch (e) {
      undo?.();
      fail(e);
    } finally {
      busy--;
      app.dataset.busy = String(busy);
    }
  });
}

// reveal asks for row r (-1: Auto), once per row until it fails: a row
// whose reveal failed is asked again by the next stroke, Enter or button.
function reveal(r: number) {
  const t = state.ticket;
  const c = card;
  if (!t?.open || !c) return;
  if (r >= 0) {
    if (c.asked[r] || t.rows[r]) return;
    c.asked[r] = true;
  }
  step('api/reveal', { ticket: t.id, row: r }, () => r >= 0 && (c.asked[r] = c.want[r] = false));
}

// uncover clears row r's layer: at once if the row is known, else after
// the bot reveals it.
function uncover(r: number) {
  if (!card || card.cleared[r]) return;
  card.want[r] = true;
  card.cleared[r] = !!state.ticket?.rows[r];
  if (card.cleared[r]) render();
  else reveal(r);
}

// next uncovers the first row still covered.
function next() {
  const r = card?.cleared.indexOf(false) ?? -1;
  if (r >= 0) uncover(r);
}

// said maps the bot's error codes (and the page's own) to the page's words:
// only a refusal by the rules, which comes with the state, is shown in the
// bot's words (already in the player's language).
const said: Record<string, keyof Words> = {
  network: 'network', flood: 'flood', session: 'session', code: 'session', unavailable: 'unavailable',
  discord: 'discord', instance: 'relaunch', not_in_instance: 'relaunch', guild_only: 'guildOnly',
};
const say = (e: Failure) => (e.state && e.message) || (words(lang)[said[e.code] ?? 'error'] as string);

function fail(e: unknown) {
  note = e instanceof Failure ? say(e) : words(lang).error;
  if (e instanceof Failure && e.state) return show(e.state);
  render();
}

function show(s: State) {
  state = s;
  lang = langOf(s.locale);
  document.documentElement.lang = lang;
  const t = s.ticket;
  if ((t?.id ?? 0) !== (card?.id ?? 0) || !grid.firstChild) {
    card = t && { id: t.id, layers: [], cleared: [], asked: [], want: [] };
    t?.rows.forEach((row, r) => {
      card!.cleared[r] = card!.asked[r] = !!row;
      card!.layers[r] = row
        ? null
        : new Layer(hidden, fill(words(lang).row, r + 1), (share) => {
            if (share >= enough) uncover(r);
            else if (share >= glimpse || card!.asked.every((a) => !a)) reveal(r); // the ticket's first stroke draws it
          });
    });
    // The grid is rebuilt only for another ticket: a canvas taken out of the
    // page would lose the finger that scratches it.
    grid.replaceChildren(
      ...[0, 1, 2].map((r) =>
        h('div', { class: 'row', 'data-row': String(r) }, h('div', { class: 'cell' }), h('div', { class: 'cell' }), h('div', { class: 'cell' }), card?.layers[r]?.canvas),
      ),
    );
  }
  t?.rows.forEach((row, r) => (card!.cleared[r] ||= !t.open || (!!row && !!card!.want[r])));
  render();
}

function render() {
  const w = words(lang);
  const s = state;
  const t = s.ticket;
  const focused = (document.activeElement as HTMLElement | null)?.dataset?.act;
  grid.querySelectorAll<HTMLElement>('.cell').forEach((cell, i) => {
    const row = t?.rows[Math.floor(i / 3)];
    const sym = t ? (row ? row[i % 3] : null) : null;
    const want = sym ?? (t ? '' : 'hidden'); // a ticket's hidden cells wait under their layer
    if (cell.dataset.s !== String(want)) {
      cell.dataset.s = String(want);
      cell.replaceChildren(want === '' ? '' : picture(sym));
    }
  });
  card?.layers.forEach((layer, r) => {
    if (!layer) return;
    layer.canvas.classList.toggle('gone', card!.cleared[r]);
    layer.canvas.tabIndex = card!.cleared[r] ? -1 : 0;
    layer.canvas.dataset.act = 'row' + r;
  });

  const actions = h('div', { class: 'actions' });
  if (t?.open) {
    actions.append(button('next', w.next, next, true), button('auto', w.auto, () => reveal(-1)));
  } else if (s.chest_due) {
    actions.append(button('chest', w.chest, () => step('api/chest', { chest: s.chest_due }), true));
  } else {
    actions.append(button('buy', fill(t ? w.again : w.play, credits(s.stake, lang)), () => step('api/buy'), true));
  }
  if (s.daily.ready) actions.append(button('daily', fill(w.daily, credits(s.daily.amount, lang)), () => step('api/daily')));

  const keys = h('div', { class: 'keys', 'aria-label': `${w.keys} ${s.keys}/${s.max_keys}` });
  for (let k = 0; k < s.max_keys; k++) keys.append(h('img', { src: 'art/6.png', alt: '', class: k < s.keys ? 'on' : 'off' }));
  keys.append(h('span', {}, `${s.keys}/${s.max_keys}`));

  top.replaceChildren(h('h1', {}, 'Les Clefs du Trésor'), h('p', { class: 'sub' }, t ? fill(w.ticket, t.id, credits(s.stake, lang)) : ''));
  below.replaceChildren(
    h('p', { class: 'hint' }, t?.open ? w.hint : ''),
    h('p', { class: 'result', role: 'status' }, (t && !t.open && s.texts?.result) || ''), // the bot's own words
    s.chest_due && !s.texts?.result ? h('p', { class: 'chest' }, w.chestReady) : '', // else the result says it
    s.chest ? h('p', { class: 'chest' }, s.texts?.chest ?? '') : '',
    actions,
    h('div', { class: 'status' }, keys, h('p', { class: 'balance' }, w.balance, h('b', {}, credits(s.balance, lang)))),
    h('p', { class: 'note', role: 'alert' }, note),
  );
  app.dataset.ticket = t ? String(t.id) : '';
  (app.querySelector(`[data-act="${focused}"]`) as HTMLElement | null)?.focus();
}

// Enter (or Space on a row) reveals: the keyboard's way to scratch.
document.addEventListener('keydown', (e) => {
  const act = (e.target as HTMLElement).dataset?.act ?? '';
  if (e.key === 'Enter' && !act && state?.ticket?.open) next();
  else if ((e.key === 'Enter' || e.key === ' ') && act.startsWith('row')) uncover(Number(act.slice(3)));
  else return;
  e.preventDefault();
});

// Back in view, the page shows the truth: the /play card may have moved on.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && client && !busy) client.call('GET', 'api/state').then(show, fail);
});

async function main() {
  app.replaceChildren(h('p', { class: 'note' }, words(lang).connecting));
  if (!new URLSearchParams(location.search).has('frame_id')) {
    app.replaceChildren(h('p', { class: 'note' }, words(lang).outside));
    return;
  }
  try {
    hidden = new Image();
    hidden.src = 'art/hidden.png';
    const [started] = await Promise.all([Client.start(), hidden.decode()]);
    client = started.client;
    app.replaceChildren(top, grid, below);
    show(started.state);
  } catch (e) {
    // An Error, a Failure, or what Discord's client answered a command: {code, message}.
    const msg = e instanceof Failure ? say(e) : (e as { message?: string })?.message || String(e);
    app.replaceChildren(h('p', { class: 'note', role: 'alert' }, fill(words(lang).failed, msg)));
  }
}

main();
