// Reads a QR code (ISO/IEC 18004, versions 1 to 10, model 2) from an image's pixels, for the Add accessory view in
// browsers without `BarcodeDetector`. Written for Hearth from the standard's description: the image is made black
// and white (Otsu's global threshold, then a local one), the three finder patterns are found by their 1:1:3:1:1 runs
// across and down, the grid is sampled through the map they give (any rotation and scale; from version 2 the
// bottom-right alignment pattern is looked for too, which corrects a mild perspective; without one, up to version 4,
// the fourth corner is searched for around its affine place),
// and the modules are decoded: format information (both copies, nearest BCH codeword), unmasking, the codewords
// de-interleaved into blocks, each corrected by Reed–Solomon over GF(256), then numeric, alphanumeric and byte
// segments. pair.js imports it only when a photo is read, so the page's first load does not carry it.

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1: exponentials of α = 2 (doubled, so no modulo) and logs.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = EXP[i + 255] = x;
  LOG[x] = i;
  x = x & 0x80 ? ((x << 1) ^ 0x11d) : x << 1;
}
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);
const div = (a, b) => (a ? EXP[LOG[a] + 255 - LOG[b]] : 0);
const inverse = (power) => EXP[(255 - (power % 255)) % 255]; // α^-power
// A polynomial with its lowest coefficient first, at x.
const evaluate = (poly, x) => {
  let value = 0;
  for (let i = poly.length - 1; i >= 0; i--) value = mul(value, x) ^ poly[i];
  return value;
};

// The syndromes S_i = r(α^i), i < count, of a block whose first codeword is the highest power.
const syndromes = (block, count) => {
  const found = new Array(count);
  for (let i = 0; i < count; i++) {
    let value = 0;
    for (const codeword of block) value = mul(value, EXP[i]) ^ codeword;
    found[i] = value;
  }
  return found;
};

// A block (data then `ecCount` error correction codewords) with up to ecCount / 2 wrong codewords corrected:
// Berlekamp–Massey finds the error locator, Chien's search its roots, Forney's formula the values. `null` when
// there are more errors than the code can correct.
export const correctBlock = (block, ecCount) => {
  const s = syndromes(block, ecCount);
  if (s.every((value) => value === 0)) return block.slice();
  let locator = [1];
  let previous = [1];
  let length = 0;
  let shift = 1;
  let lastDiscrepancy = 1;
  for (let r = 0; r < ecCount; r++) {
    let discrepancy = s[r];
    for (let i = 1; i <= length; i++) discrepancy ^= mul(locator[i] ?? 0, s[r - i]);
    if (discrepancy === 0) {
      shift++;
      continue;
    }
    const factor = div(discrepancy, lastDiscrepancy);
    const before = locator.slice();
    for (let i = 0; i < previous.length; i++) {
      while (locator.length <= i + shift) locator.push(0);
      locator[i + shift] ^= mul(factor, previous[i]);
    }
    if (2 * length <= r) {
      length = r + 1 - length;
      previous = before;
      lastDiscrepancy = discrepancy;
      shift = 1;
    } else {
      shift++;
    }
  }
  if (2 * length > ecCount) return null;
  const n = block.length;
  const positions = [];
  for (let k = 0; k < n; k++) if (evaluate(locator, inverse(n - 1 - k)) === 0) positions.push(k);
  if (positions.length !== length) return null;
  const omega = new Array(ecCount).fill(0);
  for (let i = 0; i < ecCount; i++) {
    for (let j = 0; j < locator.length && i + j < ecCount; j++) omega[i + j] ^= mul(s[i], locator[j]);
  }
  const fixed = block.slice();
  for (const k of positions) {
    const power = n - 1 - k;
    const root = inverse(power);
    let derivative = 0; // Λ'(x): the odd terms, one power lower
    for (let i = 1; i < locator.length; i += 2) {
      derivative ^= mul(locator[i], i === 1 ? 1 : EXP[(LOG[root] * (i - 1)) % 255]);
    }
    if (derivative === 0) return null;
    fixed[k] ^= mul(EXP[power % 255], div(evaluate(omega, root), derivative));
  }
  return syndromes(fixed, ecCount).every((value) => value === 0) ? fixed : null;
};

// The standard's tables for versions 1 to 10: alignment pattern centres, and by level (L, M, Q, H) the error
// correction codewords per block and the number of blocks.
const ALIGNMENT = [[], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46],
  [6, 28, 50]];
