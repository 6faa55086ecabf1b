// Les Clefs du Trésor scratched by hand: the Activity's page. It shows the
// player's card from the bot's State and sends each step (buy, reveal,
// Auto, open the chest, daily) as the /play card's buttons do. The bot
// decides everything; the page draws what it is told, and never learns a
// cell before its row is revealed.

import { Client, Failure, State, opID } from './api';
import { h, present } from './dom';
import { Layer, enough, foilTile, glimpse } from './scratch';
import { startTable } from './table';
import { Lang, Words, credits, fill, langOf, words } from './text';

const app = document.getElementById('app')!;
const top = h('header');
const grid = h('div', { class: 'grid' });
const over = h('div', { class: 'over' }); // the chest's moment, over the grid
const stage = h('div', { class: 'stage' }, grid, over);
const below = h('div');
const prize = h('p', { class: 'prize' }); // a win, counted up
const lot = h('p', { class: 'prize' }); // the chest's prize, counted up
const still = matchMedia('(prefers-reduced-motion: reduce)');
let lang: Lang = langOf(navigator.language);
let client: Client;
let state: State;
let note = ''; // the last refusal or error, until the next step
let foil: HTMLCanvasElement; // a hidden cell's foil (scratch.ts)
let foilURL = '';
let counting: HTMLElement[] = []; // the prizes counting up
let flying = -1; // the key counter's slot a key is flying to
let landed = -1; // the slot a key lands in, for one render
let busy = 0; // steps sent and not answered
let chain: Promise<void> = Promise.resolve(); // one step at a time, in order

// The open ticket's scratch layers: one per row hidden when the page first
// saw the ticket; cleared once the row is revealed and scratched enough
// (or revealed by a button, a key or Auto).
let card: { id: number; layers: (Layer | null)[]; cleared: boolean[]; asked: boolean[]; want: boolean[] } | null = null;


function button(act: string, label: string, run: () => void, primary = false): HTMLElement {
  const b = h('button', { type: 'button', 'data-act': act, class: primary ? 'primary' : '' }, label);
  b.addEventListener('click', run);
  return b;
}

// art is one of the art package's pictures (activity.go serves them).
const art = (name: string | number, alt = '', cls = '') => h('img', { src: `art/${name}.png`, alt, class: cls });
const picture = (s: number | null) => (s === null ? h('img', { src: foilURL, alt: words(lang).hidden }) : art(s, words(lang).symbol[s]));

// plain drops the emoji of the bot's words (its Discord messages use them):
// the page draws its own pictures, and a system without an emoji font
// would show empty boxes.
const plain = (s = '') => s.replace(/[\p{Extended_Pictographic}\u{FE0F}\u{200D}]/gu, '').replace(/\s+/g, ' ').trim();

// wins says whether a row's three symbols are the same (keys excluded: game.md).
const wins = (row?: number[] | null) => !!row && row[0] !== 6 && row.every((x) => x === row[0]);

// moving counts the page's moves under way (app.dataset.moving): the
// browser test waits for none before it reads or shoots the page.
function moving(d: number) {
  app.dataset.moving = String(Number(app.dataset.moving ?? 0) + d);
}

// countUp shows cents in el as "+…", counted up from zero (at once under
// reduced motion).
function countUp(el: HTMLElement, cents: number) {
  const set = (v: number) => el.replaceChildren(art('coins'), '+' + credits(v, lang));
  if (still.matches) return set(cents);
  const t0 = performance.now();
  counting.push(el);
  moving(1);
  const tick = (now: number) => {
    const f = Math.min(1, (now - t0) / 900);
    set(Math.round(cents * (1 - (1 - f) ** 3)));
    if (f < 1) return requestAnimationFrame(tick);
    counting = counting.filter((e) => e !== el);
    moving(-1);
  };
  requestAnimationFrame(tick);
}

