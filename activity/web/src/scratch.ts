// The scratch layer over one hidden row: a canvas painted as a gold band
// with the game's hidden cells, which a pointer or a finger wipes away.
// How much is wiped is read from the canvas's own alpha.

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

export class Layer {
  readonly canvas = document.createElement('canvas');
  private readonly ctx: CanvasRenderingContext2D;
  private last: { x: number; y: number } | null = null;
  private queued = false;

  constructor(
    hidden: HTMLImageElement,
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
    const foil = g.createLinearGradient(0, 0, width, tile);
    foil.addColorStop(0, '#c9a227');
    foil.addColorStop(0.5, '#f4de8a');
    foil.addColorStop(1, '#b8891c');
    g.fillStyle = foil;
    g.fillRect(0, 0, width, tile);
    for (let i = 0; i < 3; i++) g.drawImage(hidden, i * (tile + gap), 0, tile, tile);
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
