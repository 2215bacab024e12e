'use strict';
/** Number and table formatting shared by the RESULTS.md sections, and the means and medians they report. */

const fmt = (n, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
const kib = (bytes) => `${fmt(bytes / 1024, 2)} KiB`;
const mib = (bytes) => `${fmt(bytes / 1024 / 1024, 1)} MiB`;
const ratio = (a, b) => `${fmt(a / b, 2)}×`;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** The middle value (the mean of the two middle ones for an even count). */
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A Markdown table, columns padded to their widest cell. */
function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

module.exports = { fmt, kib, mib, ratio, table, mean, median };
