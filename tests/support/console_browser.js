// The console in a real browser: Debian's chromium, headless, driven by
// puppeteer-core (installed by `make deps` into build-deps/). Run by
// tests/console/browser_test.cc against a console whose database a real
// fleet worked on:
//
//   node console_browser.js BASE_URL IDS_JSON SCREENSHOT
//
// IDS_JSON names the jobs and the snapshot the fleet left ({"sleeping",
// "failed", "hostile", "snapshot"}). It loads every page, finds the rows
// it expects, follows links from the overview to a job and back, and saves
// a screenshot of the overview. It fails (exit 1, the reasons on stderr)
// on any console error, any request to an origin other than BASE_URL's,
// any page that is not 200, and any expectation not met.
'use strict';

const path = require('path');

const [base, idsJson, screenshot] = process.argv.slice(2);
if (!base || !idsJson || !screenshot) {
  console.error('usage: node console_browser.js BASE_URL IDS_JSON SCREENSHOT');
  process.exit(2);
}
const ids = JSON.parse(idsJson);
const origin = new URL(base).origin;
const modules = process.env.AWC_NODE_MODULES ||
    path.join(__dirname, '..', '..', 'build-deps', 'node_modules');
const puppeteer = require(path.join(modules, 'puppeteer-core'));

const problems = [];
function expect(ok, what) {
  if (!ok) problems.push(what);
}

async function texts(page, selector) {
  return page.$$eval(selector, (els) => els.map((e) => e.textContent.trim()));
}

// Goes to `target` and checks the answer and the page's basics.
async function visit(page, target, title) {
  const response = await page.goto(origin + target, {waitUntil: 'load'});
  expect(response && response.status() === 200,
         `${target}: status ${response && response.status()}`);
  const h1 = await page.$eval('h1', (e) => e.textContent);
  expect(h1 === title, `${target}: title "${h1}", not "${title}"`);
  const scripts = await page.evaluate(() => document.scripts.length);
  expect(scripts === 0, `${target}: ${scripts} script elements`);
}

