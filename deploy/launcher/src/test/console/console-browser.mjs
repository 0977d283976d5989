// The console in a real browser (Debian's Chromium through playwright-core), against a running stack. Driven by
// LauncherIT: it reads one line per request from stdin and writes result lines to stdout:
//   stdout "RESULT <json>"   a finding for the Java side to assert on
//   stdout "NEED <what>"     asks the Java side to write something to the log (an alert, its withdrawal), then
//   stdin  "SENT <id>"       says it did
// Arguments: --api URL --tokens DIR --out DIR (screenshots) --chromium PATH
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) =>
  a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs, []));
const api = args.api.replace(/\/$/, '');
const token = role => readFileSync(`${args.tokens}/${role}.jwt`, 'utf8').trim();
const signIn = role => `${api}/console/#token=${token(role)}`;
const result = obj => console.log('RESULT ' + JSON.stringify(obj));

const stdin = createInterface({ input: process.stdin });
const lines = [];
let waiting = null;
stdin.on('line', line => { if (waiting) { const w = waiting; waiting = null; w(line); } else lines.push(line); });
const ask = what => new Promise(resolve => {
  console.log('NEED ' + what);
  if (lines.length) resolve(lines.shift()); else waiting = resolve;
}).then(line => line.replace(/^SENT /, '').trim());

const browser = await chromium.launch({ executablePath: args.chromium, args: ['--no-sandbox', '--disable-background-networking'] });
const pageErrors = [];
async function newPage(width = 1280, height = 800) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('pageerror', e => pageErrors.push(String(e)));
  page.on('dialog', d => d.accept());
  return page;
}
// Whole pages; the views the README shows also as one 1280×800 screen (readme-*.png).
const shot = (page, name, readme = false) => Promise.all([page.screenshot({ path: `${args.out}/${name}.png`, fullPage: true }),
  readme ? page.screenshot({ path: `${args.out}/readme-${name}.png` }) : null]);
const planted = page => page.evaluate(() => ({ pwned: window.pwned === 1, images: document.querySelectorAll('main img').length }));