const EC_PER_BLOCK = {
  L: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18], M: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26],
  Q: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24], H: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28],
};
const BLOCKS = {
  L: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4], M: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5],
  Q: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8], H: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8],
};
export const MAX_VERSION = 10;
// The format information's two level bits.
const LEVELS = ["M", "L", "H", "Q"];

// The 32 valid format words (level and mask, a BCH(15,5) remainder, XORed with 101010000010010) by their 5 bits.
const FORMATS = Array.from({ length: 32 }, (_, data) => {
  let remainder = data << 10;
  for (let bit = 14; bit >= 10; bit--) if (remainder & (1 << bit)) remainder ^= 0x537 << (bit - 10);
  return ((data << 10) | remainder) ^ 0x5412;
});
const bitCount = (value) => {
  let count = 0;
  for (; value; value &= value - 1) count++;
  return count;
};

// Which modules of a symbol are function patterns (finders and separators, timing, alignment, format and version
// areas), as 1s in a row-major array.
const functionModules = (version) => {
  const size = 17 + 4 * version;
  const marks = new Uint8Array(size * size);
  const mark = (x, y, width, height) => {
    for (let row = y; row < y + height; row++) marks.fill(1, row * size + x, row * size + x + width);
  };
  mark(0, 0, 9, 9);
  mark(size - 8, 0, 8, 9);
  mark(0, size - 8, 9, 8);
  mark(6, 0, 1, size);
  mark(0, 6, size, 1);
  const centres = ALIGNMENT[version];
  const last = centres.length - 1;
  centres.forEach((cy, i) => centres.forEach((cx, j) => {
    if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
    mark(cx - 2, cy - 2, 5, 5);
  }));
  if (version >= 7) {
    mark(size - 11, 0, 3, 6);
    mark(0, size - 11, 6, 3);
  }
  return marks;
};

// Whether mask `pattern` flips the module in `row` and `column`.
const MASKS = [
  (i, j) => (i + j) % 2 === 0, (i) => i % 2 === 0, (i, j) => j % 3 === 0, (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0, (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0, (i, j) => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
];

// The level and mask from both copies of the format information: the valid word nearest to either copy, within 3
// bits; `null` when neither is that near.
const readFormat = (dark, size) => {
  let first = 0;
  let second = 0;
  const put = (word, index, isDark) => (isDark ? word | (1 << index) : word);
  for (let i = 0; i < 6; i++) first = put(first, i, dark(8, i));
  first = put(first, 6, dark(8, 7));
  first = put(first, 7, dark(8, 8));
  first = put(first, 8, dark(7, 8));
  for (let i = 9; i < 15; i++) first = put(first, i, dark(14 - i, 8));
  for (let i = 0; i < 8; i++) second = put(second, i, dark(size - 1 - i, 8));
  for (let i = 8; i < 15; i++) second = put(second, i, dark(8, size - 15 + i));
  let best = null;
  let bestDistance = 4;
  FORMATS.forEach((word, data) => {
    const distance = Math.min(bitCount(word ^ first), bitCount(word ^ second));
    if (distance < bestDistance) [best, bestDistance] = [data, distance];
  });
  return best === null ? null : { level: LEVELS[best >> 3], mask: best & 7 };
};

// The text of a symbol from its modules: `dark(x, y)` for column x and row y of a `version` symbol. `null` when the
// format cannot be read or a block has too many errors; throws nothing.
export const decodeModules = (dark, version) => {
  const size = 17 + 4 * version;
  const format = readFormat(dark, size);
  if (!format) return null;
  const isFunction = functionModules(version);
  const flips = MASKS[format.mask];
  const raw = [];
  let byte = 0;
  let bits = 0;
  let upward = true;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let i = 0; i < size; i++) {
      const y = upward ? size - 1 - i : i;
      for (const x of [right, right - 1]) {
        if (isFunction[y * size + x]) continue;
        byte = (byte << 1) | (dark(x, y) !== flips(y, x) ? 1 : 0);
        if (++bits === 8) {
          raw.push(byte);
          byte = bits = 0;
        }
      }
    }
    upward = !upward;
  }
  const ecCount = EC_PER_BLOCK[format.level][version - 1];
  const blockCount = BLOCKS[format.level][version - 1];
  const dataTotal = raw.length - ecCount * blockCount;
  const shortLength = Math.floor(dataTotal / blockCount);
  const longBlocks = dataTotal % blockCount;
  const blocks = Array.from({ length: blockCount }, (_, b) => ({
    data: shortLength + (b >= blockCount - longBlocks ? 1 : 0), codewords: [],
  }));
  let next = 0;
  for (let i = 0; i <= shortLength; i++) {
    for (const block of blocks) if (i < block.data) block.codewords.push(raw[next++]);
  }
  for (let i = 0; i < ecCount; i++) for (const block of blocks) block.codewords.push(raw[next++]);
  const data = [];
  for (const block of blocks) {
    const fixed = correctBlock(block.codewords, ecCount);
    if (!fixed) return null;
    data.push(...fixed.slice(0, block.data));
  }
  return readSegments(data, version);
};

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";