// The text of column `col` (0-based) of the rows of the table under the
// heading `heading` (or of the page's first table when null).
async function column(page, heading, col) {
  return page.evaluate((heading, col) => {
    let table = document.querySelector('table');
    if (heading !== null) {
      const h = [...document.querySelectorAll('h2')].find(
          (e) => e.textContent === heading);
      table = null;
      for (let n = h && h.nextElementSibling; n; n = n.nextElementSibling) {
        if (n.tagName === 'TABLE') { table = n; break; }
        if (n.tagName === 'H2') break;
      }
    }
    if (!table) return null;
    return [...table.querySelectorAll('tbody tr')].map(
        (tr) => tr.children[col].textContent.trim());
  }, heading, col);
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: process.env.AWC_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',  // the tests may run as root
      '--disable-gpu',
      '--disable-dev-shm-usage',
      // No name resolves but the console's: the browser cannot reach out.
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    ],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({width: 1400, height: 900});
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(origin + '/') && url !== origin) {
        problems.push(`request to another origin: ${url}`);
      }
    });
    page.on('requestfailed', (req) => {
      problems.push(`request failed: ${req.url()} ${req.failure().errorText}`);
    });

    // The overview: the queue, dead letters, workers, catalog, GC.
    await visit(page, '/', 'Overview');
    // A paused kind (browser_test.cc pauses test_fail) is marked in the
    // queue and listed above it with its reason.
    const marked = await column(page, 'Queue by kind', 0);
    expect(marked && marked.includes('test_fail paused'),
           `overview: test_fail not marked paused ${JSON.stringify(marked)}`);
    const pausedKinds = await column(page, 'Paused kinds', 0);
    expect(JSON.stringify(pausedKinds) === JSON.stringify(['test_fail paused']),
           `overview: paused kinds ${JSON.stringify(pausedKinds)}`);
    const pausedWhy = await column(page, 'Paused kinds', 3);
    expect(JSON.stringify(pausedWhy) === JSON.stringify(['poison']),
           `overview: paused kinds' reasons ${JSON.stringify(pausedWhy)}`);
    const kinds = (marked || []).map((k) => k.replace(/ paused$/, ''));
    for (const kind of ['test_complete', 'gc_sweep', 'snapshot_validate',
                        'test_sleep', 'test_fail',
                        '<script>alert(1)</script>']) {
      expect(kinds && kinds.includes(kind), `overview: no queue row ${kind}`);
    }
    const reasons = await column(page, 'Dead letters by reason', 0);
    expect(JSON.stringify(reasons) ===
               JSON.stringify(['handler_failed', 'unknown_kind']),
           `overview: dead letter reasons ${JSON.stringify(reasons)}`);
    const workers = await column(page, 'Workers by host', 4);
    expect(workers && workers.length === 2 && workers.includes('busy'),
           `overview: workers ${JSON.stringify(workers)}`);
    const tenants = await column(page, 'Last GC epoch per tenant', 0);
    expect(tenants && tenants.includes('acme'),
           `overview: GC tenants ${JSON.stringify(tenants)}`);
    await page.screenshot({path: screenshot, fullPage: true});

    // Overview -> the busy worker's job -> back.
    await Promise.all([
      page.waitForNavigation({waitUntil: 'load'}),
      page.click(`a[href="/jobs/${ids.sleeping}"]`),
    ]);
    let h1 = await page.$eval('h1', (e) => e.textContent);
    expect(h1 === `Job ${ids.sleeping}`, `job link led to "${h1}"`);
    const state = await page.$eval('dl.rec .st', (e) => e.textContent);
    expect(state === 'RUNNING', `sleeping job is ${state}`);
    await page.goBack({waitUntil: 'load'});
    h1 = await page.$eval('h1', (e) => e.textContent);
    expect(h1 === 'Overview', `back from the job led to "${h1}"`);

    // Overview -> a kind's jobs -> its newest job -> back, back.
    await Promise.all([
      page.waitForNavigation({waitUntil: 'load'}),
      page.click('a[href="/jobs?kind=test_fail"]'),
    ]);
    const listed = await column(page, null, 0);
    expect(JSON.stringify(listed) === JSON.stringify([`#${ids.failed}`]),
           `test_fail jobs ${JSON.stringify(listed)}`);
    await Promise.all([
      page.waitForNavigation({waitUntil: 'load'}),
      page.click(`a[href="/jobs/${ids.failed}"]`),
    ]);
    const error = await page.$eval('dl.rec pre', (e) => e.textContent);
    expect(error === 'TEST-ERROR-TEXT permanent', `last error "${error}"`);
    await page.goBack({waitUntil: 'load'});
    await page.goBack({waitUntil: 'load'});
    h1 = await page.$eval('h1', (e) => e.textContent);
    expect(h1 === 'Overview', `two steps back led to "${h1}"`);

    // The other pages and their rows.
    await visit(page, '/jobs?state=FAILED', 'Jobs');
    const failed = await column(page, null, 2);
    expect(JSON.stringify(failed) === JSON.stringify(['FAILED', 'FAILED']),
           `failed jobs ${JSON.stringify(failed)}`);
    await visit(page, `/jobs/${ids.hostile}`, `Job ${ids.hostile}`);
    const kind = await page.$eval('dl.rec dd a', (e) => e.textContent);
    expect(kind === '<script>alert(1)</script>', `hostile kind "${kind}"`);
    await visit(page, '/dead', 'Dead letters');
    const dead = await column(page, 'Newest dead letters', 0);
    expect(dead && dead.length === 2, `dead letters ${JSON.stringify(dead)}`);
    await visit(page, '/snapshots?state=FAILED', 'Snapshots');
    const codes = await column(page, null, 11);
    expect(JSON.stringify(codes) === JSON.stringify(['missing_object']),
           `snapshot failures ${JSON.stringify(codes)}`);
    await visit(page, `/snapshots/${ids.snapshot}`, `Snapshot ${ids.snapshot}`);
    const history = await column(page, 'History (validation, scrubs, release)',
                                 0);
    expect(JSON.stringify(history) === JSON.stringify(['snapshot.validate']),
           `snapshot history ${JSON.stringify(history)}`);
    await visit(page, '/gc', 'Garbage collection');
    const epochs = await column(page, 'Epochs', 2);
    expect(epochs && epochs.length === 1 && epochs[0] === 'COMPLETED',
           `GC epochs ${JSON.stringify(epochs)}`);
    await visit(page, '/audit', 'Audit trail');
    const events = await column(page, null, 3);
    expect(events && events.includes('gc.epoch') &&
               events.includes('snapshot.validate'),
           `audit events ${JSON.stringify(events)}`);
    // Auto-refresh is a link, not a script.
    await visit(page, '/?refresh=60', 'Overview');
    const refresh = await page.$eval('meta[http-equiv="refresh"]',
                                     (e) => e.content);
    expect(refresh === '60', `refresh ${refresh}`);
  } finally {
    await browser.close();
  }
}

main().then(() => {
  if (problems.length > 0) {
    for (const p of problems) console.error(`console_browser: ${p}`);
    process.exit(1);
  }
  console.log('console_browser: every page as expected');
}, (err) => {
  console.error(`console_browser: ${err.stack || err}`);
  process.exit(1);
});
