// The key-space heat map drawn in the browser: the kernel sends numbers (a float64 grid of units/s, the
// key of each cell's peak, the row labels), this draws them on a canvas; hovering a cell names its key,
// its units per second and its share of the partition limit.
const LEFT = 200, RIGHT = 96, TOP = 8, BOTTOM = 34;

function floats(view) {
  if (!view) return new Float64Array(0);
  return new Float64Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}
function ints(view) {
  if (!view) return new Int32Array(0);
  return new Int32Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}
function even(v) {                         // half to even, as Python's format rounds: 2158.5 -> 2158
  const f = Math.floor(v), d = v - f;
  return d > 0.5 ? f + 1 : d < 0.5 ? f : (f % 2 === 0 ? f : f + 1);
}
function fmt(v) {
  if (v >= 100) return even(v).toLocaleString("en-US");
  return Number(v.toPrecision(3)).toLocaleString("en-US", {maximumFractionDigits: 3});
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "blue-nb-heatcanvas";
  root.style.cssText = "position:relative;font:12px sans-serif;max-width:100%";
  const title = document.createElement("div");
  title.className = "blue-nb-heat-title";
  title.style.cssText = "font-weight:bold;margin:2px 0 4px 0;overflow-wrap:anywhere";
  const canvas = document.createElement("canvas");
  canvas.style.cssText = "display:block;max-width:100%";
  const tip = document.createElement("div");
  tip.className = "blue-nb-heat-tip";
  tip.style.cssText = "position:absolute;display:none;pointer-events:none;background:#fff;border:1px solid #888;" +
    "padding:3px 6px;white-space:nowrap;box-shadow:0 1px 4px rgba(0,0,0,.25);z-index:10";
  const caption = document.createElement("div");
  caption.className = "blue-nb-heat-caption";
  caption.style.cssText = "color:#555;margin-top:2px;overflow-wrap:anywhere";
  root.append(title, canvas, tip, caption);
  el.appendChild(root);
  const grid = document.createElement("canvas");
  let state = null;

  function paint() {
    const t0 = performance.now();
    root.dataset.arrivedAt = String(t0);
    const rows = model.get("rows"), cols = model.get("cols");
    const width = model.get("width"), height = model.get("height");
    const top = model.get("top"), limit = model.get("limit");
    const cells = floats(model.get("grid")), owners = ints(model.get("owners"));
    const pal = model.get("palette"), palette = new Uint8Array(pal.buffer, pal.byteOffset, pal.byteLength);
    const over = model.get("over_color");
    title.textContent = model.get("title");
    caption.textContent = model.get("caption");
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
    canvas.style.width = width + "px"; canvas.style.height = "auto";   // narrower: scaled, same shape
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const pw = width - LEFT - RIGHT, ph = height - TOP - BOTTOM;
    state = { rows, cols, cells, owners, pw, ph, limit, top };
    if (rows > 0 && cols > 0) {
      grid.width = cols; grid.height = rows;
      const g = grid.getContext("2d"), img = g.createImageData(cols, rows), px = img.data;
      const oc = [parseInt(over.slice(1, 3), 16), parseInt(over.slice(3, 5), 16), parseInt(over.slice(5, 7), 16)];
      for (let i = 0; i < cells.length; i++) {
        const v = cells[i], o = 4 * i;
        if (v > limit) { px[o] = oc[0]; px[o + 1] = oc[1]; px[o + 2] = oc[2]; }
        else {
          const k = 3 * Math.min(255, Math.floor(Math.sqrt(Math.max(v, 0) / top) * 255));
          px[o] = palette[k]; px[o + 1] = palette[k + 1]; px[o + 2] = palette[k + 2];
        }
        px[o + 3] = 255;
      }
      g.putImageData(img, 0, 0);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(grid, LEFT, TOP, pw, ph);
    }
    ctx.strokeStyle = "#333"; ctx.lineWidth = 1; ctx.strokeRect(LEFT + 0.5, TOP + 0.5, pw - 1, ph - 1);
    // key labels on the left (the hot rows dark or red, range starts grey), peaks on the right
    ctx.textBaseline = "middle"; ctx.font = "11px sans-serif";
    const taken = [];                       // hottest first: a label too near a hotter one is left out
    for (const [row, text, color, peak] of model.get("labels")) {
      const y = TOP + (row + 0.5) * ph / Math.max(rows, 1);
      if (taken.some((t) => Math.abs(t - y) < 12)) continue;
      taken.push(y);
      ctx.fillStyle = color; ctx.textAlign = "right"; ctx.fillText(text, LEFT - 6, y, LEFT - 10);
      if (peak) { ctx.textAlign = "left"; ctx.fillText(peak, LEFT + pw + 4, y, RIGHT - 28); }
    }
    // time ticks
    const seconds = model.get("seconds");
    ctx.fillStyle = "#333"; ctx.textAlign = "center"; ctx.textBaseline = "top";
    const step = Math.max(1, Math.ceil(seconds / 8));
    for (let s = 0; s <= seconds; s += step) {
      const x = LEFT + s * pw / Math.max(seconds, 1);
      ctx.fillRect(x, TOP + ph, 1, 4); ctx.fillText(String(s), x, TOP + ph + 5);
    }
    ctx.fillText("time (s)", LEFT + pw / 2, TOP + ph + 19);
    // the colour scale, square root, to the top of the scale
    const bx = width - 20, bh = ph;
    for (let y = 0; y < bh; y++) {
      const k = 3 * Math.min(255, Math.floor(Math.sqrt(1 - y / bh) * 255));
      ctx.fillStyle = `rgb(${palette[k]},${palette[k + 1]},${palette[k + 2]})`;
      ctx.fillRect(bx, TOP + y, 14, 1);
    }
    if (top >= limit) { ctx.fillStyle = over; ctx.fillRect(bx, TOP - 6, 14, 6); }
    ctx.fillStyle = "#333"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ctx.fillText(model.get("scale_top"), bx - 3, TOP + 6); ctx.fillText("0", bx - 3, TOP + bh - 4);
    root.dataset.paintMs = (performance.now() - t0).toFixed(1);
    root.dataset.state = model.get("state");
    root.dataset.plot = JSON.stringify([LEFT, TOP, pw, ph, width, height]);
    requestAnimationFrame(() => {           // on screen: the frame after the canvas changed
      root.dataset.paintedAt = String(performance.now());
      root.dataset.painted = String(Number(root.dataset.painted || 0) + 1);
    });
  }

  canvas.addEventListener("mousemove", (ev) => {
    if (!state || !state.rows) return;
    const box = canvas.getBoundingClientRect();
    const sx = (ev.clientX - box.left) * (model.get("width") / box.width);
    const sy = (ev.clientY - box.top) * (model.get("height") / box.height);
    const c = Math.floor((sx - LEFT) * state.cols / state.pw), r = Math.floor((sy - TOP) * state.rows / state.ph);
    if (c < 0 || r < 0 || c >= state.cols || r >= state.rows) { tip.style.display = "none"; return; }
    const i = r * state.cols + c, v = state.cells[i], who = state.owners[i];
    const names = model.get("names"), seconds = model.get("seconds");
    const s0 = Math.floor(c * seconds / state.cols), s1 = Math.max(s0 + 1, Math.floor((c + 1) * seconds / state.cols));
    const when = s1 - s0 > 1 ? `seconds ${s0}-${s1 - 1}` : `second ${s0}`;
    tip.textContent = who >= 0
      ? `${names[who]} · ${when} · ${fmt(v)} ${model.get("unit")} · ${fmt(100 * v / state.limit)}% of the ${fmt(state.limit)}/s limit`
      : `${model.get("row_starts")[r] || ""} · ${when} · no traffic`;
    tip.style.display = "block";
    tip.style.left = Math.min(sx + 12, Math.max(0, model.get("width") - tip.offsetWidth)) + "px";
    tip.style.top = (sy + title.offsetHeight + 14) + "px";
  });
  canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  model.on("change:state", paint);
  paint();
}
export default { render };