// The text of the data codewords: numeric, alphanumeric and byte segments (ECI designators skipped; bytes read as
// UTF-8); `null` for another mode or a segment longer than the data.
const readSegments = (data, version) => {
  const total = data.length * 8;
  let at = 0;
  const read = (count) => {
    let value = 0;
    for (let i = 0; i < count; i++, at++) value = (value << 1) | ((data[at >> 3] >> (7 - (at & 7))) & 1);
    return value;
  };
  const bytes = [];
  const lengthBits = version < 10 ? [10, 9, 8] : [12, 11, 16];
  while (at + 4 <= total) {
    const mode = read(4);
    if (mode === 0) break;
    if (mode === 7) {
      const first = read(8);
      if (first & 0x80) read(first & 0x40 ? 16 : 8);
      continue;
    }
    const kind = { 1: 0, 2: 1, 4: 2 }[mode];
    if (kind === undefined || at + lengthBits[kind] > total) return null;
    let count = read(lengthBits[kind]);
    const needed = [Math.ceil((count * 10) / 3), Math.ceil((count * 11) / 2), count * 8][kind];
    if (at + needed > total) return null;
    if (kind === 0) {
      const digits = (value, length) => {
        if (value >= 10 ** length) return false;
        for (const digit of String(value).padStart(length, "0")) bytes.push(digit.charCodeAt(0));
        return true;
      };
      for (; count >= 3; count -= 3) if (!digits(read(10), 3)) return null;
      if (count && !digits(read(count === 2 ? 7 : 4), count)) return null;
    } else if (kind === 1) {
      for (; count >= 2; count -= 2) {
        const pair = read(11);
        if (pair >= 45 * 45) return null;
        bytes.push(ALPHANUMERIC.charCodeAt(Math.floor(pair / 45)), ALPHANUMERIC.charCodeAt(pair % 45));
      }
      if (count) {
        const single = read(6);
        if (single >= 45) return null;
        bytes.push(ALPHANUMERIC.charCodeAt(single));
      }
    } else {
      for (let i = 0; i < count; i++) bytes.push(read(8));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
};

// The image as 1 (dark) and 0 (light) per pixel: luminance under Otsu's threshold (`local` false) or, for uneven
// light, under the mean of the 8-pixel blocks around it that are not flat (Otsu's threshold where all are).
const binarise = ({ data, width, height }, local) => {
  const gray = new Uint8Array(width * height);
  const histogram = new Array(256).fill(0);
  for (let i = 0; i < gray.length; i++) {
    const value = (data[4 * i] * 77 + data[4 * i + 1] * 150 + data[4 * i + 2] * 29) >> 8;
    const alpha = data[4 * i + 3];
    gray[i] = (value * alpha + 255 * (255 - alpha)) / 255; // transparent is paper
    histogram[gray[i]]++;
  }
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * histogram[i];
  let below = 0;
  let belowSum = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    below += histogram[t];
    belowSum += t * histogram[t];
    const above = gray.length - below;
    if (!below || !above) continue;
    const between = below * above * (belowSum / below - (sum - belowSum) / above) ** 2;
    if (between > best) [best, threshold] = [between, t];
  }
  const dark = new Uint8Array(width * height);
  if (!local) {
    for (let i = 0; i < gray.length; i++) dark[i] = gray[i] <= threshold ? 1 : 0;
    return dark;
  }
  const columns = Math.ceil(width / 8);
  const rows = Math.ceil(height / 8);
  const blocks = new Float32Array(columns * rows);
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < columns; bx++) {
      let total = 0;
      let count = 0;
      let low = 255;
      let high = 0;
      for (let y = by * 8; y < Math.min(height, by * 8 + 8); y++) {
        for (let x = bx * 8; x < Math.min(width, bx * 8 + 8); x++) {
          const value = gray[y * width + x];
          total += value;
          count++;
          low = Math.min(low, value);
          high = Math.max(high, value);
        }
      }
      blocks[by * columns + bx] = high - low > 24 ? total / count : -1; // flat: no threshold of its own
    }
  }
  for (let y = 0; y < height; y++) {
    const by = y >> 3;
    for (let x = 0; x < width; x++) {
      const bx = x >> 3;
      let total = 0;
      let count = 0;
      for (let j = Math.max(0, by - 2); j <= Math.min(rows - 1, by + 2); j++) {
        for (let i = Math.max(0, bx - 2); i <= Math.min(columns - 1, bx + 2); i++) {
          if (blocks[j * columns + i] < 0) continue;
          total += blocks[j * columns + i];
          count++;
        }
      }
      dark[y * width + x] = gray[y * width + x] <= (count ? total / count : threshold) ? 1 : 0;
    }
  }
  return dark;
};

