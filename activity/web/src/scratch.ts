// The scratch layer over one hidden row: a canvas painted with three tiles
// of foil, which a pointer or a finger wipes away. How much is wiped is
// read from the canvas's own alpha.

// The canvas's drawing size: three 128-pixel tiles (the art's size) and two
// gaps, at twice that resolution. app.css gives the row the same proportions.
const tile = 128;
const gap = 12;
const width = 3 * tile + 2 * gap;
const scale = 2;

// A row is asked of the bot once glimpse of its band is wiped (the first
// stroke of a ticket draws it), so that its symbols come up under the
// finger; the band goes once enough is wiped.
export const glimpse = 0.12;
export const enough = 0.45;

const wood = '#2a1f17'; // app.css's --wood

// foilTile paints one cell's scratch foil, at the layers' resolution: a
// brushed silver coat, grained, with a sheen, and emblem (the art's
// keyhole) stamped into it. Drawn once; the layers and the cells of a page
// without a ticket copy it.
export function foilTile(emblem: HTMLImageElement): HTMLCanvasElement {
  const c = document.createElement('canvas');
  c.width = c.height = tile * scale;
  const g = c.getContext('2d')!;
  g.scale(scale, scale);
  g.beginPath();
  g.roundRect(0, 0, tile, tile, tile * 0.12);
  g.clip();
  const metal = g.createLinearGradient(0, 0, tile, tile);
  ['#868c94', '#e8ecf0', '#9aa1a9', '#d9dde2', '#7b8189'].forEach((col, i) => metal.addColorStop(i / 4, col));
  g.fillStyle = metal;
  g.fillRect(0, 0, tile, tile);
  // The grain: fine brushed strokes and specks, from a fixed seed (every
  // page draws the same foil).
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let i = 0; i < 90; i++) {
    const y = rnd() * tile;
    g.fillStyle = `rgba(${rnd() < 0.5 ? '255,255,255' : '40,44,52'},${0.05 + rnd() * 0.1})`;
    g.fillRect(rnd() * tile * 0.5 - 10, y, tile * (0.4 + rnd()), 0.6);
  }
  for (let i = 0; i < 500; i++) {
    g.fillStyle = `rgba(${rnd() < 0.5 ? '255,255,255' : '30,32,40'},${0.12 + rnd() * 0.2})`;
    g.fillRect(rnd() * tile, rnd() * tile, 0.8, 0.8);
  }
  // The emblem, pressed into the metal: its shadow, then itself blended in.
  const e = tile * 0.56;
  const at = (tile - e) / 2;
  g.globalAlpha = 0.35;
  g.globalCompositeOperation = 'multiply';
  g.drawImage(emblem, at + 1.5, at + 1.5, e, e);
  g.globalAlpha = 0.8;
  g.globalCompositeOperation = 'luminosity';
  g.drawImage(emblem, at, at, e, e);
  g.globalCompositeOperation = 'source-over';
  const sheen = g.createLinearGradient(0, tile, tile, 0);
  sheen.addColorStop(0.35, 'rgba(255,255,255,0)');
  sheen.addColorStop(0.5, 'rgba(255,255,255,.45)');
  sheen.addColorStop(0.65, 'rgba(255,255,255,0)');
  g.globalAlpha = 1;
  g.fillStyle = sheen;
  g.fillRect(0, 0, tile, tile);
  g.strokeStyle = 'rgba(255,255,255,.5)';
  g.lineWidth = 2;
  g.strokeRect(1, 1, tile - 2, tile - 2);
  return c;
}

export class Layer {
  readonly canvas = document.createElement('canvas');
  private readonly ctx: CanvasRenderingContext2D;
  private last: { x: number; y: number } | null = null;
  private queued = false;

  constructor(
    foil: HTMLCanvasElement, // a tile of foil (see foilTile)
    label: string,
    private readonly onWipe: (share: number) => void, // after each stroke: the share of the band wiped
  ) {
    const c = this.canvas;
    c.width = width * scale;
    c.height = tile * scale;
    c.className = 'coat';
    c.tabIndex = 0;
    c.setAttribute('role', 'button');
    c.setAttribute('aria-label', label);
    this.ctx = c.getContext('2d', { willReadFrequently: true })!;
    const g = this.ctx;
    g.scale(scale, scale);
    g.fillStyle = wood; // the gaps: the grid's own wood, wiped like the rest
    g.fillRect(0, 0, width, tile);
    for (let i = 0; i < 3; i++) g.drawImage(foil, i * (tile + gap), 0, tile, tile);
    g.lineCap = 'round';
    g.lineJoin = 'round';
    g.lineWidth = tile * 0.34;
    g.globalCompositeOperation = 'destination-out';

    c.addEventListener('pointerdown', (e) => {
      c.setPointerCapture(e.pointerId);
      this.last = this.point(e);
      this.stroke(this.last);
    });
    c.addEventListener('pointermove', (e) => {
      if (!this.last) return;
      // A fast finger gives several positions per event: follow each one.
      for (const ev of e.getCoalescedEvents?.() ?? [e]) this.stroke(this.point(ev));
    });
    const up = () => (this.last = null);
    c.addEventListener('pointerup', up);
    c.addEventListener('pointercancel', up);
  }

  // point maps a pointer's position to the canvas's drawing coordinates.
  private point(e: PointerEvent) {
    const r = this.canvas.getBoundingClientRect();
    return { x: ((e.clientX - r.left) * width) / r.width, y: ((e.clientY - r.top) * tile) / r.height };
  }

  private stroke(p: { x: number; y: number }) {
    const g = this.ctx;
    const from = this.last ?? p;
    g.beginPath();
    g.moveTo(from.x, from.y);
    g.lineTo(p.x + 0.01, p.y); // a dot when the pointer has not moved
    g.stroke();
    this.last = p;
    if (!this.queued) {
      this.queued = true;
      requestAnimationFrame(() => this.measure());
    }
  }

  // measure reads the wiped share from every fourth pixel's alpha, once a frame.
  private measure() {
    this.queued = false;
    const a = this.ctx.getImageData(0, 0, this.canvas.width, this.canvas.height).data;
    let clear = 0;
    for (let i = 3; i < a.length; i += 16) if (a[i] < 128) clear++;
    this.onWipe(clear / (a.length / 16));
  }
}