try {
  // 1. Each role sees only its views.
  for (const role of ['reviewer', 'ops', 'rules-admin', 'analyst', 'payments']) {
    const page = await newPage();
    await page.goto(signIn(role));
    await page.waitForSelector('#who button');
    await page.waitForFunction(() => !document.querySelector('main')?.textContent.includes('Loading'));
    result({ step: 'nav', role, nav: await page.locator('#nav a').allTextContents(), address: page.url().replace(/token=.*/, 'token=…') });
    await shot(page, `role-${role}`);
    await page.close();
  }

  // 2. An alert arrives live, then its withdrawal marks it; first paint and the size of script and style.
  {
    const page = await newPage();
    await page.goto(signIn('reviewer'));
    await page.goto(`${api}/console/#/live`);
    await page.waitForFunction(() => document.querySelector('#live-status')?.textContent.startsWith('live'));
    const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
    const bytes = await page.evaluate(() => performance.getEntriesByType('resource')
      .filter(r => /\.(js|css)(\?|$)/.test(r.name)).reduce((sum, r) => sum + (r.decodedBodySize || 0), 0)
      + (document.documentElement.outerHTML.length));
    result({ step: 'weight', firstContentfulPaintMs: paint, scriptStyleAndPageBytes: bytes });
    const alertId = await ask('alert');
    await page.waitForSelector(`tr[data-alert="${alertId}"]`, { timeout: 30000 });
    result({ step: 'alert', alertId, row: await page.locator(`tr[data-alert="${alertId}"]`).innerText(), ...(await planted(page)) });
    await shot(page, 'live-alert');
    const withdrawalId = await ask('withdrawal');
    await page.waitForSelector(`tr[data-alert="${withdrawalId}"]`, { timeout: 30000 });
    await page.waitForSelector(`tr[data-alert="${alertId}"].withdrawn`, { timeout: 10000 });
    result({ step: 'withdrawal', withdrawalId, replaced: await page.locator(`tr[data-alert="${alertId}"] .alert-status`).innerText() });
    await shot(page, 'live-withdrawn', true);
    // A payment decided while the view is open: its decision arrives live, and the payment view shows the card's
    // recent activity and takes a review outcome.
    const tx = await ask('payment');
    const decisionRow = page.locator(`#decisions tr[data-transaction="${tx}"]`);
    await decisionRow.waitFor({ timeout: 30000 });
    result({ step: 'decision', tx, row: await decisionRow.innerText() });
    await page.locator('#decisions').scrollIntoViewIfNeeded();
    await shot(page, 'live-decision', true);
    await decisionRow.locator('a').click();
    await page.waitForSelector('#card-activity tbody tr');
    const activity = await page.locator('#card-activity').innerText();
    await page.selectOption('#review-outcome', 'LEGITIMATE');
    await page.fill('#review-note', 'Called the cardholder <b>ok</b>');
    await page.click('#review-save');
    await page.waitForSelector('#review-result p, #review-result .problem');
    result({ step: 'review', tx, activity, recorded: await page.locator('#review-result').innerText(), address: page.url().replace(/^.*#/, '#') });
    await shot(page, 'payment-review', true);
    await page.close();
  }

  // 2b. The api out of the browser's reach (the browser offline): the live view says so and keeps retrying; a payment
  // decided meanwhile is listed once the api answers again, re-read from GET /v1/decisions (a stream has no replay).
  {
    const page = await newPage();
    await page.goto(signIn('reviewer'));
    await page.waitForSelector('#who button');
    await page.goto(`${api}/console/#/parcels`); // not the live view: its streams open only once offline
    await page.waitForFunction(() => location.hash.startsWith('#/parcels') && !document.querySelector('main')?.textContent.includes('Loading'));
    await page.context().setOffline(true);
    await page.goto(`${api}/console/#/live`);
    await page.waitForFunction(() => /did not answer/.test(document.getElementById('banner')?.textContent ?? ''), null, { timeout: 30000 });
    const down = await page.locator('#banner').innerText();
    await shot(page, 'live-api-down');
    const tx = await ask('payment-offline');
    await page.context().setOffline(false);
    const row = page.locator(`#decisions tr[data-transaction="${tx}"]`);
    await row.waitFor({ timeout: 60000 });
    await page.waitForFunction(() => ['#decision-status', '#live-status'].every(id => document.querySelector(id)?.textContent.startsWith('live')),
      null, { timeout: 60000 });
    result({ step: 'offline', tx, banner: down, row: await row.innerText(), bannerAfter: await page.locator('#banner').innerText() });
    await page.close();
  }

  // 3. A parcel now and as of an earlier instant; markup in a parcel id stays text.
  {
    const page = await newPage();
    await page.goto(signIn('ops'));
    await page.goto(`${api}/console/#/parcels/P-1042`);
    await page.waitForSelector('#freshness');
    const now = await page.locator('main dl.kv').first().innerText();
    const firstScan = await page.locator('main tbody tr td').first().innerText();
    await shot(page, 'parcel-now');
    // One second after the first scan: the parcel as it was then.
    const asOf = new Date(Date.parse(firstScan) + 1000).toISOString().slice(0, 19);
    await page.fill('#as-of', asOf);
    await page.click('form.inline button[type=submit]');
    await page.waitForFunction(want => location.hash.includes('asOf=') && document.querySelector('main p')?.textContent.startsWith('As of'), asOf);
    await page.waitForSelector('#freshness');
    const then = await page.locator('main dl.kv').first().innerText();
    result({ step: 'parcel', now, then, address: page.url() });
    await shot(page, 'parcel-as-of', true);
    await page.goto(`${api}/console/#/parcels/${encodeURIComponent('<img src=x onerror="window.pwned=1">')}`);
    await page.waitForSelector('.problem');
    result({ step: 'markup-id', problem: await page.locator('.problem').innerText(), ...(await planted(page)) });
    await page.close();
  }

  // 4. rules-admin publishes a new version (markup in its description), and a refused change shows the problem.
  {
    const page = await newPage();
    await page.goto(signIn('rules-admin'));
    await page.goto(`${api}/console/#/rules/large-amount-review`);
    await page.waitForSelector('#rule-json');
    const before = JSON.parse(await page.inputValue('#rule-json'));
    const changed = { ...before, description: 'Held for review <img src=x onerror="window.pwned=1"> from 1,000' };
    await page.fill('#rule-json', JSON.stringify(changed, null, 2));
    await page.click('#rule-save');
    await page.waitForSelector('#rule-result p');
    const published = await page.locator('#rule-result').innerText();
    // The new version reaches the api's rules store through the rules topic: look again until it shows.
    let row = '';
    for (let attempt = 0; attempt < 60 && !row.includes('Held for review'); attempt++) {
      if (attempt > 0) await page.waitForTimeout(500);
      await page.goto(`${api}/console/#/rules?look=${attempt}`);
      await page.waitForFunction(() => [...document.querySelectorAll('main tbody tr')].some(r => r.textContent.includes('large-amount-review')));
      row = await page.locator('main tbody tr', { hasText: 'large-amount-review' }).innerText();
    }
    result({ step: 'rule', published, row, ...(await planted(page)) });
    await shot(page, 'rules-new-version');
    // Its versions, who changed each (from audit.events), and the diff of the last two.
    await page.goto(`${api}/console/#/rules/large-amount-review`);
    await page.waitForSelector('#rule-versions tbody tr');
    const newest = (published.match(/ v(\d+)\./) ?? [])[1];
    // The version is listed once the rule topic has it, and who published it once audit.events is folded too.
    const listedWithWho = async () => {
      const row = page.locator(`#rule-versions tr[data-version="${newest}"]`);
      return (await row.count()) > 0 && !(await row.innerText()).includes('not in the audit trail');
    };
    for (let attempt = 0; attempt < 60 && !(await listedWithWho()); attempt++) {
      await page.waitForTimeout(500);
      await page.goto(`${api}/console/#/rules/large-amount-review?look=${attempt}`);
      await page.waitForSelector('#rule-versions tbody tr');
    }
    result({ step: 'versions', newest, who: await page.locator('#who span').innerText(),
             row: await page.locator(`#rule-versions tr[data-version="${newest}"]`).innerText(),
             diff: await page.locator('#rule-diff').innerText(),
             changed: await page.$$eval('#rule-diff tr.changed td:first-child', cells => cells.map(c => c.textContent)) });
    await page.locator('#rule-versions').scrollIntoViewIfNeeded();
    await shot(page, 'rules-versions', true);
    await page.goto(`${api}/console/#/rules/large-amount-review`);
    await page.waitForSelector('#rule-json');
    await page.fill('#rule-json', JSON.stringify({ ...changed, bogus: 1 }));
    await page.click('#rule-save');
    await page.waitForSelector('#rule-result .problem');
    result({ step: 'refused', problem: await page.locator('#rule-result .problem').innerText() });
    await shot(page, 'rules-refused');
    // Two editors on one version: the second to publish is refused (409), not allowed to overwrite the first unseen.
    await page.goto(`${api}/console/#/rules/large-amount-review?editor=a`);
    await page.waitForSelector('#rule-json');
    const opened = await page.locator('#rule-versions tr', { hasText: '(in force)' }).first().innerText();
    const other = await newPage();
    await other.goto(signIn('rules-admin'));
    await other.goto(`${api}/console/#/rules/large-amount-review`);
    await other.waitForSelector('#rule-json');
    await other.fill('#rule-json', JSON.stringify({ ...changed, description: 'Held for review from 1,000 (second editor)' }, null, 2));
    await other.click('#rule-save');
    await other.waitForSelector('#rule-result p');
    const first = await other.locator('#rule-result').innerText();
    // Until the api's rules store has the other editor's version: before that, it cannot tell the two apart.
    for (let attempt = 0; attempt < 60; attempt++) {
      await other.goto(`${api}/console/#/rules?look=b${attempt}`);
      await other.waitForFunction(() => [...document.querySelectorAll('main tbody tr')].some(r => r.textContent.includes('large-amount-review')));
      if ((await other.locator('main tbody tr', { hasText: 'large-amount-review' }).innerText()).includes('second editor')) break;
      await other.waitForTimeout(500);
    }
    await other.close();
    await page.fill('#rule-json', JSON.stringify({ ...changed, description: 'Held for review from 1,000 (first editor, late)' }, null, 2));
    await page.click('#rule-save');
    await page.waitForSelector('#rule-result .problem, #rule-result p');
    result({ step: 'conflict', opened, first, problem: await page.locator('#rule-result').innerText() });
    await shot(page, 'rules-conflict');
    await page.close();
  }

  // 5. Health (ops): every component's state and the checks inside them, from GET /v1/status.
  {
    const page = await newPage();
    await page.goto(signIn('ops'));
    await page.goto(`${api}/console/#/health`);
    await page.waitForSelector('tr[data-component="api"]');
    await page.waitForSelector('#checks tr');
    const components = await page.$$eval('#components tr', rows => rows.map(r => [...r.cells].slice(0, 4).map(c => c.textContent)));
    const checks = await page.$$eval('#checks tr', rows => rows.map(r => [...r.cells].map(c => c.textContent)));
    await page.waitForSelector('#lag tr');
    const lag = await page.$$eval('#lag tr', rows => rows.map(r => [...r.cells].map(c => c.textContent)));
    const lake = await page.$$eval('#lake tr', rows => rows.map(r => [...r.cells].map(c => c.textContent)));
    result({ step: 'health', summary: await page.locator('#health-summary').innerText(), components, checks, lag, lake,
             freshness: await page.locator('#freshness-detail').innerText(), maintenance: await page.locator('#maintenance').innerText() });
    await page.locator('#lag').scrollIntoViewIfNeeded();
    await shot(page, 'health', true);
    // The last rebuilds and drills, as their records say.
    const file = await ask('run');
    await page.goto(`${api}/console/#/runs`);
    await page.waitForSelector(`tr[data-run="${file}"]`);
    result({ step: 'runs', file, row: await page.locator(`tr[data-run="${file}"]`).innerText(), ...(await planted(page)) });
    await shot(page, 'runs');
    await page.close();
  }

  // 5b. Snapshot SQL (analyst): the answer with the Iceberg snapshot and Kafka offsets it was read at.
  {
    const page = await newPage();
    await page.goto(signIn('analyst'));
    await page.waitForSelector('#sql');
    await page.fill('#sql', 'SELECT outcome, COUNT(*) AS decisions FROM lake.streamhouse.payments_transactions_decisions GROUP BY outcome');
    const [answer] = await Promise.all([page.waitForResponse(r => r.url().endsWith('/v1/sql'), { timeout: 60000 }),
      page.click('form button[type=submit]')]);
    // The snapshot id as the api wrote it (a 64-bit number: more digits than a JavaScript number holds exactly).
    const snapshotId = ((await answer.text()).match(/"snapshotId"\s*:\s*"?(-?\d+)/) ?? [])[1] ?? null;
    await page.waitForSelector('#sql-read-at, #sql-result .problem', { timeout: 60000 });
    result({ step: 'sql', snapshotId, readAt: await page.locator('#sql-result').innerText(), address: page.url().replace(/^.*#/, '#') });
    await shot(page, 'sql');
    await page.close();
  }

  // 6. Keyboard only. A view takes the focus when it opens; from there Shift+Tab back to the Parcels link, Enter,
  //    Tab to the id, type, Enter; Shift+Tab back to the skip link, Enter, and Tab lands in the view again. Every
  //    element that takes the focus on the way shows it (an outline).
  {
    const page = await newPage();
    await page.goto(signIn('reviewer'));
    await page.waitForSelector('#live-status');
    const focused = () => page.evaluate(() => {
      const a = document.activeElement;
      const style = getComputedStyle(a);
      return { tag: a.tagName.toLowerCase(), id: a.id || null, text: (a.textContent || a.getAttribute('aria-label') || '').trim().slice(0, 40),
               outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0, inView: !!a.closest('main') };
    });
    const walk = [];
    const press = async (key, pred, most = 40) => {
      for (let i = 0; i < most; i++) {
        await page.keyboard.press(key);
        const f = await focused();
        walk.push(f);
        if (pred(f)) return f;
      }
      return null;
    };
    const startsIn = (await focused()).id;
    const parcels = await press('Shift+Tab', f => f.tag === 'a' && f.text === 'Parcels');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#/parcels' && document.querySelector('#parcel-id'));
    const idField = await press('Tab', f => f.id === 'parcel-id');
    await page.keyboard.type('P-1042');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#freshness');
    const state = await page.locator('main dl.kv').first().innerText();
    const skip = await press('Shift+Tab', f => f.id === 'skip');
    await page.keyboard.press('Enter');
    const afterSkip = (await focused()).id;
    await page.keyboard.press('Tab');
    const intoView = await focused();
    result({ step: 'keyboard', startsIn, reachedParcels: !!parcels, reachedId: !!idField, skip: !!skip, afterSkip,
             nextAfterSkip: intoView, address: page.url().replace(/^.*#/, '#'), state,
             withoutOutline: walk.filter(f => !f.outline).map(f => f.tag + (f.id ? '#' + f.id : '') + ' ' + f.text), tabs: walk.length });
    await shot(page, 'keyboard-parcel');
    await page.close();
  }

  // 7. Phone width.
  {
    const page = await newPage(390, 844);
    await page.goto(signIn('reviewer'));
    await page.goto(`${api}/console/#/parcels/P-1042`);
    await page.waitForSelector('#freshness');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    result({ step: 'phone', horizontalOverflowPx: overflow });
    await shot(page, 'phone-parcel');
    await page.close();
  }
  result({ step: 'done', pageErrors });
} finally {
  await browser.close();
  stdin.close();
}