// Whether five runs (dark, light, dark, light, dark) are in a finder pattern's 1:1:3:1:1.
const finderRatios = (runs) => {
  const total = runs.reduce((a, b) => a + b, 0);
  if (total < 7) return false;
  const module = total / 7;
  const slack = module * 0.6;
  return Math.abs(runs[0] - module) < slack && Math.abs(runs[1] - module) < slack
    && Math.abs(runs[2] - 3 * module) < 3 * slack && Math.abs(runs[3] - module) < slack
    && Math.abs(runs[4] - module) < slack;
};

// The finder pattern through (x, y) along (dx, dy): its centre along that line and its width, or `null`.
const crossCheck = (dark, width, height, x, y, dx, dy) => {
  const at = (t) => {
    const px = Math.round(x + dx * t);
    const py = Math.round(y + dy * t);
    return px < 0 || py < 0 || px >= width || py >= height ? -1 : dark[py * width + px];
  };
  if (at(0) !== 1) return null;
  const runs = [0, 0, 0, 0, 0];
  let t = 0;
  for (; at(t) === 1; t--) runs[2]++;
  for (; at(t) === 0; t--) runs[1]++;
  for (; at(t) === 1; t--) runs[0]++;
  for (t = 1; at(t) === 1; t++) runs[2]++;
  const centreEnd = t;
  for (; at(t) === 0; t++) runs[3]++;
  for (; at(t) === 1; t++) runs[4]++;
  if (!finderRatios(runs)) return null;
  const centre = centreEnd - runs[2] / 2 - 0.5;
  return { x: x + dx * centre, y: y + dy * centre, width: runs.reduce((a, b) => a + b, 0) };
};

// The finder pattern candidates: each row's 1:1:3:1:1 runs, checked down and across again, merged when close.
const findFinders = (dark, width, height) => {
  const found = [];
  for (let y = 0; y < height; y++) {
    const runs = [];
    let start = 0;
    for (let x = 1; x <= width; x++) {
      if (x === width || dark[y * width + x] !== dark[y * width + start]) {
        runs.push({ start, length: x - start, dark: dark[y * width + start] });
        start = x;
      }
    }
    for (let k = 0; k + 5 <= runs.length; k++) {
      if (!runs[k].dark || !finderRatios(runs.slice(k, k + 5).map((run) => run.length))) continue;
      const middle = runs[k + 2];
      const down = crossCheck(dark, width, height, middle.start + (middle.length - 1) / 2, y, 0, 1);
      if (!down) continue;
      const across = crossCheck(dark, width, height, down.x, down.y, 1, 0);
      if (!across) continue;
      const module = (down.width + across.width) / 14;
      if (Math.max(down.width, across.width) > 1.6 * Math.min(down.width, across.width)) continue;
      const near = found.find((f) => Math.hypot(f.x - across.x, f.y - down.y) < 2 * Math.max(f.module, module)
        && Math.abs(f.module - module) < 0.5 * Math.max(f.module, module));
      if (near) {
        near.x = (near.x * near.count + across.x) / (near.count + 1);
        near.y = (near.y * near.count + down.y) / (near.count + 1);
        near.module = (near.module * near.count + module) / (near.count + 1);
        near.count++;
      } else {
        found.push({ x: across.x, y: down.y, module, count: 1 });
      }
    }
  }
  return found;
};

