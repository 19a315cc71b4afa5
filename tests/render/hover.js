// Hovers cells of layoutc's HTML pictures in headless Chromium and checks
// the details panel shows each cell's coordinates, owner and bank, as the
// layouts say they are (run by run-browser.sh, which renders the pages).
//
//   node hover.js ACCESS.html LAYOUT.html

const { chromium } = require('playwright-core');
const assert = require('assert');

const [accessPage, layoutPage] = process.argv.slice(2);
if (!accessPage || !layoutPage) {
  console.error('usage: node hover.js ACCESS.html LAYOUT.html');
  process.exit(2);
}

const cell = (panel, row, col) =>
  `g.panel[data-panel="${panel}"] g.cell[data-row="${row}"][data-col="${col}"]`;

// The details panel after hovering a cell, as {key: value}.
async function hover(page, selector) {
  await page.hover(selector);
  await page.waitForFunction(
    ([r, c]) => {
      const d = document.getElementById('details');
      return d.dataset.row === r && d.dataset.col === c;
    },
    selector.match(/data-row="(\d+)"\]\[data-col="(\d+)"/).slice(1),
  );
  return page.$$eval('#details dd', dds =>
    Object.fromEntries(dds.map(dd => [dd.dataset.key, dd.textContent])));
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();

    // A column of 32 lanes stored into row-major f32 rows (layoutc's
    // conflict fixture): element (r, c) is at offset 32 r + c, bank c.
    await page.goto('file://' + require('path').resolve(accessPage));
    let d = await hover(page, cell(1, 5, 1));
    assert.strictEqual(d.coordinates, '(5, 1)');
    assert.strictEqual(d.owner, 'T37:R0 (lane 5, warp 1, register 0)');
    assert.strictEqual(d.bank, '1');
    assert.strictEqual(d.offset, '161');
    d = await hover(page, cell(1, 3, 4));
    assert.strictEqual(d.coordinates, '(3, 4)');
    assert.strictEqual(d.owner, 'T3:R1 (lane 3, warp 0, register 1)');
    assert.strictEqual(d.bank, '4');
    assert.strictEqual(d['wavefront group'], 'instruction 1, phase 0');
    // The heatmap: store 2 asks bank 8 for 32 words, one per lane.
    d = await hover(page, cell(0, 2, 8));
    assert.strictEqual(d.bank, '8');
    assert.strictEqual(d.words, '32');
    assert.strictEqual(d.lanes.split(', ').length, 32);
    d = await hover(page, cell(0, 2, 9));
    assert.strictEqual(d.words, '0');

    // A blocked layout: sizePerThread [1, 4], threadsPerWarp [4, 8],
    // warpsPerCTA [4, 1] over 16 x 32: (r, c) is held by lane 8 (r % 4) +
    // c / 4 of warp r / 4, register c % 4.
    await page.goto('file://' + require('path').resolve(layoutPage));
    for (const [r, c] of [[0, 0], [6, 13], [15, 31]]) {
      d = await hover(page, cell(0, r, c));
      const lane = 8 * (r % 4) + Math.floor(c / 4);
      const warp = Math.floor(r / 4);
      assert.strictEqual(d.coordinates, `(${r}, ${c})`);
      assert.strictEqual(d.owner,
        `T${lane + 32 * warp}:R${c % 4} (lane ${lane}, warp ${warp}, register ${c % 4})`);
    }
    // In half an editor's width the drawing fits its panel, scaled down,
    // and its cells still answer.
    await page.setViewportSize({ width: 560, height: 800 });
    const fit = await page.evaluate(() => {
      const svg = document.querySelector('#picture svg');
      const page = document.documentElement;
      return { svg: svg.getBoundingClientRect().width, page: page.clientWidth, scroll: page.scrollWidth };
    });
    assert.ok(fit.svg <= fit.page && fit.scroll <= fit.page, JSON.stringify(fit));
    d = await hover(page, cell(0, 6, 13));
    assert.strictEqual(d.coordinates, '(6, 13)');
    console.log('hover: ok (8 cells in 2 pages, and at 560 pixels wide)');
  } finally {
    await browser.close();
  }
})().catch(e => {
  console.error(e);
  process.exit(1);
});
