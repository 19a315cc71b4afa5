// Drives the layoutc extension inside a real VS Code (code-server) in
// headless Chromium, as a person would: opens the workspace's .lay file and
// Triton dump, hovers names with the mouse and reads the hover widget, and
// reads the Problems panel (run by vscode-host.sh, which installs the
// extension and starts code-server on URL with the workspace open).
//
//   node vscode-host.js URL DIR
//
// It leaves a screenshot of each step in DIR (hover-lay.png,
// hover-ttgir.png, problems.png); on a failed assertion it takes one of the
// whole window, DIR/failure.png, says so, and exits non-zero.

const { chromium } = require('playwright-core');
const assert = require('assert');
const path = require('path');

const [url, dir] = process.argv.slice(2);
if (!url || !dir) {
  console.error('usage: node vscode-host.js URL DIR');
  process.exit(2);
}
const shot = name => path.join(dir, name);

// The language server starts with the first .lay file, and the workbench
// itself takes a while on 2 cores: every wait is generous, and bounded.
const WAIT = 60000;

/** Polls `probe` (async, returning a value or null) until it gives a value. */
async function until(what, probe, timeout = WAIT) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise(r => setTimeout(r, 500));
  }
}

/** Opens FILE (a name in the workspace) with Quick Open (Ctrl+P), which
 *  searches the folder with ripgrep, and waits for its editor tab. */
async function openFile(page, file) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  await input.fill(file);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first()
    .waitFor({ timeout: WAIT });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: file }).waitFor({ timeout: WAIT });
  await page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: WAIT });
}

/** Puts the cursor at LINE:COLUMN (1-based) with Go to Line (Ctrl+G). */
async function goTo(page, line, column) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await until(`the cursor at ${line}:${column}`, async () => {
    const status = await page.locator('.statusbar-item[id$="status.editor.selection"]').textContent();
    return status && status.includes(`Ln ${line}, Col ${column}`);
  });
}

/** Hovers the character at LINE:COLUMN with the mouse and resolves to the
 *  hover widget's text once it contains every string in EXPECT (with a
 *  screenshot of it in SCREENSHOT). The mouse
 *  goes where the cursor is drawn after Go to Line, so no pixel is guessed;
 *  it moves away and back until the language server (which may still be
 *  starting) answers. */
async function hoverText(page, line, column, expect, screenshot) {
  await goTo(page, line, column);
  const cursor = await page.locator('.monaco-editor.focused .cursors-layer .cursor').first().boundingBox();
  assert.ok(cursor, 'no cursor in the focused editor');
  const x = cursor.x + 4, y = cursor.y + cursor.height / 2;
  let text = '';
  try {
    await until(`a hover at ${line}:${column} showing ${JSON.stringify(expect)}`, async () => {
      await page.mouse.move(x, y + 200);
      await page.mouse.move(x, y);
      const hover = page.locator('.monaco-hover:not(.hidden) .hover-contents');
      try {
        await hover.first().waitFor({ state: 'visible', timeout: 3000 });
      } catch {
        return null;
      }
      text = (await hover.allInnerTexts()).join('\n');
      return expect.every(s => text.includes(s)) ? text : null;
    });
    await page.screenshot({ path: screenshot });
    return text;
  } catch (e) {
    e.message += `\nlast hover text:\n${text || '(none)'}`;
    throw e;
  } finally {
    await page.mouse.move(x, y + 200);
    await page.keyboard.press('Escape');
  }
}

/** Opens the Problems panel (Ctrl+Shift+M) and waits until, for each list
 *  of strings in ROWS, one of its rows contains them all. */
async function problems(page, rows) {
  await page.keyboard.press('Control+Shift+M');
  const panel = page.locator('.markers-panel');
  await panel.waitFor({ state: 'visible', timeout: WAIT });
  let shown = [];
  try {
    await until(`Problems listing ${JSON.stringify(rows)}`, async () => {
      shown = await panel.locator('.monaco-list-row').allInnerTexts();
      return rows.every(want => shown.some(row => want.every(s => row.includes(s))));
    });
    await page.screenshot({ path: shot('problems.png') });
  } catch (e) {
    e.message += `\nProblems:\n${shown.join('\n--\n') || '(empty)'}`;
    throw e;
  }
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(url);
    await page.locator('.monaco-workbench .part.editor').waitFor({ timeout: WAIT });

    // The .lay file: `layout blk` (line 6, the name at column 8) is a
    // blocked layout over 16 x 32; its hover draws who owns each element,
    // the last row ending with thread 127's registers.
    await openFile(page, 'access.lay');
    let text = await hoverText(page, 6, 8, ['blk', 'owner of each element', 'T0:0', 'T127:3'],
      shot('hover-lay.png'));
    console.log('hover on blk: ownership grid (T0:0 .. T127:3)');
    assert.match(text, /^\s*15 \|\s+T120:0\s+T120:1/m, text);

    // The Triton dump: line 61's result type, `tensor<64x64xf16, #blocked>`
    // (its shape at column 79), draws the grid of #blocked over 64 x 64.
    // (The alias `#blocked` alone is bound to no shape, so has no grid.)
    await openFile(page, 'transpose_sm80.ttgir');
    text = await hoverText(page, 61, 79, ['tensor<64x64xf16, #blocked>', 'owner of each element', 'T0:0', 'T127:31'],
      shot('hover-ttgir.png'));
    console.log('hover on tensor<64x64xf16, #blocked> in the dump: ownership grid (T0:0 .. T127:31)');

    // Problems: the dump's convert_layout through shared memory (W0401 at
    // line 61, with Triton's scratch bytes) and the .lay file's failed
    // bank-conflict check (E0401 at line 7: the local_alloc of a column of
    // lanes into unswizzled rows is 32-way conflicted).
    await problems(page, [
      ['this convert_layout goes through shared memory: 8192 scratch bytes', 'W0401', '[Ln 61, Col 5]'],
      ['bank_conflicts(%a) is 31, expected 0', 'E0401', '[Ln 7, Col 7]'],
    ]);
    console.log('problems: W0401 in transpose_sm80.ttgir, E0401 in access.lay');
    console.log('vscode-host: ok');
  } catch (e) {
    await page.screenshot({ path: shot('failure.png') }).catch(() => {});
    console.error(`vscode-host: FAILED; screenshot: ${shot('failure.png')}`);
    throw e;
  } finally {
    await browser.close();
  }
})().catch(e => {
  console.error(e);
  process.exit(1);
});