// flyKey sends the key the ticket earned from its cell to its slot in the
// key counter (it lands there at once under reduced motion).
function flyKey(slot: number) {
  const from = grid.querySelector('.cell[data-s="6"] img')?.getBoundingClientRect();
  const to = below.querySelectorAll('.keys img')[slot]?.getBoundingClientRect();
  const land = () => ((flying = -1), (landed = slot), render(), (landed = -1), (app.dataset.landed = String(slot)));
  if (!from || !to || still.matches) return land();
  const k = art(6, '', 'flying');
  Object.assign(k.style, { left: from.left + 'px', top: from.top + 'px', width: from.width + 'px', height: from.height + 'px' });
  document.body.append(k);
  flying = slot;
  moving(1);
  render();
  const a = k.animate(
    [{ transform: 'none' }, { transform: `translate(${to.left - from.left}px, ${to.top - from.top}px) scale(${to.width / from.width})` }],
    { duration: 900, easing: 'cubic-bezier(.45,-.35,.6,1)' },
  );
  a.onfinish = () => (k.remove(), land(), moving(-1));
}

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
  note = plain(e instanceof Failure ? say(e) : words(lang).error);
  if (e instanceof Failure && e.state) return show(e.state);
  render();
}

function show(s: State) {
  const was = state?.ticket;
  const keys = state?.keys ?? s.keys;
  const opened = !!s.chest && s.chest.id !== state?.chest?.id;
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
        : new Layer(foil, fill(words(lang).row, r + 1), (share) => {
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
  // This step finished the ticket: its prize counts up; it showed a key
  // (the counter counts it once its row is shown): the key flies.
  if (t && !t.open && was?.open && was.id === t.id && t.prize > 0) countUp(prize, t.prize);
  if (t && was?.id === t.id && s.keys > keys) flyKey(s.keys - 1);
  if (opened) countUp(lot, s.chest!.prize);
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
  grid.querySelectorAll('.row').forEach((el, r) => el.classList.toggle('win', !!card?.cleared[r] && wins(t?.rows[r])));
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
  for (let k = 0; k < s.max_keys; k++) keys.append(k < s.keys && k !== flying ? art(6, '', k === landed ? 'new' : '') : art('keyhole'));
  keys.append(h('span', {}, `${s.keys}/${s.max_keys}`));
  const result = plain((t && !t.open && s.texts?.result) || ''); // the bot's own words
  const finished = t && !t.open && t.prize > 0;
  if (finished && !counting.includes(prize)) prize.replaceChildren(art('coins'), '+' + credits(t.prize, lang));
  if (s.chest && !counting.includes(lot)) lot.replaceChildren(art('coins'), '+' + credits(s.chest.prize, lang));
  // The chest: due, it waits over the grid; opened, it shows its lot there
  // (drawn again only when that changes: its moves play once).
  const scene = s.chest ? `open ${s.chest.id} ${lang}` : s.chest_due && !t?.open ? `due ${lang}` : '';
  if (over.dataset.scene !== scene) {
    over.dataset.scene = scene;
    over.replaceChildren(
      ...present(s.chest
        ? [art('chest-open', w.chestOpen, 'open'), h('p', { class: 'chest' }, plain(s.texts?.chest)), lot]
        : scene
          ? [art('chest', w.chestShut, 'due'), !/chest|coffre/i.test(result) && h('p', { class: 'chest' }, w.chestReady)]
          : []),
    );
  }

  top.replaceChildren(h('h1', {}, 'Les Clefs du Trésor'), h('p', { class: 'sub' }, t ? fill(w.ticket, t.id, credits(s.stake, lang)) : ''));
  // Under the grid what it is about: the hint, or the result and the win;
  // a note (a refusal, an error) just above the buttons it is about.
  below.replaceChildren(
    ...present([
      h('p', { class: 'hint' }, t?.open && !note ? w.hint : ''),
      h('p', { class: 'result', role: 'status' }, result),
      finished && !s.chest && prize,
      h('p', { class: 'note', role: 'alert' }, note),
      actions,
      h('div', { class: 'status' }, keys, h('p', { class: 'balance', title: w.balance }, art('coins', w.balance), h('b', {}, credits(s.balance, lang)))),
    ]),
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
    const emblem = new Image();
    emblem.src = 'art/keyhole.png';
    const [started] = await Promise.all([Client.start(), emblem.decode()]);
    foil = foilTile(emblem);
    foilURL = foil.toDataURL();
    client = started.client;
    app.replaceChildren(top, stage, below);
    show(started.state);
    startTable(client, app, started.state.user, started.state.max_keys, () => lang);
  } catch (e) {
    // An Error, a Failure, or what Discord's client answered a command: {code, message}.
    const msg = plain(e instanceof Failure ? say(e) : (e as { message?: string })?.message || String(e));
    app.replaceChildren(h('p', { class: 'note', role: 'alert' }, fill(words(lang).failed, msg)));
  }
}

main();