// The triples of finder patterns that could be a symbol's corners (a right angle, two equal sides, similar module
// sizes), best first, as { topLeft, topRight, bottomLeft, module }; at most `limit`.
const chooseCorners = (candidates, limit = 4) => {
  const strong = candidates.filter((c) => c.count >= 2);
  const pool = (strong.length >= 3 ? strong : candidates).sort((a, b) => b.count - a.count).slice(0, 12);
  const found = [];
  for (let i = 0; i < pool.length; i++) {
    for (let j = i + 1; j < pool.length; j++) {
      for (let k = j + 1; k < pool.length; k++) {
        const three = [pool[i], pool[j], pool[k]];
        const modules = three.map((c) => c.module);
        if (Math.max(...modules) > 1.5 * Math.min(...modules)) continue;
        // The corner is the one opposite the longest side.
        const sides = [0, 1, 2].map((n) => Math.hypot(three[(n + 1) % 3].x - three[(n + 2) % 3].x,
          three[(n + 1) % 3].y - three[(n + 2) % 3].y));
        const corner = sides.indexOf(Math.max(...sides));
        const [a, b] = [sides[(corner + 1) % 3], sides[(corner + 2) % 3]];
        const module = modules.reduce((x, y) => x + y) / 3;
        if (Math.min(a, b) < 10 * module) continue;
        const score = Math.abs(a - b) / Math.max(a, b) + Math.abs(sides[corner] ** 2 / (a * a + b * b) - 1);
        if (score >= 0.5) continue;
        const topLeft = three[corner];
        let [topRight, bottomLeft] = [three[(corner + 1) % 3], three[(corner + 2) % 3]];
        const cross = (topRight.x - topLeft.x) * (bottomLeft.y - topLeft.y)
          - (topRight.y - topLeft.y) * (bottomLeft.x - topLeft.x);
        if (cross < 0) [topRight, bottomLeft] = [bottomLeft, topRight];
        found.push({ topLeft, topRight, bottomLeft, module, score });
      }
    }
  }
  return found.sort((x, y) => x.score - y.score).slice(0, limit);
};

// The projective map taking four points (u, v) to four points (x, y), as a function of (u, v); `null` when three
// of them are in line. Solves the eight equations for the eight unknowns (Gaussian elimination, partial pivoting).
const perspective = (from, to) => {
  const rows = [];
  from.forEach(([u, v], i) => {
    const [x, y] = to[i];
    rows.push([u, v, 1, 0, 0, 0, -u * x, -v * x, x], [0, 0, 0, u, v, 1, -u * y, -v * y, y]);
  });
  for (let column = 0; column < 8; column++) {
    let pivot = column;
    for (let r = column + 1; r < 8; r++) if (Math.abs(rows[r][column]) > Math.abs(rows[pivot][column])) pivot = r;
    if (Math.abs(rows[pivot][column]) < 1e-9) return null;
    [rows[column], rows[pivot]] = [rows[pivot], rows[column]];
    for (let r = 0; r < 8; r++) {
      if (r === column) continue;
      const factor = rows[r][column] / rows[column][column];
      for (let c = column; c < 9; c++) rows[r][c] -= factor * rows[column][c];
    }
  }
  const h = rows.map((row, i) => row[8] / row[i]);
  return (u, v) => {
    const w = h[6] * u + h[7] * v + 1;
    return [(h[0] * u + h[1] * v + h[2]) / w, (h[3] * u + h[4] * v + h[5]) / w];
  };
};

// The centre of the alignment pattern nearest to `near` (its dark centre module, a light ring and a dark ring, so
// 1:1:1 runs across and down), searched within 4 modules; `null` when there is none.
const findAlignment = (dark, width, height, [nx, ny], module) => {
  const runs = (x, y, dx, dy) => {
    const at = (t) => {
      const px = Math.round(x + dx * t);
      const py = Math.round(y + dy * t);
      return px < 0 || py < 0 || px >= width || py >= height ? -1 : dark[py * width + px];
    };
    let back = 0;
    let forward = 1;
    for (; at(-back) === 1; back++);
    for (; at(forward) === 1; forward++);
    const centre = back + forward - 1;
    let lightBack = 0;
    let lightForward = 0;
    for (; at(-back - lightBack) === 0; lightBack++);
    for (; at(forward + lightForward) === 0; lightForward++);
    const fits = (run) => run > 0.4 * module && run < 1.6 * module + 1;
    if (!fits(centre) || !fits(lightBack) || !fits(lightForward)) return null;
    if (at(-back - lightBack) !== 1 || at(forward + lightForward) !== 1) return null;
    return (forward - back - 1) / 2;
  };
  const reach = Math.ceil(4 * module);
  const step = Math.max(1, Math.floor(module / 3));
  let best = null;
  for (let y = Math.round(ny) - reach; y <= ny + reach; y += step) {
    for (let x = Math.round(nx) - reach; x <= nx + reach; x += step) {
      if (x < 0 || y < 0 || x >= width || y >= height || dark[y * width + x] !== 1) continue;
      const across = runs(x, y, 1, 0);
      if (across === null) continue;
      const down = runs(x + across, y, 0, 1);
      if (down === null) continue;
      const again = runs(x + across, y + down, 1, 0);
      if (again === null) continue;
      const centre = [x + across + again, y + down];
      const distance = Math.hypot(centre[0] - nx, centre[1] - ny);
      if (!best || distance < best.distance) best = { centre, distance };
    }
  }
  return best?.centre ?? null;
};

// Where to look for a symbol's fourth corner, in modules from the affine guess: up to 3 each way, nearest first.
const NUDGES = [];
for (let i = -6; i <= 6; i++) for (let j = -6; j <= 6; j++) if (i || j) NUDGES.push([i / 2, j / 2]);
NUDGES.sort(([a, b], [c, d]) => a * a + b * b - c * c - d * d);

// The symbol's text from the three corners: the version from their distance in modules (and its neighbours), each
// module sampled through the projective map that also puts the bottom-right alignment pattern where it is found
// (versions 2 and up), else through the affine map of the three corners, else (up to version 4) through projective
// maps with the fourth corner nudged.
const decodeAt = (dark, width, height, { topLeft, topRight, bottomLeft, module }) => {
  const across = Math.hypot(topRight.x - topLeft.x, topRight.y - topLeft.y);
  const down = Math.hypot(bottomLeft.x - topLeft.x, bottomLeft.y - topLeft.y);
  const estimate = Math.round(((across + down) / 2 / module + 7 - 17) / 4);
  for (const version of [estimate, estimate - 1, estimate + 1]) {
    if (version < 1 || version > MAX_VERSION) continue;
    const size = 4 * version + 17;
    const corners = [[3.5, 3.5], [size - 3.5, 3.5], [3.5, size - 3.5]];
    const points = [topLeft, topRight, bottomLeft].map(({ x, y }) => [x, y]);
    const affine = (u, v) => {
      const [a, b] = [(u - 3.5) / (size - 7), (v - 3.5) / (size - 7)];
      return [topLeft.x + a * (topRight.x - topLeft.x) + b * (bottomLeft.x - topLeft.x),
        topLeft.y + a * (topRight.y - topLeft.y) + b * (bottomLeft.y - topLeft.y)];
    };
    const maps = [];
    if (version >= 2) {
      const alignment = findAlignment(dark, width, height, affine(size - 6.5, size - 6.5), module);
      const map = alignment && perspective([...corners, [size - 6.5, size - 6.5]], [...points, alignment]);
      if (map) maps.push(map);
    }
    maps.push(affine);
    if (version <= 4) {
      // No alignment pattern to go by (version 1, or not found): the fourth corner is looked for around where the
      // affine map puts it, nearest first; Reed–Solomon tells a right grid from a wrong one.
      const [bx, by] = affine(size - 3.5, size - 3.5);
      for (const [i, j] of NUDGES) {
        const map = perspective([...corners, [size - 3.5, size - 3.5]], [...points, [bx + i * module, by + j * module]]);
        if (map) maps.push(map);
      }
    }
    for (const map of maps) {
      const sample = (x, y) => {
        const [px, py] = map(x + 0.5, y + 0.5).map(Math.round);
        return px >= 0 && py >= 0 && px < width && py < height && dark[py * width + px] === 1;
      };
      const text = decodeModules(sample, version);
      if (text !== null) return text;
    }
  }
  return null;
};

// The text of the QR code in an image's pixels (`ImageData` or { data, width, height } of RGBA bytes), or `null`
// when none can be read.
export const readQRCode = (image) => {
  for (const local of [false, true]) {
    const dark = binarise(image, local);
    for (const corners of chooseCorners(findFinders(dark, image.width, image.height))) {
      const text = decodeAt(dark, image.width, image.height, corners);
      if (text !== null) return text;
    }
  }
  return null;
};
